/** The iWARP transport: MPA, DDP and RDMAP over TCP. */
package io.jndk.iwarp;
