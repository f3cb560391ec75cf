"""Prometheus metrics on a private registry: slices by status, operations, their latency, HTTP latency."""

from __future__ import annotations

import time
from collections.abc import Callable

from flask import Flask, Response, g, request
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily


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
            return Response(generate_latest(self.registry), mimetype=CONTENT_TYPE_LATEST)
