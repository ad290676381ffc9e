package io.jndk.tools.kit;

import java.util.List;
import java.util.Map;

/** Tiny JSON helpers for the tools' output. */
public final class Json {
    private Json() {}

    /** {@code s} as a JSON string. */
    public static String str(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    /** {@code l} as a JSON array of strings. */
    public static String list(List<String> l) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < l.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(str(l.get(i)));
        }
        return sb.append(']').toString();
    }

    /** {@code m} as a JSON object of numbers, in its iteration order. */
    public static String numbers(Map<String, ? extends Number> m) {
        StringBuilder sb = new StringBuilder("{");
        m.forEach((k, v) -> sb.append(sb.length() == 1 ? "" : ",").append(str(k)).append(':').append(v));
        return sb.append('}').toString();
    }
}
