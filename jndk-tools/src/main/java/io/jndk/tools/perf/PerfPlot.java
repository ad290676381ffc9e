package io.jndk.tools.perf;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.geom.Path2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * {@code jndk perf --plot}: two stacked charts against message size (log2 axis), bandwidth in Gbit/s above and p50
 * latency in microseconds (log10 axis) below, one line per operation. Drawn once onto a {@link Canvas} that is
 * either SVG text or a PNG image (java.awt, headless).
 *
 * <p>In the SVG every line is a {@code <g class="series" data-chart="bandwidth|latency" data-op="...">} holding one
 * {@code <polyline>} and a circle per point, so the file can be checked as XML.
 */
public final class PerfPlot {
    private PerfPlot() {}

    /** The file kinds, by extension. */
    enum Kind {
        SVG, PNG;

        static Kind of(Path file) {
            String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
            if (name.endsWith(".svg")) {
                return SVG;
            }
            if (name.endsWith(".png")) {
                return PNG;
            }
            throw new IllegalArgumentException("--plot " + file + ": the file name must end in .svg or .png");
        }
    }

    /** The chart's size in pixels. */
    public static final int WIDTH = 900, HEIGHT = 820;
    private static final int LEFT = 80, RIGHT = 150, TOP = 80, PANEL = 290, GAP = 100;
    private static final Map<String, String> COLORS = Map.of("write", "#1f77b4", "read", "#d62728", "send", "#2ca02c");

    /** What the charts are drawn on: coordinates in pixels, colours as {@code #rrggbb}. */
    interface Canvas {
        void line(double x1, double y1, double x2, double y2, String color, double width);

        /** Opens a group of one series; {@link #endSeries} closes it. */
        void beginSeries(String chart, String op);

        void endSeries();

        void polyline(double[] xs, double[] ys, String color);

        void dot(double x, double y, String color);

        /** Text; {@code anchor} is start, middle or end; {@code vertical} turns it a quarter left. */
        void text(double x, double y, String text, int size, String anchor, boolean vertical);
    }

    /** Draws {@code rows} into {@code file} (SVG or PNG by its extension). */
    static void write(Path file, List<PerfFormat.Row> rows, String title) throws IOException {
        Kind kind = Kind.of(file);
        if (kind == Kind.SVG) {
            Svg svg = new Svg();
            draw(svg, rows, title);
            Files.writeString(file, svg.finish(), StandardCharsets.UTF_8);
        } else {
            System.setProperty("java.awt.headless", "true");
            BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
            Graphics2D g = img.createGraphics();
            try {
                g.setColor(Color.WHITE);
                g.fillRect(0, 0, WIDTH, HEIGHT);
                g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
                g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
                draw(new Awt(g), rows, title);
            } finally {
                g.dispose();
            }
            if (!ImageIO.write(img, "png", file.toFile())) {
                throw new IOException("no PNG writer");
            }
        }
    }

    /** Lays out both charts. */
    static void draw(Canvas c, List<PerfFormat.Row> rows, String title) {
        c.text(WIDTH / 2.0, 30, title, 18, "middle", false);
        Map<String, List<PerfFormat.Row>> byOp = new LinkedHashMap<>();
        for (PerfFormat.Row r : rows) {
            byOp.computeIfAbsent(r.op(), k -> new ArrayList<>()).add(r);
        }
        int minSize = rows.stream().mapToInt(PerfFormat.Row::size).min().orElse(1);
        int maxSize = rows.stream().mapToInt(PerfFormat.Row::size).max().orElse(1);
        Axis x = new Axis(log2(minSize), Math.max(log2(maxSize), log2(minSize) + 1), LEFT, WIDTH - RIGHT);
        double maxBw = rows.stream().mapToDouble(PerfFormat.Row::gbitsPerSec).max().orElse(1);
        Axis bw = new Axis(0, niceCeiling(maxBw), TOP + PANEL, TOP);
        panel(c, "bandwidth", "Bandwidth", "Gbit/s", x, bw, false, byOp, PerfFormat.Row::gbitsPerSec);
        double minLat = rows.stream().mapToDouble(PerfFormat.Row::p50us).filter(v -> v > 0).min().orElse(1);
        double maxLat = rows.stream().mapToDouble(PerfFormat.Row::p50us).max().orElse(1);
        double lo = Math.floor(Math.log10(minLat)), hi = Math.max(Math.ceil(Math.log10(maxLat)), lo + 1);
        int top = TOP + PANEL + GAP;
        Axis lat = new Axis(lo, hi, top + PANEL, top);
        panel(c, "latency", "Latency, median", "p50 [us]", x, lat, true, byOp, PerfFormat.Row::p50us);
        c.text((LEFT + WIDTH - RIGHT) / 2.0, HEIGHT - 12, "message size [bytes]", 13, "middle", false);
    }

