package io.jndk.api;

import java.util.UUID;

/**
 * Common part of every NDK object ({@code NDK_OBJECT_HEADER}): version, object type and
 * {@code NdkQueryExtension}.
 */
public interface NdkObject {
    /** {@code Header.Version}: the NDKPI version negotiated when the adapter was opened. */
    NdkVersion version();

    /** {@code Header.ObjectType}. */
    NdkObjectType objectType();

    /**
     * {@code NdkQueryExtension}. No extensions are defined; jndk returns {@code STATUS_NOT_SUPPORTED}.
     *
     * @param extensionInterfaceId GUID of the extension
     * @param extensionInterfaceVersion requested version
     * @param extensionInterface receives the extension's dispatch object on success
     * @return {@code STATUS_SUCCESS} or {@code STATUS_NOT_SUPPORTED}
     */
    int queryExtension(UUID extensionInterfaceId, NdkVersion extensionInterfaceVersion, Ref<Object> extensionInterface);
}
