#!/usr/bin/env bash
# Many QPs at once over iwarp on this machine: setup time, aggregate RDMA Write bandwidth against one QP measured in
# the same run, memory per QP, threads and file descriptors. Also part of bench/run.sh. Not run by CI.
# Usage: bench/scale.sh [QPs, default 1000] [SECONDS, default 3] [SIZE, default 65536] [DEPTH per QP, default 2]
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_build jndk-benchmarks
raise_fd_limit
echo "file descriptor limit: $(ulimit -n)" >&2
"$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.Scale "${1:-1000}" "${2:-3}" "${3:-65536}" "${4:-2}" \
    | tee "$OUT/$STAMP-scale.jsonl"
