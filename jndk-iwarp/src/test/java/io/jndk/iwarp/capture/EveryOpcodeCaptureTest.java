package io.jndk.iwarp.capture;

import static io.jndk.iwarp.capture.CaptureKit.await;
import static io.jndk.iwarp.capture.CaptureKit.expect;
import static io.jndk.iwarp.capture.CaptureKit.ok;
import static io.jndk.iwarp.capture.CaptureKit.poll;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkMw;
import io.jndk.api.NdkOpFlags;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The acceptance: a capture of two iWARP adapters, written through the {@code pcap} option, holds a session
 * that uses every RDMAP opcode (Write, Read Request, Read Response, Send, Send with SE, Send with Invalidate, Send
 * with SE and Invalidate, Terminate), and tshark decodes it from the MPA Request on with no malformed frame and,
 * with CRC on, only good CRCs.
 *
 * <p>Assumptions: tshark 4.x with its iWARP dissectors must be on the PATH; without it the tshark part is skipped
 * (the session and the capture files are still checked). {@code .ci/run} installs tshark when it can.
 */
@Timeout(120)
class EveryOpcodeCaptureTest {

    /** tshark options from IWARP.md section 8: MPA is a TCP heuristic; payload heuristics must not claim Sends. */
    static final List<String> TSHARK_OPTIONS = List.of("-o", "tcp.try_heuristic_first:TRUE",
        "--enable-heuristic", "iwarp_mpa_tcp", "--disable-protocol", "rpcordma",
        "--disable-heuristic", "smb_direct_iwarp");
    /** RDMAP opcodes of RFC 5040 (and the names this test reports them by). */
    static final Map<Integer, String> OPCODES = Map.of(0x0, "RDMA Write", 0x1, "RDMA Read Request",
        0x2, "RDMA Read Response", 0x3, "Send", 0x4, "Send with Invalidate", 0x5, "Send with SE",
        0x6, "Send with SE and Invalidate", 0x7, "Terminate");
    static final int REMOTE_RW = NdkOpFlags.ALLOW_REMOTE_READ | NdkOpFlags.ALLOW_REMOTE_WRITE;

    @TempDir
    Path dir;

