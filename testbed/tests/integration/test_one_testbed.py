"""The scenarios of `make test` that share one whole testbed (3 stations, the radio's capacity calibrated; one
bring-up and calibration instead of one per scenario, ~55 s each), in this order:

- the demo's own scenario: two tenants' capped slices end to end, every check of `make demo`;
- a shortened ADE²WiNFV Fig. 11: a guaranteed video slice (two clients) keeps its rate while an uncapped neighbour
  slice saturates the radio with 10 TCP flows, downlink and then uplink. The radio's capacity is set by the
  operator below what this machine's TCG AP VM carries (calibrate.py), so the radio's scheduler is the bottleneck;
  the experiment's rates scale with it. Before guarantees were enforced in the data plane (vAP caps only, a POF
  meter of max(down, up), no radio-wide scheduler) nothing reserved the video's rate; these checks fail there;
- the transcode policy (Fig. 13);
- the dashboard's operator workflow in Chromium (a slice made in the UI, a real station on its chart, kicked);
- a latency slice's in-band probes: its p50/p99 against its budget, kept while a bulk slice floods a port both
  slices' downlink crosses, a budget broken with an event;
- a slice whose chain holds a two-port DPDK vNF before its forwarder, to the server and back (the MEC node's switch
  is the DPDK pofswitch, the testbed's default);
- fault injection, the short version (`make -C testbed bench-faults` runs every part): the ap-agent, the mec-agent
  and the core pof-switch each killed with SIGKILL during a slice creation and under steady traffic, then started
  again; the system converges with nothing leaked, the steady slice keeps its station and, for parts off the data
  path, its traffic;
- a fleet upgrade of the AP through the orchestrator (last: it restarts the AP's agent).

The timing-sensitive experiment runs before the faults: they restart parts."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from wislice_testbed import demo
from wislice_testbed.pytest_plugin import requires_root
from wislice_testbed.scenarios import latency_flood
from wislice_testbed.topology.common import StepLog, repo_root

# The experiment as designed for a 10 Mbit/s radio; Scale.scaled fits it to the calibrated capacity.
PROBE_INTERVAL_MS = 50
SCALE_KW = {"capacity_kbps": 10_000, "video_kbps": 2_000, "video_up_kbps": 1_000, "neighbour_cap_kbps": 0}


@pytest.fixture(scope="module")
def testbed() -> Iterator[tuple[Any, dict[int, str], StepLog, Any]]:
    """One testbed (3 stations, the radio's capacity calibrated) with tenants 1 and 2 for this module's tests, and
    the experiment's scale."""
    requires_root()
    missing = demo.missing_parts(repo_root())
    if missing:
        pytest.skip(f"not built: {missing}")
    from wislice_testbed.scenarios import calibrate, isolation
    from wislice_testbed.topology.testbed import up

    log = StepLog("isolation")
    with up(log, stations=3, radio_capacity_kbps=calibrate.UNCAPPED_KBPS) as tb:
        scale = isolation.Scale(**SCALE_KW).scaled(calibrate.radio_capacity(tb, log))
        yield tb, isolation.tenants(tb, log), log, scale


@pytest.mark.timeout(300)
def test_two_isolated_slices_end_to_end(testbed) -> None:
    """Two tenants' slices, each held to its cap alone and together, tenant 1's frames never reaching tenant 2, a
    live cap change without reassociation, and nothing left after deletion: every check `make demo` makes."""
    from wislice_testbed.scenarios import e2e_slice

    tb, tokens, log, scale = testbed
    results = e2e_slice.run(tb, log, scale.capacity_kbps, second_slice=True, tokens=tokens)
    verdict = demo.evaluate(results)
    assert all(verdict.values()), {"failed": sorted(k for k, ok in verdict.items() if not ok), **results}
    # Both slices ran concurrently, each held to its own cap.
    assert set(results["rates_mbps"]) == {"slice1_alone", "slice1_concurrent", "slice2_concurrent", "slice2_patched"}
    # The live change (PATCH) took effect without the station reassociating.
    assert results["checks"]["slice2_patched"] and results["checks"]["slice2_station_kept"]


@pytest.mark.timeout(720)
def test_guaranteed_slice_holds_against_a_saturating_neighbour(testbed) -> None:
    from wislice_testbed.scenarios import isolation

    tb, tokens, log, scale = testbed
    down = isolation.run_sliced(tb, log, scale, tokens, uplink=False)
    up_run = isolation.run_sliced(tb, log, scale, tokens, uplink=True)
    capacity_mbps = scale.capacity_kbps / 1000
    for exp, own_kbps in ((down, scale.video_kbps), (up_run, scale.video_up_kbps)):
        m = exp.metrics
        failed = {n: s.error for n, s in exp.series.items() if s.error}
        assert not failed, failed
        # A guest that started the flows seconds late leaves too little contention to judge (the series say when
        # each flow really started; the windows move with them): that is the machine, said as such.
        assert m["contention_s"] >= 3.0, f"{exp.name}: the flows started up to {m['late_start_s']} s late, " \
                                         f"{m['contention_s']} s of contention left: is the machine busy?"
        # The promise: every video client keeps >= 95 % of its rate. The upper bound only catches a wrong count (a
        # neighbour's bytes would be several times the rate): over the few seconds of contention the receiver's
        # intervals (the guest's clock) may also hold what the video's queue drained from before them; CI saw
        # 107.5 % once.
        assert 95.0 <= m["video_share_pct"] <= 110.0, exp.to_json()
        # Work-conserving: the neighbour gets what the video leaves, not nothing and not more than the radio has.
        left = capacity_mbps - 2 * own_kbps / 1000
        assert 0.5 * left <= m["neighbour_contended_mbps"] <= 1.05 * left + 0.3, exp.to_json()
        # Alone at the end, the uncapped neighbour borrows the whole radio, and the radio's capacity holds. Up to
        # 10 % over: goodput measured on the host came out 4 % (down, the AP's HTB) and 9 % (up, the AP switch's
        # rated port) above the shaped frame rate's in the same run, both shaped on the TCG guest's clock; no
        # shaping at all would be 2-4 times the capacity (what calibration measures).
        assert 0.8 * capacity_mbps <= m["neighbour_alone_mbps"] <= 1.1 * capacity_mbps, exp.to_json()


@pytest.mark.timeout(600)
def test_transcode_policy_deploys_and_removes_the_transcoder(testbed) -> None:
    """A video slice reserved for one 2 Mbit/s client with a transcode_on_overload policy: a second client makes
    the policy put the transcoder at the head of the slice's chain, where a stream to a client arrives re-encoded
    (MPEG-2 at the transcoder's rate) while ping still crosses it; the second client leaving makes the policy
    remove it. Fails without the policy engine, the two-port vNF or plain Ethernet to vNFs in a chain."""
    from wislice_testbed.scenarios import e2e_slice as e2e
    from wislice_testbed.scenarios import isolation, video
    from wislice_testbed.scenarios.traffic import run_flows
    from wislice_testbed.topology.common import wait_for

    tb, tokens, log, scale = testbed
    s = e2e.SliceRun(1, "video", 0, tb.ap.stations[0], token=tokens[1])
    body = isolation.video_body(scale, tb.ap.agent_id, s.ssid, True)
    reserved = scale.video_kbps * 112 // 100  # one client's stream and its headers
    body["bandwidth"].update(down_guaranteed_kbps=reserved, down_cap_kbps=reserved)
    body["policies"] = [{"type": "transcode_on_overload", "per_client_down_kbps": scale.video_kbps, "hold_s": 2,
                         "release_s": 4, "transcoder": {"bitrate_kbps": 500, "cpu": 0.5, "memory_mib": 256,
                                                        "params": {"bridge_address": "10.61.1.250/24"}}}]
    slices = isolation.bring_up(tb, log, [(s, body, [tb.ap.stations[0]])])

    def view() -> dict[str, Any]:
        return tb.orch.call("GET", f"/api/v1/tenants/1/slices/{s.slice_id}", s.token)[1]

    try:
        time.sleep(5)  # one client: its rate within the reservation, several polls past hold_s (2 s)
        assert view()["policy_state"][0]["state"] == "idle", view()
        second = tb.ap.stations[1]
        e2e.associate(tb, log, s, second, "10.61.1.11")
        slices.members.append((s, second, "10.61.1.11"))
        wait_for("the policy's transcoder running", lambda: view()["policy_state"][0]["state"] == "active",
                 timeout=120, period=1)
        sl = view()
        assert [(v["image"], v["state"]) for v in sl["vnfs"]] == [("transcoder", "running"), ("kernel-fwd", "running")]
        assert sl["policy_state"][0]["reaction_s"] > 0, sl
        ok, summary = e2e.ping(tb, s)
        assert ok, summary
        clip = video.clip(3_000, 5)
        flow = video.VideoFlow("policy-video", tb.ap.stations[0], s.sta_addr, clip)
        series = run_flows(tb, [flow])[flow.name]
        assert not series.error, series.error
        probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name:format=bit_rate",
                                "-of", "default=nw=1", str(flow.received(tb))], capture_output=True, text=True)
        fields = dict(line.split("=", 1) for line in probe.stdout.split() if "=" in line)
        assert fields.get("codec_name") == "mpeg2video", probe.stdout + probe.stderr
        assert 250_000 <= float(fields["bit_rate"]) <= 1_000_000, probe.stdout  # 500 kbit/s x1.1 mux, not 3 Mbit/s
        second.disconnect()
        slices.members.remove((s, second, "10.61.1.11"))
        wait_for("the policy removing the transcoder", lambda: view()["policy_state"][0]["state"] == "idle" and
                 [v["image"] for v in view()["vnfs"]] == ["kernel-fwd"], timeout=90, period=1)
        ok, summary = e2e.ping(tb, s)
        assert ok, summary
        events = tb.orch.call("GET", "/api/v1/events?limit=200", tb.orch.operator_token)[1]["events"]
        said = [e["message"] for e in events if e["kind"] == "policy"]
        assert any("deploying a transcoder" in m for m in said) and any("removing transcoder" in m for m in said)
    finally:
        isolation.tear_down(tb, log, slices)


