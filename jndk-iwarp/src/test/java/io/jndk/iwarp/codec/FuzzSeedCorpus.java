package io.jndk.iwarp.codec;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * Writes the committed seed corpora of the fuzz targets in {@code io.jndk.iwarp.fuzz} from the IWARP.md section 10
 * vectors and the siw captures of the test resources' {@code testdata/siw}. Not a test: run it by hand when the seeds need
 * regenerating, with the test resources root as argument.
 */
public final class FuzzSeedCorpus {

    private static final int MAX_STREAM = 4096;
    private static final String PACKAGE = "io/jndk/iwarp/fuzz/";

    private FuzzSeedCorpus() {
    }

    /**
     * @param args the test resources root ({@code jndk-iwarp/src/test/resources})
     * @throws IOException if a file cannot be read or written
     */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]).resolve(PACKAGE);
        Path mpa = dir(root, "MpaFrameFuzzTestInputs/mpaFrame");
        Path fpdu = dir(root, "FpduDecoderFuzzTestInputs/decode");
        Path term = dir(root, "TerminateFuzzTestInputs/terminate");
        Path conn = dir(root, "ConnectionFuzzTestInputs/connection");

        for (Object[] v : new Object[][] {{"request-rping", Vectors.MPA_REQUEST_RPING}, {"request-crc", Vectors.MPA_REQUEST_CRC},
            {"reply-crc", Vectors.MPA_REPLY_CRC}, {"request-p2p", Vectors.MPA_REQUEST_P2P}, {"reply-p2p", Vectors.MPA_REPLY_P2P},
            {"reject", Vectors.MPA_REJECT}}) {
            write(mpa, "iwarp-10.2-" + v[0], (byte[]) v[1]);
        }
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        ByteArrayOutputStream allOff = new ByteArrayOutputStream();
        for (Object[] v : Vectors.fpdus()) {
            byte[] tv = (byte[]) v[1];
            all.writeBytes(tv);
            allOff.writeBytes(Vectors.crcOff(tv));
            write(fpdu, "iwarp-10-" + v[0] + "-crc", concat(new byte[] {0x01, 0x00}, tv));
            write(fpdu, "iwarp-10-" + v[0] + "-nocrc", concat(new byte[] {0x00, 0x00}, Vectors.crcOff(tv)));
            write(fpdu, "iwarp-10-" + v[0] + "-place", concat(new byte[] {0x09, 0x11}, tv));
            write(conn, "iwarp-10-" + v[0], concat(new byte[] {0x11}, Vectors.crcOff(tv)));
            write(conn, "iwarp-10-" + v[0] + "-crc", concat(new byte[] {0x17}, tv));
            int ulpdu = Short.toUnsignedInt(ByteBuffer.wrap(tv).getShort(0));
            if ((tv[3] & 0x0F) == RdmapOpcode.TERMINATE.code()) {
                byte[] body = Arrays.copyOfRange(tv, 2 + DdpUntaggedHeaderFlyweight.LENGTH, 2 + ulpdu);
                write(term, "iwarp-10-" + v[0], concat(new byte[] {0x00}, body));
            }
        }
        write(fpdu, "iwarp-10.5-stream-crc", concat(new byte[] {0x01, 0x07}, all.toByteArray()));
        write(fpdu, "iwarp-10.5-stream-nocrc-split", concat(new byte[] {0x04, 0x2a}, allOff.toByteArray()));
        write(conn, "iwarp-10.5-stream", concat(new byte[] {0x01}, allOff.toByteArray()));
        write(conn, "iwarp-10-TV2-norttr", concat(new byte[] {0x00}, Vectors.crcOff(Vectors.TV2)));
        TerminateCode[] codes = TerminateCode.values();
        for (int i = 0; i < codes.length; i++) {
            write(term, "code-" + codes[i].name().toLowerCase() + "-rfc", new byte[] {1, (byte) i, 0x06, 0, 0});
            write(term, "code-" + codes[i].name().toLowerCase() + "-siw", new byte[] {1, (byte) i, 0x0e, 0, 0});
        }

        Path siw = SiwCaptureTest.testdata();
        write(mpa, "siw-mpa-request", Files.readAllBytes(siw.resolve("siw-mpa-request.bin")));
        try (var files = Files.list(siw)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".pcap")).sorted().toList()) {
                String name = "siw-" + file.getFileName().toString().replace(".pcap", "");
                int index = 0;
                for (Pcap.Connection c : Pcap.read(file).connections()) {
                    for (Pcap.Direction d : new Pcap.Direction[] {c.initiator(), c.responder()}) {
                        seedCapture(mpa, fpdu, term, conn, name + "-" + index++, d.bytes);
                    }
                }
            }
        }
    }

    private static void seedCapture(Path mpa, Path fpdu, Path term, Path conn, String name, byte[] s) throws IOException {
        if (s == null || s.length < MpaFrameFlyweight.HEADER_LENGTH) {
            return;
        }
        MpaFrameFlyweight f = new MpaFrameFlyweight().wrap(ByteBuffer.wrap(s), 0);
        boolean request = f.hasKey(MpaFrameKind.REQUEST);
        if (!request && !f.hasKey(MpaFrameKind.REPLY)) {
            return;
        }
        int frame = Math.min(s.length, f.frameLength());
        write(mpa, name + (request ? "-request" : "-reply"), Arrays.copyOf(s, frame));
        byte[] stream = Arrays.copyOfRange(s, frame, Math.min(s.length, frame + MAX_STREAM));
        if (stream.length == 0) {
            return;
        }
        boolean crc = f.crc();
        write(fpdu, name + "-stream", concat(new byte[] {(byte) (crc ? 0x01 : 0x00), 0x05}, stream));
        write(conn, name + "-stream", concat(new byte[] {(byte) (0x10 | (crc ? 0x06 : 0x00))}, stream));
        // Terminates in the capture, bodies as sent by siw
        int p = 0;
        while (p + 4 <= s.length - frame) {
            int at = frame + p;
            int ulpdu = Short.toUnsignedInt(ByteBuffer.wrap(s).getShort(at));
            if ((s[at + 3] & 0x0F) == RdmapOpcode.TERMINATE.code() && at + 2 + ulpdu <= s.length) {
                write(term, name + "-terminate-" + p,
                    concat(new byte[] {0x00}, Arrays.copyOfRange(s, at + 2 + DdpUntaggedHeaderFlyweight.LENGTH, at + 2 + ulpdu)));
            }
            p += FpduFlyweight.fpduLength(ulpdu);
        }
    }

    private static Path dir(Path root, String name) throws IOException {
        return Files.createDirectories(root.resolve(name));
    }

    private static void write(Path dir, String name, byte[] bytes) throws IOException {
        // one file per distinct content
        try (var existing = Files.list(dir)) {
            for (Path p : existing.toList()) {
                if (Arrays.equals(Files.readAllBytes(p), bytes)) {
                    return;
                }
            }
        }
        Files.write(dir.resolve(name), bytes);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    static String hex(byte[] b) {
        return HexFormat.of().formatHex(b);
    }
}
