"""Prometheus text format 0.0.4 (prometheus.py): the exact lines, escaping, refused names and values, the strict
reader (and prometheus_client's parser, where installed, reading the same text); the /metrics server on loopback
(urllib): 200, 404, 405, the bearer token, oversized requests, a failing render, the connection bound."""

from __future__ import annotations

import contextlib
import math
import socket
import time
import urllib.error

import pytest

from wislice_agent_proto import prometheus as P

ODD = 'a"b\\c\nd'


def sample_families() -> list[P.Family]:
    up = P.Family("wislice_test_up", "Whether it is up", "gauge")
    up.add([], 1)
    sent = P.Family("wislice_test_bytes_total", "Bytes sent\nby port \\ direction", "counter", ["port", "direction"])
    sent.add(["eth0", "tx"], 12345).add({"direction": "rx", "port": ODD}, 0)
    rate = P.Family("wislice_test_rate_bps", "Rate", labels=["port"])
    rate.add(["eth0"], 1.5).add(["eth1"], 1e20).add(["eth2"], 0.1)
    empty = P.Family("wislice_test_empty", "Nothing yet", labels=["x"])
    return [up, sent, rate, empty]


def test_exact_exposition():
    assert P.render(sample_families()) == (
        "# HELP wislice_test_up Whether it is up\n"
        "# TYPE wislice_test_up gauge\n"
        "wislice_test_up 1\n"
        "# HELP wislice_test_bytes_total Bytes sent\\nby port \\\\ direction\n"
        "# TYPE wislice_test_bytes_total counter\n"
        'wislice_test_bytes_total{port="eth0",direction="tx"} 12345\n'
        'wislice_test_bytes_total{port="a\\"b\\\\c\\nd",direction="rx"} 0\n'
        "# HELP wislice_test_rate_bps Rate\n"
        "# TYPE wislice_test_rate_bps gauge\n"
        'wislice_test_rate_bps{port="eth0"} 1.5\n'
        'wislice_test_rate_bps{port="eth1"} 1e+20\n'
        'wislice_test_rate_bps{port="eth2"} 0.1\n'
        "# HELP wislice_test_empty Nothing yet\n"
        "# TYPE wislice_test_empty gauge\n")
    assert P.render([]) == ""


def test_parse_back():
    parsed = P.parse(P.render(sample_families()))
    assert list(parsed) == ["wislice_test_up", "wislice_test_bytes_total", "wislice_test_rate_bps",
                            "wislice_test_empty"]
    assert parsed["wislice_test_bytes_total"].kind == "counter"
    assert parsed["wislice_test_bytes_total"].help == "Bytes sent\nby port \\ direction"
    assert parsed["wislice_test_bytes_total"].samples == {
        (("direction", "tx"), ("port", "eth0")): 12345, (("direction", "rx"), ("port", ODD)): 0}
    assert parsed["wislice_test_up"].samples == {(): 1}
    assert parsed["wislice_test_rate_bps"].samples[(("port", "eth1"),)] == 1e20
    assert parsed["wislice_test_empty"].samples == {}


def test_prometheus_client_reads_the_same():
    parser = pytest.importorskip("prometheus_client.parser")
    families = {f.name: f for f in parser.text_string_to_metric_families(P.render(sample_families()))}
    assert families["wislice_test_bytes"].type == "counter"  # the reference names a counter without _total
    values = {(s.name, tuple(sorted(s.labels.items()))): s.value for f in families.values() for s in f.samples}
    assert values[("wislice_test_bytes_total", (("direction", "rx"), ("port", ODD)))] == 0
    assert values[("wislice_test_rate_bps", (("port", "eth1"),))] == 1e20
    assert families["wislice_test_up"].type == "gauge"


@pytest.mark.parametrize(("value", "text"), [(0, "0"), (-3, "-3"), (2**63, str(2**63)), (True, "1"), (False, "0"),
                                             (0.25, "0.25"), (-1e-7, "-1e-07"), (3.0, "3.0")])
