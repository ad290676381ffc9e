#!/usr/bin/env bash
# Interoperability of jndk's roce transport with Linux's soft-RoCE (rxe) in a QEMU guest: rping in both directions
# at several sizes, then perftest's ib_write_bw, ib_read_bw, ib_send_bw, ib_write_lat, ib_read_lat and ib_send_lat in
# both directions, each in rdma_cm mode (-R) and in perftest's default mode (parameters over TCP, QPs connected
# without a CM; frame path only).
#
#   scripts/interop-rxe.sh            (as root; builds the guest with scripts/rxe-vm on first use, about a minute)
#
# The path (docs/INTEROP-ROCE.md): the guest's eth0 (192.0.2.2, rxe0 on it) is a QEMU -netdev dgram wire on
# 127.0.0.1, and jndk is the other station on that Ethernet segment, 192.0.2.1, through its frame link
# (-O link=dgram:HOSTPORT:GUESTPORT): jndk answers ARP and builds the IPv4 and UDP headers itself, so every ICRC it
# sends and checks is exact. One jndk process at a time owns the link, so the cases run one after another in one
# boot: the guest runs a small agent that executes the commands the host drops into the share.
#
# VIA=ipv6 takes the other path, the one users get on a real network: jndk's UDP socket on 2001:db8::1 in a network
# namespace of its own, the guest's eth0 a tap in it with 2001:db8::2 (rxe's GID for it), no frame link.
#
# Environment: SIZES (rping sizes, default "64 1024 65535"), COUNT (pings, default 100), TOOLS (perftest tests,
# default "write read send write_lat read_lat send_lat"; *_lat runs ib_*_lat), PT_SIZES (default "64 4096 65536"), ITERS (default 100), DIRECTIONS (default
# "rxe2jndk jndk2rxe"), EXCHANGES (default "R tcp" on the frame path, "R" on ipv6), VM_TIMEOUT (the guest's whole
# run, seconds, default 1800), PT_TCP_PORT (the host's forward
# to the guest's perftest server, default 18516), RXE_GUEST_PORT / RXE_HOST_PORT (the dgram wire's ports, default 24792 / 24793), OUT
# (results folder, default a new /tmp/jndk-interop-rxe.*).
#
# Output: one row per case, "PASS|FAIL  TOOL  CASE  SIZE  BYTES  DETAIL"; the last line is "N passed, M failed";
# the exit status is non-zero when any case failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIZES="${SIZES:-64 1024 65535}"
COUNT="${COUNT:-100}"
TOOLS="${TOOLS:-write read send write_lat read_lat send_lat}"
PT_SIZES="${PT_SIZES:-64 4096 65536}"
ITERS="${ITERS:-100}"
DIRECTIONS="${DIRECTIONS:-rxe2jndk jndk2rxe}"
EXCHANGES="${EXCHANGES:-}"
export RXE_GUEST_PORT="${RXE_GUEST_PORT:-24792}" RXE_HOST_PORT="${RXE_HOST_PORT:-24793}"
OUT="${OUT:-$(mktemp -d /tmp/jndk-interop-rxe.XXXXXX)}"
LINK="link=dgram:$RXE_HOST_PORT:$RXE_GUEST_PORT"
VIA="${VIA:-frame}"
PT_TCP_PORT="${PT_TCP_PORT:-18516}"
# perftest's TCP exchange needs the guest's second NIC, which only the frame path sets up
[ -n "$EXCHANGES" ] || if [ "$VIA" = frame ]; then EXCHANGES="R tcp"; else EXCHANGES="R"; fi
NS=jndk-rxe6
case "$VIA" in
    frame) ME=192.0.2.1 GUEST=192.0.2.2 JNDK=("$ROOT/jndk") LINKOPT=(-O "$LINK") ;;
    ipv6) ME=2001:db8::1 GUEST=2001:db8::2 JNDK=(ip netns exec "$NS" "$ROOT/jndk") LINKOPT=() ;;
    *) echo "interop-rxe: VIA=$VIA: frame or ipv6" >&2; exit 2 ;;
esac
# the guest runs under software emulation: the 78 cases took 798 s on one day and 958 s on the next (every tool
# about a fifth slower, the machine's speed), so the VM's budget keeps a wide margin
VM_TIMEOUT="${VM_TIMEOUT:-1800}"
SHARE="$OUT/share"
mkdir -p "$SHARE"

