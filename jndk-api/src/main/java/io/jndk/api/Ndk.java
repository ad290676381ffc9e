package io.jndk.api;

import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;

/** Entry point: opens adapters of the installed transports. */
public final class Ndk {
    private Ndk() {}

    /**
     * {@code OPEN_NDK_ADAPTER_HANDLER}.
     *
     * @return {@code NDIS_STATUS_SUCCESS}, {@code NDIS_STATUS_BAD_VERSION}, {@code NDIS_STATUS_ADAPTER_NOT_READY}
     *     (no such transport) or {@code NDIS_STATUS_RESOURCES}
     * @throws IllegalArgumentException if an option's value is not one the option takes (the message names the
     *     option, the value and what it takes); nothing is left open
     */
    public static int openAdapter(NdkOpenParameters parameters, Ref<NdkAdapter> adapter) {
        for (NdkProviderFactory f : ServiceLoader.load(NdkProviderFactory.class)) {
            if (f.transport().equals(parameters.transport())) {
                return f.openAdapter(parameters, adapter);
            }
        }
        return NtStatus.NDIS_STATUS_ADAPTER_NOT_READY;
    }

    /** Opens an adapter or throws {@link IllegalStateException} naming the status. */
    public static NdkAdapter open(NdkOpenParameters parameters) {
        Ref<NdkAdapter> ref = new Ref<>();
        int s = openAdapter(parameters, ref);
        if (s != NtStatus.NDIS_STATUS_SUCCESS) {
            throw new IllegalStateException("cannot open a " + parameters.transport() + " adapter on "
                    + parameters.address() + ": " + NtStatus.describe(s)
                    + (s == NtStatus.NDIS_STATUS_ADAPTER_NOT_READY ? " (transports installed: " + transports() + ")" : ""));
        }
        return ref.get();
    }

    /** The names of the installed transports. */
    public static List<String> transports() {
        List<String> names = new ArrayList<>();
        for (NdkProviderFactory f : ServiceLoader.load(NdkProviderFactory.class)) {
            names.add(f.transport());
        }
        return names;
    }
}
