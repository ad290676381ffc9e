#!/usr/bin/env bash
# interop-perftest.sh - jndk's perftest tools against perftest 4.5 on Linux siw.
#
# Every case: 3 tools x sizes 64, 4096, 65536 x 2 directions x siw CRC off/on, 100 iterations, -R; then, in the CRC-off
# boot, the VARIANTS (ib_write_lat, ib_read_lat, ib_send_lat, ib_write_bw -b, ib_write_bw -q 4) x VARIANT_SIZES (4096)
# x 2 directions.
#   siw2jndk: the guest's perftest client -> a jndk server on the host's 127.0.0.1:PORT (guest: 10.0.2.2)
#   jndk2siw: a jndk client -> the guest's perftest server on :18515 through hostfwd 127.0.0.1:28515
# One VM boot per CRC setting (18 cases, about 80 s of the 180 s budget; the 10 variant cases about 45 s more): the guest runs a small agent that executes the commands the host
# drops into the share (cmd.N -> out.N, rc.N, done.N), so many cases share one boot.
#
# Prints one row per case: "PASS|FAIL  case-name  bytes-moved  what-failed"; exits 1 when any case failed.
# Environment: SIWVM_DIR (the siw-vm tool folder; default ../shared/tools/siw-vm beside the repository),
# SIZES, TOOLS, CRCS, DIRECTIONS, ITERS, VARIANTS, VARIANT_SIZES, VARIANT_CRCS to narrow the matrix, KEEP=1 to keep
# the work folder. A TOOLS or VARIANTS entry is a test (write = write_bw, read_lat, ...) with ":b" for -b or ":qN" for
# -q N.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SIWVM_DIR="${SIWVM_DIR:-$ROOT/../shared/tools/siw-vm}"
TOOLS="${TOOLS:-write read send}"
SIZES="${SIZES:-64 4096 65536}"
CRCS="${CRCS:-0 1}"
DIRECTIONS="${DIRECTIONS:-siw2jndk jndk2siw}"
ITERS="${ITERS:-100}"
VARIANTS="${VARIANTS:-write_lat read_lat send_lat write_bw:b write_bw:q4}"
VARIANT_SIZES="${VARIANT_SIZES:-4096}"
VARIANT_CRCS="${VARIANT_CRCS:-0}"
VM_TIMEOUT=180
WORK="$(mktemp -d /tmp/interop-perftest.XXXXXX)"
FAILED=0
ROWS="$WORK/rows.txt"
: > "$ROWS"

[ -x "$SIWVM_DIR/run.sh" ] || { echo "interop-perftest: no siw-vm at $SIWVM_DIR (set SIWVM_DIR)" >&2; exit 2; }
# Build once up front, so no case pays for (or races) the launcher's rebuild.
"$ROOT/jndk" --help > /dev/null 2>&1 || { echo "interop-perftest: ./jndk does not run" >&2; exit 2; }

row() { # row PASS|FAIL name bytes what
  printf '%-4s  %-32s  %9s  %s\n' "$1" "$2" "$3" "$4" | tee -a "$ROWS"
  [ "$1" = PASS ] || FAILED=1
}