    /** Set {@code -Djndk.capture.keep=DIR} to copy the capture files there for inspection. */
    private void keep(Path file, boolean crc) throws IOException {
        String keep = System.getProperty("jndk.capture.keep");
        if (keep != null && !keep.isBlank()) {
            Files.createDirectories(Path.of(keep));
            Files.copy(file, Path.of(keep, "crc-" + crc + "-" + file.getFileName()),
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
    }

    @ParameterizedTest(name = "crc={0}")
    @ValueSource(booleans = {true, false})
    void everyOpcodeIsDecodedWithoutMalformedFramesOrCrcErrors(boolean crc) throws Exception {
        // both adapters name the same file: each gets its own (the second one "-2")
        Path requested = dir.resolve("session.pcap");
        Map<String, String> options = Map.of("pcap", requested.toString(), "crc", Boolean.toString(crc));
        InetAddress lo = InetAddress.getLoopbackAddress();
        NdkAdapter a = Ndk.open(NdkOpenParameters.of("iwarp", lo).withOptions(options));
        NdkAdapter b;
        try {
            b = Ndk.open(NdkOpenParameters.of("iwarp", lo).withOptions(options));
        } catch (RuntimeException e) {
            a.close();
            throw e;
        }
        try (Arena arena = Arena.ofShared()) {
            session(arena, a, b);
        } finally {
            a.close();
            b.close();
        }
        Path second = dir.resolve("session-2.pcap");
        assertThat(requested).isRegularFile();
        assertThat(second).isRegularFile();

        keep(requested, crc);
        keep(second, crc);
        String tshark = findTshark();
        assumeTrue(tshark != null, "tshark is not installed: the decode check is skipped (the session ran)");
        for (Path file : List.of(requested, second)) {
            Decoded d = decode(tshark, file);
            System.out.println("tshark " + file.getFileName() + " (crc=" + crc + "): " + d.summary());
            assertThat(d.malformed).as("malformed frames in %s:%n%s", file, d.text).isZero();
            assertThat(d.text).as("tshark output of %s", file).doesNotContainIgnoringCase("malformed");
            assertThat(d.mpaRequests).as("MPA Requests in %s", file).isEqualTo(1);
            assertThat(d.mpaReplies).as("MPA Replies in %s", file).isEqualTo(1);
            for (Map.Entry<Integer, String> op : new TreeMap<>(OPCODES).entrySet()) {
                assertThat(d.opcodes.getOrDefault(op.getKey(), 0)).as("%s (0x%x) FPDUs in %s: %s", op.getValue(),
                    op.getKey(), file, d.opcodes).isPositive();
            }
            assertThat(d.badCrc).as("bad CRCs in %s", file).isZero();
            if (crc) {
                assertThat(d.goodCrc).as("good CRCs in %s", file).isEqualTo(d.fpdus);
            } else {
                assertThat(d.goodCrc).as("checked CRCs without CRC in %s", file).isZero();
            }
        }
    }

    // ---- the session -------------------------------------------------------------------------------------------

    private void session(Arena arena, NdkAdapter a, NdkAdapter b) {
        CaptureKit kit = new CaptureKit();
        try {
            CaptureKit.Pair p = kit.connect(a, b);
            MemorySegment bufA = arena.allocate(16384, 4096);
            MemorySegment bufB = arena.allocate(16384, 4096);
            for (int i = 0; i < bufA.byteSize(); i++) {
                bufA.set(ValueLayout.JAVA_BYTE, i, (byte) (i * 31 + 7));
            }
            NdkMr mrA = kit.register(p.a.pd, bufA);
            NdkMr mrB = kit.register(p.b.pd, bufB);
            NdkMw mw1 = kit.create(r -> p.b.pd.createMw(null, null, r));
            NdkMw mw2 = kit.create(r -> p.b.pd.createMw(null, null, r));
            long addrA = bufA.address();
            long addrB = bufB.address();
            int lA = mrA.getLocalToken();
            int lB = mrB.getLocalToken();

            // RDMA Write, then RDMA Read Request + Read Response
            ok(p.a.qp.write("write", new NdkSge[] {new NdkSge(addrA, 3000, lA)}, 1, addrB, mrB.getRemoteToken(), 0));
            expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.WRITE);
            ok(p.a.qp.read("read", new NdkSge[] {new NdkSge(addrA + 8192, 3000, lA)}, 1, addrB,
                mrB.getRemoteToken(), 0));
            expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.READ);
            assertThat(bufA.asSlice(8192, 3000).mismatch(bufA.asSlice(0, 3000))).isEqualTo(-1);

            // Send with Solicited Event, Send
            sendOne(p, addrA, lA, addrB + 4096, lB, NdkOpFlags.SEND_AND_SOLICIT_EVENT, 0, false);
            sendOne(p, addrA, lA, addrB + 4096, lB, 0, 0, false);

            // Send with Invalidate and Send with SE and Invalidate, each naming a window B bound
            bind(p, mrB, mw1, addrB + 8192);
            bind(p, mrB, mw2, addrB + 12288);
            sendOne(p, addrA, lA, addrB + 4096, lB, 0, mw1.getRemoteToken(), true);
            sendOne(p, addrA, lA, addrB + 4096, lB, NdkOpFlags.SEND_AND_SOLICIT_EVENT, mw2.getRemoteToken(), true);

            // Terminate: an RDMA Write to a token B never issued; B answers with a Terminate
            ok(p.a.qp.write("bad-write", new NdkSge[] {new NdkSge(addrA, 64, lA)}, 1, addrB, 0xFFFFFF5A, 0));
            NdkResultEx refused = poll(p.a.cq);
            assertThat(NtStatus.name(refused.status)).as("refused write %s", refused)
                .isIn("STATUS_REMOTE_RESOURCES", "STATUS_SUCCESS");
            assertThat(NdkOperationType.name(refused.type)).isEqualTo(NdkOperationType.name(NdkOperationType.WRITE));
            await("disconnect event on both sides", () -> p.a.disconnects.get() > 0 && p.b.disconnects.get() > 0);
        } finally {
            kit.closeAll();
        }
    }

    /** B posts a receive, A sends 100 octets (optionally invalidating {@code token}); both sides complete. */
    private static void sendOne(CaptureKit.Pair p, long addrA, int lA, long addrB, int lB, int flags, int token,
                                boolean invalidate) {
        ok(p.b.qp.receive("recv", new NdkSge[] {new NdkSge(addrB, 1000, lB)}, 1));
        NdkSge[] src = {new NdkSge(addrA, 100, lA)};
        ok(invalidate ? p.a.qp.sendAndInvalidate("send", src, 1, flags, token) : p.a.qp.send("send", src, 1, flags));
        NdkResultEx rx = poll(p.b.cq);
        assertThat(NtStatus.name(rx.status)).as("receive %s", rx).isEqualTo("STATUS_SUCCESS");
        assertThat(rx.bytesTransferred).isEqualTo(100);
        if (invalidate) {
            assertThat(NdkOperationType.name(rx.type)).isEqualTo(NdkOperationType.name(
                NdkOperationType.RECEIVE_AND_INVALIDATE));
            assertThat(rx.typeSpecificCompletionOutput).isEqualTo(Integer.toUnsignedLong(token));
        }
        expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
    }

