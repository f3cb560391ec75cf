"""Browser tests: Debian's Chromium driven by Playwright (the `page` fixture of wislice_testbed's pytest plugin)
against the orchestrator process with FAKE controllers (two APs, clients and rates on demand: the whole UI
quickly). The same workflow on the real parts runs on the testbed the other scenarios share
(testbed/tests/integration/test_one_testbed.py)."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.integration


def test_operator_workflow(orchestrator, page):
    from playwright.sync_api import expect

    assert orchestrator.call("POST", "/tenants", json={"tenant_id": 5, "name": "acme"}).status_code == 201
    body = {"name": "existing", "vaps": [{"agent_id": "ap-1", "ssid": "existing-ssid"}],
            "vnfs": [{"image": "kernel-fwd"}]}
    op = orchestrator.call("POST", "/tenants/5/slices", json=body).json()
    assert orchestrator.call("GET", f"/operations/{op['operation_id']}").status_code == 200
    # The page runs under its Content-Security-Policy: Chromium reports anything it refuses on the console.
    refused: list[str] = []
    page.on("console", lambda msg: refused.append(msg.text) if "Content Security Policy" in msg.text else None)
    # Log in as operator.
    page.goto(orchestrator.url + "/")
    page.fill("#token", orchestrator.operator)
    page.click("#login-form button")
    expect(page.locator('[data-card="APs"] b')).to_have_text("2/2")

    # An AP with its radio and vAPs.
    page.click('nav button[data-tab="aps"]')
    ap = page.locator('[data-ap="ap-1"]')
    expect(ap.locator("h3")).to_contain_text("connected")
    expect(ap.locator('[data-vaps="ap-1"]')).to_contain_text("existing-ssid")
    ap.locator('input[data-channel="phy0"]').fill("11")
    ap.get_by_role("button", name="Set channel").click()
    expect(ap.locator('input[data-channel="phy0"]')).to_have_value("11")
    assert orchestrator.call("GET", "/wifi-agents").json()["agents"][0]["radios"][0]["channel"] == 11

    # Create a slice through the UI.
    page.click('nav button[data-tab="slices"]')
    form = page.locator("#slice-form")
    expect(form.locator('select[name="tenant"] option')).to_have_count(1)
    form.locator('input[name="name"]').fill("ui-slice")
    form.locator('select[name="agent"]').select_option("ap-2")
    form.locator('input[name="ssid"]').fill("ui-ssid")
    form.locator('input[name="passphrase"]').fill("correct-horse")
    form.locator('select[name="image"]').select_option("firewall")
    # A transcode policy that its two clients (2 x 1000 kbps) keep within the 2000 kbps guarantee: idle.
    form.locator('input[name="per_client"]').fill("1000")
    form.locator('input[name="bitrate"]').fill("600")
    form.locator("button[type=submit]").click()
    expect(page.locator("#slice-result")).to_have_attribute("data-status", "succeeded")
    row = page.locator("#slices-table tr", has_text="ui-slice")
    expect(row).to_contain_text("active")
    expect(row).to_contain_text("transcode at 600 kbps if clients × 1000 kbps > guarantee: idle")

    # Change its bandwidth live in the edit dialog (PATCH, applied as an operation).
    row.get_by_role("button", name="Edit").click()
    dialog = page.locator("#edit-slice")
    expect(dialog.locator('input[name="down_cap_kbps"]')).to_have_value("10000")
    dialog.locator('input[name="down_guaranteed_kbps"]').fill("3000")
    dialog.locator("button[type=submit]").click()
    expect(page.locator("#edit-result")).to_have_attribute("data-status", "succeeded")
    dialog.locator("#edit-close").click()
    expect(dialog).to_be_hidden()
    expect(row).to_contain_text("3000..10000")

    # Watch its charts update: the slice's rates with its guarantees (telemetry series), and its clients' rates.
    row.get_by_role("button", name="Chart").click()
    expect(page.locator("#chart canvas")).to_have_count(1)
    expect(page.locator("#chart .u-legend")).to_contain_text("down guaranteed")
    latest = page.locator("#chart-latest")
    expect(latest).to_have_attribute("data-samples", re.compile(r"^[3-9]|\d\d"), timeout=20_000)
    assert "2 clients" in latest.inner_text()
    expect(page.locator("#client-chart")).to_have_attribute("data-clients", "2")
    expect(page.locator("#client-chart canvas")).to_have_count(1)
    expect(page.locator("#client-chart .u-legend")).to_contain_text(" down")

    # A latency slice with probes: its view shows the measured p99 against its budget (the fake APs report a p99
    # around 600 us for a probed vAP).
    body = {"name": "lat-slice", "latency_class": "low", "latency_budget_us": 800,
            "bandwidth": {"down_cap_kbps": 5000, "up_cap_kbps": 1000}, "vaps": [{"agent_id": "ap-1", "ssid": "lat"}],
            "probe": {"source_ip": "10.8.0.250", "target_ip": "10.8.0.1"}}
    op = orchestrator.call("POST", "/tenants/5/slices", json=body).json()
    assert orchestrator.call("GET", f"/operations/{op['operation_id']}").status_code == 200
    lat_row = page.locator("#slices-table tr", has_text="lat-slice")
    expect(lat_row).to_contain_text("active")
    lat_row.get_by_role("button", name="Chart").click()
    latency = page.locator("#chart-latency")
    expect(latency).to_have_attribute("data-p99", re.compile(r"^\d+$"), timeout=20_000)
    expect(latency).to_contain_text("µs of 800 µs budget")
    expect(latency.locator(".bar span")).to_be_attached()
    row.get_by_role("button", name="Chart").click()  # a slice without probes shows no latency
    expect(latency).to_be_hidden()

    # Kick a client.
    page.click('nav button[data-tab="clients"]')
    kick = page.locator("button[data-kick]").first
    expect(kick).to_be_visible()
    mac = kick.get_attribute("data-kick")
    before = page.locator("button[data-kick]").count()
    kick.click()
    expect(page.locator(f'button[data-kick="{mac}"]')).to_have_count(0)
    expect(page.locator("button[data-kick]")).to_have_count(before - 1)
    macs = [c["mac"] for c in orchestrator.call("GET", "/clients").json()["clients"]]
    assert mac not in macs

    # The event log shows what happened.
    page.click('nav button[data-tab="events"]')
    expect(page.locator("#events-table")).to_contain_text(f"client {mac} kicked")

    # MEC nodes with their use as bars (the one width the page sets, through the CSSOM).
    page.click('nav button[data-tab="mec"]')
    fill = page.locator("#mec-table .bar span").first
    expect(fill).to_be_attached()
    assert re.fullmatch(r"[\d.]+%", fill.evaluate("e => e.style.width")), "the bar's width was not applied"
    assert refused == []


def test_upgrades_view(processes, tmp_path, page):
    """Issue 18: upload signed firmware in the Upgrades tab (a bad signature is refused with its reason), start a
    rollout to every AP and watch each AP's progress reach done (the fake controller's simulated APs)."""
    from firmware_helpers import SigningKey
    from orch_served import start_orchestrator
    from playwright.sync_api import expect

    key = SigningKey()
    served = start_orchestrator(processes, tmp_path, {"WISLICE_FIRMWARE_KEYS": key.public_line,
                                                      "WISLICE_FIRMWARE_BASE_URL": "http://127.0.0.1:1",
                                                      "WISLICE_ROLLOUT_POLL_S": "0.2"})
    image = tmp_path / "wislice-2.0.bin"
    image.write_bytes(b"\x27\x05\x19\x56 sysupgrade image" * 64)
    good, bad = tmp_path / "good.sig", tmp_path / "bad.sig"
    good.write_text(key.sign(image.read_bytes()))
    bad.write_text(SigningKey().sign(image.read_bytes()))
    refused: list[str] = []
    page.on("console", lambda msg: refused.append(msg.text) if "Content Security Policy" in msg.text else None)
    page.goto(served.url + "/")
    page.fill("#token", served.operator)
    page.click("#login-form button")
    page.click('nav button[data-tab="upgrades"]')
    form = page.locator("#firmware-form")
    form.locator('input[name="file"]').set_input_files(str(image))
    form.locator('input[name="version"]').fill("2.0")
    form.locator('input[name="sig"]').set_input_files(str(bad))
    form.locator("button[type=submit]").click()
    result = page.locator("#firmware-result")
    expect(result).to_have_attribute("data-status", "refused")
    expect(result).to_contain_text("not a trusted key")
    form.locator('input[name="sig"]').set_input_files(str(good))
    form.locator("button[type=submit]").click()
    expect(result).to_have_attribute("data-status", "stored")
    expect(page.locator("#firmware-table tbody tr")).to_have_count(1)
    rollout = page.locator("#rollout-form")
    expect(rollout.locator('select[name="firmware"] option')).to_have_count(1)
    rollout.locator('input[name="stage_size"]').fill("1")
    rollout.locator("button[type=submit]").click()
    expect(page.locator("#rollout-result")).to_have_attribute("data-status", "started")
    box = page.locator("#rollout-box")
    expect(box).to_have_attribute("data-status", "finished")
    for ap in ("ap-1", "ap-2"):
        expect(page.locator(f'#rollout-aps tr[data-row="{ap}"]')).to_contain_text("done")
    expect(page.locator("#rollouts-table")).to_contain_text("2 done")
    assert refused == []