# ------------------------------------------------------------------ guest agent
cat > "$WORK/agent.sh" <<'EOF'
#!/bin/sh
# Runs cmd.N files dropped by the host, one after another, until one says "exit".
cd /mnt/host || exit 1
echo "siw params:$(for p in /sys/module/siw/parameters/*; do printf ' %s=%s' "${p##*/}" "$(cat "$p")"; done)"
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

SHARE=""
SEQ=0
VM_PID=""

# gcmd TEXT: hands TEXT to the guest agent; sets GN to its number
gcmd() {
  SEQ=$((SEQ+1)); GN=$SEQ
  printf '%s\n' "$1" > "$SHARE/cmd.$GN.tmp" && mv "$SHARE/cmd.$GN.tmp" "$SHARE/cmd.$GN"
}
# gwait N SECONDS: waits for the guest command's exit code; prints it (124 on timeout)
gwait() {
  local i=0
  while [ ! -f "$SHARE/rc.$1" ]; do
    sleep 0.2; i=$((i+1))
    if [ $i -ge $(( $2 * 5 )) ] || ! kill -0 "$VM_PID" 2>/dev/null; then echo 124; return; fi
  done
  cat "$SHARE/rc.$1"
}
# waitfile FILE SECONDS
waitfile() {
  local i=0
  while [ ! -e "$1" ]; do
    sleep 0.2; i=$((i+1))
    if [ $i -ge $(( $2 * 5 )) ] || ! kill -0 "$VM_PID" 2>/dev/null; then return 1; fi
  done
}
# waitjndk PID SECONDS: waits for a jndk process (a child of this shell: not in a subshell); sets JRC to its exit
# code (124 after killing it on timeout)
waitjndk() {
  local i=0
  while kill -0 "$1" 2>/dev/null; do
    sleep 0.2; i=$((i+1))
    if [ $i -ge $(( $2 * 5 )) ]; then kill "$1" 2>/dev/null; wait "$1" 2>/dev/null; JRC=124; return; fi
  done
  wait "$1"; JRC=$?
}

# spec TEST: sets BIN (ib_write_bw, ib_read_lat, ...), FLAGS ("", "-b", "-q 4"), NQP (QPs), RITERS (the iterations
# pattern of a row: ITERS, or any count with several QPs or both directions), LABEL (the case name's first part)
spec() {
  local t=${1%%:*} v=""
  [ "$t" = "$1" ] || v=${1#*:}
  case "$t" in *_bw|*_lat) ;; *) t="${t}_bw" ;; esac
  BIN="ib_$t"; FLAGS=""; NQP=1; RITERS=$ITERS; LABEL=$t
  case "$v" in
    b) FLAGS="-b"; RITERS='[0-9]+'; LABEL="$t-b" ;;
    q*) NQP=${v#q}; FLAGS="-q $NQP"; RITERS='[0-9]+'; LABEL="$t-q$NQP" ;;
  esac
}
# rowline FILE SIZE [TIME]: the table row for SIZE with RITERS iterations, if any (the BW tests' and the latency
# tests' rows both start with size, iterations and two figures, each matching the pattern TIME, default a number)
rowline() { local t="${3:-[0-9.]+}"; grep -E "^ $2 +$RITERS +$t +$t" "$1" 2>/dev/null | head -1; }
# serverrow FILE SIZE [TIME]: what the server printed, where perftest's server prints a row (ib_read_lat's only lends
# its buffer); TIME as rowline's
serverrow() { [ "$BIN" = ib_read_lat ] && echo "(no row from a read_lat server)" || rowline "$1" "$2" "${3:-}"; }
# guestrow FILE SIZE: the guest's row; its times may read "inf": under software emulation perftest's ib_send_lat
# server sometimes measures its clock as 0 MHz and prints inf for every time (seen with both sides exiting 0 after
# their round trips), which says nothing about the exchange the row counts
guestrow() { rowline "$1" "$2" "([0-9.]+|inf)"; }
# wirecheck PCAP CRC: the jndk side's capture must show NQP + 1 MPA Replies (control, data) with the CRC flag = CRC
# and no malformed frame; prints what is wrong, nothing when all is right. MPA is a TCP heuristic dissector: tried
# first, so that an ephemeral port some other protocol registered (44322 is pmproxy's) does not hide a connection.
wirecheck() {
  [ -s "$1" ] || { echo "no capture $1;"; return; }
  local flags malformed want
  flags=$(tshark --disable-heuristic rpcrdma_iwarp -o tcp.try_heuristic_first:TRUE -r "$1" -Y iwarp_mpa.rep -T fields -e iwarp_mpa.crc_flag 2>/dev/null \
    | sed 's/True/1/; s/False/0/' | tr '\n' ' ')
  want=$(for _ in $(seq 0 "$NQP"); do printf '%s ' "$2"; done)
  [ "$flags" = "$want" ] || echo "MPA Reply CRC flags '$flags' (want $((NQP + 1)) times $2);"
  malformed=$(tshark --disable-heuristic rpcrdma_iwarp -o tcp.try_heuristic_first:TRUE -r "$1" -Y _ws.malformed 2>/dev/null | wc -l)
  [ "$malformed" = 0 ] || echo "$malformed malformed frames in $1;"
}
# freeport: a TCP port nothing on 127.0.0.1 listens on right now
freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
calib() { grep -q -e "Correlation coefficient" -e "Can't produce a report" "$1" 2>/dev/null; }

