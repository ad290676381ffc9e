#!/usr/bin/env bash
# Interoperability of jndk with Linux's soft-iWARP (siw) in a QEMU guest: rping in both directions at several
# sizes, with siw's MPA CRC off and on; then scripts/interop-perftest.sh when it exists.
#
#   scripts/interop-siw.sh            (as root; needs the siw-vm tools in ../shared/tools/siw-vm beside the repo)
#
# Environment: SIZES (default "64 1024 65535"), COUNT (pings per case, default 100), PHASES (siw CRC settings,
# default "off on"), OUT (results folder,
# default a new /tmp/jndk-interop-siw.*), CAPTURE=1 (guest tcpdump of eth0 per boot), SIWVM_DIR, SIWVM_CACHE.
# The guest is built first when ~/.cache/siw-vm/out/vmlinuz is missing. One VM boot per CRC setting runs
# every case of that setting; only one VM runs at a time on the machine (flock /tmp/siw-vm.lock).
#
# Output: one row per case
#   RESULT  TOOL      CASE                        SIZE  CRC      BYTES  DETAIL
# RESULT is PASS or FAIL, CRC siw's setting (a case also fails when jndk's capture shows the other CRC
# negotiated), BYTES the payload octets moved (rping: read + written), DETAIL what failed.
# The last line is "N passed, M failed"; the exit status is non-zero when any case (or perftest) failed.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIWVM="${SIWVM_DIR:-$ROOT/../shared/tools/siw-vm}"
CACHE="${SIWVM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/siw-vm}"
SIZES="${SIZES:-64 1024 65535}"
COUNT="${COUNT:-100}"
OUT="${OUT:-$(mktemp -d /tmp/jndk-interop-siw.XXXXXX)}"
VM_TIMEOUT=180
FWD_PORT=17174
A_BASE_PORT=17280
mkdir -p "$OUT"

ROWS=()
PASSED=0
FAILED=0
row() { # row RESULT TOOL CASE SIZE CRC BYTES DETAIL
    local line
    line="$(printf '%-4s  %-8s  %-26s  %5s  %-7s  %9s  %s' "$1" "$2" "$3" "$4" "crc=$5" "$6" "$7")"
    ROWS+=("$line")
    echo "$line"
    if [ "$1" = PASS ]; then PASSED=$((PASSED + 1)); else FAILED=$((FAILED + 1)); fi
}
header() { printf '%-4s  %-8s  %-26s  %5s  %-7s  %9s  %s\n' RESULT TOOL CASE SIZE CRC BYTES DETAIL; }

if [ ! -d "$SIWVM" ]; then
    echo "interop-siw: no siw-vm tools at $SIWVM (set SIWVM_DIR)" >&2
    exit 2
fi
if [ ! -f "$CACHE/out/vmlinuz" ]; then
    echo "interop-siw: building the siw guest ($SIWVM/build.sh)..." >&2
    "$SIWVM/build.sh" >"$OUT/build.log" 2>&1 || { echo "interop-siw: guest build failed; see $OUT/build.log" >&2; exit 2; }
fi
# Build jndk once, before several JVMs start at the same time.
"$ROOT/jndk" --help >/dev/null || { echo "interop-siw: ./jndk does not build" >&2; exit 2; }

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

# waits (bounded) for a file to contain a pattern
await_line() { # await_line FILE REGEX SECONDS
    local i
    for ((i = 0; i < $3 * 10; i++)); do
        grep -qE "$2" "$1" 2>/dev/null && return 0
        sleep 0.1
    done
    return 1
}

# first line that says why a side failed
why() { # why FILE...
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        grep -m1 -E 'rping: |data mismatch|error|failed|bogus|wait for|Invalid|REJECTED|UNREACHABLE|killed|no listener' "$f" \
            | grep -v DISCONNECT && return
    done
}

