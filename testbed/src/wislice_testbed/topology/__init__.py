"""The one-machine WiSlice testbed, brought up from real parts (see testbed/README.md, "End-to-end testbed").

Each module starts one kind of node as a context manager that removes everything it made on exit:
``onos`` (ONOS runtime + the three WiSlice apps on private ports), ``pofswitch`` (pofswitch-afp processes),
``apnode`` (the AP VM with hostapd, ap-agent, its own pof-switch and stations), ``mecnode`` (private dockerd +
mec-agent + the node's pof-switch), ``orchestrator`` (the Flask service as a process), and ``testbed`` wires them.
"""
