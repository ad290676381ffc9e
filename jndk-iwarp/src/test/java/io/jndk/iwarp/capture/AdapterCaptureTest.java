package io.jndk.iwarp.capture;

import static io.jndk.iwarp.capture.CaptureKit.expect;
import static io.jndk.iwarp.capture.CaptureKit.ok;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jndk.api.Ndk;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkMr;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkOperationType;
import io.jndk.api.NdkSge;
import io.jndk.api.NtStatus;
import io.jndk.iwarp.pcap.PcapFile;
import io.jndk.iwarp.pcap.PcapWriter;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code pcap} adapter option: each stream starts with the handshake and the MPA Request and Reply, a connection
 * between two QPs of one adapter is recorded once, each adapter owns its file, closing the adapter closes the file,
 * and {@code pcap.max.bytes} bounds it.
 */
@Timeout(60)
class AdapterCaptureTest {

    private static final byte[] REQUEST_KEY = "MPA ID Req Frame".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] REPLY_KEY = "MPA ID Rep Frame".getBytes(StandardCharsets.US_ASCII);
    private static final int SYN = 0x02;
    private static final int ACK = 0x10;

    @TempDir
    Path dir;

    private static NdkAdapter open(Path file, String... more) {
        Map<String, String> options = new HashMap<>();
        options.put("pcap", file.toString());
        for (int i = 0; i + 1 < more.length; i += 2) {
            options.put(more[i], more[i + 1]);
        }
        return Ndk.open(NdkOpenParameters.of("iwarp", InetAddress.getLoopbackAddress()).withOptions(options));
    }

    /** Connects two QPs of {@code adapter}, sends {@code sends} messages of {@code length} octets, disconnects. */
    private static void sameAdapterSession(NdkAdapter adapter, int sends, int length) {
        CaptureKit kit = new CaptureKit();
        try (Arena arena = Arena.ofShared()) {
            try {
                CaptureKit.Pair p = kit.connect(adapter, adapter);
                MemorySegment a = arena.allocate(8192, 4096);
                MemorySegment b = arena.allocate(8192, 4096);
                NdkMr mrA = kit.register(p.a.pd, a);
                NdkMr mrB = kit.register(p.b.pd, b);
                for (int i = 0; i < sends; i++) {
                    ok(p.b.qp.receive("recv", new NdkSge[] {new NdkSge(b.address(), length, mrB.getLocalToken())}, 1));
                    ok(p.a.qp.send("send", new NdkSge[] {new NdkSge(a.address(), length, mrA.getLocalToken())}, 1, 0));
                    expect(p.b.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.RECEIVE);
                    expect(p.a.cq, NtStatus.STATUS_SUCCESS, NdkOperationType.SEND);
                }
                kit.close(p.a.connector);
                CaptureKit.await("passive side told of the closed connection", () -> p.b.disconnects.get() > 0);
            } finally {
                kit.closeAll();
            }
        }
    }

    private static boolean startsWith(byte[] data, byte[] prefix) {
        return data.length >= prefix.length && Arrays.equals(data, 0, prefix.length, prefix, 0, prefix.length);
    }

    @Test
    void aConnectionBetweenQpsOfOneAdapterIsRecordedOnceFromTheHandshakeAndTheMpaRequest() throws Exception {
        Path file = dir.resolve("one.pcap");
        NdkAdapter adapter = open(file, "crc", "true");
        try {
            sameAdapterSession(adapter, 2, 100);
        } finally {
            adapter.close();
        }
        PcapFile capture = PcapFile.read(file);
        assertThat(capture.problems).isEmpty();
        List<PcapFile.Packet> packets = capture.packets;
        assertThat(packets.stream().filter(p -> (p.flags() & SYN) != 0).count()).as("SYNs").isEqualTo(2);
        assertThat(packets.get(0).flags()).isEqualTo(SYN);
        assertThat(packets.get(1).flags()).isEqualTo(SYN | ACK);
        assertThat(packets.get(2).flags()).isEqualTo(ACK);
        PcapFile.Packet request = packets.get(3);
        PcapFile.Packet reply = packets.get(4);
        assertThat(startsWith(request.payload(), REQUEST_KEY)).as("the MPA Request opens the stream").isTrue();
        assertThat(startsWith(reply.payload(), REPLY_KEY)).as("the MPA Reply follows").isTrue();
        assertThat(reply.direction()).isNotEqualTo(request.direction());
        assertThat(request.direction()).isEqualTo(packets.get(0).direction());
        // each direction's byte stream starts with its setup frame: nothing recorded twice
        assertThat(startsWith(capture.stream(request.direction()), REQUEST_KEY)).isTrue();
        assertThat(startsWith(capture.stream(reply.direction()), REPLY_KEY)).isTrue();
        assertThat(packets.stream().filter(p -> startsWith(p.payload(), REQUEST_KEY)).count()).isEqualTo(1);

        String tshark = EveryOpcodeCaptureTest.findTshark();
        assumeTrue(tshark != null, "tshark is not installed: the decode check is skipped");
        EveryOpcodeCaptureTest.Decoded d = EveryOpcodeCaptureTest.decode(tshark, file);
        assertThat(d.malformed()).as(d.text()).isZero();
        assertThat(d.mpaRequests()).isEqualTo(1);
        assertThat(d.mpaReplies()).isEqualTo(1);
        assertThat(d.opcodes()).containsEntry(0x3, 2).containsEntry(0x0, 1); // two Sends and the RTR
        assertThat(d.badCrc()).isZero();
        assertThat(d.goodCrc()).isEqualTo(d.fpdus()).isEqualTo(3);
    }

    @Test
    void eachAdapterOwnsItsFileAndClosingTheAdapterClosesIt() throws Exception {
        Path file = dir.resolve("shared.pcap");
        Path second = dir.resolve("shared-2.pcap");
        NdkAdapter a = open(file);
        NdkAdapter c = null;
        try (NdkAdapter b = open(file)) {
            assertThat(b.info()).isNotNull();
            assertThat(file).isRegularFile();
            assertThat(second).isRegularFile();
            assertThat(openDescriptorsOf(file)).isPositive();
            a.close();
            assertThat(openDescriptorsOf(file)).as("descriptors of %s after the adapter closed", file).isZero();
            assertThat(openDescriptorsOf(second)).isPositive();
            c = open(file); // the name is free again
            assertThat(dir.resolve("shared-3.pcap")).doesNotExist();
            assertThat(Files.size(file)).isEqualTo(PcapWriter.FILE_HEADER_LENGTH);
        } finally {
            if (c != null) {
                c.close();
            }
        }
        assertThat(openDescriptorsOf(file) + openDescriptorsOf(second)).isZero();
    }

    @Test
    void theFileStaysWithinPcapMaxBytes() throws Exception {
        Path file = dir.resolve("small.pcap");
        long limit = 1000;
        NdkAdapter adapter = open(file, "pcap.max.bytes", Long.toString(limit));
        try {
            sameAdapterSession(adapter, 4, 2000);
        } finally {
            adapter.close();
        }
        assertThat(Files.size(file)).isBetween((long) PcapWriter.FILE_HEADER_LENGTH + 1, limit);
        // dropped packets leave sequence gaps (Wireshark shows them); every packet written is intact
        assertThat(PcapFile.read(file).problems).allMatch(problem -> problem.contains(": sequence "));
    }

    /** Counts this process's descriptors open on {@code file} (Linux {@code /proc}); -1 where that is not known. */
    private static long openDescriptorsOf(Path file) throws IOException {
        Path fds = Path.of("/proc/self/fd");
        assumeTrue(Files.isDirectory(fds), "needs /proc/self/fd to see open descriptors");
        Path target = file.toAbsolutePath().normalize();
        try (Stream<Path> list = Files.list(fds)) {
            return list.filter(fd -> {
                try {
                    return Files.readSymbolicLink(fd).equals(target);
                } catch (IOException | UnsupportedOperationException e) {
                    return false; // closed meanwhile
                }
            }).count();
        }
    }
}
