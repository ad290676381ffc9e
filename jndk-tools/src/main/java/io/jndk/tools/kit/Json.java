package io.jndk.tools.kit;

import java.util.List;

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
}
