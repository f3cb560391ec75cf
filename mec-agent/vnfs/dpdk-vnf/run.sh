#!/bin/sh
# dpdk-vnf (vnfs/dpdk-vnf/README.md) on a virtio-user port. By default the pof-switch owns the vhost-user socket
# (server) and we connect as client; vhost_server=true: we own it and the switch connects. One lcore, on the first
# CPU the container may use; it sleeps when idle, so it can share that CPU. --in-memory: hugepage memory from
# memfd, nothing left in a hugetlbfs mount; --single-file-segments: vhost-user takes at most 8 memory regions.
# The catalog's dpdk-bridge runs this script too: two ports, 'in' (vhost.sock) and 'out' (vhost-out.sock).
mode=${P_mode:-}
cost=${P_cost_cycles:-0}
[ -z "$mode" ] && { [ "$cost" != 0 ] && mode=cost || mode=fwd; }
# latency=true: a latency-class slice's vNF, burst 1 and busy poll (it keeps its CPU busy while it runs); a burst
# other than 1 beside it is refused by dpdk-vnf (exit 2), so it is passed only when given.
latency=""; [ "${P_latency:-false}" = "true" ] && latency=--latency
burst=${P_burst:-}
[ -z "$burst" ] && [ -z "$latency" ] && burst=32
ring=1024
server=0; [ "${P_vhost_server:-false}" = "true" ] && server=1
# Chain backpressure in the data plane (README.md "Chain file"): the agent links the chain's file and our position.
chain=""; [ -e /run/vnf/chain ] && [ -e /run/vnf/chain-pos ] &&
  chain="--chain-file /run/vnf/chain --chain-pos $(cat /run/vnf/chain-pos) --chain-len 16"
# A bridge (interfaces in/out): the agent added the switch port on vhost-out.sock and left the marker out-port.
out=""; ports=1
[ -e /run/vnf/out-port ] && ports=2 &&
  out="--vdev net_virtio_user1,path=/run/vnf/vhost-out.sock,queues=1,queue_size=$ring,server=$server"
cpu=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*\([0-9]*\).*/\1/p' /proc/self/status)
exec dpdk-vnf --lcores "0@${cpu:-0}" --in-memory --single-file-segments --no-pci --file-prefix vnf --no-telemetry \
  --vdev "net_virtio_user0,path=/run/vnf/vhost.sock,queues=1,queue_size=$ring,server=$server" $out -- \
  --ports "$ports" --mode "$mode" --cost-cycles "$cost" ${burst:+--burst "$burst"} $latency --ring-size "$ring" \
  --stats-file /run/vnf/stats.json --queue-file /run/vnf/queue --throttle-file /run/vnf/throttle \
  --shared-core-file /run/vnf/shared-core $chain
