#!/bin/sh
# Lowers a stream's bitrate: MPEG-TS over UDP in, MPEG-TS over UDP out (Scenario 3).
in_port=${P_in_port:-5000}
out=${P_out_addr:-127.0.0.1}:${P_out_port:-5001}
exec ffmpeg -nostdin -loglevel warning -i "udp://0.0.0.0:$in_port?overrun_nonfatal=1" \
  -c:v mpeg2video -b:v "${P_bitrate_kbps:-500}k" -c:a copy -f mpegts "udp://$out?pkt_size=1316"
