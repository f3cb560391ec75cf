"""The agent: one thread, one select loop over the controller connection and hostapd's event socket.

The controller side is wislice_agent_proto's AgentClient (dial, HMAC hello, welcome, requests through the method
table of handlers.py, events, pings, periodic stats, reconnect with backoff); the agent is its watch, so hostapd's
events are followed also while the controller is away and the vAP/client view stays current. The controller's
syncVaps after the next welcome converges the vAPs without touching those that are already right.

With ``metrics_listen`` a /metrics server (its own thread) renders what the last stats event gathered
(metrics.py); while no controller session asks for stats events the loop makes them every stats_interval_s for
/metrics alone.
"""

from __future__ import annotations

import logging
import time
from typing import Any

from wislice_agent_proto import validate as V
from wislice_agent_proto.client import AgentClient, Identity, tls_context
from wislice_agent_proto.methods import serve
from wislice_agent_proto.prometheus import MetricsServer

from .config import AgentConfig
from .events import parse_event
from .firmware import Upgrader
from .handlers import Handlers
from .hostapd_ctrl import CtrlConnection, CtrlError, HostapdControl
from .metrics import ApMetrics
from .pofswitch import PortAttacher, make_attacher
from .radio import discover
from .shaping import Shaper, make_shaper
from .vaps import VapManager

log = logging.getLogger("wislice_ap_agent")

SOFTWARE = "wislice-ap-agent 0.1"
RESTART_EXIT = 75  # EX_TEMPFAIL: ended to be started again (procd respawns it)
HOSTAPD_CHECK_S = 5.0


class Agent:
    def __init__(self, cfg: AgentConfig, shaper: Shaper | None = None,
                 attacher: PortAttacher | None = None) -> None:
        self.cfg = cfg
        self.client: AgentClient | None = None  # events before it exists (adopting vAPs at start) go nowhere
        self.metrics = ApMetrics(cfg.agent_id, self.connected)
        self.metrics_server: MetricsServer | None = None
        self.metrics_tried_at = float("-inf")
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
        self.restart_requested = False
        self.upgrader = Upgrader(cfg.firmware, self.emit, self.request_restart)
        self.handlers = Handlers(cfg.agent_id, self.vaps, self.upgrader)
        identity = Identity("ap", cfg.agent_id, SOFTWARE, self.capabilities, cfg.secret,
                            tls_client_cert=cfg.tls and cfg.tls_cert_file is not None,
                            firmware_version=self.upgrader.version)
        tls = (lambda: tls_context(cfg.tls_ca_file, cfg.tls_cert_file, cfg.tls_key_file)) if cfg.tls else None
        self.client = AgentClient(cfg.controllers, identity, self.handlers.table, tls=tls,
                                  server_hostname=cfg.tls_server_name, stats=self.stats_event,
                                  stats_interval_s=cfg.stats_interval_s, keepalive_s=cfg.keepalive_s, watch=self)
        if cfg.metrics_listen is not None:
            self.metrics_server = MetricsServer(cfg.metrics_listen, self.metrics.render, cfg.metrics_token).start()

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
            readded = self.vaps.reattach_lost_ports()
            if readded:
                log.warning("the pof-switch had lost the ports of vAPs %s (restarted?): added again with their "
                            "numbers", ", ".join(readded))
            self.vaps.probes.sync(self.vaps.vaps)  # and their probes (a vAP up or down, a switch restarted)
        if self.metrics_server is not None and not self.connected():
            self._stats_for_metrics()
        client = self.client
        self.upgrader.tick(self.connected(), client.sessions if client is not None else 0)

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

    # ---- stats (the controller's stats event, and /metrics) -------------------------------------------------------

    def stats_event(self, interval_s: float) -> dict[str, Any]:
        """The stats event's data (the client's stats callback); /metrics exports it too."""
        data = self.vaps.stats_event(interval_s)
        self.metrics.record(self.vaps, data)
        return data

    def _stats_for_metrics(self) -> None:
        """Without a controller session nothing asks for stats events: make one every stats_interval_s, for
        /metrics (the same collection: the clients' rates and the radios' capacity go on too)."""
        now, age, every = time.monotonic(), self.metrics.age(), self.cfg.stats_interval_s
        if now - self.metrics_tried_at < every or (age is not None and age < every):
            return
        self.metrics_tried_at = now
        try:
            self.stats_event(self.cfg.stats_interval_s)
        except Exception as e:  # best effort, as the client's stats are
            log.warning("stats for /metrics: %s", e)

    # ---- the controller ------------------------------------------------------------------------------------------

    def connected(self) -> bool:
        """Within a welcomed controller session (read by the metrics thread too)."""
        client = self.client
        return client is not None and client.welcomed

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

    def request_restart(self) -> None:
        """A firmware upgrade (or its rollback) replaced the agent's files: end run(); the command line then exits
        with RESTART_EXIT and procd starts the agent again, now the installed one (any thread)."""
        self.restart_requested = True
        self.stop()

    def close(self) -> None:
        if self.metrics_server is not None:
            self.metrics_server.close()
        self.vaps.shutdown(self.cfg.remove_vaps_on_exit)
        if self.events is not None:
            self.events.close()
        self.hostapd.close()
        close = getattr(self.vaps.shaper, "close", None)
        if close is not None:
            close()