    private static void panel(Canvas c, String chart, String heading, String unit, Axis x, Axis y, boolean logY,
            Map<String, List<PerfFormat.Row>> byOp, java.util.function.ToDoubleFunction<PerfFormat.Row> value) {
        double top = y.toPx(y.max), bottom = y.toPx(y.min);
        c.text(x.from, top - 14, heading, 14, "start", false);
        int steps = logY ? (int) (y.max - y.min) : 5;
        for (int i = 0; i <= steps; i++) {
            double v = y.min + (y.max - y.min) * i / steps;
            double py = y.toPx(v);
            c.line(x.from, py, x.to, py, i == 0 ? "#333333" : "#dddddd", 1);
            c.text(x.from - 8, py + 4, logY ? number(Math.pow(10, v)) : number(v), 11, "end", false);
        }
        int every = (int) Math.ceil((x.max - x.min + 1) / 12);
        for (int e = (int) x.min; e <= x.max; e++) {
            double px = x.toPx(e);
            c.line(px, bottom, px, bottom + 4, "#333333", 1);
            if ((e - (int) x.min) % every == 0) {
                c.text(px, bottom + 18, size(1L << e), 11, "middle", false);
            }
        }
        c.line(x.from, top, x.from, bottom, "#333333", 1);
        c.text(x.from - 55, (top + bottom) / 2, unit, 13, "middle", true);
        int legend = 0;
        for (Map.Entry<String, List<PerfFormat.Row>> e : byOp.entrySet()) {
            String color = COLORS.getOrDefault(e.getKey(), "#7f7f7f");
            List<PerfFormat.Row> rs = e.getValue().stream().filter(r -> !logY || value.applyAsDouble(r) > 0).toList();
            double[] xs = new double[rs.size()], ys = new double[rs.size()];
            for (int i = 0; i < rs.size(); i++) {
                double v = value.applyAsDouble(rs.get(i));
                xs[i] = x.toPx(log2(rs.get(i).size()));
                ys[i] = y.toPx(logY ? Math.log10(v) : v);
            }
            c.beginSeries(chart, e.getKey());
            c.polyline(xs, ys, color);
            for (int i = 0; i < xs.length; i++) {
                c.dot(xs[i], ys[i], color);
            }
            double ly = top + 10 + 20 * legend++;
            c.line(x.to + 20, ly, x.to + 45, ly, color, 3);
            c.text(x.to + 52, ly + 4, e.getKey(), 13, "start", false);
            c.endSeries();
        }
    }

    /** A linear map from values in [min, max] onto pixels [from, to]. */
    private record Axis(double min, double max, double from, double to) {
        double toPx(double v) {
            return from + (v - min) / (max - min) * (to - from);
        }
    }

    private static double log2(int v) {
        return Math.log(v) / Math.log(2);
    }

