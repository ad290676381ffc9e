#!/usr/bin/env bash
# Benchmark harness: measures raw Java NIO and memory-copy baselines (and iperf3/sockperf when installed), then jndk
# over iwarp (CRC off and on, bandwidth and latency, 8-byte Write ping-pong polling and blocking), loopback, RoCEv2
# over loopback UDP (against raw Java UDP of the same datagram size), and 1,000 QPs at once, fair service (Fairness),
# in one invocation on this machine, and prints each jndk figure beside its baseline with the ratio and the target.
# Not run by CI (it takes a few minutes and wants a quiet machine).
# Usage: bench/run.sh [SECONDS per streaming run, default 2] [QPs for the scale run, default 1000]
#   ROCE_ONLY=1 bench/run.sh ...   only the RoCE rows (the UDP baselines and the roce runs) and their report
#   ROCE_PORT=N                    the roce device's UDP port (default 4791; another one keeps clear of a roce
#                                  process already on 127.0.0.1:4791)
#   ROUNDS=N                       rounds of every paired row, and runs of the Fairness rows (default 5: the
#                                  report takes the median, and single rounds on a virtual machine move by 2x)
# Writes bench/results/STAMP-*.jsonl (raw records), STAMP-summary.json and STAMP-bandwidth-vs-size.svg.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SECS="${1:-2}"
QPS="${2:-1000}"
ROCE_ONLY="${ROCE_ONLY:-0}"
ROCE_PORT="${ROCE_PORT:-4791}"
ROUNDS="${ROUNDS:-5}"
R="$OUT/$STAMP"
cd "$ROOT"
echo "building..." >&2
bench_build jndk-tools jndk-benchmarks
raise_fd_limit

# bounded LIMIT OUT CMD...: runs CMD with its stdout appended to OUT for at most LIMIT seconds. A run still going then
# (a hang) gets a jstack into OUT.hung-PID.jstack, is killed, and the call fails (status 124) after saying so; the
# harness goes on without its rows. (./jndk execs java, so the PID is the JVM's.)
bounded() {
    local limit="$1" out="$2"
    shift 2
    "$@" >> "$out" &
    local pid=$! ticks=0
    while kill -0 "$pid" 2>/dev/null && [ "$ticks" -lt $((limit * 10)) ]; do
        sleep 0.1
        ticks=$((ticks + 1))
    done
    if kill -0 "$pid" 2>/dev/null; then
        "$JAVA_HOME/bin/jstack" "$pid" > "$out.hung-$pid.jstack" 2>&1 || true
        kill "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
        echo "bench: did not finish within ${limit} s, killed (jstack: $out.hung-$pid.jstack): $*" >&2
        return 124
    fi
    local rc=0
    wait "$pid" || rc=$?
    if [ "$rc" -ne 0 ]; then
        echo "bench: exit status $rc: $*" >&2
    fi
    return "$rc"
}

