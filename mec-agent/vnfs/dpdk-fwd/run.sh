#!/bin/sh
# testpmd on a virtio-user port; the pof-switch owns the vhost-user socket (server), we connect as client.
# Both lcores (main, forwarding) share the first CPU the container may use (its cpuset: the core the agent placed
# it on): the vNF busy-polls one core at most. --in-memory: hugepage memory from memfd, nothing left in a hugetlbfs
# mount. --stats-period keeps it running without a terminal.
mode=${P_mode:-macswap}
case "$mode" in macswap|io|mac) ;; *) echo "dpdk-fwd: mode must be macswap, io or mac" >&2; exit 2 ;; esac
lib=/usr/lib/x86_64-linux-gnu
# vhost_server=true: the vNF owns the socket (virtio-user server) and the switch connects as a vhost client.
server=0; [ "${P_vhost_server:-false}" = "true" ] && server=1
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
cpu=${cpu:-0}
exec dpdk-testpmd --lcores "0@$cpu,1@$cpu" --in-memory --single-file-segments --no-pci --file-prefix vnf \
  -d $lib/librte_mempool_ring.so.23 -d $lib/librte_net_virtio.so.23 \
  --vdev net_virtio_user0,path=/run/vnf/vhost.sock,queues=1,server=$server -- \
  --forward-mode="$mode" --auto-start --stats-period 3600 --nb-cores 1 --total-num-mbufs 2048
