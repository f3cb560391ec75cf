from orch_helpers import slice_body


def test_create_and_delete_slice(world):
    resp = world.call("POST", "/api/v1/tenants/1/slices", world.tenant_a, json=slice_body())
    assert resp.status_code == 202, resp.get_json()
    op = resp.get_json()
    assert resp.headers["Location"] == f"/api/v1/operations/{op['operation_id']}"
    op = world.call("GET", resp.headers["Location"], world.tenant_a).get_json()
    assert op["status"] == "succeeded", op
    assert op["progress"] == 1.0
    s = world.call("GET", f"/api/v1/tenants/1/slices/{op['slice_id']}", world.tenant_a).get_json()
    assert s["status"] == "active"
    assert s["vaps"][0]["state"] == "up"
    assert s["vnfs"][0]["state"] == "running"
    assert world.fake.resources()["paths"] == [f"t1s{s['slice_id']}-t1s{s['slice_id']}v1"]
    stats = world.call("GET", f"/api/v1/tenants/1/slices/{s['slice_id']}/stats", world.tenant_a).get_json()
    assert stats["clients"] == 2 and stats["tx_bps"] > 0
    resp = world.call("DELETE", f"/api/v1/tenants/1/slices/{s['slice_id']}", world.tenant_a)
    assert resp.status_code == 202
    assert world.call("GET", resp.headers["Location"], world.tenant_a).get_json()["status"] == "succeeded"
    assert world.fake.resources() == {"vaps": [], "vnfs": [], "paths": []}


def test_worker_thread_runs_operations_and_metrics_count_them(tmp_path):
    import time

    from orch_helpers import make_world

    w = make_world(tmp_path, START_WORKER=True)
    try:
        resp = w.call("POST", "/api/v1/tenants/1/slices", w.tenant_a, json=slice_body())
        assert resp.status_code == 202
        deadline = time.monotonic() + 20
        op = resp.get_json()
        while op["status"] in ("pending", "running") and time.monotonic() < deadline:
            time.sleep(0.02)
            op = w.call("GET", resp.headers["Location"], w.tenant_a).get_json()
        assert op["status"] == "succeeded"
        text = w.call("GET", "/metrics", w.operator).get_data(as_text=True)
        assert 'wislice_operations_total{kind="create_slice",status="succeeded"} 1.0' in text
        assert 'wislice_slices{status="active"} 1.0' in text
        assert 'wislice_operation_seconds_count{kind="create_slice"} 1.0' in text
    finally:
        w.service.runner.stop()
        w.app.extensions["wislice_rollouts"].stop()
        w.app.extensions["wislice_engine"].dispose()
