#!/usr/bin/env bash
# Benchmark harness: measures raw Java NIO and memory-copy baselines, then jndk over iwarp (CRC off and on) and
# loopback, in one invocation on this machine, and prints each jndk figure beside its baseline with the ratio.
# Not run by CI (it takes a few minutes and wants a quiet machine). Usage: bench/run.sh [SECONDS]
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/jdk.sh"
jndk_require_jdk
jndk_require_maven
SECONDS_PER_RUN="${1:-3}"
OUT="$ROOT/bench/results"
mkdir -p "$OUT"
STAMP="$(date -u +%Y%m%dT%H%M%SZ)"
cd "$ROOT"
mvn -B -q -DskipTests package -pl jndk-tools,jndk-benchmarks -am >/dev/null
JAVA="$JAVA_HOME/bin/java"
BENCH_CP="$ROOT/jndk-benchmarks/target/jndk-benchmarks.jar"
echo "baselines (raw Java NIO over 127.0.0.1, MemorySegment.copy)..." >&2
"$JAVA" -cp "$BENCH_CP" io.jndk.bench.NioBaseline "$SECONDS_PER_RUN" > "$OUT/$STAMP-baselines.jsonl"
SIZES=8,4096,65536,1048576
echo "jndk perf over iwarp..." >&2
./jndk perf --transport iwarp -s "$SIZES" --json > "$OUT/$STAMP-iwarp.jsonl"
echo "jndk perf over iwarp with CRC..." >&2
./jndk perf --transport iwarp --crc -s "$SIZES" --json > "$OUT/$STAMP-iwarp-crc.jsonl"
echo "jndk perf over loopback..." >&2
./jndk perf --transport loopback -s "$SIZES" --json > "$OUT/$STAMP-loopback.jsonl"
echo >&2
echo "machine: $(nproc) cores, $(uname -sr), $("$JAVA" -version 2>&1 | head -n1)"
"$JAVA" -cp "$BENCH_CP" io.jndk.bench.Report "$OUT/$STAMP-baselines.jsonl" "$OUT/$STAMP-summary.json" \
    iwarp="$OUT/$STAMP-iwarp.jsonl" iwarp-crc="$OUT/$STAMP-iwarp-crc.jsonl" loopback="$OUT/$STAMP-loopback.jsonl"
echo "results: $OUT/$STAMP-*.json*"
