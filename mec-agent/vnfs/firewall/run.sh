#!/bin/sh
# Rules from parameters: allow_tcp / allow_udp = comma-separated ports, allow_icmp, policy accept|drop, log.
set -e
policy=${P_policy:-drop}
case "$policy" in accept|drop) ;; *) echo "firewall: policy must be accept or drop" >&2; exit 2 ;; esac
ports() { echo "$1" | tr -cd '0-9,' ; }
{
  echo "table inet wislice {"
  for hook in input forward; do
    echo " chain $hook { type filter hook $hook priority 0; policy $policy;"
    echo "  ct state established,related accept"
    [ "${P_allow_icmp:-true}" = "true" ] && echo "  meta l4proto icmp accept"
    [ -n "$(ports "${P_allow_tcp:-}")" ] && echo "  tcp dport { $(ports "$P_allow_tcp") } accept"
    [ -n "$(ports "${P_allow_udp:-}")" ] && echo "  udp dport { $(ports "$P_allow_udp") } accept"
    [ "${P_log:-false}" = "true" ] && echo "  log prefix \"wislice-fw \""
    echo " }"
  done
  echo "}"
} > /tmp/rules.nft
nft -f /tmp/rules.nft
nft list ruleset > /run/vnf/ruleset.txt
exec sleep 2147483647