# RoCE over loopback UDP: raw Java UDP (UdpBaseline: a stream of datagrams the size of a RoCE packet at the device's
# path MTU, and an 8-byte spinning ping-pong), then jndk perf --transport roce (64 KiB Write, Read, Send, ROUNDS runs
# each: two adapters in one process, one device on 127.0.0.2 and one on 127.0.0.1, completions by notification) and
# the 8-byte Write ping-pong polling
# (JndkLatency, poll=true, one device on 127.0.0.2 and one on 127.0.0.1). Each jndk run is bounded (the transport is new): a hang leaves a jstack and the rest goes on.
roce_runs() {
    echo "baselines: raw Java UDP over 127.0.0.1 (RoCE-MTU datagram stream, 8-byte ping-pong)..." >&2
    "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.UdpBaseline "$SECS" >> "$R-baselines.jsonl"
    : > "$R-roce.jsonl"
    : > "$R-latency-roce.jsonl"
    : > "$R-udp-pairs.jsonl"
    # ROUNDS rounds, each after a UDP sample of its own (UdpBaseline ... pair: one stream, one ping-pong), so that each
    # round's ratios compare figures measured within the same minute; the report takes the median of the rounds'
    # ratios. The streams: two devices (side A on 127.0.0.2, B on 127.0.0.1: two sockets and two engine threads, as
    # the baseline's two sockets and two threads, and as two hosts), completions by notification (--block) asked for on
    # every 8th request (--cq-mod 8), as the iwarp target rows: spinning consumers would take the two cores from the
    # two engines (docs/PERFORMANCE.md, "RoCE over loopback UDP"). The
    # ping-pong: two adapters on two addresses, in the polling mode (poll=true: the consumers' threads send and
    # receive), as the iwarp polling row.
    for round in $(seq 1 "$ROUNDS"); do
        echo "round $round of $ROUNDS: UDP sample, then jndk perf over roce (UDP port $ROCE_PORT) and the 8-byte Write ping-pong (polling)..." >&2
        "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.UdpBaseline "$SECS" pair >> "$R-udp-pairs.jsonl"
        for op in write read send; do
            bounded $((SECS + 60)) "$R-roce.jsonl" ./jndk perf --transport roce -O udp.port="$ROCE_PORT" --op "$op" \
                --bind 127.0.0.2 --block --cq-mod 8 -s 65536 -D "$SECS" --warmup 1 --json || true
        done
        bounded 120 "$R-latency-roce.jsonl" "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.JndkLatency 20000 \
            roce modes=poll poll=true a.address=127.0.0.2 udp.port="$ROCE_PORT" || true
    done
}

if [ "$ROCE_ONLY" = 1 ]; then
    : > "$R-baselines.jsonl"
    roce_runs
    echo >&2
    echo "machine: $(nproc) cores, $(uname -sr), $("$JAVA" -version 2>&1 | head -n1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
    "$JAVA" -cp "$BENCH_CP" io.jndk.bench.Report "$R-summary.json" base="$R-baselines.jsonl" udp-pairs="$R-udp-pairs.jsonl" \
        roce="$R-roce.jsonl" latency-roce="$R-latency-roce.jsonl"
    echo "results: $R-*"
    exit 0
fi

echo "baselines: raw Java NIO over 127.0.0.1, MemorySegment.copy..." >&2
"$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.NioBaseline "$SECS" > "$R-baselines.jsonl"

if command -v iperf3 >/dev/null 2>&1; then
    echo "iperf3 (64 KiB writes)..." >&2
    port=$(free_port)
    iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
    server=$!
    for _ in $(seq 1 50); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
    bps=$(iperf3 -c 127.0.0.1 -p "$port" -t "$((SECS * 2))" -O 1 -l 64K -J | grep -A12 '"sum_received"' \
        | grep -m1 '"bits_per_second"' | awk -F: '{ gsub(/[ \t,]/, "", $2); print $2 }')
    wait "$server" || true
    awk -v b="$bps" 'BEGIN { printf "{\"name\":\"iperf3.64k\",\"gbytes_per_s\":%.4f}\n", b / 8e9 }' >> "$R-baselines.jsonl"
else
    echo "iperf3 not installed: skipped" >&2
fi
if command -v sockperf >/dev/null 2>&1; then
    echo "sockperf ping-pong over TCP (14-byte messages, its minimum)..." >&2
    port=$(free_port)
    sockperf sr --tcp -i 127.0.0.1 -p "$port" >/dev/null 2>&1 &
    server=$!
    for _ in $(seq 1 50); do ss -ltn | grep -q ":$port " && break; sleep 0.1; done
    # sockperf reports half the round trip; the harness compares round trips
    sockperf pp --tcp -i 127.0.0.1 -p "$port" -t "$SECS" -m 14 2>&1 \
        | awk '/percentile 50.000/ { p50 = $NF } /percentile 99.000/ { p99 = $NF }
               END { if (p50 != "") printf "{\"name\":\"sockperf.pingpong\",\"rtt_p50_us\":%.4f,\"rtt_p99_us\":%.4f}\n", 2 * p50, 2 * p99 }' \
        >> "$R-baselines.jsonl"
    kill "$server" 2>/dev/null || true
    wait "$server" 2>/dev/null || true
