package io.jndk.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The bandwidth-versus-size chart of a run as a small self-contained SVG: jndk over iwarp (RDMA Write, RDMA Read,
 * Send, and Write with CRC) in Gbit/s against message size on a log scale, with raw Java NIO streaming at the
 * same sizes.
 */
final class Chart {
    private Chart() {}

    private static final int W = 720, H = 420, LEFT = 60, RIGHT = 190, TOP = 30, BOTTOM = 50;
    private static final int[] SIZES = {8, 4096, 65536, 1 << 20};

    /** A line: label, colour, dash pattern ("" for solid), one point per size (NaN where missing). */
    private record Series(String label, String colour, String dash, double[] gbits) {}

    static String bandwidthVersusSize(Map<String, Map<String, String>> records) {
        List<Series> lines = new ArrayList<>();
        lines.add(perf(records, "iwarp-poll", "write", "Write, polling", "#1f77b4", ""));
        lines.add(perf(records, "iwarp-poll", "read", "Read, polling", "#2ca02c", ""));
        lines.add(perf(records, "iwarp-poll", "send", "Send, polling", "#ff7f0e", ""));
        lines.add(perf(records, "iwarp-poll-crc", "write", "Write, polling, CRC", "#1f77b4", "6,3"));
        lines.add(perf(records, "iwarp", "write", "Write, threads", "#9467bd", "1,2"));
        lines.add(perf(records, "iwarp", "read", "Read, threads", "#8c564b", "1,2"));
        double[] nio = new double[SIZES.length];
        for (int i = 0; i < SIZES.length; i++) {
            String name = SIZES[i] == 65536 ? "nio.stream.64k" : "nio.stream." + SIZES[i];
            nio[i] = records.containsKey(name) ? 8 * Double.parseDouble(records.get(name).get("gbytes_per_s")) : Double.NaN;
        }
        lines.add(new Series("NIO stream", "#000000", "2,3", nio));
        double max = 1;
        for (Series s : lines) {
            for (double v : s.gbits()) {
                max = Double.isNaN(v) ? max : Math.max(max, v);
            }
        }
        double step = max > 40 ? 10 : max > 16 ? 5 : max > 8 ? 2 : 1;
        double top = Math.ceil(max / step) * step;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-family=\"sans-serif\" font-size=\"12\">%n<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>%n", W, H));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"18\" font-size=\"14\">jndk over iwarp, 127.0.0.1: "
                + "bandwidth versus message size</text>%n", LEFT));
        for (double y = 0; y <= top + 1e-9; y += step) {
            double py = py(y, top);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>"
                    + "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT, py, W - RIGHT, py, LEFT - 6, py + 4,
                    fmt(y)));
        }
        for (int size : SIZES) {
            double px = px(size);
            svg.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", px, TOP, px, H - BOTTOM, px,
                    H - BOTTOM + 16, label(size)));
        }
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">message size (bytes, log "
                + "scale)</text>%n", (LEFT + W - RIGHT) / 2, H - 12));
        svg.append(String.format(Locale.ROOT, "<text x=\"14\" y=\"%d\" transform=\"rotate(-90 14 %d)\" "
                + "text-anchor=\"middle\">Gbit/s</text>%n", (TOP + H - BOTTOM) / 2, (TOP + H - BOTTOM) / 2));
        int legend = TOP + 10;
        for (Series s : lines) {
            StringBuilder pts = new StringBuilder();
            for (int i = 0; i < SIZES.length; i++) {
                if (!Double.isNaN(s.gbits()[i])) {
                    pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", px(SIZES[i]), py(s.gbits()[i], top)));
                }
            }
            if (pts.isEmpty()) {
                continue;
            }
            String dash = s.dash().isEmpty() ? "" : " stroke-dasharray=\"" + s.dash() + "\"";
            svg.append(String.format(Locale.ROOT, "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\"%s/>%n",
                    pts.toString().trim(), s.colour(), dash));
            svg.append(String.format(Locale.ROOT, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-width=\"2\"%s/><text x=\"%d\" y=\"%d\">%s</text>%n", W - RIGHT + 12, legend, W - RIGHT + 36,
                    legend, s.colour(), dash, W - RIGHT + 42, legend + 4, s.label()));
            legend += 20;
        }
        return svg.append("</svg>\n").toString();
    }

    private static Series perf(Map<String, Map<String, String>> records, String tag, String op, String label, String colour,
            String dash) {
        double[] g = new double[SIZES.length];
        for (int i = 0; i < SIZES.length; i++) {
            Map<String, String> r = records.get(tag + "/" + op + "/" + SIZES[i]);
            g[i] = r == null ? Double.NaN : 8 * Double.parseDouble(r.get("gbytes_per_s"));
        }
        return new Series(label, colour, dash, g);
    }

    private static double px(int size) {
        double f = (Math.log(size) - Math.log(SIZES[0])) / (Math.log(SIZES[SIZES.length - 1]) - Math.log(SIZES[0]));
        return LEFT + 10 + f * (W - RIGHT - LEFT - 20);
    }

    private static double py(double v, double top) {
        return H - BOTTOM - v / top * (H - BOTTOM - TOP);
    }

    private static String label(int size) {
        return size >= 1 << 20 ? (size >> 20) + " Mi" : size >= 1024 ? (size >> 10) + " Ki" : Integer.toString(size);
    }

    private static String fmt(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
