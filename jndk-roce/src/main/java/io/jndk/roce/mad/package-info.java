/**
 * InfiniBand management datagrams as RoCEv2 carries them for connection management: the common MAD header
 * (IBTA vol. 1 section 13.4), the communication manager's messages (chapter 12: REQ, MRA, REJ, REP, RTU, DREQ,
 * DREP, one flyweight each over the whole 256-octet MAD), the primary/alternate path of a REQ, the header rdma_cm
 * puts in a REQ's private data ({@link io.jndk.roce.mad.CmaHeader}) and its service IDs
 * ({@link io.jndk.roce.mad.CmServiceId}), and the GSI packet form ({@link io.jndk.roce.mad.GsiPacket}: UD SEND
 * Only to QP1).
 *
 * <p>{@link io.jndk.roce.mad.MadDecoder} validates a MAD and never throws. The flyweights name each field by its CM
 * offset (from the end of the 24-octet MAD header) as the IBTA tables do; every field rdma_cm uses is reachable,
 * and decoding then re-encoding every captured rxe CM MAD gives the same octets (see the tests). This package
 * holds codecs only: no CM state machine, timers or retries.
 */
package io.jndk.roce.mad;