else
    echo "sockperf not installed: skipped" >&2
fi

SIZES=8,4096,65536,1048576
# perf: each size and operation warms up 1 s (JIT, TCP ramp-up) and runs SECS; the 64 KiB rows the targets use run
# three times (the report takes the median, as for the NIO baseline). Engine modes (docs/PERFORMANCE.md): the shared
# engine's polling mode, -O poll=true (posting threads transmit inline, perf's polls read and place: the target rows,
# bandwidth and CPU per GB), and its default mode (engine loops do the socket work: information rows).
perf_runs() { # TAG ARGS...: three 64 KiB runs, then one over every size for the chart
    local tag="$1"; shift
    : > "$R-$tag.jsonl"
    for _ in 1 2 3; do
        ./jndk perf -s 65536 -D "$SECS" --warmup 1 --json "$@" >> "$R-$tag.jsonl"
    done
    ./jndk perf -s 8,4096,1048576 -D "$SECS" --warmup 1 --json "$@" >> "$R-$tag.jsonl"
}
echo "jndk perf over iwarp..." >&2
perf_runs iwarp --transport iwarp
echo "jndk perf over iwarp, CRC..." >&2
perf_runs iwarp-crc --transport iwarp --crc
# The target rows run in ROUNDS rounds, each just after a NIO sample of its own (NioBaseline ... pair: one 64 KiB
# stream without and one with CRC32c), so that each round's ratio compares figures measured within the same minute:
# the machine's speed changes over minutes (docs/PERFORMANCE.md) and the report takes the median of the rounds' ratios.
# The target rows (bandwidth and CPU per GB from the same runs) wait as NIO's threads do: notified completions
# (--block), the default mode, a completion asked for on every 8th request (--cq-mod 8, as perftest's bandwidth tests
# moderate theirs); the polling mode (poll=true) follows in each round as information, and one run of every
# request completing after the rounds.
: > "$R-nio-pairs.jsonl"
: > "$R-iwarp-block.jsonl"
: > "$R-iwarp-block-crc.jsonl"
: > "$R-iwarp-poll.jsonl"
: > "$R-iwarp-poll-crc.jsonl"
for round in $(seq 1 "$ROUNDS"); do
    echo "round $round of $ROUNDS: NIO stream sample, then jndk over iwarp: notified with --cq-mod 8 (and CRC), polling mode (and CRC)..." >&2
    "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.NioBaseline "$SECS" pair >> "$R-nio-pairs.jsonl"
    ./jndk perf -s 65536 -D "$SECS" --warmup 1 --json --transport iwarp --block --cq-mod 8 >> "$R-iwarp-block.jsonl"
    ./jndk perf -s 65536 -D "$SECS" --warmup 1 --json --transport iwarp --block --cq-mod 8 --crc --op write \
        >> "$R-iwarp-block-crc.jsonl"
    ./jndk perf -s 65536 -D "$SECS" --warmup 1 --json --transport iwarp -O poll=true >> "$R-iwarp-poll.jsonl"
    ./jndk perf -s 65536 -D "$SECS" --warmup 1 --json --transport iwarp --crc -O poll=true --op write \
        >> "$R-iwarp-poll-crc.jsonl"
done
echo "jndk perf over iwarp, polling mode, the other sizes (the chart)..." >&2
./jndk perf -s 8,4096,1048576 -D "$SECS" --warmup 1 --json --transport iwarp -O poll=true >> "$R-iwarp-poll.jsonl"
./jndk perf -s 8,4096,1048576 -D "$SECS" --warmup 1 --json --transport iwarp --crc -O poll=true >> "$R-iwarp-poll-crc.jsonl"
echo "jndk perf over iwarp, notified, every request completing (information)..." >&2
./jndk perf --transport iwarp --block -s 65536 -D "$SECS" --warmup 1 --json > "$R-iwarp-block-each.jsonl"
echo "jndk perf over loopback..." >&2
./jndk perf --transport loopback -s "$SIZES" -D "$SECS" --warmup 1 --json > "$R-loopback.jsonl"
echo "jndk 8-byte RDMA Write ping-pong over iwarp: polling (poll=true), notification-driven (notify=inline poll=true)..." >&2
: > "$R-latency.jsonl"
: > "$R-nio-pingpong-pairs.jsonl"
# each round after a NIO spinning and blocking ping-pong of its own: the report pairs the polling round trip with the
# spinning one and the notification-driven round trip with the blocking one
for round in $(seq 1 "$ROUNDS"); do
    "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.NioBaseline "$SECS" pingpong >> "$R-nio-pingpong-pairs.jsonl"
    "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.JndkLatency 20000 iwarp modes=poll poll=true >> "$R-latency.jsonl"
    "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.JndkLatency 20000 iwarp modes=notify notify=inline poll=true \
        >> "$R-latency.jsonl"