boot() { # boot CRC NAME
  SHARE="$WORK/vm-$2"; mkdir -p "$SHARE"; SEQ=0
  flock /tmp/siw-vm.lock "$SIWVM_DIR/run.sh" -q -t "$VM_TIMEOUT" -s "$SHARE" -f tcp:127.0.0.1:28515-:18515 \
    -a "siw.mpa_crc_required=$1" "$WORK/agent.sh" > "$SHARE/run.log" 2>&1 &
  VM_PID=$!
  # the lock may be held by another VM run first: allow for its 180 s as well as our boot
  waitfile "$SHARE/agent.ready" $(( VM_TIMEOUT + 120 ))
}

shutdown_vm() {
  gcmd exit
  local i=0
  while kill -0 "$VM_PID" 2>/dev/null && [ $i -lt 150 ]; do sleep 0.2; i=$((i+1)); done
  kill "$VM_PID" 2>/dev/null; wait "$VM_PID" 2>/dev/null
}

# Guest perftest client -> jndk server on the host
case_siw2jndk() { # TEST SIZE CRC
  spec "$1"
  local size=$2 crc=$3 port name="$LABEL-$2-siw2jndk-crc$3" attempt why srv pid grc jrc gout
  for attempt in 1 2 3; do
    port=$(freeport)
    srv="$WORK/$name.$attempt.jndk.log"
    "$ROOT/jndk" "$BIN" -R -p "$port" -s "$size" -n "$ITERS" $FLAGS --pcap "$WORK/$name.$attempt.pcap" > "$srv" 2>&1 < /dev/null &
    pid=$!
    local i=0
    while ! grep -q "Waiting for client" "$srv" && kill -0 $pid 2>/dev/null && [ $i -lt 150 ]; do sleep 0.2; i=$((i+1)); done
    gcmd "timeout 60 $BIN -R -d siw0 -p $port -s $size -n $ITERS $FLAGS $SIWVM_HOST_IP"
    grc=$(gwait "$GN" 75)
    waitjndk $pid 30; jrc=$JRC
    gout="$SHARE/out.$GN"
    cp "$gout" "$WORK/$name.$attempt.guest.log" 2>/dev/null
    if [ "$grc" != 0 ] && calib "$gout" && [ $attempt -lt 3 ]; then continue; fi  # perftest gave up on its clock: the peer left early too
    why=""
    [ "$grc" = 0 ] || why="$why guest rc=$grc$(calib "$gout" && echo ' (clock calibration)');"
    [ "$jrc" = 0 ] || why="$why jndk rc=$jrc: $(grep -v '^ *$' "$srv" | grep -iE 'ib_|fail|error|exception' | head -2 | tr '\n' ' ');"
    [ -n "$(serverrow "$srv" "$size")" ] || why="$why no $size/$ITERS row from jndk;"
    [ "$grc" != 0 ] || [ -n "$(guestrow "$gout" "$size")" ] || why="$why no $size/$ITERS row from the guest;"
    why="$why $(wirecheck "$WORK/$name.$attempt.pcap" "$crc")"; why="${why% }"
    if [ -z "$why" ]; then row PASS "$name" $(( size * ITERS )) "attempt $attempt"; else row FAIL "$name" 0 "${why# }"; fi
    return
  done
}