def test_values(value, text):
    assert P.format_value(value) == text


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf])
def test_non_finite_values_are_refused(value):
    with pytest.raises(ValueError, match="finite"):
        P.Family("x", "x").add([], value)


def test_refusals():
    for name in ("", "1abc", "a-b", "a b", "é"):
        with pytest.raises(ValueError, match="metric name"):
            P.Family(name, "h")
    for label in ("__reserved", "1x", "a-b", "le:x"):
        with pytest.raises(ValueError, match="label name"):
            P.Family("x", "h", labels=[label])
    with pytest.raises(ValueError, match="twice"):
        P.Family("x", "h", labels=["a", "a"])
    with pytest.raises(ValueError, match="type"):
        P.Family("x", "h", "histogram")
    with pytest.raises(ValueError, match="_total"):
        P.Family("x_bytes", "h", "counter")
    with pytest.raises(ValueError, match="negative"):
        P.Family("x_total", "h", "counter").add([], -1)
    with pytest.raises(TypeError):
        P.Family("x", "h").add([], "1")  # type: ignore[arg-type]
    f = P.Family("x", "h", labels=["a"])
    with pytest.raises(ValueError, match="label values"):
        f.add([], 1)
    with pytest.raises(ValueError, match="labels"):
        f.add({"b": 1}, 1)
    with pytest.raises(ValueError):
        f.add(["\ud800"], 1)  # a lone surrogate is not UTF-8
    f.add([1], 1)
    with pytest.raises(ValueError, match="second sample"):
        f.add(["1"], 2)  # label values are strings: 1 and "1" are one label set
    with pytest.raises(ValueError, match="twice"):
        P.render([P.Family("x", "h"), P.Family("x", "h")])


@pytest.mark.parametrize("text", [
    "x 1",  # a sample before any TYPE
    "# TYPE x gauge\ny 1\n",  # another family's sample
    "# TYPE x gauge\nx{a=\"1\"} one\n",
    "# TYPE x gauge\nx{a=\"1\",} 1\n",
    "# TYPE x gauge\nx{a=1} 1\n",
    "# TYPE x gauge\nx{a=\"\\x\"} 1\n",
    "# TYPE x gauge\nx 1\nx 2\n",
    "# TYPE x summary\n",
    "# TYPE x gauge\nx 1",  # no final line feed
])
def test_parse_is_strict(text):
    with pytest.raises(ValueError):
        P.parse(text)


def test_listen_and_token_config(tmp_path):
    assert P.parse_listen("") is None
    assert P.parse_listen("127.0.0.1:9690") == ("127.0.0.1", 9690)
    assert P.parse_listen("[::1]:0") == ("::1", 0)
    assert P.parse_listen("localhost:80") == ("localhost", 80)
    for bad in ("9690", "127.0.0.1", "127.0.0.1:70000", "a b:1", "::1:9690", " 127.0.0.1:1", "h:1\n"):
        with pytest.raises(ValueError, match="metrics_listen"):
            P.parse_listen(bad)
    good = "Zm9vYmFyLXRva2VuLTEyMzQ1Ng=="
    assert P.check_token(good) == good
    for bad in ("short", "has space in it 1234", "x" * 1025, "line\nbreak-0123456789"):
        with pytest.raises(ValueError, match="token"):
            P.check_token(bad)
    path = tmp_path / "token"
    path.write_text(good + "\n")
    assert P.read_token_file(str(path)) == good
    with pytest.raises(ValueError, match="metrics_token_file"):
        P.read_token_file(str(tmp_path / "missing"))
    path.write_text("\n")
    with pytest.raises(ValueError, match="token"):
        P.read_token_file(str(path))


# ---- the server ----------------------------------------------------------------------------------------------------
TOKEN = "t0ken-for-the-metrics-test"


