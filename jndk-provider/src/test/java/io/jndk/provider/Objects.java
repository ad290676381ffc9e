package io.jndk.provider;

import static org.assertj.core.api.Assertions.assertThat;

import io.jndk.api.CqNotificationCallback;
import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkCq;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkPd;
import io.jndk.api.NdkQp;
import io.jndk.api.NdkResultEx;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Real provider objects for the unit tests of its parts: a loopback adapter, a PD, CQs and QPs, closed at the end. */
final class Objects implements AutoCloseable {
    static final long WAIT_SECONDS = 10;
    final SoftAdapter adapter;
    final SoftPd pd;
    private final List<io.jndk.api.NdkClosable> open = new ArrayList<>();

    Objects() {
        this(Map.of());
    }

    Objects(Map<String, String> options) {
        Ref<NdkAdapter> a = new Ref<>();
        int s = new SoftProviderFactory().openAdapter(
                NdkOpenParameters.of("loopback", InetAddress.getLoopbackAddress()).withOptions(options), a);
        assertThat(s).isEqualTo(NtStatus.NDIS_STATUS_SUCCESS);
        adapter = (SoftAdapter) a.get();
        Ref<NdkPd> p = new Ref<>();
        assertThat(adapter.createPd(null, null, p)).isEqualTo(NtStatus.STATUS_SUCCESS);
        pd = (SoftPd) p.get();
        open.add(pd);
    }

    SoftCq cq(int depth, CqNotificationCallback cb) {
        Ref<NdkCq> c = new Ref<>();
        assertThat(adapter.createCq(depth, cb, null, null, null, null, c)).isEqualTo(NtStatus.STATUS_SUCCESS);
        open.add(0, c.get());
        return (SoftCq) c.get();
    }

    SoftQp qp(SoftCq cq, int depth) {
        Ref<NdkQp> q = new Ref<>();
        assertThat(pd.createQp(cq, cq, "qp", depth, depth, 1, 1, 0, null, null, q)).isEqualTo(NtStatus.STATUS_SUCCESS);
        open.add(0, q.get());
        return (SoftQp) q.get();
    }

    /** Takes every entry the CQ holds now. */
    static List<NdkResultEx> drain(SoftCq cq) {
        List<NdkResultEx> out = new ArrayList<>();
        NdkResultEx[] one = {new NdkResultEx()};
        while (cq.getCqResultsEx(one, 1) == 1) {
            out.add(one[0]);
            one[0] = new NdkResultEx();
        }
        return out;
    }

    /** Waits until every callback the adapter's dispatcher was given so far has run. */
    void awaitDispatcher() throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        adapter.dispatcher().run(done::countDown);
        assertThat(done.await(WAIT_SECONDS, TimeUnit.SECONDS)).as("dispatcher drained").isTrue();
    }

    @Override
    public void close() {
        for (io.jndk.api.NdkClosable c : open) {
            CountDownLatch closed = new CountDownLatch(1);
            int s = c.close(x -> closed.countDown(), null);
            if (s == NtStatus.STATUS_PENDING) {
                try {
                    closed.await(WAIT_SECONDS, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
        adapter.close();
    }
}