    private static void bind(CaptureKit.Pair p, NdkMr mr, NdkMw mw, long address) {
        ok(p.b.qp.bind("bind", mr, mw, address, 4096, REMOTE_RW));
        expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.BIND);
    }

    // ---- tshark ------------------------------------------------------------------------------------------------

    /** What tshark made of one capture file. */
    record Decoded(int frames, int mpaRequests, int mpaReplies, int fpdus, Map<Integer, Integer> opcodes,
                   int goodCrc, int badCrc, int malformed, String text) {
        String summary() {
            StringBuilder ops = new StringBuilder();
            new TreeMap<>(opcodes).forEach((k, v) -> ops.append(String.format(" 0x%x=%d", k, v)));
            return frames + " decoded frames, MPA Request " + mpaRequests + ", Reply " + mpaReplies + ", FPDUs "
                + fpdus + ", opcodes" + ops + ", good CRC " + goodCrc + ", bad CRC " + badCrc + ", malformed "
                + malformed;
        }
    }

    static String findTshark() {
        for (String d : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
            Path p = Path.of(d, "tshark");
            if (!d.isEmpty() && Files.isExecutable(p)) {
                return p.toString();
            }
        }
        return null;
    }

    static Decoded decode(String tshark, Path file) throws IOException, InterruptedException {
        // one line per frame: the fields, so that FPDUs per frame (reassembled or several per segment) are counted
        List<String> fields = new ArrayList<>(List.of(tshark, "-n", "-r", file.toString()));
        fields.addAll(TSHARK_OPTIONS);
        fields.addAll(List.of("-T", "fields", "-E", "separator=|", "-E", "occurrence=a", "-E", "aggregator=,",
            "-e", "frame.number", "-e", "iwarp_mpa.req", "-e", "iwarp_mpa.rep", "-e", "iwarp_rdma.opcode",
            "-e", "iwarp_mpa.ulpdulength", "-e", "_ws.malformed", "-e", "_ws.col.Info"));
        String table = run(fields, file);
        // the verbose tree: the CRC verdicts are only in the display text of iwarp_mpa.crc_check
        List<String> verbose = new ArrayList<>(List.of(tshark, "-n", "-r", file.toString()));
        verbose.addAll(TSHARK_OPTIONS);
        verbose.add("-V");
        String tree = run(verbose, file);

        int frames = 0;
        int requests = 0;
        int replies = 0;
        int fpdus = 0;
        int malformed = 0;
        Map<Integer, Integer> opcodes = new TreeMap<>();
        for (String line : table.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = line.split("\\|", -1);
            if (f.length < 7) {
                throw new AssertionError("unexpected tshark line: " + line);
            }
            boolean any = false;
            if (!f[1].isEmpty()) {
                requests++;
                any = true;
            }
            if (!f[2].isEmpty()) {
                replies++;
                any = true;
            }
            if (!f[3].isEmpty()) {
                for (String op : f[3].split(",")) {
                    opcodes.merge(Integer.decode(op.trim()), 1, Integer::sum);
                }
                any = true;
            }
            if (!f[4].isEmpty()) {
                fpdus += f[4].split(",").length;
            }
            if (!f[5].isEmpty() || f[6].toLowerCase(java.util.Locale.ROOT).contains("malformed")) {
                malformed++;
            }
            frames += any ? 1 : 0;
        }
        int good = count(tree, "(Good CRC32)");
        int bad = count(tree, "(Bad CRC32");
        malformed += count(tree.toLowerCase(java.util.Locale.ROOT), "malformed");
        return new Decoded(frames, requests, replies, fpdus, opcodes, good, bad, malformed, table);
    }

    private static int count(String text, String what) {
        int n = 0;
        for (int i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + what.length())) {
            n++;
        }
        return n;
    }

    private static String run(List<String> command, Path file) throws IOException, InterruptedException {
        Path out = Files.createTempFile(file.getParent(), "tshark", ".out");
        Path err = Files.createTempFile(file.getParent(), "tshark", ".err");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("tshark did not finish: " + command);
        }
        String text = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as("tshark exit status; messages:%n%s", Files.readString(err, StandardCharsets.UTF_8))
            .isZero();
        return text;
    }
}
