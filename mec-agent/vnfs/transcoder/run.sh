#!/bin/sh
# Transparent video transcoder (ADE2WiNFV Scenario 3), a bump in the wire with two ports: 'in' faces the clients
# (the slice's wired path), 'out' the rest of the chain towards the servers. Both are bridged, so everything passes
# untouched, except MPEG-TS over UDP arriving on 'out' for a port in video_ports: it is taken off the bridge into
# this vNF's own stack (bridge_address, in the clients' subnet, so it can reach them), re-encoded at bitrate_kbps
# by one ffmpeg per stream and sent on to the client the server addressed. Streams are told apart by
# (client address, UDP port); each new one is seen through an nftables set the divert rule fills.
# Without bridge_address it is an endpoint instead: MPEG-TS on UDP in_port in, out_addr:out_port out.
set -e
rate=${P_bitrate_kbps:-500}k

transcode() {  # transcode LISTEN_PORT DEST_ADDR DEST_PORT [IDLE_TIMEOUT_US]; with EXEC=exec ffmpeg replaces the shell
  # A short probe: what ffmpeg reads while probing it encodes at once, a burst the slice would have to carry.
  ${EXEC:-} ffmpeg -nostdin -loglevel fatal -fflags +discardcorrupt -probesize 300000 -analyzeduration 500000 \
    -i "udp://0.0.0.0:$1?overrun_nonfatal=1&fifo_size=50000${4:+&timeout=$4}" \
    -c:v mpeg2video -b:v "$rate" -maxrate "$rate" -bufsize "$rate" -g 25 -an -f mpegts \
    -muxrate "$(( ${P_bitrate_kbps:-500} * 11 / 10 ))k" "udp://$2:$3?pkt_size=1316"
}

if [ -z "${P_bridge_address:-}" ]; then
  EXEC=exec transcode "${P_in_port:-5000}" "${P_out_addr:-127.0.0.1}" "${P_out_port:-5001}"
fi

addr=$P_bridge_address
ports=$(echo "${P_video_ports:-5000-5999}" | tr -cd '0-9,-')
ip link add br0 type bridge
ip link set in master br0
ip link set out master br0
ip addr flush dev in
ip route flush dev in 2>/dev/null || true
ip addr add "$addr" dev br0
ip link set br0 up
mac=$(cat /sys/class/net/br0/address)
# Diverted frames become the bridge's own (pkttype host, its MAC), then the IP stack takes them locally, their
# port kept (dnat to the bridge address: seen on 'out' where the host has br_netfilter, which runs the IP hooks
# while bridging, else on br0); the set remembers each stream for the loop below.
nft -f - <<EOF
table bridge transcode {
  set streams { type ipv4_addr . inet_service . ether_addr; flags dynamic, timeout; timeout 5s; }
  chain prerouting {
    type filter hook prerouting priority -300;
    iifname "out" ip protocol udp udp dport { $ports } update @streams { ip daddr . udp dport . ether daddr } meta pkttype set host ether daddr set $mac
  }
}
table ip transcode {
  chain prerouting {
    type nat hook prerouting priority -100;
    iifname { "br0", "out" } udp dport { $ports } dnat to ${addr%/*}
  }
}
EOF
nft list ruleset > /run/vnf/ruleset.txt

# One ffmpeg per stream, started when the set first shows it; it ends 10 s after its stream stops, and a new stream
# on the same port starts a new one (a port carries one stream at a time).
mkdir -p /tmp/streams
trap 'kill 0; exit 0' TERM
while sleep 0.3; do
  # "elements = { 10.61.1.10 . 5004 . 02:00:00:00:02:00 expires 4s, ... }" (possibly over several lines)
  # -> addr/port/mac ...
  for s in $(nft list set bridge transcode streams | tr '\n' ' ' | sed -n 's/.*elements = {\([^}]*\)}.*/\1/p' |
             sed 's/ \. /\//g; s/ expires [^,]*//g; s/ timeout [^,]*//g; s/,/ /g'); do
    client=${s%%/*}; rest=${s#*/}; port=${rest%%/*}; lladdr=${rest#*/}
    [ -e "/tmp/streams/$port" ] && continue
    echo "$client:$port" > "/tmp/streams/$port"
    # The client's MAC is the one the server sent the stream to: the re-encoded stream goes there without an ARP
    # request. A broadcast from here reaches only the main path's AP of a slice with vAPs on several APs
    # (docs/mobility.md "Limits"), so a client on another AP would never answer it.
    arp -s "$client" "$lladdr" -i br0 || true
    echo "transcoding $client:$port ($lladdr) at $rate" >> /run/vnf/transcoder.log
    ( transcode "$port" "$client" "$port" 10000000; rm -f "/tmp/streams/$port"
      echo "stream $client:$port ended" >> /run/vnf/transcoder.log ) >> /run/vnf/transcoder.log 2>&1 &
  done
done
