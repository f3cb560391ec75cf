"""/metrics of the mec-agent (metrics.py): the StatsCollector's last collection of the node as Prometheus text
format, read back strictly; the refresher; the server on 127.0.0.1:0 scraped over HTTP (token, 404); the config
keys, and a start refused on a taken port before the node is touched."""

from __future__ import annotations

import json
import re
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from wislice_agent_proto import prometheus as P

from wislice_mec_agent.config import AgentConfig, load_config
from wislice_mec_agent.metrics import MecMetrics
from wislice_mec_agent.stats import StatsCollector

from .conftest import Node, spec

ROOT = Path(__file__).resolve().parents[3]
SPEC = json.loads((ROOT / "spec" / "agent-metrics" / "metrics.json").read_text())["mec"]
TOKEN = "mec-metrics-token-0123456789"
HEAD, DOWN = 65538, 65539
ME = (("agent_id", "mec-t"),)


class FakeScheduler:
    def __init__(self, report: dict[Any, dict[str, Any]]) -> None:
        self.view = report

    def report(self) -> dict[Any, dict[str, Any]]:
        return self.view


def vnf(vnf_id: int, *more: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    return tuple(sorted((("agent_id", "mec-t"), ("image", "kernel-fwd"), ("tenant_id", "1"),
                         ("vnf_id", str(vnf_id)), *more)))


def scrape(metrics: MecMetrics) -> dict[str, P.Parsed]:
    return P.parse(metrics.render())


def states(parsed: dict[str, P.Parsed], vnf_id: int) -> dict[str, float]:
    return {s: parsed["wislice_mec_vnf_state"].samples[vnf(vnf_id, ("state", s))]
            for s in ("creating", "running", "stopped", "failed")}


def test_families_from_the_last_collection(node: Node) -> None:
    node.manager.create(spec(1, 2))
    node.manager.create(spec(1, 3, chain_position=1))
    stats = StatsCollector(node.manager, FakeScheduler(
        {1: {"throttled": True, "head": HEAD, "queues": {DOWN: 150_000}, "episodes": 1, "drops": 42}}))
    metrics = MecMetrics(node.config, stats, lambda: False)
    before = scrape(metrics)  # nothing collected yet: what the config says, and no age
    assert before["wislice_mec_node_capacity_cpu"].samples == {ME: 2.0}
    assert before["wislice_mec_stats_age_seconds"].samples == {} and "wislice_mec_vnf_state" not in before

    data = stats.collect()
    stats.collect(HEAD)  # one vNF's getStatistics is not the node's collection: /metrics keeps the last full one
    parsed = scrape(metrics)
    assert parsed["wislice_mec_connected"].samples == {ME: 0}
    assert 0 <= parsed["wislice_mec_stats_age_seconds"].samples[ME] < 5
    assert parsed["wislice_mec_node_capacity_memory_mib"].samples == {ME: 1024}
    assert parsed["wislice_mec_node_allocated_cpu"].samples == {ME: 1.0}
    assert parsed["wislice_mec_node_allocated_memory_mib"].samples == {ME: 128}
    assert parsed["wislice_mec_node_cpu_pct"].samples == {ME: data["node"]["cpu_pct"]}
    assert parsed["wislice_mec_node_memory_used_mib"].samples == {ME: data["node"]["memory_used_mib"]}
    by_id = {v["vnf_id"]: v for v in data["vnfs"]}
    assert parsed["wislice_mec_vnf_cpu_pct"].samples == {vnf(i): by_id[i]["cpu_pct"] for i in (HEAD, DOWN)}
    assert parsed["wislice_mec_vnf_memory_mib"].samples == {vnf(i): by_id[i]["memory_mib"] for i in (HEAD, DOWN)}
    assert states(parsed, HEAD) == {"creating": 0, "running": 1, "stopped": 0, "failed": 0}
    # the fake veth counts rx 1 packet / 100 bytes, tx 2 / 200 on the host side: the vNF received what it sent
    port = ("port", "wt00010002")
    assert parsed["wislice_mec_vnf_port_bytes_total"].kind == "counter"
    assert parsed["wislice_mec_vnf_port_bytes_total"].samples[vnf(HEAD, port, ("direction", "rx"))] == 200
    assert parsed["wislice_mec_vnf_port_bytes_total"].samples[vnf(HEAD, port, ("direction", "tx"))] == 100
    assert parsed["wislice_mec_vnf_port_packets_total"].samples[vnf(HEAD, port, ("direction", "rx"))] == 2
    assert len(parsed["wislice_mec_vnf_port_bytes_total"].samples) == 4  # one port each, two directions
    assert parsed["wislice_mec_vnf_throttled"].samples == {vnf(HEAD): 1}
    assert parsed["wislice_mec_vnf_backpressure_drops_total"].samples == {vnf(HEAD): 42}
    assert parsed["wislice_mec_vnf_queue_bytes"].samples == {vnf(DOWN): 150_000}

    # spec/agent-metrics: the families in order, typed and labelled as it says; the README's table lists them
    assert [(f.name, f.kind, list(f.labels)) for f in metrics.families()] == [
        (w["name"], w["type"], w["labels"]) for w in SPEC]
    readme = (ROOT / "mec-agent" / "README.md").read_text()
    assert re.findall(r"^\| `(wislice_\w+)` \|", readme, re.M) == [w["name"] for w in SPEC]
    enumerated = [(w["name"], label, set(values)) for w in SPEC for label, values in w.get("values", {}).items()]
    assert all({dict(k)[label] for k in parsed[name].samples} <= values for name, label, values in enumerated)


def test_states_follow_the_containers(node: Node) -> None:
    node.manager.create(spec(1, 2))
    node.manager.create(spec(1, 3))
    stats = StatsCollector(node.manager)
    metrics = MecMetrics(node.config, stats, lambda: True)
    node.runtime.stop_all()  # what a dockerd restart does
    cid = node.manager.store.get(DOWN).container_id
    del node.runtime.containers[cid]
    stats.collect()
    parsed = scrape(metrics)
    assert states(parsed, HEAD)["stopped"] == 1 and states(parsed, DOWN)["failed"] == 1
    assert sum(states(parsed, HEAD).values()) == 1
    assert [s["state"] for s in node.manager.list_states()] == ["stopped", "failed"]  # getVnfs says the same
    assert "wislice_mec_vnf_throttled" in parsed and parsed["wislice_mec_vnf_throttled"].samples == {}  # no scheduler
    assert parsed["wislice_mec_connected"].samples == {ME: 1}


def test_the_refresher_collects_only_what_is_stale(node: Node, caplog: pytest.LogCaptureFixture) -> None:
    stats = StatsCollector(node.manager)
    now = [0.0]
    metrics = MecMetrics(node.config, stats, lambda: False, clock=lambda: now[0])
    assert metrics.refresh_once() and stats.latest is not None
    first = stats.latest
    now[0] = first.t + node.config.stats_interval_s / 2
    assert not metrics.refresh_once() and stats.latest is first  # a stats event's collection is fresh enough
    now[0] = first.t + node.config.stats_interval_s
    assert metrics.refresh_once() and stats.latest is not first
    now[0] += 3600

    def broken(vnf_id: object = None) -> dict[str, Any]:
        raise RuntimeError("docker gone")

    stats.collect = broken  # type: ignore[method-assign]
    assert metrics.refresh_once()  # logged, not raised
    assert "docker gone" in caplog.text


def test_the_server_on_loopback(tmp_path: Path) -> None:
    (tmp_path / "token").write_text(TOKEN + "\n")
    node = Node(tmp_path, metrics_listen="127.0.0.1:0", metrics_token_file=str(tmp_path / "token"),
                stats_interval_s=1.0)
    node.manager.create(spec(1, 2))
    metrics = MecMetrics(node.config, StatsCollector(node.manager), lambda: False)
    metrics.bind()
    assert metrics.server is not None
    address = metrics.server.address
    metrics.start()
    try:
        deadline = time.monotonic() + 5
        while metrics.stats.latest is None:  # the refresher's first collection: no controller asks for stats here
            assert time.monotonic() < deadline
            time.sleep(0.05)
        status, headers, body = P.scrape(address, token=TOKEN)
        assert status == 200 and headers["Content-Type"] == P.CONTENT_TYPE
        assert states(P.parse(body), HEAD)["running"] == 1
        assert P.scrape(address)[0] == 401 and P.scrape(address, token=TOKEN[::-1])[0] == 401
        assert P.scrape(address, "/vnfs", token=TOKEN)[0] == 404
        assert P.scrape(address, method="POST", token=TOKEN)[0] == 405
    finally:
        metrics.close()
    assert not metrics._thread.is_alive()
    with pytest.raises(OSError):
        P.scrape(address, token=TOKEN)


def test_off_by_default_and_config_keys(tmp_path: Path) -> None:
    off = AgentConfig(agent_id="mec-1", state_dir=str(tmp_path))
    assert off.metrics_address is None and off.metrics_token() is None
    metrics = MecMetrics(off, None, lambda: False)  # type: ignore[arg-type]
    metrics.bind()
    metrics.start()
    assert metrics.server is None and metrics._thread is None
    metrics.close()
    (tmp_path / "token").write_text(TOKEN)
    toml = tmp_path / "mec.toml"
    toml.write_text(f'agent_id = "mec-1"\nstate_dir = "{tmp_path}"\nmetrics_listen = "[::1]:9691"\n'
                    f'metrics_token_file = "{tmp_path / "token"}"\n')
    cfg = load_config(toml)
    assert (cfg.metrics_address, cfg.metrics_token()) == (("::1", 9691), TOKEN)
    for bad in ("9691", "localhost", "h:1 x", "h:65536"):
        with pytest.raises(ValueError, match="metrics_listen"):
            AgentConfig(agent_id="mec-1", state_dir=str(tmp_path), metrics_listen=bad)
    with pytest.raises(ValueError, match="strings"):
        AgentConfig(agent_id="mec-1", state_dir=str(tmp_path), metrics_listen=9691)  # type: ignore[arg-type]
    (tmp_path / "token").write_text("short")
    with pytest.raises(ValueError, match="token"):
        cfg.metrics_token()


def test_a_taken_port_stops_the_start_before_the_node_is_touched(tmp_path: Path, capsys) -> None:
    from wislice_mec_agent.__main__ import serve

    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        node = Node(tmp_path, metrics_listen=f"127.0.0.1:{port}")
        (node.config.vnf_dir / "4242").mkdir()  # an orphan a reconcile would remove
        assert serve(node.config, node.manager) == 2
    assert "cannot serve metrics on 127.0.0.1:" in capsys.readouterr().err
    assert (node.config.vnf_dir / "4242").is_dir()
