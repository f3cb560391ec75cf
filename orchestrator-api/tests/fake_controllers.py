"""In-memory controllers for unit tests, development and the dashboard's browser tests (never the testbed).

Holds a small infrastructure (APs with one radio each, MEC nodes, one pof-switch per agent plus a core switch),
lets a test make any method fail (`fail_next` / `fail_always`), and invents moving vAP rates so charts move. With
`simulate_traffic` the clients' and vNF ports' byte counters grow, and the clients have rates, too (development,
browser tests); without it they stay where a test puts them (`set_client_counters`, `set_client_rates`,
`set_vnf_counters`), and `set_vap_rates` scripts a vAP's rates. `wifi_stats` answers what the agents' last stats
events would say: those rates and counters, as of `stats_ts` (a test sets it; default now), and the latency of each
vAP created with a probe: what `set_vap_latency` scripted (with the ts given), else with `simulate_traffic` a
wavy p50/p99 around 300/600 us.
"""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from fake_firmware import FakeFirmware

from wislice_orchestrator.controllers.base import ControllerError, Controllers, Json


class FakeControllers(FakeFirmware, Controllers):
    def __init__(self, aps: int = 2, mec_nodes: int = 2, max_vaps: int = 4,
                 radio_capacity_kbps: int | None = None, simulate_traffic: bool = False) -> None:
        self.lock = threading.Lock()
        self.simulate_traffic = simulate_traffic
        self.traffic_ts = time.time()
        self.scripted_rates: dict[str, Json] = {}  # vap_id -> vap_rates reply
        self.scripted_latency: dict[str, Json] = {}  # vap_id -> its stats latency item (VapLatency + ts)
        self.stats_ts: float | None = None  # the wifi_stats events' ts (None: now)
        self.vnf_counters: dict[tuple[int, str], dict[str, int]] = {}  # (vnf_id, port) -> byte counters
        self.calls: list[str] = []
        self.failures: dict[str, tuple[ControllerError, bool]] = {}
        # (method, nth call) -> (error, after): fail the nth call, before or after it took effect.
        self.planned: dict[tuple[str, int], tuple[ControllerError, bool]] = {}
        self.counts: dict[str, int] = {}
        self.agents: dict[str, Json] = {}
        self.vaps: dict[str, Json] = {}
        self.clients: dict[str, Json] = {}
        self.nodes: dict[str, Json] = {}
        self.vnfs: dict[int, Json] = {}
        self.paths: dict[str, Json] = {}
        self.placements: dict[str, dict[str, str]] = {}  # slice path -> client mac -> branch (place_client)
        self.assoc_ts: dict[str, float] = {}
        self.steer_refusals: dict[str, int] = {}  # mac -> the BTM status code its station answers a steer with
        self.next_port = 100
        self.next_tag = 1
        for i in range(1, aps + 1):
            radio = {"name": "phy0", "mac": f"02:00:00:00:0{i}:00", "channel": 6, "hw_mode": "g",
                     "max_vaps": max_vaps, "vaps_used": 0}
            if radio_capacity_kbps is not None:  # else the radio reports none, as an older agent does
                radio.update(capacity_kbps=radio_capacity_kbps, capacity_source="operator")
            self.agents[f"ap-{i}"] = {"agent_id": f"ap-{i}", "connected": True, "address": f"10.0.0.{i}",
                                      "radios": [radio], "vaps": 0, "clients": 0, "last_seen": time.time()}
        for i in range(1, mec_nodes + 1):
            self.nodes[f"mec-{i}"] = {"agent_id": f"mec-{i}", "connected": True,
                                      "capacity": {"cpu": 4.0, "memory_mib": 8192},
                                      "used": {"cpu": 0.0, "memory_mib": 0},
                                      "catalog": ["kernel-fwd", "firewall", "monitor", "transcoder", "dpdk-fwd"],
                                      "dpdk": True}
        self.init_firmware()

    # --- test controls ------------------------------------------------------------------------------------
    def fail_next(self, method: str, status: int = 500, code: str = "internal") -> None:
        self.failures[method] = (ControllerError(status, code, f"injected failure in {method}"), False)

    def fail_always(self, method: str, status: int = 500, code: str = "internal") -> None:
        self.failures[method] = (ControllerError(status, code, f"injected failure in {method}"), True)

    def fail_on(self, method: str, nth: int = 1, after: bool = False, status: int = 504, code: str = "timeout") -> None:
        """Fail the nth call of `method`; with after=True the call takes effect first (a lost reply)."""
        error = ControllerError(status, code, f"injected failure in {method} call {nth}")
        self.planned[(method, self.counts.get(method, 0) + nth)] = (error, after)

    def clear_failures(self) -> None:
        self.failures.clear()
        self.planned.clear()

    def _after(self, method: str) -> None:
        planned = self.planned.get((method, self.counts.get(method, 0)))
        if planned and planned[1]:
            raise planned[0]

    def _enter(self, method: str) -> None:
        self.calls.append(method)
        self.counts[method] = self.counts.get(method, 0) + 1
        planned = self.planned.get((method, self.counts[method]))
        if planned and not planned[1]:
            raise planned[0]
        failure = self.failures.get(method)
        if failure:
            error, always = failure
            if not always:
                del self.failures[method]
            raise error

    @staticmethod
    def _missing(what: str) -> ControllerError:
        return ControllerError(404, "not_found", f"{what} not found")

    def _radio(self, agent_id: str, radio: str) -> Json:
        agent = self.agents.get(agent_id)
        if agent is None:
            raise self._missing(f"agent {agent_id}")
        for r in agent["radios"]:
            if r["name"] == radio:
                return r
        raise self._missing(f"radio {radio} of {agent_id}")

    def _refresh_counts(self) -> None:
        for agent in self.agents.values():
            agent["vaps"] = sum(1 for v in self.vaps.values() if v["agent_id"] == agent["agent_id"])
            agent["clients"] = sum(1 for c in self.clients.values() if c["agent_id"] == agent["agent_id"])
            for r in agent["radios"]:
                r["vaps_used"] = sum(1 for v in self.vaps.values()
                                     if v["agent_id"] == agent["agent_id"] and v["radio"] == r["name"])
        for node in self.nodes.values():
            mine = [v for v in self.vnfs.values() if v["node"] == node["agent_id"]]
            node["used"] = {"cpu": sum(v["cpu"] for v in mine), "memory_mib": sum(v["memory_mib"] for v in mine)}

    # --- wifi ---------------------------------------------------------------------------------------------
    def list_agents(self) -> list[Json]:
        with self.lock:
            self._enter("list_agents")
            return [dict(a, radios=[dict(r) for r in a["radios"]]) for a in self.agents.values()]

    def list_vaps(self, agent_id: str | None = None) -> list[Json]:
        with self.lock:
            self._enter("list_vaps")
            return [dict(v) for v in self.vaps.values() if agent_id in (None, v["agent_id"])]

    def create_vap(self, agent_id: str, spec: Json) -> Json:
        with self.lock:
            self._enter("create_vap")
            radio = self._radio(agent_id, spec["radio"])
            if spec["vap_id"] in self.vaps:
                raise ControllerError(409, "conflict", f"vap {spec['vap_id']} exists")
            if radio["vaps_used"] >= radio["max_vaps"]:
                raise ControllerError(409, "capacity", f"radio {radio['name']} has no free vAP slot")
            self.next_port += 1
            state = {k: v for k, v in spec.items() if k != "security"}
            state["security"] = {"mode": spec["security"]["mode"]}
            n = len(self.vaps) + 1
            state.update(agent_id=agent_id, ifname=f"wlan0-{n}", bssid=f"02:00:00:aa:{n // 256:02x}:{n % 256:02x}",
                         state="up", clients=0, pof_port=self.next_port)
            self.vaps[spec["vap_id"]] = state
            # Two associated stations per new vAP, so the dashboard has clients to show and kick.
            for k in (1, 2):
                mac = f"02:11:{n // 256:02x}:{n % 256:02x}:00:{k:02x}"
                self.clients[mac] = {"mac": mac, "vap_id": spec["vap_id"], "agent_id": agent_id, "signal_dbm": -40 - k,
                                     "connected_s": 1, "tx_bytes": 0, "rx_bytes": 0}
                self.assoc_ts[mac] = time.time()
            state["clients"] = 2
            self._refresh_counts()
            self._after("create_vap")
            return dict(state)

    def delete_vap(self, agent_id: str, vap_id: str) -> None:
        with self.lock:
            self._enter("delete_vap")
            vap = self.vaps.get(vap_id)
            if vap is None or vap["agent_id"] != agent_id:
                raise self._missing(f"vap {vap_id}")
            del self.vaps[vap_id]
            for mac in [m for m, c in self.clients.items() if c["vap_id"] == vap_id]:
                del self.clients[mac]
                self.assoc_ts.pop(mac, None)
            self._refresh_counts()

    def update_vap(self, vap_id: str, rate_limit: Json) -> Json:
        with self.lock:
            self._enter("update_vap")
            vap = self.vaps.get(vap_id)
            if vap is None:
                raise self._missing(f"vap {vap_id}")
            for way in ("down", "up"):
                cap, floor = rate_limit.get(f"{way}_kbps", 0), rate_limit.get(f"{way}_guaranteed_kbps", 0)
                if cap and floor > cap:
                    raise ControllerError(400, "bad_request", f"{way} guarantee {floor} above its cap {cap}")
            vap["rate_limit"] = dict(rate_limit)
            self._after("update_vap")
            return dict(vap)

    def change_vap(self, vap_id: str, changes: Json) -> Json:
        with self.lock:
            self._enter("change_vap")
            vap = self.vaps.get(vap_id)
            if vap is None:
                raise self._missing(f"vap {vap_id}")
            if not changes or set(changes) - {"wmm_ac", "probe"}:
                raise ControllerError(400, "bad_request", f"cannot change {sorted(changes)} of a vAP")
            vap.update({k: v for k, v in changes.items() if v is not None})
            if changes.get("probe", True) is None:
                vap.pop("probe", None)
            self._after("change_vap")
            return dict(vap)

    def list_clients(self, agent_id: str | None = None, vap_id: str | None = None) -> list[Json]:
        with self.lock:
            self._enter("list_clients")
            self._traffic()
            return [dict(c) for c in self.clients.values()
                    if agent_id in (None, c["agent_id"]) and vap_id in (None, c["vap_id"])]

    def kick_client(self, agent_id: str, mac: str) -> None:
        with self.lock:
            self._enter("kick_client")
            client = self.clients.get(mac.lower())
            if client is None or client["agent_id"] != agent_id:
                raise self._missing(f"client {mac}")
            del self.clients[mac.lower()]
            self.assoc_ts.pop(mac.lower(), None)
            self.vaps[client["vap_id"]]["clients"] -= 1
            self._refresh_counts()

    def steer_client(self, mac: str, target: Json) -> Json:
        """The station roams at once (as a real one that accepts does within ~0.2 s); within its SSID only, a target
        vAP, BSSID or AP (its vAP of that SSID), as the wifi-controller decides."""
        with self.lock:
            self._enter("steer_client")
            client = self.clients.get(mac.lower())
            if client is None:
                raise self._missing(f"client {mac}")
            ssid = self.vaps[client["vap_id"]]["ssid"]
            agent, vap, bssid = (target.get(k) for k in ("target_agent", "target_vap", "target_bssid"))
            to = [v for v in self.vaps.values()
                  if (v["vap_id"] == vap and agent in (None, v["agent_id"])) or v["bssid"] == bssid
                  or (vap is None and bssid is None and v["agent_id"] == agent and v["ssid"] == ssid)]
            if not to and vap is None and bssid is None:
                raise ControllerError(409, "conflict", f"no vAP of SSID '{ssid}' on {agent}: the client's slice "
                                                       "has no vAP on that AP (it was not admitted there)")
            if not to:
                raise self._missing("target vAP")
            if to[0]["vap_id"] == client["vap_id"]:
                raise ControllerError(400, "bad_request", f"client {mac} is already on vAP {client['vap_id']}")
            if to[0]["ssid"] != ssid:
                raise ControllerError(400, "bad_request", f"target vAP {to[0]['vap_id']} serves SSID "
                                                          f"'{to[0]['ssid']}', client {mac} is on SSID '{ssid}'")
            source = dict(client)
            if mac.lower() in self.steer_refusals:  # the station answers the BTM request with a reject: it stays
                return {"agent_id": source["agent_id"], "vap_id": source["vap_id"], "mac": mac.lower(),
                        "target_agent_id": to[0]["agent_id"], "target_vap_id": to[0]["vap_id"],
                        "target_bssid": to[0]["bssid"], "accepted": False,
                        "status_code": self.steer_refusals[mac.lower()], "reason": "the station rejected the request"}
            self.vaps[client["vap_id"]]["clients"] -= 1
            self.vaps[to[0]["vap_id"]]["clients"] += 1
            client.update(vap_id=to[0]["vap_id"], agent_id=to[0]["agent_id"])
            self._refresh_counts()
            return {"agent_id": source["agent_id"], "vap_id": source["vap_id"], "mac": mac.lower(),
                    "target_agent_id": to[0]["agent_id"], "target_vap_id": to[0]["vap_id"],
                    "target_bssid": to[0]["bssid"], "accepted": True, "status_code": 0,
                    "reason": "the station accepted the transition"}

    def set_channel(self, agent_id: str, radio: str, channel: int) -> Json:
        with self.lock:
            self._enter("set_channel")
            r = self._radio(agent_id, radio)
            r["channel"] = channel
            return dict(r)

    def vap_rates(self, agent_id: str, vap_id: str) -> Json:
        with self.lock:
            self._enter("vap_rates")
            vap = self.vaps.get(vap_id)
            if vap is None:
                raise self._missing(f"vap {vap_id}")
            return self._rates(vap)

    def _rates(self, vap: Json) -> Json:
        if vap["vap_id"] in self.scripted_rates:
            return dict(self.scripted_rates[vap["vap_id"]])
        tx, rx = self._wave(vap, time.time())
        return {"tx_bps": tx, "rx_bps": rx, "interval_s": 1}

    def wifi_stats(self) -> list[Json]:
        with self.lock:
            self._enter("wifi_stats")
            self._traffic()
            out = []
            for agent_id, agent in self.agents.items():
                if not agent.get("connected", True):
                    continue
                clients = [c for c in self.clients.values() if c["agent_id"] == agent_id]
                vaps = []
                for vap in (v for v in self.vaps.values() if v["agent_id"] == agent_id):
                    rates = self._rates(vap)
                    vaps.append({"vap_id": vap["vap_id"], "tx_bps": rates["tx_bps"], "rx_bps": rates["rx_bps"],
                                 "clients": sum(1 for c in clients if c["vap_id"] == vap["vap_id"])})
                ts = time.time() if self.stats_ts is None else self.stats_ts
                latency = [self._latency(v, ts) for v in self.vaps.values()
                           if v["agent_id"] == agent_id and v.get("probe")]
                out.append({"agent_id": agent_id, "ts": ts,
                            "interval_s": 1, "vaps": vaps, "latency": [x for x in latency if x],
                            "radios": [{k: r[k] for k in ("name", "capacity_kbps", "capacity_source")}
                                       for r in agent["radios"] if "capacity_kbps" in r],
                            "clients": [{k: c[k] for k in ("mac", "vap_id", "tx_bytes", "rx_bytes", "tx_bps", "rx_bps")
                                         if k in c} for c in clients]})
            return out

    @staticmethod
    def _wave(vap: Json, now: float) -> tuple[int, int]:
        """A slow wave scaled by the cap so charts move; only the clients' presence makes traffic."""
        cap = (vap.get("rate_limit") or {}).get("down_kbps") or 20_000
        wave = 0.6 + 0.3 * math.sin(now / 3.0)
        busy = 1 if vap["clients"] else 0
        return int(cap * 1000 * wave * busy), int(cap * 250 * wave * busy)

    def _traffic(self) -> None:
        """With simulate_traffic: counters grow as the vAP rates say since the last look (clients share unevenly)."""
        if not self.simulate_traffic:
            return
        now = time.time()
        elapsed, self.traffic_ts = now - self.traffic_ts, now
        for vap_id, vap in self.vaps.items():
            tx, rx = self._wave(vap, now)
            macs = sorted(m for m, c in self.clients.items() if c["vap_id"] == vap_id)
            for k, mac in enumerate(macs, start=1):
                share = k / (len(macs) * (len(macs) + 1) / 2)
                client = self.clients[mac]
                client["tx_bytes"] += int(tx * share * elapsed / 8)
                client["rx_bytes"] += int(rx * share * elapsed / 8)
                client.update(tx_bps=round(tx * share, 1), rx_bps=round(rx * share, 1))
                client["connected_s"] = int(now - self.assoc_ts.get(mac, now))
        for vnf in self.vnfs.values():
            for port in vnf["ports"]:
                counters = self.vnf_counters.setdefault((vnf["vnf_id"], port["name"]), {"rx_bytes": 0, "tx_bytes": 0})
                moved = int(2e6 * (0.6 + 0.3 * math.sin(now / 5.0)) * elapsed / 8)
                counters["rx_bytes"] += moved
                counters["tx_bytes"] += moved

    # --- nfv ----------------------------------------------------------------------------------------------
    def list_nodes(self) -> list[Json]:
        with self.lock:
            self._enter("list_nodes")
            return [dict(n, used=dict(n["used"]), capacity=dict(n["capacity"])) for n in self.nodes.values()]

    def list_vnfs(self) -> list[Json]:
        with self.lock:
            self._enter("list_vnfs")
            return [dict(v) for v in self.vnfs.values()]

    def create_vnf(self, spec: Json, node: str | None = None, near_ap: str | None = None) -> tuple[Json, str]:
        with self.lock:
            self._enter("create_vnf")
            vnf_id = (spec["tenant_id"] << 16) | spec["instance_id"]
            if vnf_id in self.vnfs:
                raise ControllerError(409, "conflict", f"vnf {vnf_id} exists")
            node = node or next(iter(self.nodes))
            if node not in self.nodes:
                raise self._missing(f"node {node}")
            if spec["image"] not in self.nodes[node]["catalog"]:
                raise ControllerError(400, "bad_request", f"image {spec['image']} not in catalog")
            self.next_port += 2
            t, i = spec["tenant_id"], spec["instance_id"]
            state = dict(spec, vnf_id=vnf_id, address=f"{t >> 8}.{t & 255}.{i >> 8}.{i & 255}",
                         node=node, state="running", container_id=f"c{vnf_id:08x}", **{"class": "kernel"},
                         ports=[{"name": "in", "pof_port": self.next_port - 1},
                                {"name": "out", "pof_port": self.next_port}])
            self.vnfs[vnf_id] = state
            self._refresh_counts()
            self._after("create_vnf")
            return dict(state), node

    def delete_vnf(self, vnf_id: int) -> None:
        with self.lock:
            self._enter("delete_vnf")
            if vnf_id not in self.vnfs:
                raise self._missing(f"vnf {vnf_id}")
            del self.vnfs[vnf_id]
            self.vnf_counters = {k: v for k, v in self.vnf_counters.items() if k[0] != vnf_id}
            self._refresh_counts()

    def vnf_stats(self, vnf_id: int) -> Json:
        with self.lock:
            self._enter("vnf_stats")
            vnf = self.vnfs.get(vnf_id)
            if vnf is None:
                raise self._missing(f"vnf {vnf_id}")
            self._traffic()
            ports = []
            for p in vnf["ports"]:
                counters = self.vnf_counters.get((vnf_id, p["name"]), {})
                ports.append({"name": p["name"], "rx_packets": 0, "rx_bytes": counters.get("rx_bytes", 0),
                              "tx_packets": 0, "tx_bytes": counters.get("tx_bytes", 0)})
            return {"vnf_id": vnf_id, "cpu_pct": 12.5, "memory_mib": vnf["memory_mib"] // 2, "ports": ports}

    # --- pof ----------------------------------------------------------------------------------------------
    def list_switches(self) -> list[Json]:
        with self.lock:
            self._enter("list_switches")
            ids = ["pof:core"] + [f"pof:{a}" for a in self.agents] + [f"pof:{n}" for n in self.nodes]
            return [{"device_id": d, "dev_id": k, "address": "127.0.0.1", "connected": True, "ports": []}
                    for k, d in enumerate(ids)]

    def list_paths(self) -> list[Json]:
        with self.lock:
            self._enter("list_paths")
            return [dict(p) for p in self.paths.values()]

    def create_path(self, path: Json) -> Json:
        with self.lock:
            self._enter("create_path")
            if path["slice_id"] in self.paths:
                raise ControllerError(409, "conflict", f"slice path {path['slice_id']} exists")
            stored = dict(path)
            if stored.get("tag") is None:
                stored["tag"] = self.next_tag
                self.next_tag += 1
            self.paths[path["slice_id"]] = stored
            self._after("create_path")
            return dict(stored)

    def delete_path(self, slice_id: str) -> None:
        with self.lock:
            self._enter("delete_path")
            if slice_id not in self.paths:
                raise self._missing(f"slice path {slice_id}")
            del self.paths[slice_id]
            self.placements.pop(slice_id, None)  # a path's client entries go with it (as in the controller)

    def place_client(self, slice_id: str, mac: str, branch: str) -> Json:
        with self.lock:
            self._enter("place_client")
            path = self.paths.get(slice_id)
            if path is None:
                raise self._missing(f"slice path {slice_id}")
            if branch != "main" and branch not in {b["branch_id"] for b in path.get("branches", [])}:
                raise ControllerError(400, "bad_request", f"slice {slice_id} has no branch {branch}")
            self.placements.setdefault(slice_id, {})[mac.lower()] = branch
            return {"slice_id": slice_id, "mac": mac.lower(), "branch": branch, "switched_ms": 0}

    def update_path_rates(self, slice_id: str, rates: Json) -> Json:
        with self.lock:
            self._enter("update_path_rates")
            path = self.paths.get(slice_id)
            if path is None:
                raise self._missing(f"slice path {slice_id}")
            path.update({way: dict(rates[way]) for way in ("down", "up") if way in rates})
            if "latency_class" in rates:
                path["latency_class"] = rates["latency_class"]
            self._after("update_path_rates")
            return dict(path)

    # --- telemetry controls (tests) ---------------------------------------------------------------------------
    def _latency(self, vap: Json, ts: float) -> Json | None:
        """A probed vAP's latency item as the controller's stats show it (None: its agent has reported none)."""
        if vap["vap_id"] in self.scripted_latency:
            return dict(self.scripted_latency[vap["vap_id"]])
        if not self.simulate_traffic:
            return None
        p50 = int(300 + 50 * math.sin(ts / 5.0))
        return {"vap_id": vap["vap_id"], "sent": 100, "received": 100, "lost": 0, "p50_us": p50, "p90_us": p50 + 150,
                "p99_us": p50 + 300, "max_us": p50 + 400, "samples": 100, "ts": ts}

    def set_vap_latency(self, vap_id: str, p50_us: int, p99_us: int, ts: float, samples: int = 100,
                        lost: int = 0) -> None:
        with self.lock:
            self.scripted_latency[vap_id] = {"vap_id": vap_id, "sent": samples + lost, "received": samples,
                                             "lost": lost, "p50_us": p50_us, "p90_us": p99_us, "p99_us": p99_us,
                                             "max_us": p99_us, "samples": samples, "ts": ts}

    def set_vap_rates(self, vap_id: str, tx_bps: int, rx_bps: int) -> None:
        with self.lock:
            self.scripted_rates[vap_id] = {"tx_bps": tx_bps, "rx_bps": rx_bps, "interval_s": 1}

    def add_client(self, vap_id: str, mac: str) -> None:
        """A station associates to the vAP (as its agent would report it)."""
        with self.lock:
            vap = self.vaps[vap_id]
            self.clients[mac] = {"mac": mac, "vap_id": vap_id, "agent_id": vap["agent_id"], "signal_dbm": -45,
                                 "connected_s": 0, "tx_bytes": 0, "rx_bytes": 0}
            self.assoc_ts[mac] = time.time()
            vap["clients"] = sum(1 for c in self.clients.values() if c["vap_id"] == vap_id)
            self._refresh_counts()

    def set_client_counters(self, mac: str, tx_bytes: int, rx_bytes: int, connected_s: int | None = None) -> None:
        with self.lock:
            client = self.clients[mac]
            client.update(tx_bytes=tx_bytes, rx_bytes=rx_bytes)
            if connected_s is not None:
                client["connected_s"] = connected_s

    def set_client_rates(self, mac: str, tx_bps: float | None, rx_bps: float | None) -> None:
        """The rates the client's agent reports (None: none, as on its first report)."""
        with self.lock:
            client = self.clients[mac]
            if tx_bps is None or rx_bps is None:
                client.pop("tx_bps", None)
                client.pop("rx_bps", None)
            else:
                client.update(tx_bps=tx_bps, rx_bps=rx_bps)

    def set_vnf_counters(self, vnf_id: int, port: str, rx_bytes: int, tx_bytes: int) -> None:
        with self.lock:
            self.vnf_counters[(vnf_id, port)] = {"rx_bytes": rx_bytes, "tx_bytes": tx_bytes}

    # --- helpers for tests --------------------------------------------------------------------------------
    def resources(self) -> dict[str, list[Any]]:
        """Everything the controllers hold for slices: a test asserts it is empty after a rollback."""
        with self.lock:
            return {"vaps": sorted(self.vaps), "vnfs": sorted(self.vnfs), "paths": sorted(self.paths)}

    @staticmethod
    def default_topology(aps: list[str], nodes: list[str]) -> Json:
        """A star around pof:core: every agent's own switch on port 1, core port k toward the k-th agent."""
        attachments = {a: f"pof:{a}" for a in aps + nodes}
        links = [{"a": "pof:core", "a_port": k, "b": f"pof:{name}", "b_port": 1, "capacity_kbps": 1_000_000}
                 for k, name in enumerate(aps + nodes, start=1)]
        return {"attachments": attachments, "links": links}
