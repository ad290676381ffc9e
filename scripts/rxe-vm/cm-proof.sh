#!/usr/bin/env bash
# The link-level proof against the real rxe: boots the rxe guest (boot.sh) with `rping -s` on 192.0.2.2:7174 and
# runs FrameRxeCmTest on the host, whose FrameLink (192.0.2.1) sends a CM REQ and must get rxe's REP. Results in
# OUT (default a new /tmp/jndk-rxe-cm.*): the test's output, the guest's capture of eth0 (guest-eth0.pcap), rxe's
# counters (rxe-stats.txt), console.log.   scripts/rxe-vm/cm-proof.sh   (as root)
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
OUT="${OUT:-$(mktemp -d /tmp/jndk-rxe-cm.XXXXXX)}"
export RXE_GUEST_PORT="${RXE_GUEST_PORT:-24792}" RXE_HOST_PORT="${RXE_HOST_PORT:-24793}"
mkdir -p "$OUT"
cat > "$OUT/guest.sh" <<'GUEST'
#!/bin/sh
tcpdump -i eth0 -s 0 -U -w /mnt/host/guest-eth0.pcap 'udp port 4791 or arp' > /tmp/td.log 2>&1 &
TP=$!
i=0; while ! grep -q listening /tmp/td.log && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done
timeout 280 rping -s -a "$RXEVM_IP" -p 7174 -C 1 -v > /mnt/host/rping-server.log 2>&1 &
RP=$!
i=0; until ss -ltn 2>/dev/null | grep -q ':7174 ' || [ $i -gt 50 ]; do sleep 0.1; i=$((i+1)); done
touch /mnt/host/ready
i=0; while [ ! -e /mnt/host/done ] && [ $i -lt 2700 ]; do sleep 0.1; i=$((i+1)); done
sleep 1
kill $RP 2>/dev/null; wait $RP
cat /mnt/host/rping-server.log
kill -INT $TP; wait $TP
exit 0
GUEST
(
  for ((i = 0; i < 3000; i++)); do [ -e "$OUT/ready" ] && break; sleep 0.1; done
  cd "$ROOT" && . scripts/jdk.sh && jndk_require_jdk
  JNDK_RXE_DGRAM="$RXE_HOST_PORT:$RXE_GUEST_PORT" nice -n 15 mvn -q -o -pl jndk-roce -am test -Dtest=FrameRxeCmTest \
    -Dsurefire.failIfNoSpecifiedTests=false > "$OUT/test.log" 2>&1
  echo $? > "$OUT/test.rc"
  cp jndk-roce/target/rxe-cm-proof.txt "$OUT/" 2>/dev/null
  touch "$OUT/done"
) &
HELPER=$!
"$ROOT/scripts/rxe-vm/boot.sh" -q -t 400 -s "$OUT" "$OUT/guest.sh" > "$OUT/boot.log" 2>&1
vm=$?
kill "$HELPER" 2>/dev/null; wait "$HELPER" 2>/dev/null
echo "vm exit $vm, test exit $(cat "$OUT/test.rc" 2>/dev/null || echo none); results in $OUT"
cat "$OUT/rxe-cm-proof.txt" 2>/dev/null
[ "$vm" = 0 ] && [ "$(cat "$OUT/test.rc" 2>/dev/null)" = 0 ]
