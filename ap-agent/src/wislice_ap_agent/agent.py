"""The agent: one thread, one select loop over the controller connection and hostapd's event socket.

The controller side is wislice_agent_proto's AgentClient (dial, HMAC hello, welcome, requests through the method
table of handlers.py, events, pings, periodic stats, reconnect with backoff); the agent is its watch, so hostapd's
events are followed also while the controller is away and the vAP/client view stays current. The controller's
syncVaps after the next welcome converges the vAPs without touching those that are already right.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from wislice_agent_proto import validate as V
from wislice_agent_proto.client import AgentClient, Identity, tls_context
from wislice_agent_proto.methods import serve

from .config import AgentConfig
from .events import parse_event
from .handlers import Handlers
from .hostapd_ctrl import CtrlConnection, CtrlError, HostapdControl
from .pofswitch import PortAttacher, make_attacher
from .radio import discover
from .shaping import Shaper, make_shaper
from .vaps import VapManager

log = logging.getLogger("wislice_ap_agent")

SOFTWARE = "wislice-ap-agent 0.1"
HOSTAPD_CHECK_S = 5.0


class Agent:
    def __init__(self, cfg: AgentConfig, shaper: Shaper | None = None,
                 attacher: PortAttacher | None = None) -> None:
        self.cfg = cfg
        self.client: AgentClient | None = None  # events before it exists (adopting vAPs at start) go nowhere
        self.hostapd = HostapdControl(cfg.hostapd_global, cfg.client_dir)
        self.events: CtrlConnection | None = None
        self.hostapd_checked_at = time.monotonic()
        self.hostapd_generation = 0
        self._attach_events()
        radios = [discover(r, self.hostapd) for r in cfg.radios]
        shaper = shaper or make_shaper(cfg.shaping)
        attacher = attacher or make_attacher(cfg.pof_switch_socket, cfg.pof_switch_port_args)
        self.vaps = VapManager(self.hostapd, radios, cfg.conf_dir, cfg.hostapd_ctrl_dir, shaper, attacher,
                               emit=self.emit, default_capacity_kbps=cfg.default_capacity_kbps,
                               uplink_port=cfg.pof_switch_uplink)
        self.vaps.setup_radios()
        adopted = self.vaps.adopt_existing()
        if adopted:
            log.info("took over running vAPs %s", ", ".join(adopted))
        self.vaps.refresh_capacity()
        self.handlers = Handlers(cfg.agent_id, self.vaps)
        identity = Identity("ap", cfg.agent_id, SOFTWARE, self.capabilities, cfg.secret,
                            tls_client_cert=cfg.tls and cfg.tls_cert_file is not None)
        tls = (lambda: tls_context(cfg.tls_ca_file, cfg.tls_cert_file, cfg.tls_key_file)) if cfg.tls else None
        self.client = AgentClient(cfg.controller_host, cfg.controller_port, identity, self.handlers.table, tls=tls,
                                  server_hostname=cfg.tls_server_name, stats=self.vaps.stats_event,
                                  stats_interval_s=cfg.stats_interval_s, keepalive_s=cfg.keepalive_s, watch=self)

    def capabilities(self) -> dict[str, Any]:
        """The hello's: the radios as they are at this handshake."""
        return {"radios": self.vaps.radio_list(), "security": list(V.SECURITY_MODES),
                "pof_switch": self.vaps.attacher.present}

    # ---- hostapd events (the client's watch) -------------------------------------------------------------------

    def fds(self) -> list[Any]:
        return [self.events] if self.events is not None else []

    def service(self, readable: list[Any]) -> None:
        if self.events is not None and self.events in readable:
            self._drain_hostapd()
        if time.monotonic() - self.hostapd_checked_at >= HOSTAPD_CHECK_S:
            self._check_hostapd()

    def _attach_events(self, recover: bool = False) -> None:
        try:
            conn = CtrlConnection(self.cfg.hostapd_global, self.cfg.client_dir)
            conn.attach()
            self.events = conn
            if recover:
                restored = self.vaps.recover()
                if restored:
                    log.warning("hostapd had lost vAPs %s: added again", ", ".join(restored))
        except CtrlError as e:
            log.warning("hostapd events unavailable (retrying): %s", e)
            self.events = None

    def _drain_hostapd(self) -> None:
        if self.events is None:
            return
        while True:
            try:
                line = self.events.recv_event()
            except OSError as e:
                log.warning("hostapd event socket failed (%s); re-attaching", e)
                self.events.close()
                self.events = None
                return
            if line is None:
                return
            ev = parse_event(line)
            if ev is not None:
                self.vaps.on_event(ev)

    def _check_hostapd(self) -> None:
        """A restarted hostapd is invisible on the event socket (datagrams just stop): PING it, and when the
        request connection had to reconnect, attach again and restore the vAPs it lost."""
        self.hostapd_checked_at = time.monotonic()
        if not self.hostapd.ping():
            return
        if self.events is None or self.hostapd.generation != self.hostapd_generation:
            self.hostapd_generation = self.hostapd.generation
            if self.events is not None:
                self.events.close()
            self._attach_events(recover=True)

    # ---- the controller ------------------------------------------------------------------------------------------

    def emit(self, name: str, data: dict[str, Any]) -> None:
        """Events go out only within a welcomed session; the controller resyncs after reconnecting."""
        if self.client is not None:
            self.client.emit(name, data)

    def serve(self, req: dict[str, Any]) -> dict[str, Any] | None:
        """One request -> its reply, without a controller (tests, benchmarks); never raises."""
        return serve(self.handlers.table, req)

    def run(self) -> None:
        """Dial, serve, reconnect until stop()."""
        assert self.client is not None
        self.client.run()

    def stop(self) -> None:
        if self.client is not None:
            self.client.stop()

    def close(self) -> None:
        self.vaps.shutdown(self.cfg.remove_vaps_on_exit)
        if self.events is not None:
            self.events.close()
        self.hostapd.close()
        close = getattr(self.vaps.shaper, "close", None)
        if close is not None:
            close()