# jndk client -> guest perftest server (through hostfwd 127.0.0.1:28515 -> :18515)
case_jndk2siw() { # TEST SIZE CRC
  spec "$1"
  local size=$2 crc=$3 name="$LABEL-$2-jndk2siw-crc$3" attempt why cli srn grc jrc id crcflag
  for attempt in 1 2 3; do
    id="$LABEL.$size.$attempt"
    cli="$WORK/$name.$attempt.jndk.log"
    gcmd "rm -f ready.$id; (timeout 90 $BIN -R -d siw0 -p 18515 -s $size -n $ITERS $FLAGS > srv.$id.log 2>&1; echo \$? > srv.$id.rc) &
i=0; while ! ss -ltn | grep -q ':18515 '; do sleep 0.1; i=\$((i+1)); [ \$i -lt 300 ] || exit 1; done
touch ready.$id"
    srn=$GN
    if ! waitfile "$SHARE/ready.$id" 40; then
      row FAIL "$name" 0 "the guest server did not listen (rc $(cat "$SHARE/rc.$srn" 2>/dev/null))"; return
    fi
    crcflag=""; [ "$crc" = 1 ] && crcflag=--crc   # siw answers CRC only when asked (mpa_crc_strict is off)
    timeout 90 "$ROOT/jndk" "$BIN" -R -p 28515 -s "$size" -n "$ITERS" $FLAGS $crcflag --pcap "$WORK/$name.$attempt.pcap" \
      127.0.0.1 > "$cli" 2>&1 < /dev/null
    jrc=$?
    waitfile "$SHARE/srv.$id.rc" 60
    grc=$(cat "$SHARE/srv.$id.rc" 2>/dev/null || echo 124)
    cp "$SHARE/srv.$id.log" "$WORK/$name.$attempt.guest.log" 2>/dev/null
    if [ "$grc" != 0 ] && calib "$SHARE/srv.$id.log" && [ $attempt -lt 3 ]; then continue; fi
    why=""
    [ "$jrc" = 0 ] || why="$why jndk rc=$jrc: $(grep -iE 'ib_|fail|error|exception' "$cli" | head -2 | tr '\n' ' ');"
    [ "$grc" = 0 ] || why="$why guest rc=$grc$(calib "$SHARE/srv.$id.log" && echo ' (clock calibration)');"
    [ -n "$(rowline "$cli" "$size")" ] || why="$why no $size/$ITERS row from jndk;"
    [ "$grc" != 0 ] || [ -n "$(serverrow "$SHARE/srv.$id.log" "$size" "([0-9.]+|inf)")" ] || why="$why no $size/$ITERS row from the guest;"
    why="$why $(wirecheck "$WORK/$name.$attempt.pcap" "$crc")"; why="${why% }"
    if [ -z "$why" ]; then row PASS "$name" $(( size * ITERS )) "attempt $attempt"; else row FAIL "$name" 0 "${why# }"; fi
    return
  done
}

SIWVM_HOST_IP=10.0.2.2
# cases CRC: "TEST SIZE" lines, the boot's matrix (the tools at SIZES; in VARIANT_CRCS, the variants at VARIANT_SIZES)
cases() {
  local t z
  for t in $TOOLS; do for z in $SIZES; do echo "$t $z"; done; done
  case " $VARIANT_CRCS " in *" $1 "*)
    for t in $VARIANTS; do for z in $VARIANT_SIZES; do echo "$t $z"; done; done ;;
  esac
}
for crc in $CRCS; do
  if ! boot "$crc" "crc$crc"; then
    for dir in $DIRECTIONS; do while read -r test size; do
      spec "$test"; row FAIL "$LABEL-$size-$dir-crc$crc" 0 "the VM did not come up (see $SHARE/run.log)"
    done < <(cases "$crc"); done
    kill "$VM_PID" 2>/dev/null; wait "$VM_PID" 2>/dev/null
    continue
  fi
  for dir in $DIRECTIONS; do
    while read -r test size; do
      if ! kill -0 "$VM_PID" 2>/dev/null; then
        spec "$test"; row FAIL "$LABEL-$size-$dir-crc$crc" 0 "the VM ended early (its $VM_TIMEOUT s budget?)"; continue
      fi
      if [ "$dir" = siw2jndk ]; then
        case_siw2jndk "$test" "$size" "$crc"
      else
        case_jndk2siw "$test" "$size" "$crc"
      fi
    done < <(cases "$crc")
  done
  shutdown_vm
  echo "# VM crc$crc: $(grep -o 'elapsed=.*' "$SHARE/run.log")" >&2
done

total=$(wc -l < "$ROWS"); passed=$(grep -c '^PASS' "$ROWS")
echo "perftest interop: $passed of $total cases passed (logs in $WORK)"
[ "${KEEP:-1}" = 1 ] || rm -rf "$WORK"
exit $FAILED
