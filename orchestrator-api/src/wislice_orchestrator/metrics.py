"""Prometheus metrics on a private registry, served as text format 0.0.4 at GET /metrics (operator token, unless
METRICS_PUBLIC): slices by status, operations and their latency, HTTP latency, and from the telemetry collector's
last poll the slices' rates, guarantees, caps and clients, the clients' and vNF ports' rates, the radios'
capacity and the collector's failed controller calls."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_PLAIN_0_0_4, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric

from . import auth

DIRECTIONS = ("down", "up")


class TelemetryExporter:
    """prometheus_client collector over a TelemetryCollector's last poll (nothing when it never polled)."""

    def __init__(self, collector: Any) -> None:
        self.collector = collector

    def collect(self) -> Iterator[Metric]:
        latest = self.collector.snapshot()
        slice_labels = ["slice_id", "tenant_id", "direction"]
        rate = GaugeMetricFamily("wislice_slice_rate_bps", "Slice rate over its vAPs (down = towards the stations)",
                                 labels=slice_labels)
        guaranteed = GaugeMetricFamily("wislice_slice_guaranteed_kbps", "Slice guaranteed rate", labels=slice_labels)
        cap = GaugeMetricFamily("wislice_slice_cap_kbps", "Slice rate cap (0 = uncapped)", labels=slice_labels)
        clients = GaugeMetricFamily("wislice_slice_clients", "Stations associated to the slice's vAPs",
                                    labels=["slice_id", "tenant_id"])
        for slice_id, s in sorted(latest.slices.items()):
            ids = [str(slice_id), str(s["tenant_id"])]
            for k, way in enumerate(DIRECTIONS):
                value = s[f"{way}_bps"]
                if value is not None:
                    rate.add_metric([*ids, way], value)
                guaranteed.add_metric([*ids, way], s["guaranteed"][k])
                cap.add_metric([*ids, way], s["cap"][k])
            if s["clients"] is not None:
                clients.add_metric(ids, s["clients"])
        client_rate = GaugeMetricFamily("wislice_client_rate_bps", "Client rate from its byte counters",
                                        labels=["slice_id", "mac", "direction"])
        for (slice_id, mac), values in sorted(latest.clients.items()):
            for way, value in zip(DIRECTIONS, values, strict=True):
                if value is not None:
                    client_rate.add_metric([str(slice_id), mac, way], value)
        ports = GaugeMetricFamily("wislice_vnf_port_rate_bps", "vNF port rate from its byte counters",
                                  labels=["slice_id", "vnf_id", "port", "direction"])
        for (slice_id, vnf_id, port), values in sorted(latest.vnf_ports.items()):
            for way, value in zip(("rx", "tx"), values, strict=True):
                if value is not None:
                    ports.add_metric([str(slice_id), str(vnf_id), port, way], value)
        radios = GaugeMetricFamily("wislice_radio_capacity_kbps", "Radio capacity as its agent reports it",
                                   labels=["agent_id", "radio"])
        for (agent_id, radio), value in sorted(latest.radios.items()):
            radios.add_metric([agent_id, radio], value)
        latency = GaugeMetricFamily("wislice_slice_latency_us", "Probe round trip of a latency slice's vAP over "
                                    "its AP's latest samples", labels=["slice_id", "tenant_id", "vap_id", "quantile"])
        budget = GaugeMetricFamily("wislice_slice_latency_budget_us", "Latency budget of a probed slice",
                                   labels=["slice_id", "tenant_id"])
        for slice_id, measured in sorted(latest.latency.items()):
            ids = [str(slice_id), str(latest.slices[slice_id]["tenant_id"])]
            budget.add_metric(ids, measured["budget_us"])
            for v in (v for v in measured["vaps"] if v["samples"]):
                latency.add_metric([*ids, v["vap_id"], "0.5"], v["p50_us"])
                latency.add_metric([*ids, v["vap_id"], "0.99"], v["p99_us"])
        errors = CounterMetricFamily("wislice_telemetry_poll_errors", "Failed controller calls of the telemetry "
                                     "collector (and failed polls)", value=self.collector.errors)
        yield from (rate, guaranteed, cap, clients, client_rate, ports, radios, latency, budget, errors)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.operations = Counter("wislice_operations_total", "Finished operations (sagas)", ["kind", "status"],
                                  registry=self.registry)
        self.operation_seconds = Histogram("wislice_operation_seconds", "Operation run time", ["kind"],
                                           buckets=(0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60),
                                           registry=self.registry)
        self.http_seconds = Histogram("wislice_http_request_seconds", "REST request latency",
                                      ["method", "endpoint", "status"], registry=self.registry)

    def observe_operation(self, kind: str, status: str, seconds: float) -> None:
        self.operations.labels(kind, status).inc()
        self.operation_seconds.labels(kind).observe(seconds)

    def add_slice_gauge(self, count_by_status: Callable[[], dict[str, int]]) -> None:
        class SliceCollector:
            def collect(self):  # noqa: ANN202 - prometheus collector protocol
                family = GaugeMetricFamily("wislice_slices", "Slices by status", labels=["status"])
                for status, count in sorted(count_by_status().items()):
                    family.add_metric([status], count)
                yield family

        self.registry.register(SliceCollector())

    def add_telemetry(self, collector: Any) -> None:
        self.registry.register(TelemetryExporter(collector))

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def init_app(self, app: Flask) -> None:
        @app.before_request
        def _start_timer() -> None:
            g.request_started = time.monotonic()

        @app.after_request
        def _record(response: Response) -> Response:
            started = g.get("request_started")
            if started is not None:
                endpoint = request.url_rule.rule if request.url_rule else "unmatched"
                self.http_seconds.labels(request.method, endpoint, str(response.status_code)).observe(
                    time.monotonic() - started)
            return response

        @app.get("/metrics")
        def metrics() -> Response:
            if not app.config.get("METRICS_PUBLIC"):
                auth.require_operator()
            return Response(self.render(), content_type=CONTENT_TYPE_PLAIN_0_0_4)
