#!/bin/sh
# Guest side of scripts/rxe-vm/boot.sh (dash, in the share /mnt/host): rxe0 on eth0, then the caller's script
# (user.sh). rxe needs crc32 for its ICRC (crypto_alloc_shash("crc32"), not a module dependency), so it is loaded
# first. Leaves rxe-link.txt (rdma link) and rxe-stats.txt (rxe's counters after the script) in the share.
modprobe crc32_generic 2>/dev/null
modprobe crc32_pclmul 2>/dev/null
modprobe rdma_rxe || { echo "rxe-vm: modprobe rdma_rxe failed"; exit 125; }
rdma link add rxe0 type rxe netdev eth0 || { echo "rxe-vm: rdma link add rxe0 failed"; exit 125; }
rdma link show | tee /mnt/host/rxe-link.txt
grep -q 'rxe0/1 state ACTIVE' /mnt/host/rxe-link.txt || echo "rxe-vm: WARNING: rxe0 is not ACTIVE"
if [ -e /sys/class/net/eth1 ]; then # RXE_NETDEV2: a TCP path to the host (user-mode networking)
  ip link set eth1 up && ip addr add 10.0.2.15/24 dev eth1
fi
export RXEVM_IP="$SIWVM_IP" RXEVM_PEER="$SIWVM_HOST"
/usr/bin/dash /mnt/host/user.sh
rc=$?
rdma statistic show link rxe0/1 > /mnt/host/rxe-stats.txt 2>&1
exit $rc
