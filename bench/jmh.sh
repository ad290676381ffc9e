#!/usr/bin/env bash
# JMH micro-benchmarks of jndk (codecs, CRC32c, token check, post and poll). Short settings by default (one fork,
# one 1 s warm-up and two 1 s measurements per benchmark: about three minutes for all); any arguments are passed to
# JMH instead (e.g. bench/jmh.sh -f 3 -wi 5 -i 10 FpduBench). Results: bench/results/STAMP-jmh.json and .txt.
# Not run by CI.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_build jndk-jmh
if [ "$#" -eq 0 ]; then
    set -- -f 1 -wi 1 -w 1s -i 2 -r 1s
fi
"$JAVA" -Xmx1g -jar "$ROOT/jndk-jmh/target/jndk-jmh.jar" -jvmArgs "-Xmx1g -Xss2m" -rf json -rff "$OUT/$STAMP-jmh.json" "$@" \
    | tee "$OUT/$STAMP-jmh.txt"