# CRC as negotiated on the wire (the C flag of the MPA Reply in jndk's capture): on, off, or ? without tshark
wire_crc() { # wire_crc PCAP
    local f
    command -v tshark >/dev/null || { echo "?"; return; }
    f="$(tshark -o tcp.try_heuristic_first:TRUE -r "$1" -Y iwarp_mpa.rep -T fields -e iwarp_mpa.crc_flag 2>/dev/null | head -n1)"
    case "$f" in 1 | True) echo on ;; 0 | False) echo off ;; *) echo "?" ;; esac
}

other() { [ "$1" = on ] && echo off || echo on; }

run_phase() { # run_phase CRC(on|off)
    local crc="$1" share="$OUT/crc-$1" size port i a_cases="" vmargs=() rc
    rm -rf "$share"
    mkdir -p "$share"
    # siw's mpa_crc_required makes siw ask for CRC as initiator, but as responder siw only echoes the
    # initiator's C flag (docs/INTEROP.md): with siw CRC on, the jndk client asks for CRC too.
    local jcrc=()
    [ "$crc" = on ] && vmargs=(-a "siw.mpa_crc_required=1") && jcrc=(--crc)
    # (a) one jndk server per size, started before the guest boots.
    declare -A spid=()
    i=0
    for size in $SIZES; do
        port=$((A_BASE_PORT + i))
        i=$((i + 1))
        a_cases="$a_cases $size:$port"
        "$ROOT/jndk" rping -s -a 127.0.0.1 -p "$port" -S "$size" -d --pcap "$share/jndk-a-$size.pcap" \
            >"$share/jndk-a-$size.log" 2>&1 &
        spid[$size]=$!
        PIDS+=($!)
    done
    for size in $SIZES; do
        await_line "$share/jndk-a-$size.log" '^listening on ' 60 || echo "interop-siw: jndk server for $size did not start" >&2
    done
    cat >"$share/cases.env" <<EOF
COUNT=$COUNT
A_CASES="$a_cases"
B_SIZES="$SIZES"
CAPTURE=${CAPTURE:-0}
EOF
    # (b) the host side: a jndk client for each guest server, when the guest says it is ready.
    (
        for size in $SIZES; do
            for ((i = 0; i < 6000; i++)); do [ -e "$share/ready.b-$size" ] && break; sleep 0.1; done
            if [ -e "$share/ready.b-$size" ]; then
                timeout 90 "$ROOT/jndk" rping -c -a 127.0.0.1 -p "$FWD_PORT" -C "$COUNT" -S "$size" -V -d "${jcrc[@]}" \
                    --pcap "$share/jndk-b-$size.pcap" >"$share/jndk-b-$size.log" 2>&1
                echo $? >"$share/jndk-b-$size.rc"
            fi
            touch "$share/done.b-$size"
        done
    ) &
    local helper=$!
    PIDS+=($helper)
    rc=0
    flock -w 900 /tmp/siw-vm.lock "$SIWVM/run.sh" -q -t "$VM_TIMEOUT" -s "$share" -f "tcp:127.0.0.1:$FWD_PORT-:7174" \
        "${vmargs[@]}" "$ROOT/scripts/siw-guest-rping.sh" >"$share/run.log" 2>&1 || rc=$?
    kill "$helper" 2>/dev/null
    wait "$helper" 2>/dev/null
    local vmnote=""
    [ "$rc" != 0 ] && vmnote="VM run ended with $rc ($(tail -n1 "$share/run.log")); "

    for size in $SIZES; do
        # jndk servers end when their client disconnects; give them a moment, then stop them.
        for ((i = 0; i < 100; i++)); do kill -0 "${spid[$size]}" 2>/dev/null || break; sleep 0.1; done
        local srv_rc
        if kill -0 "${spid[$size]}" 2>/dev/null; then
            kill "${spid[$size]}" 2>/dev/null
            wait "${spid[$size]}" 2>/dev/null
            srv_rc="still running"
        else
            wait "${spid[$size]}" 2>/dev/null
            srv_rc=$?
        fi
        local guest_rc bytes detail wire pings
        guest_rc="$(cat "$share/a-$size.rc" 2>/dev/null || echo none)"
        bytes="$(sed -nE 's/^server: .*: ([0-9]+) pings, ([0-9]+) octets read and written$/\2/p' "$share/jndk-a-$size.log" | tail -n1)"
        pings="$(sed -nE 's/^server: .*: ([0-9]+) pings, .*/\1/p' "$share/jndk-a-$size.log" | tail -n1)"
        wire="$(wire_crc "$share/jndk-a-$size.pcap")"
        if [ "$guest_rc" = 0 ] && [ "$srv_rc" = 0 ] && [ "${pings:-0}" = "$COUNT" ] && [ "$wire" != "$(other "$crc")" ]; then
            row PASS rping "siw client -> jndk server" "$size" "$crc" "${bytes:-0}" ""
        else
            detail="${vmnote}siw rping -c exit $guest_rc, jndk server exit $srv_rc, ${pings:-0}/$COUNT pings, CRC on the wire $wire"
            local w
            w="$(why "$share/a-$size.log" "$share/jndk-a-$size.log")"
            [ -n "$w" ] && detail="$detail: $w"
            row FAIL rping "siw client -> jndk server" "$size" "$crc" "${bytes:-0}" "$detail"
        fi
    done
    for size in $SIZES; do
        local cl_rc guest_rc pings bytes detail w wire
        cl_rc="$(cat "$share/jndk-b-$size.rc" 2>/dev/null || echo none)"
        guest_rc="$(cat "$share/b-$size.rc" 2>/dev/null || echo none)"
        pings="$(sed -nE 's/^client: ([0-9]+) pings of ([0-9]+) octets$/\1/p' "$share/jndk-b-$size.log" | tail -n1)"
        bytes=$(( 2 * ${pings:-0} * size ))
        wire="$(wire_crc "$share/jndk-b-$size.pcap")"
        if [ "$cl_rc" = 0 ] && [ "$guest_rc" = 0 ] && [ "${pings:-0}" = "$COUNT" ] && [ "$wire" != "$(other "$crc")" ]; then
            row PASS rping "jndk client -> siw server" "$size" "$crc" "$bytes" ""
        else
            detail="${vmnote}jndk rping -c exit $cl_rc, siw rping -s exit $guest_rc, CRC on the wire $wire"
            w="$(why "$share/jndk-b-$size.log" "$share/b-$size.log")"
            [ -n "$w" ] && detail="$detail: $w"
            row FAIL rping "jndk client -> siw server" "$size" "$crc" "$bytes" "$detail"
        fi
    done
}

echo "interop-siw: results and logs in $OUT"
header
for crc in ${PHASES:-off on}; do
    run_phase "$crc"
done

perf_rc=0
if [ -x "$ROOT/scripts/interop-perftest.sh" ] || [ -f "$ROOT/scripts/interop-perftest.sh" ]; then
    echo "interop-siw: running scripts/interop-perftest.sh" >&2
    bash "$ROOT/scripts/interop-perftest.sh" >"$OUT/perftest.out" 2>"$OUT/perftest.err" || perf_rc=$?
    while IFS= read -r line; do
        case "$line" in
            PASS\ *) ROWS+=("$line"); PASSED=$((PASSED + 1)); echo "$line" ;;
            FAIL\ *) ROWS+=("$line"); FAILED=$((FAILED + 1)); echo "$line" ;;
        esac
    done <"$OUT/perftest.out"
    if [ "$perf_rc" != 0 ]; then
        echo "interop-siw: interop-perftest.sh exited $perf_rc (see $OUT/perftest.out, perftest.err)" >&2
    fi
fi

echo
echo "$PASSED passed, $FAILED failed"
[ "$FAILED" = 0 ] && [ "$perf_rc" = 0 ]
