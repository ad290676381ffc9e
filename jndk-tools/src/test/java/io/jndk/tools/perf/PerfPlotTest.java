package io.jndk.tools.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The {@code --plot} chart, drawn from made-up rows and read back as XML. */
public class PerfPlotTest {
    /** Every series of an SVG chart as {@code chart/op/points}. */
    public static List<String> series(Path svg) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        Document doc = f.newDocumentBuilder().parse(svg.toFile());
        assertThat(doc.getDocumentElement().getLocalName()).isEqualTo("svg");
        NodeList groups = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "g");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < groups.getLength(); i++) {
            Element g = (Element) groups.item(i);
            if (!g.getAttribute("class").equals("series")) {
                continue;
            }
            NodeList lines = g.getElementsByTagNameNS("http://www.w3.org/2000/svg", "polyline");
            assertThat(lines.getLength()).isEqualTo(1);
            String points = ((Element) lines.item(0)).getAttribute("points").trim();
            int n = points.isEmpty() ? 0 : points.split(" ").length;
            assertThat(g.getElementsByTagNameNS("http://www.w3.org/2000/svg", "circle").getLength()).isEqualTo(n);
            out.add(g.getAttribute("data-chart") + "/" + g.getAttribute("data-op") + "/" + n);
        }
        return out;
    }

    static PerfFormat.Row row(int size, String op, double gbits, double p50) {
        return new PerfFormat.Row(size, op, "bw", 100, 1, gbits, 1, p50, p50 * 2, p50 * 3, p50 * 4, false, true, Double.NaN, Double.NaN, java.util.Map.of());
    }

    @Test
    void bothChartsHoldOneSeriesPerOperationWithAPointPerSize(@TempDir Path dir) throws Exception {
        List<PerfFormat.Row> rows = new ArrayList<>();
        for (int s = 2; s <= 1 << 20; s *= 4) {
            rows.add(row(s, "write", s / 1000.0, 1 + s / 5000.0));
            rows.add(row(s, "read", s / 2000.0, 2 + s / 5000.0));
        }
        Path svg = dir.resolve("chart.svg");
        PerfPlot.write(svg, rows, "test & <title>");
        assertThat(series(svg)).containsExactly("bandwidth/write/10", "bandwidth/read/10", "latency/write/10",
                "latency/read/10");
    }

    @Test
    void aSingleSizeAndZeroLatencyStillDraw(@TempDir Path dir) throws Exception {
        Path svg = dir.resolve("one.svg");
        PerfPlot.write(svg, List.of(row(8, "send", 0, 0)), "one");
        assertThat(series(svg)).containsExactly("bandwidth/send/1", "latency/send/0");
    }

    @Test
    void onlySvgAndPngAreKnown() {
        assertThatThrownBy(() -> PerfPlot.Kind.of(Path.of("chart.jpg"))).hasMessageContaining(".svg or .png");
        assertThat(PerfPlot.Kind.of(Path.of("A.SVG"))).isEqualTo(PerfPlot.Kind.SVG);
    }
}
