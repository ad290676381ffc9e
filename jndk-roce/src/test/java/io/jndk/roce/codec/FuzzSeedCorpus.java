package io.jndk.roce.codec;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.Set;

/**
 * Writes the seed corpora of the fuzz targets in {@code io.jndk.roce.fuzz} from the rxe captures of the test
 * resources: for {@code RocePacketFuzzTest}, the first packet of each opcode of each capture and every datagram to
 * port 4791 that is not RoCEv2; for {@code MadFuzzTest}, every distinct CM MAD. Not a test: run it by hand (on the
 * test class path) when the seeds need regenerating, with the test resources root as argument.
 */
public final class FuzzSeedCorpus {

    private static final int MAD_OFFSET = RoceOpcode.UD_SEND_ONLY.headersLength();
    private static final int MAD_LENGTH = 256;

    private FuzzSeedCorpus() {
    }

    /**
     * @param args the test resources root ({@code jndk-roce/src/test/resources})
     * @throws IOException if a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        Path root = Path.of(args[0]).resolve("io/jndk/roce/fuzz");
        Path packets = Files.createDirectories(root.resolve("RocePacketFuzzTestInputs/decode"));
        Path mads = Files.createDirectories(root.resolve("MadFuzzTestInputs/mad"));
        Set<String> written = new HashSet<>();
        RocePacketDecoder d = new RocePacketDecoder();
        Icrc icrc = new Icrc();
        for (String file : Pcap.captures()) {
            String base = file.substring(0, file.indexOf('.'));
            Set<RoceOpcode> seen = new HashSet<>();
            for (Pcap.Datagram g : Pcap.read(file)) {
                byte[] payload = g.payload();
                RocePacketError e = d.decode(ByteBuffer.wrap(payload), 0, payload.length);
                boolean roce = e == RocePacketError.NONE && icrc.ipv4Frame(g.buffer(), g.ipOffset()) == d.icrc();
                if (!roce) {
                    write(packets, base + "-" + g.frame() + "-not-roce", payload, written);
                    continue;
                }
                if (seen.add(d.opcode())) {
                    write(packets, base + "-" + g.frame() + "-" + d.opcode().name().toLowerCase(), payload, written);
                }
                if (d.opcode() == RoceOpcode.UD_SEND_ONLY && d.bth().destQp() == 1 && payload.length == MAD_OFFSET + MAD_LENGTH + 4) {
                    byte[] mad = new byte[MAD_LENGTH];
                    System.arraycopy(payload, MAD_OFFSET, mad, 0, MAD_LENGTH);
                    write(mads, base + "-" + g.frame() + "-attr" + Integer.toHexString(mad[17] & 0xFF), mad, written);
                }
            }
        }
    }

    private static void write(Path dir, String name, byte[] bytes, Set<String> written) throws IOException {
        if (written.add(dir.getFileName() + HexFormat.of().formatHex(bytes))) {
            Files.write(dir.resolve(name), bytes);
        }
    }
}
