#!/bin/sh
# Forwards like kernel-fwd; appends 'epoch rx_packets rx_bytes tx_packets tx_bytes' every interval.
interval=${P_interval_s:-1}
s=/sys/class/net/in/statistics
while true; do
  echo "$(date +%s) $(cat $s/rx_packets) $(cat $s/rx_bytes) $(cat $s/tx_packets) $(cat $s/tx_bytes)" >> /run/vnf/monitor.log
  sleep "$interval"
done