PASSED=0
FAILED=0
row() { # row RESULT TOOL CASE SIZE BYTES DETAIL
    printf '%-4s  %-11s  %-24s  %5s  %10s  %s\n' "$1" "$2" "$3" "$4" "$5" "$6"
    if [ "$1" = PASS ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
}

"$ROOT/jndk" --help >/dev/null 2>&1 || { echo "interop-rxe: ./jndk does not run" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null || { echo "interop-rxe: no qemu-system-x86_64 (apt install qemu-system-x86)" >&2; exit 2; }

# ------------------------------------------------------------------ guest agent
cat > "$OUT/agent.sh" <<'EOF'
#!/bin/sh
# Runs cmd.N files dropped by the host, one after another, until one says "exit".
cd /mnt/host || exit 1
[ ! -f setup.sh ] || dash setup.sh
ip addr show eth0 | grep inet
touch agent.ready
n=1
while :; do
  i=0
  while [ ! -f "cmd.$n" ]; do
    sleep 0.2; i=$((i+1))
    [ $i -lt 1500 ] || { echo "agent: no command $n for 300 s"; exit 1; }
  done
  grep -qx exit "cmd.$n" && break
  dash "cmd.$n" > "out.$n" 2>&1
  echo $? > "rc.$n.tmp"; mv "rc.$n.tmp" "rc.$n"
  n=$((n+1))
done
exit 0
EOF

SEQ=0
VM_PID=""
PIDS=()
# the VM runs in a session of its own (setsid): killing its group stops boot.sh, run.sh and QEMU together
cleanup() {
    for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
    [ -z "$VM_PID" ] || kill -- "-$VM_PID" 2>/dev/null || true
}
trap cleanup EXIT

gcmd() { # gcmd TEXT: hands TEXT to the guest agent; sets GN to its number
    SEQ=$((SEQ + 1)); GN=$SEQ
    printf '%s\n' "$1" > "$SHARE/cmd.$GN.tmp" && mv "$SHARE/cmd.$GN.tmp" "$SHARE/cmd.$GN"
}
gwait() { # gwait N SECONDS: the guest command's exit code (124 on timeout)
    local i=0
    while [ ! -f "$SHARE/rc.$1" ]; do
        sleep 0.2; i=$((i + 1))
        if [ $i -ge $(($2 * 5)) ] || ! kill -0 "$VM_PID" 2>/dev/null; then echo 124; return; fi
    done
    cat "$SHARE/rc.$1"
}
waitfile() { # waitfile FILE SECONDS
    local i=0
    while [ ! -e "$1" ]; do
        sleep 0.2; i=$((i + 1))
        if [ $i -ge $(($2 * 5)) ] || ! kill -0 "$VM_PID" 2>/dev/null; then return 1; fi
    done
}
await_line() { # await_line FILE REGEX SECONDS
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}
waitjndk() { # waitjndk PID SECONDS: sets JRC to the process's exit code (124 after killing it on timeout)
    local i=0
    while kill -0 "$1" 2>/dev/null; do
        sleep 0.2; i=$((i + 1))
        if [ $i -ge $(($2 * 5)) ]; then kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; JRC=124; return; fi
    done
    wait "$1"; JRC=$?
}
why() { # why FILE...: the first line that says why a side failed
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        grep -m1 -E 'rping: |data mismatch|error|fail|bogus|Invalid|REJECTED|UNREACHABLE|Couldn|Unable|ib_' "$f" \
            | grep -v -E 'DISCONNECT|^ *#' && return
    done
}
# pcapcheck PCAP: what tshark says is wrong with a jndk capture (nothing when all is right). The RPC-over-RDMA
# heuristic is off: it claims perftest's 4-byte control Sends (rxe's as much as jndk's) and calls them malformed.
pcapcheck() {
    [ -s "$1" ] || { echo "no capture;"; return; }
    command -v tshark >/dev/null || return
    local decoded malformed
    decoded=$(tshark --disable-heuristic rpcrdma_infiniband -r "$1" 2>/dev/null) || { echo "tshark cannot read the capture;"; return; }
    malformed=$(grep -c 'Malformed' <<< "$decoded")
    [ "$malformed" = 0 ] || echo "$malformed malformed packets in the capture;"
    grep -q RRoCE <<< "$decoded" || echo "no RoCEv2 packet in the capture;"
}

# ------------------------------------------------------------------ rping
rping_jndk2rxe() { # SIZE
    local size=$1 name="rping-jndk2rxe-$1" grc jrc pings detail
    gcmd "timeout 120 rping -s -a $GUEST -p 7174 -S $size -v > $name.guest.log 2>&1 & P=\$!
i=0; until ss -ltn 2>/dev/null | grep -q ':7174 ' || [ \$i -gt 100 ]; do sleep 0.1; i=\$((i+1)); done
touch $name.ready; wait \$P"
    local n=$GN
    waitfile "$SHARE/$name.ready" 60
    timeout 120 "${JNDK[@]}" rping -c -a "$GUEST" -I "$ME" -p 7174 -C "$COUNT" -S "$size" -V -d --transport roce \
        "${LINKOPT[@]}" --pcap "$OUT/$name.pcap" > "$OUT/$name.jndk.log" 2>&1
    jrc=$?
    grc=$(gwait "$n" 60)
    pings="$(sed -nE 's/^client: ([0-9]+) pings of ([0-9]+) octets$/\1/p' "$OUT/$name.jndk.log" | tail -n1)"
    detail="$(pcapcheck "$OUT/$name.pcap")"
    if [ "$jrc" = 0 ] && [ "$grc" = 0 ] && [ "${pings:-0}" = "$COUNT" ] && [ -z "$detail" ]; then
        row PASS rping "jndk -> rxe server" "$size" $((2 * COUNT * size)) ""
    else
        row FAIL rping "jndk -> rxe server" "$size" $((2 * ${pings:-0} * size)) \
            "jndk rping -c exit $jrc, rxe rping -s exit $grc, ${pings:-0}/$COUNT pings; $detail $(why "$OUT/$name.jndk.log" "$SHARE/$name.guest.log")"
    fi
}

rping_rxe2jndk() { # SIZE
    local size=$1 name="rping-rxe2jndk-$1" grc jrc pid bytes pings detail
    "${JNDK[@]}" rping -s -a "$ME" -p 7174 -S "$size" -d --transport roce "${LINKOPT[@]}" --pcap "$OUT/$name.pcap" \
        > "$OUT/$name.jndk.log" 2>&1 < /dev/null &
    pid=$!
    PIDS+=($pid)
    await_line "$OUT/$name.jndk.log" '^listening on ' 60
    gcmd "timeout 120 rping -c -a $ME -p 7174 -C $COUNT -S $size -V > $name.guest.log 2>&1"
    grc=$(gwait "$GN" 130)
    waitjndk $pid 30; jrc=$JRC
    bytes="$(sed -nE 's/^server: .*: ([0-9]+) pings, ([0-9]+) octets read and written$/\2/p' "$OUT/$name.jndk.log" | tail -n1)"
    pings="$(sed -nE 's/^server: .*: ([0-9]+) pings, .*/\1/p' "$OUT/$name.jndk.log" | tail -n1)"
    detail="$(pcapcheck "$OUT/$name.pcap")"
    if [ "$grc" = 0 ] && [ "$jrc" = 0 ] && [ "${pings:-0}" = "$COUNT" ] && [ -z "$detail" ]; then
        row PASS rping "rxe -> jndk server" "$size" "${bytes:-0}" ""
    else
        row FAIL rping "rxe -> jndk server" "$size" "${bytes:-0}" \
            "rxe rping -c exit $grc, jndk rping -s exit $jrc, ${pings:-0}/$COUNT pings; $detail $(why "$SHARE/$name.guest.log" "$OUT/$name.jndk.log")"
    fi
}

# ------------------------------------------------------------------ perftest (-R)
# rowline FILE SIZE [TIME]: the row of SIZE with ITERS iterations, its first two figures matching TIME (a number)
rowline() { local t="${3:-[0-9.]+}"; grep -E "^ $2 +$ITERS +$t +$t" "$1" 2>/dev/null | head -1; }
# guestrow FILE SIZE: the guest's row of the size with ITERS iterations; its times may read "inf": under software
# emulation perftest's ib_send_lat server sometimes measures its clock as 0 MHz and prints inf for every time (seen
# with both sides exiting 0 after 100 round trips), which says nothing about the exchange the row counts
guestrow() { rowline "$1" "$2" "([0-9.]+|inf)"; }
# calib FILE: whether the guest's perftest gave up on its clock calibration, which it does now and then under software
# emulation ("Correlation coefficient r^2: ... < 0.9", "Can't produce a report"): the case is run once more, as
# interop-perftest.sh does for siw
calib() { grep -q -e "Correlation coefficient" -e "Can't produce a report" "$1" 2>/dev/null; }

# Each case runs in rdma_cm mode (EXCHANGE R: -R) or in perftest's default mode (EXCHANGE tcp: the parameters over
# TCP, through the guest's second NIC, and QPs connected without a CM): jndk's TCP reaches the guest's perftest
# server through QEMU's forward of 127.0.0.1:$PT_TCP_PORT, the guest's perftest client reaches jndk's server as
# 10.0.2.2 (the host's 127.0.0.1).
pt_flag() { [ "$1" = R ] && echo "-R"; }
# TOOLS names a test: write, read, send (ib_*_bw) or write_lat, read_lat, send_lat (ib_*_lat)
pt_bin() { case "$1" in *_lat) echo "ib_$1" ;; *) echo "ib_$1_bw" ;; esac; }
# TEST's figure in a row of LOG: bandwidth (MB/s, column 4) or the typical latency (usec, column 5)
pt_figure() { case "$1" in *_lat) rowline "$2" "$3" | awk '{print $5 " us typical"}' ;; *) rowline "$2" "$3" | awk '{print $4 " MB/s"}' ;; esac; }
# whether the server side of TEST prints a row too (perftest's Read latency server only lends its buffer)
pt_server_row() { [ "$1" != read_lat ]; }
pt_jndk2rxe() { # TEST SIZE EXCHANGE
    local bin size=$2 ex=$3 name grc jrc detail flag host port
    bin="$(pt_bin "$1")"; name="${bin#ib_}-jndk2rxe-$2-$3"
    flag="$(pt_flag "$ex")"
    if [ "$ex" = R ]; then host=$GUEST port=18515; else host=127.0.0.1 port=$PT_TCP_PORT; fi
    gcmd "timeout 120 $bin $flag -d rxe0 -p 18515 -s $size -n $ITERS > $name.guest.log 2>&1 & P=\$!
i=0; until grep -q 'Waiting for client' $name.guest.log 2>/dev/null || [ \$i -gt 100 ]; do sleep 0.1; i=\$((i+1)); done
touch $name.ready; wait \$P"
    local n=$GN
    waitfile "$SHARE/$name.ready" 60
    timeout 120 "${JNDK[@]}" "$bin" $flag "$host" -p "$port" -s "$size" -n "$ITERS" --transport roce --bind "$ME" \
        "${LINKOPT[@]}" --pcap "$OUT/$name.pcap" > "$OUT/$name.jndk.log" 2>&1 < /dev/null
    jrc=$?
    grc=$(gwait "$n" 60)
    if [ "$grc" != 0 ] && calib "$SHARE/$name.guest.log" && [ "${PT_ATTEMPT:-1}" = 1 ]; then
        rm -f "$SHARE/$name.ready"
        PT_ATTEMPT=2 pt_jndk2rxe "$@"
        return
    fi
    detail="$(pcapcheck "$OUT/$name.pcap")"
    [ -n "$(rowline "$OUT/$name.jndk.log" "$size")" ] || detail="$detail no $size/$ITERS row from jndk;"
    if pt_server_row "$1"; then
        [ -n "$(guestrow "$SHARE/$name.guest.log" "$size")" ] || detail="$detail no $size/$ITERS row from rxe;"
    fi
    if [ "$jrc" = 0 ] && [ "$grc" = 0 ] && [ -z "$detail" ]; then
        row PASS "$bin" "jndk -> rxe server $ex" "$size" $((size * ITERS)) "$(pt_figure "$1" "$OUT/$name.jndk.log" "$size")$([ "${PT_ATTEMPT:-1}" = 1 ] || echo ", attempt 2 (the guest's clock calibration)")"
    else
        row FAIL "$bin" "jndk -> rxe server $ex" "$size" 0 \
            "jndk exit $jrc, rxe exit $grc;$detail $(why "$OUT/$name.jndk.log" "$SHARE/$name.guest.log")"
    fi
}

pt_rxe2jndk() { # TEST SIZE EXCHANGE
    local bin size=$2 ex=$3 name grc jrc pid detail flag to
    bin="$(pt_bin "$1")"; name="${bin#ib_}-rxe2jndk-$2-$3"
    flag="$(pt_flag "$ex")"
    if [ "$ex" = R ]; then to=$ME; else to=10.0.2.2; fi
    "${JNDK[@]}" "$bin" $flag -p 18515 -s "$size" -n "$ITERS" --transport roce --bind "$ME" "${LINKOPT[@]}" \
        --pcap "$OUT/$name.pcap" > "$OUT/$name.jndk.log" 2>&1 < /dev/null &
    pid=$!
    PIDS+=($pid)
    await_line "$OUT/$name.jndk.log" 'Waiting for client' 60
    gcmd "timeout 120 $bin $flag -d rxe0 -p 18515 -s $size -n $ITERS $to > $name.guest.log 2>&1"
    grc=$(gwait "$GN" 130)
    waitjndk $pid 30; jrc=$JRC
    if [ "$grc" != 0 ] && calib "$SHARE/$name.guest.log" && [ "${PT_ATTEMPT:-1}" = 1 ]; then
        PT_ATTEMPT=2 pt_rxe2jndk "$@"
        return
    fi
    detail="$(pcapcheck "$OUT/$name.pcap")"
    if pt_server_row "$1"; then
        [ -n "$(rowline "$OUT/$name.jndk.log" "$size")" ] || detail="$detail no $size/$ITERS row from jndk;"
    fi
    [ -n "$(guestrow "$SHARE/$name.guest.log" "$size")" ] || detail="$detail no $size/$ITERS row from rxe;"
    if [ "$jrc" = 0 ] && [ "$grc" = 0 ] && [ -z "$detail" ]; then
        row PASS "$bin" "rxe -> jndk server $ex" "$size" $((size * ITERS)) "$(pt_figure "$1" "$SHARE/$name.guest.log" "$size")$([ "${PT_ATTEMPT:-1}" = 1 ] || echo ", attempt 2 (the guest's clock calibration)")"
    else
        row FAIL "$bin" "rxe -> jndk server $ex" "$size" 0 \
            "rxe exit $grc, jndk exit $jrc;$detail $(why "$SHARE/$name.guest.log" "$OUT/$name.jndk.log")"
    fi
}

# ------------------------------------------------------------------ one boot, every case
echo "interop-rxe: results and logs in $OUT (path: $VIA, jndk $ME, rxe $GUEST)"
BOOT=(setsid "$ROOT/scripts/rxe-vm/boot.sh")
if [ "$VIA" = ipv6 ]; then
    # the socket path: the guest's eth0 is a tap in a namespace of its own, where jndk's UDP socket has 2001:db8::1
    ip netns del "$NS" 2>/dev/null
    ip netns add "$NS" && ip -n "$NS" link set lo up && ip -n "$NS" tuntap add dev tap0 mode tap \
        && ip -n "$NS" addr add "$ME/64" dev tap0 nodad && ip -n "$NS" link set tap0 up \
        || { echo "interop-rxe: cannot make the namespace $NS (root? tun?)" >&2; exit 2; }
    trap 'cleanup; ip netns del "$NS" 2>/dev/null' EXIT
    printf 'ip -6 addr add %s/64 dev eth0 nodad\n' "$GUEST" > "$SHARE/setup.sh"
    export RXE_NETDEV="tap,id=n0,ifname=tap0,script=no,downscript=no"
    BOOT=(ip netns exec "$NS" "${BOOT[@]}")
fi
if [ "$VIA" = frame ] && [[ " $EXCHANGES " == *" tcp "* ]]; then
    # perftest's TCP exchange: a second NIC in the guest, user-mode networking with one forward into it
    export RXE_NETDEV2="user,id=n1,net=10.0.2.0/24,host=10.0.2.2,ipv6=off,hostfwd=tcp:127.0.0.1:$PT_TCP_PORT-:18515"
fi
"${BOOT[@]}" -q -t "$VM_TIMEOUT" -s "$SHARE" "$OUT/agent.sh" > "$OUT/boot.log" 2>&1 &
VM_PID=$!
if ! waitfile "$SHARE/agent.ready" 600; then
    echo "interop-rxe: the guest did not start (see $OUT/boot.log)" >&2
    tail -5 "$OUT/boot.log" >&2
    exit 2
fi
printf '%-4s  %-11s  %-24s  %5s  %10s  %s\n' RESULT TOOL CASE SIZE BYTES DETAIL
for dir in $DIRECTIONS; do
    for size in $SIZES; do "rping_$dir" "$size"; done
done
for t in $TOOLS; do
    for size in $PT_SIZES; do
        for ex in $EXCHANGES; do
            for dir in $DIRECTIONS; do "pt_$dir" "$t" "$size" "$ex"; done
        done
    done
done
gcmd exit
for ((i = 0; i < 150; i++)); do kill -0 "$VM_PID" 2>/dev/null || break; sleep 0.2; done
kill -- "-$VM_PID" 2>/dev/null
wait "$VM_PID" 2>/dev/null
VM_PID=""
cp "$SHARE/rxe-stats.txt" "$OUT/" 2>/dev/null && echo "rxe counters: $(cat "$OUT/rxe-stats.txt")"
echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ]
