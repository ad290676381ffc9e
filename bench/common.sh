# Sourced by the bench/ scripts: finds the JDK and Maven, builds what the benchmarks need, and sets
# JAVA (with the JVM flags every benchmark JVM gets), BENCH_CP, OUT (bench/results) and STAMP.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/jdk.sh"
jndk_require_jdk
jndk_require_maven
OUT="$ROOT/bench/results"
mkdir -p "$OUT"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
JAVA="$JAVA_HOME/bin/java"
JVM_FLAGS=(-Xmx2g -Xss2m -XX:+UseParallelGC)
BENCH_CP="$ROOT/jndk-benchmarks/target/jndk-benchmarks.jar"

# bench_build MODULE...: packages the modules (and what they depend on) without running tests.
bench_build() {
    local modules
    modules=$(IFS=,; echo "$*")
    if ! (cd "$ROOT" && MAVEN_OPTS="${MAVEN_OPTS:--Xmx1g}" mvn -B -q -DskipTests package -pl "$modules" -am \
            >"$OUT/build.log" 2>&1); then
        echo "bench: the build failed; see bench/results/build.log" >&2
        tail -n 20 "$OUT/build.log" >&2
        exit 3
    fi
}

# free_port: a TCP port on 127.0.0.1 nothing listens on right now (for iperf3 and sockperf, which need one).
free_port() {
    local p
    for _ in $(seq 1 50); do
        p=$((20000 + RANDOM % 40000))
        if ! ss -ltn 2>/dev/null | grep -q ":$p "; then
            echo "$p"
            return 0
        fi
    done
    return 1
}

# raise_fd_limit: as many file descriptors as allowed (each iwarp QP pair holds two sockets in one process).
raise_fd_limit() {
    ulimit -n 65536 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
}
