package io.jndk.tools.nd;

import picocli.CommandLine.Option;

/**
 * {@code -V}: only the tools whose data comes back to the client have it (ndpingpong and ndwpingpong: every echo;
 * ndrping and ndrpingpong: what each size Read), so that no help lists an option its tool refuses.
 */
final class NdVerifyOption {
    @Option(names = {"-V", "--verify"}, order = 7, description = "Client: check the data that comes back (ndpingpong,"
            + " ndwpingpong: every echo; ndrping, ndrpingpong: every size); the figures then include the check.")
    boolean verify;
}