    private static double niceCeiling(double v) {
        if (v <= 0) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 2, 2.5, 5, 10}) {
            if (m * p >= v * 1.05) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String number(double v) {
        return v >= 10 || v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f", v) : String.format(Locale.ROOT, "%.1f", v);
    }

    /** 512, 1K, 64K, 8M. */
    static String size(long bytes) {
        if (bytes >= 1 << 20) {
            return (bytes >> 20) + "M";
        }
        return bytes >= 1 << 10 ? (bytes >> 10) + "K" : Long.toString(bytes);
    }

    /** SVG text. */
    static final class Svg implements Canvas {
        private final StringBuilder sb = new StringBuilder();

        Svg() {
            sb.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
                    + " viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n",
                    WIDTH, HEIGHT, WIDTH, HEIGHT));
        }

        @Override
        public void line(double x1, double y1, double x2, double y2, String color, double width) {
            sb.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
                    + " stroke-width=\"%.1f\"/>%n", x1, y1, x2, y2, color, width));
        }

        @Override
        public void beginSeries(String chart, String op) {
            sb.append("<g class=\"series\" data-chart=\"").append(escape(chart)).append("\" data-op=\"").append(escape(op))
                    .append("\">\n");
        }

        @Override
        public void endSeries() {
            sb.append("</g>\n");
        }

        @Override
        public void polyline(double[] xs, double[] ys, String color) {
            sb.append("<polyline fill=\"none\" stroke=\"").append(color).append("\" stroke-width=\"2\" points=\"");
            for (int i = 0; i < xs.length; i++) {
                sb.append(String.format(Locale.ROOT, "%s%.1f,%.1f", i == 0 ? "" : " ", xs[i], ys[i]));
            }
            sb.append("\"/>\n");
        }

        @Override
        public void dot(double x, double y, String color) {
            sb.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y, color));
        }

        @Override
        public void text(double x, double y, String text, int size, String anchor, boolean vertical) {
            sb.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\"%s>%s</text>%n",
                    x, y, size, anchor, vertical ? String.format(Locale.ROOT, " transform=\"rotate(-90 %.1f %.1f)\"", x, y) : "",
                    escape(text)));
        }

        String finish() {
            return sb.append("</svg>\n").toString();
        }

        private static String escape(String s) {
            return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
        }
    }

    /** A java.awt image. */
    static final class Awt implements Canvas {
        private final Graphics2D g;

        Awt(Graphics2D g) {
            this.g = g;
        }

        @Override
        public void line(double x1, double y1, double x2, double y2, String color, double width) {
            g.setColor(Color.decode(color));
            g.setStroke(new BasicStroke((float) width));
            g.draw(new java.awt.geom.Line2D.Double(x1, y1, x2, y2));
        }

        @Override
        public void beginSeries(String chart, String op) {}

        @Override
        public void endSeries() {}

        @Override
        public void polyline(double[] xs, double[] ys, String color) {
            if (xs.length == 0) {
                return;
            }
            Path2D.Double p = new Path2D.Double();
            p.moveTo(xs[0], ys[0]);
            for (int i = 1; i < xs.length; i++) {
                p.lineTo(xs[i], ys[i]);
            }
            g.setColor(Color.decode(color));
            g.setStroke(new BasicStroke(2f));
            g.draw(p);
        }

        @Override
        public void dot(double x, double y, String color) {
            g.setColor(Color.decode(color));
            g.fill(new java.awt.geom.Ellipse2D.Double(x - 3, y - 3, 6, 6));
        }

        @Override
        public void text(double x, double y, String text, int size, String anchor, boolean vertical) {
            g.setColor(Color.BLACK);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, size));
            int w = g.getFontMetrics().stringWidth(text);
            double dx = anchor.equals("middle") ? -w / 2.0 : anchor.equals("end") ? -w : 0;
            java.awt.geom.AffineTransform saved = g.getTransform();
            g.translate(x, y);
            if (vertical) {
                g.rotate(-Math.PI / 2);
            }
            g.drawString(text, (float) dx, 0f);
            g.setTransform(saved);
        }
    }
}
