package io.jndk.iwarp.transport;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiPredicate;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The stream engine keeps its split by concern, checked on the source files (as {@code CodecImportCheckTest} checks
 * the codec's imports): polling mode stays in {@link ConsumerDrive}, the message handlers do no I/O, every Terminate
 * is built in {@link Terminates}, capture goes through {@link ConnectionCapture}, and no main file of the module
 * grows past {@value #MAX_LINES} lines. Comments do not count: a part may explain what it does not do.
 */
class TransportLayoutTest {

    private static final int MAX_LINES = 600;
    /** The engine parts that run in every mode: the blocking engine with named hooks. */
    private static final List<String> ENGINE = List.of("RxEngine", "RxDispatch", "RxPlacement", "TxEngine", "TxBatch",
        "MessageSegmenter", "InboundWrite", "InboundSend", "InboundReadRequest", "InboundReadResponse");
    /** A call on an encoder or flyweight that writes a Terminate (a call with arguments, not the header view's). */
    private static final Pattern TERMINATE_CALL = Pattern.compile("\\.terminate\\(\\s*[^)\\s]");

    @Test
    void pollingStaysInConsumerDrive() throws IOException {
        assertThat(violations("mentions Selector", (name, code) -> ENGINE.contains(name) && code.contains("Selector")))
            .isEmpty();
        assertThat(violations("asks the engine mode whether it polls", (name, code) -> !name.equals("ConsumerDrive")
            && !name.equals("EngineMode") && code.contains(".poll()"))).isEmpty();
    }

    @Test
    void messageHandlersDoNoIo() throws IOException {
        assertThat(transportSources()).containsKeys("InboundWrite", "InboundSend", "InboundReadRequest",
            "InboundReadResponse");
        assertThat(violations("mentions SocketChannel or Selector", (name, code) -> (name.startsWith("Inbound")
            || name.equals("RxDispatch") || name.equals("RxPlacement"))
            && (code.contains("SocketChannel") || code.contains("Selector")))).isEmpty();
    }

    @Test
    void terminatesAreBuiltInOnePlaceAndCaptureGoesThroughItsClass() throws IOException {
        assertThat(violations("builds a Terminate", (name, code) -> !name.equals("Terminates")
            && TERMINATE_CALL.matcher(code).find())).isEmpty();
        assertThat(violations("captures without ConnectionCapture", (name, code) -> ENGINE.contains(name)
            && code.contains("PcapWriter"))).isEmpty();
    }

    @Test
    void noMainFileOfTheModuleIsLongerThanTheLimit() throws IOException {
        List<String> tooLong = new ArrayList<>();
        int files = 0;
        try (Stream<Path> walk = Files.walk(module().resolve(Paths.get("src", "main", "java")))) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).toList()) {
                files++;
                long lines = Files.readAllLines(file, StandardCharsets.UTF_8).size();
                if (lines > MAX_LINES) {
                    tooLong.add(file.getFileName() + ": " + lines + " lines");
                }
            }
        }
        assertThat(files).isGreaterThan(40);
        assertThat(tooLong).isEmpty();
    }

    /** The transport sources (by class name, comments stripped) that break {@code rule}, each with {@code what}. */
    private static List<String> violations(String what, BiPredicate<String, String> rule) throws IOException {
        List<String> out = new ArrayList<>();
        transportSources().forEach((name, code) -> {
            if (rule.test(name, code)) {
                out.add(name + " " + what);
            }
        });
        return out;
    }

    /** The transport package's main sources by class name, comments stripped. */
    private static Map<String, String> transportSources() throws IOException {
        Path dir = module().resolve(Paths.get("src", "main", "java", "io", "jndk", "iwarp", "transport"));
        Map<String, String> out = new LinkedHashMap<>();
        try (Stream<Path> walk = Files.list(dir)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String name = file.getFileName().toString().replace(".java", "");
                out.put(name, stripComments(Files.readString(file, StandardCharsets.UTF_8)));
            }
        }
        assertThat(out).containsKeys(ENGINE.toArray(String[]::new));
        return out;
    }

    private static Path module() {
        Path here = Paths.get("src", "main", "java");
        return Files.isDirectory(here) ? Paths.get("") : Paths.get("jndk-iwarp");
    }

    private static String stripComments(String text) {
        return text.replaceAll("(?s)/\\*.*?\\*/", "").replaceAll("//[^\\n]*", "");
    }
}
