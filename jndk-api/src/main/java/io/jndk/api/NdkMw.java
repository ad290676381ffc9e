package io.jndk.api;

/** {@code NDK_MW}: a memory window ({@code NDK_MW_DISPATCH}). */
public interface NdkMw extends NdkClosable {
    /** {@code NdkGetRemoteTokenFromMw}: valid as soon as {@link NdkQp#bind} has returned. */
    int getRemoteToken();
}
