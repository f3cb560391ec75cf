"""The slice-setup benchmark's driver logic, exercised against fake controllers. Nothing is written to
bench/results here: a fake-controller time is not a slice-setup time."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from served_app import served

SPEC = importlib.util.spec_from_file_location("slice_setup", Path(__file__).resolve().parents[1] / "bench" /
                                              "slice_setup.py")
slice_setup = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(slice_setup)


@pytest.fixture
def api(world):
    with served(world.app) as url:
        yield slice_setup.Api(url, world.operator), world


def test_run_collects_every_stage_and_cleans_up(api):
    client, world = api
    samples = slice_setup.run(client, 3)
    assert set(samples) == {"total_s", "admission_s", "queue_s", "create_vap_s", "create_vnf_s", "create_path_s"}
    assert all(len(v) == 3 for v in samples.values())
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}
    assert client("GET", "/tenants/4242", ok=(404,)) is not None


def test_without_deployment_it_writes_nothing(capsys, tmp_path, monkeypatch):
    for var in ("WISLICE_BENCH_URL", "WISLICE_BENCH_TOKEN", "WISLICE_BENCH_ONOS_URL", "WISLICE_BENCH_TOPOLOGY"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr(slice_setup.benchlib, "write_result", lambda *a, **k: pytest.fail("must not write"))
    assert slice_setup.main([]) == 0
    assert "SKIPPED" in capsys.readouterr().out
