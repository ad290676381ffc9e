package io.jndk.iwarp.codec;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every FPDU in the real siw captures of the test resources' {@code testdata/siw} (recorded data; its
 * {@code README.md} says how) decodes, and re-encodes from its parsed fields to identical octets; MPA frames
 * likewise. Counts are cross-checked with the tshark summary in {@code TSHARK.txt}.
 */
class SiwCaptureTest {

    /** The captures' directory, {@code testdata/siw} of the test resources (on the file system: it is listed). */
    static Path testdata() {
        URL summary = SiwCaptureTest.class.getResource("/testdata/siw/TSHARK.txt");
        assertThat(summary).as("test resource testdata/siw/TSHARK.txt").isNotNull();
        try {
            return Path.of(summary.toURI()).getParent();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static Stream<String> pcaps() throws IOException {
        try (Stream<Path> files = Files.list(testdata())) {
            List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pcap")).sorted().toList();
            assertThat(names).as("siw captures in testdata/siw").isNotEmpty();
            return names.stream();
        }
    }

    private static Path require(String name) {
        Path file = testdata().resolve(name);
        assertThat(file).as("siw reference capture").isRegularFile();
        return file;
    }

    /** What one capture contained. */
    static final class Tally {
        final Map<Integer, Integer> opcodes = new TreeMap<>();
        final Map<Integer, Integer> ulpduLengths = new TreeMap<>();
        int mpaRequests;
        int mpaReplies;
        int fpdus;
        int goodCrc;
        int nonZeroPad;
        final List<String> nonZeroPadExamples = new ArrayList<>();
        int nonMpaConnections;
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pcaps")
    void everyFpduDecodesAndReencodesIdentically(String name) throws IOException {
        Path file = require(name);
        Pcap pcap = Pcap.read(file);
        Tally tally = new Tally();
        for (Pcap.Connection c : pcap.connections()) {
            Pcap.Direction ini = c.initiator();
            Pcap.Direction res = c.responder();
            if (startsWith(res.bytes, MpaFrameKind.REQUEST)) {
                Pcap.Direction t = ini;
                ini = res;
                res = t;
            }
            if (!startsWith(ini.bytes, MpaFrameKind.REQUEST)) {
                assertThat(startsWith(res.bytes, MpaFrameKind.REPLY)).as("%s %s: Reply without Request", name, c.name()).isFalse();
                tally.nonMpaConnections++;
                continue;
            }
            MpaFrameFlyweight request = checkMpaFrame(name, ini.bytes, MpaFrameKind.REQUEST);
            tally.mpaRequests++;
            boolean crc = request.crc();
            MpaFrameFlyweight reply = null;
            if (res.bytes.length > 0) {
                reply = checkMpaFrame(name, res.bytes, MpaFrameKind.REPLY);
                tally.mpaReplies++;
                crc |= reply.crc();
            }
            decodeFpdus(name + " " + ini.key, ini, request.frameLength(), crc, tally);
            if (reply != null) {
                decodeFpdus(name + " " + res.key, res, reply.frameLength(), crc, tally);
            }
        }
        assertThat(tally.mpaRequests).as("%s: MPA Requests", name).isPositive();
        System.out.printf("%s: %d MPA Request(s), %d Reply(s), %d FPDUs decoded and re-encoded, %d CRC-checked, %d non-MPA connection(s)%n",
            name, tally.mpaRequests, tally.mpaReplies, tally.fpdus, tally.goodCrc, tally.nonMpaConnections);
        if (tally.nonZeroPad > 0) {
            System.out.printf("%s: %d FPDU(s) with non-zero pad octets from siw, e.g. %s%n",
                name, tally.nonZeroPad, tally.nonZeroPadExamples);
        }
        crossCheckWithTshark(name, tally);
    }

    private static boolean startsWith(byte[] stream, MpaFrameKind kind) {
        return stream.length >= MpaFrameFlyweight.HEADER_LENGTH
            && new MpaFrameFlyweight().wrap(ByteBuffer.wrap(stream), 0).hasKey(kind);
    }

    private static MpaFrameFlyweight checkMpaFrame(String name, byte[] stream, MpaFrameKind kind) {
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(stream), 0);
        assertThat(f.validate(kind)).as("%s %s", name, kind).isEqualTo(MpaFrameCheck.VALID);
        assertThat(stream.length).isGreaterThanOrEqualTo(f.frameLength());
        // siw: rev 2, S, exactly the IRD/ORD word, no markers, no reject, reserved bits 0
        assertThat(f.revision()).isEqualTo(2);
        assertThat(f.enhanced()).isTrue();
        assertThat(f.privateDataLength()).isEqualTo(4);
        assertThat(f.flags() & (MpaFrameFlyweight.FLAG_RESERVED_MASK | MpaFrameFlyweight.FLAG_MARKERS
            | MpaFrameFlyweight.FLAG_REJECT)).isZero();

        MpaIrdOrdFlyweight word = new MpaIrdOrdFlyweight().wrap(f.buffer(), f.privateDataIndex());
        ByteBuffer again = ByteBuffer.allocate(f.frameLength());
        MpaFrameFlyweight g = new MpaFrameFlyweight().wrap(again, 0).key(kind).flags(0).crc(f.crc()).enhanced(true)
            .revision(f.revision()).privateDataLength(f.privateDataLength());
        new MpaIrdOrdFlyweight().wrap(again, g.privateDataIndex())
            .set(word.peerToPeer(), word.sendRtr(), word.ird(), word.writeRtr(), word.readRtr(), word.ord());
        assertThat(Hex.of(again.array())).isEqualTo(Hex.of(stream, 0, f.frameLength()));
        return f;
    }

    private static void decodeFpdus(String what, Pcap.Direction d, int start, boolean crc, Tally tally) {
        byte[] fpdus = Arrays.copyOfRange(d.bytes, start, d.bytes.length);
        // feed in the pieces TCP delivered them
        int[] cuts = Arrays.stream(d.boundaries).map(b -> b - start).filter(b -> b > 0 && b < fpdus.length).toArray();
        List<String> mismatches = new ArrayList<>();
        int[] at = {0};
        RecordingListener listener = new RecordingListener(true, crc).onFrame((h, p) -> {
            byte[] original = Arrays.copyOfRange(fpdus, at[0], at[0] + h.fpduLength());
            byte[] reencoded = Reencoder.reencode(h, p, crc);
            if (!Arrays.equals(original, reencoded)) {
                mismatches.add("at " + at[0] + ": " + Hex.of(original) + " != " + Hex.of(reencoded));
            }
            at[0] += h.fpduLength();
            tally.opcodes.merge(h.opcode().code(), 1, Integer::sum);
            tally.ulpduLengths.merge(h.ulpduLength(), 1, Integer::sum);
            if (h.receivedPad() != 0) {
                tally.nonZeroPad++;
                if (tally.nonZeroPadExamples.size() < 3) {
                    tally.nonZeroPadExamples.add(Hex.of(original));
                }
            }
        });
        FpduDecoder decoder = new FpduDecoder(listener, crc);
        int from = 0;
        for (int i = 0; i <= cuts.length; i++) {
            int to = i < cuts.length ? cuts[i] : fpdus.length;
            assertThat(decoder.feed(ByteBuffer.wrap(fpdus, from, to - from))).as(what).isEqualTo(FpduError.NONE);
            from = to;
        }
        assertThat(decoder.atFrameBoundary()).as("%s ends inside an FPDU", what).isTrue();
        assertThat(mismatches).as(what).isEmpty();
        assertThat(at[0]).isEqualTo(fpdus.length);
        for (DecodedFrame f : listener.frames) {
            assertThat(f.verdict()).as(what).isEqualTo(crc ? CrcVerdict.VALID : CrcVerdict.NOT_CHECKED);
            if (f.verdict() == CrcVerdict.VALID) {
                tally.goodCrc++;
            }
        }
        tally.fpdus += listener.frames.size();
    }

    private static final Pattern SECTION = Pattern.compile("^=== (\\S+): (\\d+) frames, (\\d+) decoded as MPA", Pattern.MULTILINE);

    /** Compares with the opcode and ULPDU-length histograms and the CRC count tshark printed for the file. */
    private static void crossCheckWithTshark(String name, Tally tally) throws IOException {
        Path summary = require("TSHARK.txt");
        String text = Files.readString(summary, StandardCharsets.UTF_8);
        Matcher m = SECTION.matcher(text);
        String section = null;
        while (m.find()) {
            if (m.group(1).equals(name)) {
                int end = text.indexOf("\n=== ", m.end());
                section = text.substring(m.start(), end < 0 ? text.length() : end);
            }
        }
        assertThat(section).as("TSHARK.txt has a section for %s", name).isNotNull();
        Map<Integer, Integer> opcodes = histogram(line(section, "--- RDMAP opcodes"), 16);
        assertThat(tally.opcodes).as("%s opcodes vs tshark", name).isEqualTo(opcodes);
        Map<Integer, Integer> lengths = histogram(line(section, "--- MPA ULPDU lengths"), 10);
        lengths.forEach((len, count) ->
            assertThat(tally.ulpduLengths.get(len)).as("%s ULPDU length %d vs tshark", name, len).isEqualTo(count));
        String crcLine = line(section, "--- CRC check:");
        if (crcLine != null) {
            Matcher c = Pattern.compile("(\\d+) FPDUs").matcher(crcLine);
            assertThat(c.find()).isTrue();
            assertThat(tally.goodCrc).isEqualTo(Integer.parseInt(c.group(1)));
        } else {
            assertThat(tally.goodCrc).isZero();
        }
        int mpaLines = (int) section.lines().filter(l -> l.matches("^\\d+\\t(REQ|\\t?REP).*")).count();
        assertThat(tally.mpaRequests + tally.mpaReplies).as("%s MPA frames vs tshark", name).isEqualTo(mpaLines);
    }

    private static String line(String section, String prefix) {
        return section.lines().filter(l -> l.startsWith(prefix)).findFirst().orElse(null);
    }

    private static Map<Integer, Integer> histogram(String line, int radix) {
        Map<Integer, Integer> result = new TreeMap<>();
        if (line == null) {
            return result;
        }
        String body = line.substring(line.lastIndexOf(':') + 1);
        for (String entry : body.split(";")) {
            String e = entry.strip();
            if (e.isEmpty()) {
                continue;
            }
            String[] parts = e.split("\\s+");
            String value = parts[1].startsWith("0x") ? parts[1].substring(2) : parts[1];
            result.put(Integer.parseInt(value, radix), Integer.parseInt(parts[0]));
        }
        return result;
    }

    // ---- the raw host-path captures --------------------------------------------------------------------

    @Test
    void siwMpaRequestAsReceivedByAPlainListener() throws IOException {
        byte[] bytes = Files.readAllBytes(require("siw-mpa-request.bin"));
        assertThat(bytes).isEqualTo(Vectors.MPA_REQUEST_RPING);
        assertThat(new MpaFrameFlyweight().wrap(ByteBuffer.wrap(bytes), 0).validate(MpaFrameKind.REQUEST))
            .isEqualTo(MpaFrameCheck.VALID);
    }

    @Test
    void siwActiveSideSendsItsFirstSendRightAfterTheReply() throws IOException {
        byte[] bytes = Files.readAllBytes(require("siw-active-vs-host-mpa-responder.bin"));
        MpaFrameFlyweight req = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(bytes), 0);
        assertThat(req.validate(MpaFrameKind.REQUEST)).isEqualTo(MpaFrameCheck.VALID);
        byte[] rest = Arrays.copyOfRange(bytes, req.frameLength(), bytes.length);
        Decoding.Result r = Decoding.byteByByte(rest, false);
        assertThat(r.error()).isEqualTo(FpduError.NONE);
        assertThat(r.frames()).singleElement().satisfies(f -> {
            assertThat(f.opcode()).isEqualTo(RdmapOpcode.SEND);
            assertThat(f.verdict()).isEqualTo(CrcVerdict.NOT_CHECKED);
            assertThat(f.payload().length()).isEqualTo(16 * 3 - 1);
        });
        assertThat(Arrays.copyOfRange(rest, rest.length - 4, rest.length)).containsOnly(0);
    }

    @Test
    void siwPassiveSideReply() throws IOException {
        byte[] bytes = Files.readAllBytes(require("host-mpa-initiator-vs-passive-siw.bin"));
        MpaFrameFlyweight rep = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(bytes), 0);
        assertThat(rep.validate(MpaFrameKind.REPLY)).isEqualTo(MpaFrameCheck.VALID);
        assertThat(rep.frameLength()).isEqualTo(bytes.length);
        assertThat(rep.reject()).isFalse();
    }
}
