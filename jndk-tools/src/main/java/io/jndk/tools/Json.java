package io.jndk.tools;

import java.util.List;

/** Tiny JSON helpers for the tools' output. */
final class Json {
    private Json() {}

    static String str(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }

    static String list(List<String> l) {
        StringBuilder sb = new StringBuilder("[");
        for (int i = 0; i < l.size(); i++) {
            sb.append(i == 0 ? "" : ",").append(str(l.get(i)));
        }
        return sb.append(']').toString();
    }
}
