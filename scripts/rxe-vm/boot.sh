#!/usr/bin/env bash
# Boots the rxe guest (Linux soft-RoCE, rdma_rxe, in a small QEMU VM) with its eth0 on a QEMU `-netdev dgram`
# wire to a host process over 127.0.0.1, and runs SCRIPT in it.
#
#   scripts/rxe-vm/boot.sh [-t SECONDS] [-s SHARE] [-q] [-a KERNEL_ARGS] SCRIPT [FILE...]     (as root)
#
# The guest: eth0 192.0.2.2/24 (MAC 52:54:00:00:02:02), rxe0 on eth0 (`rdma link` shows rxe0/1 ACTIVE), no siw.
# The only other station on eth0 is whoever owns the host side of the dgram wire: every guest Ethernet frame is one
# UDP datagram from 127.0.0.1:$RXE_GUEST_PORT to 127.0.0.1:$RXE_HOST_PORT, and every datagram sent to
# 127.0.0.1:$RXE_GUEST_PORT from there is a frame on eth0. jndk plays 192.0.2.1 through FrameLink, adapter option
#   link=dgram:$RXE_HOST_PORT:$RXE_GUEST_PORT
# SCRIPT runs under dash in the guest after rxe0 is up, in the share (/mnt/host), with RXEVM_IP=192.0.2.2,
# RXEVM_PEER=192.0.2.1 (also SIWVM_IP/SIWVM_HOST); FILEs are copied next to it. Exit status: SCRIPT's, 124 on
# timeout, 125 when the VM failed (as siw-vm's run.sh).
#
# Environment: RXE_GUEST_PORT (default 24792), RXE_HOST_PORT (default 24793), RXE_NETDEV (another QEMU -netdev
# for eth0 instead of the dgram wire, id n0: e.g. tap,id=n0,ifname=tap0,script=no,downscript=no), RXE_NETDEV2 (a
# second NIC, eth1, id n1; the guest gives it 10.0.2.15/24: e.g. user,id=n1,hostfwd=tcp:127.0.0.1:18516-:18515 for
# perftest's TCP exchange, the guest reaching the host's 127.0.0.1 as 10.0.2.2), RXEVM_CACHE (default
# ~/.cache/jndk-rxe-vm: the patched tool copy, downloads and the built kernel + initramfs), SIWVM_CACHE (an
# existing siw-vm cache whose downloaded packages are reused, default ~/.cache/siw-vm), REBUILD=1.
#
# How: the repository holds a pristine copy of the siw-vm guest tool (siw-vm/: build.sh, run.sh, guest/init) and
# rxe-vm.patch (rdma_rxe + crc32 modules in the initramfs; siwvm.nosiw/ip/peer kernel arguments; RXEVM_NETDEV and
# RXEVM_MAC for run.sh). On first use (or when any of them changed) they are copied to $RXEVM_CACHE/tool, patched
# and built (about a minute); later boots reuse the build. Only one VM runs at a time (flock /tmp/siw-vm.lock).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${RXEVM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/jndk-rxe-vm}"
SIWCACHE="${SIWVM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/siw-vm}"
GPORT="${RXE_GUEST_PORT:-24792}"
HPORT="${RXE_HOST_PORT:-24793}"
TOOL="$CACHE/tool"

RUNARGS=() EXTRA=""
while getopts "t:m:c:s:a:qh" o; do
  case "$o" in
    t|m|c|s) RUNARGS+=("-$o" "$OPTARG");; a) EXTRA="$EXTRA $OPTARG";; q) RUNARGS+=(-q);;
    h|*) sed -n '2,/^set -e/{/^set -e/!p}' "$0"; exit 2;;
  esac
