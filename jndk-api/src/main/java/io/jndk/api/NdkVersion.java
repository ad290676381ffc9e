package io.jndk.api;

/**
 * {@code NDK_VERSION}: an NDKPI version as major and minor number.
 *
 * @param major major version (1 or 2)
 * @param minor minor version
 */
public record NdkVersion(int major, int minor) implements Comparable<NdkVersion> {
    /** NDKPI 1.1 (Windows Server 2012). */
    public static final NdkVersion V1_1 = new NdkVersion(1, 1);
    /** NDKPI 1.2 (adds SendAndInvalidate, GetCqResultsEx, DEFER). */
    public static final NdkVersion V1_2 = new NdkVersion(1, 2);
    /** NDKPI 2.1 (adds CompleteConnectEx, AcceptEx, ProviderErrorCode). */
    public static final NdkVersion V2_1 = new NdkVersion(2, 1);

    @Override
    public int compareTo(NdkVersion o) {
        return major != o.major ? Integer.compare(major, o.major) : Integer.compare(minor, o.minor);
    }

    /** True when this version is at least {@code o}. */
    public boolean atLeast(NdkVersion o) {
        return compareTo(o) >= 0;
    }

    @Override
    public String toString() {
        return major + "." + minor;
    }
}
