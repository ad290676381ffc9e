/** The guide's example as a consumer's module: it needs io.jndk.api and nothing of the provider. */
module io.jndk.example {
    requires io.jndk.api;

    // only for RunGuide's checks of the provider's JFR events and MBeans
    requires java.management;
    requires jdk.jfr;
}