done
shift $((OPTIND-1))
[ $# -ge 1 ] || { sed -n '2,/^set -e/{/^set -e/!p}' "$0"; exit 2; }
SCRIPT="$1"; shift
[ -f "$SCRIPT" ] || { echo "boot.sh: no script $SCRIPT" >&2; exit 2; }

log() { printf '[rxe-vm %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }

# ---- build once: the patched copy of the tool, keyed by the hash of what the repository holds
mkdir -p "$CACHE"
[ -f "$CACHE/.gitignore" ] || printf '# built by scripts/rxe-vm/boot.sh\n*\n' > "$CACHE/.gitignore"
# (this script is hashed too: its build steps below, such as the second NIC's edit of run.sh, are part of the build)
want="$(cat "$HERE/rxe-vm.patch" "$HERE/siw-vm/build.sh" "$HERE/siw-vm/run.sh" "$HERE/siw-vm/guest/init" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-16)"
if [ "${REBUILD:-0}" = 1 ] || [ "$(cat "$CACHE/stamp" 2>/dev/null)" != "$want" ] || [ ! -f "$CACHE/out/vmlinuz" ]; then
  log "building the rxe guest in $CACHE (about a minute; log: $CACHE/build.log)"
  rm -rf "$TOOL"
  cp -a "$HERE/siw-vm" "$TOOL"
  (cd "$TOOL" && patch -s -p1 < "$HERE/rxe-vm.patch")
  # a second NIC when RXE_NETDEV2 is set (id n1: e.g. user-mode networking for a TCP path beside the RoCE wire)
  sed -i 's|-device "virtio-net-pci,netdev=n0${RXEVM_MAC:+,mac=$RXEVM_MAC}"|& ${RXEVM_NETDEV2:+-netdev $RXEVM_NETDEV2 -device virtio-net-pci,netdev=n1}|' "$TOOL/run.sh"
  grep -q RXEVM_NETDEV2 "$TOOL/run.sh" || { log "could not add the second NIC to run.sh"; exit 125; }
  # reuse an existing siw-vm download of the same packages (hard links: read only here)
  if [ -d "$SIWCACHE/debs" ] && [ "$SIWCACHE" != "$CACHE" ]; then
    mkdir -p "$CACHE/debs"
    cp -aln "$SIWCACHE/debs/." "$CACHE/debs/" 2>/dev/null || cp -an "$SIWCACHE/debs/." "$CACHE/debs/"
  fi
  SIWVM_CACHE="$CACHE" nice -n 10 bash "$TOOL/build.sh" > "$CACHE/build.log" 2>&1 \
    || { tail -20 "$CACHE/build.log" >&2; log "build failed"; exit 125; }
  grep -q 'rdma_rxe' "$CACHE/out/manifest.txt" || { log "the build has no rdma_rxe module"; exit 125; }
  echo "$want" > "$CACHE/stamp"
fi

# ---- the guest's script: rxe0 first, then SCRIPT (run.sh copies cmd.sh and FILEs into the share)
WORK="$(mktemp -d /tmp/jndk-rxe-vm.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
cp "$SCRIPT" "$WORK/user.sh"
cp "$HERE/guest-rxe.sh" "$WORK/cmd.sh"

if [ -n "${RXE_NETDEV:-}" ]; then
  NETDEV="$RXE_NETDEV"
  log "booting: guest 192.0.2.2 on -netdev $NETDEV"
else
  NETDEV="dgram,id=n0,local.type=inet,local.host=127.0.0.1,local.port=$GPORT,remote.type=inet,remote.host=127.0.0.1,remote.port=$HPORT"
  log "booting: guest 192.0.2.2 on dgram 127.0.0.1:$GPORT <-> host link 127.0.0.1:$HPORT (link=dgram:$HPORT:$GPORT)"
fi
rc=0
RXEVM_NETDEV="$NETDEV" RXEVM_NETDEV2="${RXE_NETDEV2:-}" RXEVM_MAC=52:54:00:00:02:02 SIWVM_CACHE="$CACHE" \
  flock -w 900 /tmp/siw-vm.lock "$TOOL/run.sh" "${RUNARGS[@]}" \
  -a "siwvm.nosiw=1 siwvm.ip=192.0.2.2/24 siwvm.peer=192.0.2.1$EXTRA" "$WORK/cmd.sh" "$WORK/user.sh" "$@" || rc=$?
exit "$rc"
