package io.jndk.tools;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Bad arguments as one line in the tools' own words: which word was wrong, what was expected, and where the help is
 * (picocli's own phrasing, "Unmatched argument at index 0", says none of that to someone at a shell prompt).
 */
final class Usage {
    private Usage() {}

    /** The line for {@code ex}: "jndk TOOL: what was wrong (what to do)". */
    static String line(CommandLine.ParameterException ex) {
        CommandLine c = ex.getCommandLine();
        boolean top = c.getParent() == null;
        String who = top ? "jndk" : "jndk " + c.getCommandName();
        String help = top ? "./jndk --help lists the tools" : "./jndk " + c.getCommandName() + " --help lists its options";
        return who + ": " + what(ex, top) + " (" + help + ")";
    }

    private static String what(CommandLine.ParameterException ex, boolean top) {
        if (ex instanceof CommandLine.UnmatchedArgumentException u) {
            List<String> unmatched = u.getUnmatched();
            String first = unmatched.isEmpty() ? "?" : unmatched.getFirst();
            List<String> suggestions = u.getSuggestions();
            String hint = suggestions.isEmpty() ? "" : "; did you mean " + String.join(" or ", suggestions.subList(0,
                    Math.min(3, suggestions.size()))) + "?";
            if (top && !first.startsWith("-")) {
                return "there is no tool '" + first + "'" + hint;
            }
            if (first.startsWith("-") && first.length() > 1) {
                return "unknown option '" + first + "'" + hint;
            }
            return "unexpected argument '" + first + "'" + (unmatched.size() > 1 ? " (and " + (unmatched.size() - 1)
                    + " more)" : "") + hint;
        }
        if (ex instanceof CommandLine.MissingParameterException m) {
            List<ArgSpec> missing = m.getMissing();
            if (!missing.isEmpty() && missing.getFirst() instanceof OptionSpec o) {
                return o.longestName() + " needs a value";
            }
            return !missing.isEmpty() ? "missing " + missing.getFirst().paramLabel() : plain(ex.getMessage());
        }
        if (ex instanceof CommandLine.OverwrittenOptionException) {
            return plain(ex.getMessage()).replace("should be specified only once", "was given twice");
        }
        return plain(ex.getMessage());
    }

    /** picocli's message without its class-like prefixes, first letter in lower case. */
    private static String plain(String m) {
        if (m == null || m.isBlank()) {
            return "bad arguments";
        }
        String s = m.strip();
        s = s.replaceFirst("^Invalid value for option '([^']+)': ", "$1: ");
        s = s.replaceFirst("^Invalid value for positional parameter at index \\d+ \\(([^)]+)\\): ", "$1: ");
        s = s.replace(" is not an int", " is not a whole number").replace(" is not a long", " is not a whole number")
                .replace(" is not a double", " is not a number");
        return Character.toLowerCase(s.charAt(0)) + s.substring(1);
    }
}
