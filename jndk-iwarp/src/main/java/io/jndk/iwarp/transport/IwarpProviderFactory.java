package io.jndk.iwarp.transport;

import io.jndk.api.NdkAdapter;
import io.jndk.api.NdkOpenParameters;
import io.jndk.api.NdkProviderFactory;
import io.jndk.api.NtStatus;
import io.jndk.api.Ref;
import io.jndk.provider.spi.WireTransport;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;

/**
 * The {@code iwarp} transport's adapter factory: the provider's verbs engine over an {@link IwarpTransport}.
 *
 * <p>The engine's entry point {@code io.jndk.provider.SoftProviderFactory.open(NdkOpenParameters, WireTransport,
 * Ref)} is looked up when the class loads, so this factory builds against provider versions that do not have it
 * yet; there {@link #openAdapter} answers {@code STATUS_NOT_SUPPORTED}.
 */
public final class IwarpProviderFactory implements NdkProviderFactory {

    private static final MethodHandle OPEN = lookupOpen();

    /** For {@link java.util.ServiceLoader}. */
    public IwarpProviderFactory() {
    }

    private static MethodHandle lookupOpen() {
        try {
            Class<?> factory = Class.forName("io.jndk.provider.SoftProviderFactory");
            return MethodHandles.publicLookup().findStatic(factory, "open",
                MethodType.methodType(int.class, NdkOpenParameters.class, WireTransport.class, Ref.class));
        } catch (ReflectiveOperationException e) {
            return null;
        }
    }

    /** @return whether the provider offers the engine entry point this factory needs */
    public static boolean available() {
        return OPEN != null;
    }

    @Override
    public String transport() {
        return "iwarp";
    }

    @Override
    public int openAdapter(NdkOpenParameters parameters, Ref<NdkAdapter> adapter) {
        if (OPEN == null) {
            return NtStatus.STATUS_NOT_SUPPORTED;
        }
        IwarpTransport transport;
        try {
            transport = new IwarpTransport(parameters.options());
        } catch (IllegalArgumentException e) {
            return NtStatus.STATUS_INVALID_PARAMETER;
        }
        int status;
        try {
            status = (int) OPEN.invoke(parameters, (WireTransport) transport, adapter);
        } catch (RuntimeException | Error e) {
            transport.shutdown();
            throw e;
        } catch (Throwable e) {
            transport.shutdown();
            throw new IllegalStateException(e);
        }
        if (status != NtStatus.STATUS_SUCCESS) {
            transport.shutdown();
        }
        return status;
    }
}