done
"$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.JndkLatency 20000 iwarp modes=block notify=inline poll=true \
    >> "$R-latency.jsonl"
echo "the notification-driven ping-pong with the loops polling 20 us after work (engine.spin.us=20, information)..." >&2
"$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.JndkLatency 20000 iwarp modes=notify notify=inline poll=true \
    engine.spin.us=20 > "$R-latency-spin.jsonl"
echo "the same with the engine's defaults..." >&2
"$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.JndkLatency 20000 iwarp > "$R-latency-default.jsonl"
roce_runs
echo "jndk $QPS QPs over iwarp (the shared engine, the default)..." >&2
"$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.Scale "$QPS" "$SECS" 65536 2 iwarp > "$R-scale.jsonl"

echo "fairness: 100 QPs of 8-byte Writes, alone and beside one QP's 1 MiB Read storm (each engine, each mode)..." >&2
: > "$R-fairness.jsonl"
# the shared engine's two modes (the target rows) ROUNDS times each, the report taking the median of the runs' ratios
# (a single run's p99 ratio moved between 0.6 and 13 from one run to the next on the same build), each run beside one
# with engine.yield.us=0 (information: loops that never yield after a long turn); the thread engine once (information)
for run in $(seq 1 "$ROUNDS"); do
    for poll in false true; do
        for yield in default 0; do
            opt=()
            [ "$yield" = default ] || opt=("engine.yield.us=$yield")
            "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.Fairness 100 20000 engine=shared poll=$poll \
                "${opt[@]}" >> "$R-fairness.jsonl"
        done
    done
done
for poll in false true; do
    "$JAVA" "${JVM_FLAGS[@]}" -cp "$BENCH_CP" io.jndk.bench.Fairness 100 20000 engine=threads poll=$poll \
        >> "$R-fairness.jsonl"
done

echo >&2
echo "machine: $(nproc) cores, $(uname -sr), $("$JAVA" -version 2>&1 | head -n1), load average $(cut -d' ' -f1-3 /proc/loadavg)"
"$JAVA" -cp "$BENCH_CP" io.jndk.bench.Report "$R-summary.json" svg="$R-bandwidth-vs-size.svg" \
    base="$R-baselines.jsonl" nio-pairs="$R-nio-pairs.jsonl" nio-pingpong-pairs="$R-nio-pingpong-pairs.jsonl" \
    udp-pairs="$R-udp-pairs.jsonl" iwarp="$R-iwarp.jsonl" iwarp-crc="$R-iwarp-crc.jsonl" iwarp-poll="$R-iwarp-poll.jsonl" \
    iwarp-poll-crc="$R-iwarp-poll-crc.jsonl" iwarp-block="$R-iwarp-block.jsonl" \
    iwarp-block-crc="$R-iwarp-block-crc.jsonl" iwarp-block-each="$R-iwarp-block-each.jsonl" loopback="$R-loopback.jsonl" latency="$R-latency.jsonl" \
    latency-default="$R-latency-default.jsonl" latency-spin="$R-latency-spin.jsonl" scale="$R-scale.jsonl" roce="$R-roce.jsonl" \
    latency-roce="$R-latency-roce.jsonl" fairness="$R-fairness.jsonl"
echo "fairness (8-byte Write p99 with and without the Read storm; target: within 5x):"
cat "$R-fairness.jsonl"
echo "results: $R-*"
