#!/bin/sh
# A guest script for scripts/rxe-vm/boot.sh: shows the device and its GIDs; exits 0 when rxe0 is ACTIVE on eth0
# with the IPv4-mapped GID of 192.0.2.2.
rdma link show
ibv_devinfo -d rxe0 | grep -E 'transport|link_layer|state|active_mtu'
cat /sys/class/infiniband/rxe0/ports/1/gids/1
ip -br addr show eth0
rdma link show | grep -q 'rxe0/1 state ACTIVE physical_state LINK_UP netdev eth0' \
  && grep -q '0000:0000:0000:0000:0000:ffff:c000:0202' /sys/class/infiniband/rxe0/ports/1/gids/1