@pytest.mark.timeout(300)
def test_dashboard_operator_workflow(testbed, page) -> None:
    """The dashboard's operator workflow on the real parts (the orchestrator's browser test runs it with fake
    controllers): Chromium on the orchestrator's UI makes a slice, a real station joins it and shows up on the
    slice's chart, and the UI's kick disassociates it."""
    from playwright.sync_api import expect

    from wislice_testbed.scenarios import e2e_slice as e2e
    from wislice_testbed.topology.common import wait_for

    tb, _, _, _ = testbed
    tb.orch.call("POST", "/api/v1/tenants", body={"tenant_id": 7, "name": "acme"})
    page.goto(tb.orch.url + "/")
    page.fill("#token", tb.orch.operator_token)
    page.click("#login-form button")
    page.click('nav button[data-tab="aps"]')
    ap = page.locator(f'[data-ap="{tb.ap.agent_id}"]')
    expect(ap.locator("h3")).to_contain_text("connected")
    expect(ap.locator('input[data-channel="phy0"]')).to_be_visible()

    page.click('nav button[data-tab="slices"]')
    form = page.locator("#slice-form")
    form.locator('select[name="tenant"]').select_option("7")
    form.locator('input[name="name"]').fill("ui-slice")
    form.locator('select[name="agent"]').select_option(tb.ap.agent_id)
    form.locator('input[name="ssid"]').fill("ui-ssid")
    form.locator('input[name="passphrase"]').fill("correct-horse")
    form.locator('select[name="image"]').select_option("kernel-fwd")
    form.locator("button[type=submit]").click()
    expect(page.locator("#slice-result")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    row = page.locator("#slices-table tr", has_text="ui-slice")
    expect(row).to_contain_text("active")
    page.click('nav button[data-tab="aps"]')
    expect(ap.locator(f'[data-vaps="{tb.ap.agent_id}"]')).to_contain_text("ui-ssid")

    station = tb.ap.stations[0]
    station.connect("ui-ssid", mode="wpa2-psk", passphrase="correct-horse", address="10.61.1.10/24")
    station.wait_associated(timeout=60)
    mac = station.mac().lower()
    page.click('nav button[data-tab="slices"]')
    row.get_by_role("button", name="Chart").click()
    latest = page.locator("#chart-latest")
    expect(latest).to_have_attribute("data-samples", re.compile(r"^[3-9]|\d\d"), timeout=30_000)
    expect(latest).to_contain_text("1 clients", timeout=30_000)

    page.click('nav button[data-tab="clients"]')
    kick = page.locator(f'button[data-kick="{mac}"]')
    expect(kick).to_be_visible(timeout=30_000)
    kick.click()
    expect(kick).to_have_count(0, timeout=30_000)
    wait_for("the kicked station gone from the wifi-controller", lambda: mac not in [
        c["mac"].lower() for c in tb.onos.get("/onos/wifi/clients")["clients"]], timeout=30)
    station.disconnect()
    # The next scenarios share the radio: the slice goes (the operator may delete any tenant's slice).
    (made,) = tb.orch.call("GET", "/api/v1/tenants/7/slices")[1]["slices"]
    _, _, headers = tb.orch.call("DELETE", f"/api/v1/tenants/7/slices/{made['slice_id']}")
    if headers.get("Location"):
        assert e2e.wait_operation(tb, tb.orch.operator_token, headers["Location"])["status"] == "succeeded"


@pytest.mark.timeout(300)
def test_latency_slice_measures_its_round_trips_against_its_budget(testbed) -> None:
    """Issue 15 on real parts: a latency slice (class low, capped, a budget) asks for in-band probes from a free
    address of its station subnet to its vNF. The AP's pof-switch pings the vNF through the slice's own flows and
    meters, the ap-agent reports p50/p99, the slice's telemetry shows them against the budget; they keep their round
    trip while another tenant's bulk slice fills the best-effort queue of a port on their way; a budget below what
    the path's elements cost is refused with the numbers; one they fit by the operator's per-switch figures (which
    win over the switches' measured residence) but this TCG testbed's round trip does not meet is reported broken
    with an event."""
    from wislice_testbed.scenarios import e2e_slice as e2e
    from wislice_testbed.topology.common import wait_for

    tb, tokens, log, _ = testbed
    s = e2e.SliceRun(1, "lat", 2_000, tb.ap.stations[0], token=tokens[1])
    body = e2e.slice_body(s, tb.ap.agent_id) | {
        "latency_class": "low", "latency_budget_us": 1_000_000,
        "probe": {"source_ip": "10.61.1.250", "target_ip": s.gw_addr, "interval_ms": PROBE_INTERVAL_MS}}
    e2e.create_slice(tb, log, s, body)
    path = f"/api/v1/tenants/1/slices/{s.slice_id}"
    try:
        e2e.wire_server_side(tb, s)  # the vNF's 'in' takes the gateway address: the probe's target answers

        def latency() -> dict[str, Any] | None:
            lat = tb.orch.call("GET", f"{path}/telemetry", s.token)[1].get("latency") or {}
            # Five samples at least: the first report after the probe started may hold one.
            return lat if any(v.get("samples", 0) >= 5 for v in lat.get("vaps", [])) else None

        lat = wait_for("five samples of the slice's measured latency", latency, timeout=60, period=1)
        (vap,) = lat["vaps"]
        log.say(f"latency slice {s.slice_id}: round trip AP switch -> vNF p50 {vap['p50_us']} us, p99 "
                f"{vap['p99_us']} us over {vap['samples']} samples, {vap['lost']} lost (budget {lat['budget_us']})")
        assert vap["vap_id"] == s.vap_id and 0 < vap["p50_us"] <= vap["p99_us"] == lat["worst_p99_us"], lat
        assert vap["samples"] >= 5 and vap["lost"] <= vap["samples"] // 10, lat
        assert lat["budget_us"] == 1_000_000 and lat["budget_broken"] is False, lat

        # A bulk slice floods the core switch's port toward the AP, rated below what it sends: the probes' replies
        # leave the core by that port too, in the latency class, before its full best-effort queue.
        flood = probes_under_a_bulk_flood(tb, log, tokens, s.vap_id)
        sent = flood.probes("sent")
        assert flood.port["be_drops"] > 0 and flood.queue_ms >= 1000, flood  # a probe in it: >= 1 s, or dropped
        assert sent >= 0.5 * (latency_flood.SETTLE_S + latency_flood.FLOOD_S) * 1000 / PROBE_INTERVAL_MS, flood
        assert flood.probes("lost") <= 0.05 * sent, flood
        # The window (the last 1024 probes) holds the flood's ~180, over a tenth of it: its top tenth would be
        # theirs had they queued.
        assert int(flood.during["p90_us"]) <= 0.05 * flood.queue_ms * 1000, flood
        assert int(flood.during["p99_us"]) <= 0.25 * flood.queue_ms * 1000, flood

        # Admission: 3 switches, 2 links and a kernel vNF cost more than 100 us.
        code, refused, _ = tb.orch.call("PATCH", path, s.token, {"latency_budget_us": 100}, expect=(409, 422))
        assert "100" in json.dumps(refused) and "us" in json.dumps(refused), refused
        # The operator's per-switch figures win over the switches' measured residence (which on this TCG testbed
        # swings from tens of us to over 10 ms with what ran just before, so admission may refuse 400 us by it):
        # with 10 us a switch the elements fit 400 us, and a round trip through the TCG AP VM does not: the probes
        # report the budget broken.
        measured = {sw["device_id"]: (sw.get("latency") or {}).get("p99_us") for sw in
                    tb.onos.get("/onos/pof/switches")["switches"]}
        log.say(f"switches' measured p99 residence (us): {measured}")
        assert vap["p99_us"] > 400, f"the premise: this testbed's p99 round trip exceeds 400 us ({lat})"
        topology = tb.wired_topology()
        switches = {x[k] for x in topology["links"] for k in ("a", "b")}
        tb.orch.call("PUT", "/api/v1/topology", body=topology | {"switch_latency_us": dict.fromkeys(switches, 10)})
        last = max((e["id"] for e in tb.orch.call("GET", "/api/v1/events?limit=1")[1]["events"]), default=0)
        _, _, headers = tb.orch.call("PATCH", path, s.token, {"latency_budget_us": 400})
        if headers.get("Location"):
            assert e2e.wait_operation(tb, s.token, headers["Location"])["status"] == "succeeded"
        broken = wait_for("a latency_budget_broken event", lambda: [
            e for e in tb.orch.call("GET", f"/api/v1/events?after={last}")[1]["events"]
            if e["kind"] == "latency_budget_broken" and f"slice {s.slice_id}:" in e["message"]], timeout=60, period=1)
        log.say(f"event: {broken[0]['message']}")
        assert tb.orch.call("GET", f"{path}/telemetry", s.token)[1]["latency"]["budget_broken"] is True

        # Best effort from now on: the live vAP leaves the voice queue and stops probing (one updateVap, BSS kept).
        _, _, headers = tb.orch.call("PATCH", path, s.token, {"latency_class": "best_effort",
                                                              "latency_budget_us": None})
        assert e2e.wait_operation(tb, s.token, headers["Location"])["status"] == "succeeded"
        (live,) = (v for v in tb.onos.get("/onos/wifi/vaps")["vaps"] if v["vap_id"] == s.vap_id)
        assert live.get("wmm_ac", "be") == "be" and "probe" not in live, live
        assert tb.onos.request("GET", f"/onos/wifi/vaps/{s.vap_id}/latency")[0] == 501  # no probe any more
    finally:
        gone = e2e.delete_slice(tb, log, s)
        tb.orch.call("PUT", "/api/v1/topology", body=tb.wired_topology())  # the measured costs again
    assert all(gone.values()), gone


def probes_under_a_bulk_flood(tb: Any, log: StepLog, tokens: dict[int, str], latency_vap: str) -> Any:
    """Tenant 2's bulk slice (a station on it, its vNF routing to the server) floods for latency_flood's time."""
    from wislice_testbed.scenarios import e2e_slice as e2e

    bulk = e2e.SliceRun(2, "bulk", 2_000, tb.ap.stations[1], token=tokens[2])
    e2e.create_slice(tb, log, bulk)
    try:
        e2e.wire_server_side(tb, bulk)
        e2e.associate(tb, log, bulk)
        return latency_flood.run(tb, log, latency_vap, bulk.sta_addr)
    finally:
        gone = e2e.delete_slice(tb, log, bulk)
        assert all(gone.values()), gone


@pytest.mark.timeout(300)
def test_slice_with_a_dpdk_vnf_end_to_end(testbed) -> None:
    """Issue 14 on the testbed's MEC node, whose switch is the DPDK pofswitch: a slice whose chain is a two-port DPDK
    vNF (dpdk-bridge, two vhost-user ports) and the kernel forwarder, created through the orchestrator's REST API,
    carries the station's pings to the server and back through both (scenarios/dpdk_slice.py); the bridge's own
    counters show both directions; deleting the slice leaves no container and no switch port."""
    from wislice_testbed.hugepages import hugetlbfs_mounts
    from wislice_testbed.scenarios import dpdk_slice

    tb, tokens, log, _ = testbed
    hp = tb.mec.hugepages
    assert hp is not None and str(hp.mount) in hugetlbfs_mounts()  # the MEC node runs on its own pages
    results = dpdk_slice.run(tb, log, tokens=tokens)
    checks, counts = results["checks"], results["counts"]
    assert all(checks.values()), results
    pings = counts["pings"]
    # End to end: the air may lose a few, the wired path and the vNFs none to speak of.
    assert counts["replies"] >= 0.9 * pings, counts
    # Every hop of the bridge, both ways (lower bounds: its ARP and the station's IPv6 chatter come on top): the
    # switch handed it the requests on 'in', it sent them on by 'out' and the switch took them; the replies back.
    for key in ("switch_to_bridge_in", "bridge_in_rx", "bridge_out_tx", "switch_from_bridge_out",
                "switch_to_bridge_out", "bridge_out_rx", "bridge_in_tx", "switch_from_bridge_in"):
        assert counts[key] >= 0.9 * pings, (key, counts)
    # Adaptive polling: the switch sleeps while the station associates (busy polling would be ~100 %).
    assert counts["switch_idle_cpu_pct"] < 25, counts


FAULT_KINDS = ["ap-agent", "mec-agent", "core-switch"]


@pytest.mark.timeout(900)
def test_parts_killed_during_creation_and_traffic_converge(testbed) -> None:
    from wislice_testbed.scenarios import faults

    tb, tokens, log, _ = testbed
    outcomes = faults.run(tb, log, FAULT_KINDS, tokens=tokens)
    assert [(o.kind, o.phase) for o in outcomes] == [(k, p) for k in FAULT_KINDS for p in ("create", "traffic")]
    failed = {f"{o.kind}/{o.phase}": o.to_json() for o in outcomes if not o.survived()}
    assert not failed, failed
    # The data path's part was really gone for a while, and came back: some pings were lost, the rest answered.
    switch = next(o for o in outcomes if o.kind == "core-switch" and o.phase == "traffic")
    sent, answered = switch.pings
    assert 0 < answered < sent and switch.outage_s > 0, switch.to_json()


@pytest.mark.timeout(480)
def test_fleet_upgrade_of_the_ap_through_the_orchestrator(testbed) -> None:
    """Issue 18 end to end: the operator uploads a package set signed with its usign key (the orchestrator and the
    AP's /etc/opkg/keys trust it) and rolls it out to the testbed's AP; the WiFi controller asks the AP's ap-agent,
    which downloads it from the orchestrator, checks its sha256 and signature, installs it with opkg and comes back
    on the new version; the rollout finishes with the AP done; a slice then carries traffic on the upgraded AP.
    Last in the module: it restarts the AP's agent."""
    from wislice_testbed.scenarios import e2e_slice as e2e
    from wislice_testbed.topology.common import wait_for

    tb, tokens, log, _ = testbed
    fw, agent_id = tb.ap.firmware, tb.ap.agent_id
    before = tb.orch.call("GET", f"/api/v1/wifi-agents/{agent_id}")[1]["agent"]["firmware_version"]
    version = fw.bump(before, 1)
    data = fw.package_set(f"wislice-ap-agent_{version}_all.ipk", fw.repack(fw.shipped_ipk(tb.ap.vm), version,
                                                                          version))
    image = tb.orch.upload("/api/v1/firmware", {"version": version, "kind": "packages",
                                                "signature": tb.firmware_key.sign(data)}, "set.tar", data)
    assert image["key_id"] == tb.firmware_key.key_hex and image["size"] == len(data), image
    started = time.monotonic()
    rollout = tb.orch.call("POST", "/api/v1/rollouts", body={"firmware_id": image["firmware_id"], "aps": [agent_id],
                                                             "timeout_s": 180})[1]
    path = f"/api/v1/rollouts/{rollout['rollout_id']}"
    rollout = wait_for("the rollout's end", lambda: (lambda r: r if r["finished_at"] else None)(
        tb.orch.call("GET", path)[1]), timeout=240, period=1)
    took = time.monotonic() - started
    log.say(f"rollout of {version} (was {before}): {rollout['status']} in {took:.1f} s, APs {rollout['counts']}")
    assert rollout["status"] == "finished", (rollout, tb.ap.agent_log())
    (ap,) = rollout["aps"]
    assert (ap["agent_id"], ap["state"], ap["from_version"]) == (agent_id, "done", before), rollout
    agent = tb.orch.call("GET", f"/api/v1/wifi-agents/{agent_id}")[1]["agent"]
    assert agent["connected"] and agent["firmware_version"] == version, agent
    assert f"wislice-ap-agent - {version}" in tb.ap.vm.run("opkg list-installed").out

    # The upgraded agent serves slices: one created now carries a ping end to end.
    s = e2e.SliceRun(1, "upgraded", 2_000, tb.ap.stations[0], token=tokens[1])
    e2e.create_slice(tb, log, s)
    try:
        e2e.wire_server_side(tb, s)
        e2e.associate(tb, log, s)
        ok, summary = wait_for("ping through the slice on the upgraded AP",
                               lambda: (lambda r: r if r[0] else None)(e2e.ping(tb, s)), timeout=30, period=1)
        assert ok, summary
    finally:
        gone = e2e.delete_slice(tb, log, s)
    assert all(gone.values()), gone
