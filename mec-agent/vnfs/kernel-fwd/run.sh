#!/bin/sh
# Forwarding is the namespace's own IP stack (net.ipv4.ip_forward=1 is set by the agent at create): just idle.
exec sleep 2147483647
