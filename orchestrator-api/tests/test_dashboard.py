"""The dashboard page and its static files are served without a build step."""


def test_page_and_assets(world):
    page = world.client.get("/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    for asset in ("/static/dashboard.js", "/static/dashboard.css", "/static/vendor/uplot-1.6.31/uPlot.iife.min.js"):
        assert asset in html
        resp = world.client.get(asset)
        assert resp.status_code == 200 and len(resp.data) > 100
        resp.close()


def test_metrics(world):
    world.call("GET", "/api/v1/me", world.operator)
    text = world.call("GET", "/metrics", world.operator).get_data(as_text=True)
    assert "wislice_http_request_seconds_count" in text
    assert "wislice_slices" in text


def test_upgrades_view_is_on_the_page(world):
    html = world.client.get("/").get_data(as_text=True)
    for part in ('data-tab="upgrades"', 'id="firmware-form"', 'id="rollout-form"', 'id="rollout-aps"'):
        assert part in html
    script = world.client.get("/static/dashboard.js")
    assert "renderers.upgrades" in script.get_data(as_text=True)
    script.close()
