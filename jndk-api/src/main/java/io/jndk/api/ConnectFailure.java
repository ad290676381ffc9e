package io.jndk.api;

import java.util.Objects;

/**
 * Why a connection attempt failed, beside its NTSTATUS (a jndk extension, read with
 * {@link NdkConnector#connectFailure()}). The status stays the one NDKPI gives (a rejection and a protocol mismatch are
 * both {@code STATUS_CONNECTION_REFUSED}, a missing answer {@code STATUS_IO_TIMEOUT}); the reason says which of the
 * refusals it was, as rdma_cm's {@code RDMA_CM_EVENT_REJECTED} with its status and private data does.
 *
 * @param status the NTSTATUS the attempt completed with
 * @param reason the class of the failure (transport-neutral)
 * @param detail one line for people, with the transport's specifics (e.g. the MPA field that did not match)
 * @param privateData the peer's private data that came with a rejection (empty when none came); the same octets
 *                    {@code NdkGetConnectionData} returns after a rejection
 */
public record ConnectFailure(int status, Reason reason, String detail, byte[] privateData) {

    /** The classes of connection failure. */
    public enum Reason {
        /** Nothing listens at the address and port (the host refused the transport connection). */
        NO_LISTENER,
        /** The peer rejected the request ({@code NdkReject}, or its provider's refusal); its private data comes along. */
        REJECTED,
        /** No route to the host, or the network or host is unreachable. */
        UNREACHABLE,
        /** No answer in time (the transport connection, or the peer's answer to the request). */
        TIMEOUT,
        /** The peer closed or reset the connection during setup without an answer. */
        PEER_CLOSED,
        /** The peer answered with an error frame (iWARP: a Terminate) during setup. */
        PEER_TERMINATED,
        /** The peer speaks another revision of the setup protocol. */
        VERSION_MISMATCH,
        /** The ends disagree on the data checksum: one requires it, the other refuses it (iWARP: the MPA CRC). */
        CRC_MISMATCH,
        /** The peer requires a framing option this side does not support (iWARP: MPA markers). */
        FRAMING_MISMATCH,
        /**
         * The ends found no common way to start the data exchange (iWARP: the peer declined peer-to-peer mode, or
         * offered no RTR message this side can send).
         */
        STARTUP_MISMATCH,
        /** The peer's private data is longer than the protocol allows. */
        PRIVATE_DATA_TOO_LONG,
        /** The peer needs more RDMA Read resources than this side can grant ({@code STATUS_INSUFFICIENT_RESOURCES}). */
        READ_LIMITS,
        /** The peer's answer breaks the setup protocol (a malformed frame). */
        PROTOCOL_ERROR,
        /** This side gave up or could not go on (its address, its resources, a close, a shutdown). */
        LOCAL
    }

    /** Checks arguments; keeps a copy of {@code privateData}. */
    public ConnectFailure {
        Objects.requireNonNull(reason, "reason");
        Objects.requireNonNull(detail, "detail");
        privateData = privateData == null ? new byte[0] : privateData.clone();
    }

    /** @return a copy of the peer's private data */
    @Override
    public byte[] privateData() {
        return privateData.clone();
    }

    /**
     * The reason a status alone implies, for a failure whose transport said no more.
     *
     * @param status a failed connect's NTSTATUS
     * @param detail the line for people
     * @return the failure
     */
    public static ConnectFailure ofStatus(int status, String detail) {
        Reason r = switch (status) {
            case NtStatus.STATUS_CONNECTION_REFUSED -> Reason.NO_LISTENER;
            case NtStatus.STATUS_IO_TIMEOUT -> Reason.TIMEOUT;
            case NtStatus.STATUS_HOST_UNREACHABLE, NtStatus.STATUS_NETWORK_UNREACHABLE -> Reason.UNREACHABLE;
            case NtStatus.STATUS_CONNECTION_ABORTED, NtStatus.STATUS_CONNECTION_RESET -> Reason.PEER_CLOSED;
            case NtStatus.STATUS_INSUFFICIENT_RESOURCES -> Reason.READ_LIMITS;
            default -> Reason.LOCAL;
        };
        return new ConnectFailure(status, r, detail, null);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectFailure f && f.status == status && f.reason == reason && f.detail.equals(detail)
            && java.util.Arrays.equals(f.privateData, privateData);
    }

    @Override
    public int hashCode() {
        return Objects.hash(status, reason, detail, java.util.Arrays.hashCode(privateData));
    }

    @Override
    public String toString() {
        return reason + " (" + NtStatus.name(status) + "): " + detail
            + (privateData.length == 0 ? "" : " [" + privateData.length + " octets of private data]");
    }
}