@contextlib.contextmanager
def serving(render=lambda: P.render(sample_families()), host="127.0.0.1", **kw):
    server = P.MetricsServer((host, 0), render, **kw).start()
    try:
        yield server
    finally:
        server.close()


def get(server, path="/metrics", token=None, method="GET"):
    return P.scrape(server.address, path, token, method)


def test_scrape_and_other_paths():
    with serving() as server:
        status, headers, body = get(server)
        assert status == 200 and headers["Content-Type"] == P.CONTENT_TYPE
        assert int(headers["Content-Length"]) == len(body.encode())
        assert P.parse(body)["wislice_test_up"].samples == {(): 1}
        assert get(server, "/metrics?name[]=x")[0] == 200  # Prometheus may add query parameters
        for path in ("/", "/metrics/", "/metricsx", "/../metrics", "/index.html"):
            assert get(server, path)[0] == 404, path
        for method in ("POST", "PUT", "DELETE", "HEAD"):
            status, headers, _ = get(server, method=method)
            assert (status, headers.get("Allow")) == (405, "GET"), method
    with pytest.raises(urllib.error.URLError):
        get(server)  # closed: nothing listens


def test_bearer_token():
    with serving(token=TOKEN) as server:
        for token in (None, "", "wrong-token-of-some-length", TOKEN + "x", TOKEN[:-1]):
            status, headers, body = get(server, token=token)
            assert status == 401 and headers["WWW-Authenticate"].startswith("Bearer"), token
            assert body == ""
        assert get(server, "/elsewhere")[0] == 401  # refused before its path is looked at
        assert get(server, method="POST")[0] == 401
        assert get(server, token=TOKEN)[0] == 200
        assert get(server, "/elsewhere", token=TOKEN)[0] == 404
    with pytest.raises(ValueError, match="token"):
        P.MetricsServer(("127.0.0.1", 0), lambda: "", token="short")


def raw_request(server, data: bytes) -> bytes:
    with socket.create_connection(server.address, timeout=5) as s:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := s.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def test_oversized_requests_are_refused():
    with serving(token=TOKEN) as server:
        big = b"GET /metrics HTTP/1.1\r\nX-Filler: " + b"a" * P.MAX_REQUEST_BYTES + b"\r\n\r\n"
        assert raw_request(server, big).startswith(b"HTTP/1.0 431")
        many = b"GET /metrics HTTP/1.1\r\n" + b"X: y\r\n" * 2000 + b"\r\n"
        assert raw_request(server, many).startswith(b"HTTP/1.0 431")
        line = b"GET /" + b"m" * P.MAX_REQUEST_BYTES + b" HTTP/1.1\r\n\r\n"
        assert raw_request(server, line).startswith(b"HTTP/1.0 414")
        assert get(server, token=TOKEN)[0] == 200  # and it still serves


def test_a_failing_render_is_a_500_and_the_server_goes_on():
    calls = []

    def render():
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError("boom")
        return P.render(sample_families())

    with serving(render) as server:
        assert get(server)[0] == 500
        assert get(server)[0] == 200


def test_connections_are_bounded():
    with serving(max_connections=1, timeout_s=1.0) as server:
        idle = socket.create_connection(server.address, timeout=5)  # holds the only slot until its timeout
        try:
            time.sleep(0.2)
            with pytest.raises((urllib.error.URLError, ConnectionError)):
                get(server)
        finally:
            idle.close()
        deadline = time.monotonic() + 5
        while True:
            try:
                assert get(server)[0] == 200
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, "the slot was never given back"
                time.sleep(0.1)


def test_ipv6_loopback():
    if not socket.has_ipv6:
        pytest.skip("no IPv6")
    try:
        server = P.MetricsServer(("::1", 0), lambda: "")
    except OSError:
        pytest.skip("no IPv6 loopback here")
    server.start()
    try:
        status, _, body = get(server)
        assert (status, body) == (200, "")
    finally:
        server.close()
