/**
 * Connection management over RoCEv2 as Linux rdma_cm and ib_cm do it (IBTA vol. 1 chapter 12): REQ, MRA, REJ,
 * REP, RTU, DREQ and DREP exchanged over the GSI, with rdma_cm's service IDs and private-data header. Pure state
 * machines with no socket and no thread: a {@link io.jndk.roce.cm.CmAgent} per port takes MADs in, puts MADs out
 * through a {@link io.jndk.roce.cm.MadSink}, runs its timers from an injected clock, and reports outcomes as
 * {@link io.jndk.roce.cm.CmEvent} values. Not exported: the RoCE transport maps the outcomes onto NDK statuses.
 */
package io.jndk.roce.cm;
