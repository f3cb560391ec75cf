#!/usr/bin/python3
"""wislice-ap-agent: the WiSlice WiFi agent (started by /etc/init.d/wislice-ap-agent under procd)."""

import sys

from wislice_ap_agent.__main__ import main

sys.exit(main())
