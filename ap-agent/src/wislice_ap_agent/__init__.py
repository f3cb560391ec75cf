"""WiSlice ap-agent: virtual APs on stock hostapd (global control interface), driven by the WiFi controller.

Run it: ``python3 -m wislice_ap_agent --config /etc/wislice/ap-agent.json``. In-process: ``Agent(config.load(path))``
then ``agent.run()`` (blocks; ``agent.stop()`` from a signal handler or another thread, then ``agent.close()``).
"""

__version__ = "0.1.0"
