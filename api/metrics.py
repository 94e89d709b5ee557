"""Prometheus metrics of the API: ``GET /metrics`` (text exposition format, prometheus-client).

``fotopronta_http_requests_total{method,route,status}`` and
``fotopronta_http_request_duration_seconds{method,route}`` (time to the response headers; ``route`` is
the path template, e.g. ``/api/photos/{photo_id}``, so ids never become labels). In development
``/metrics`` on the API's port answers clients on loopback or private networks (anything else gets
404); outside development the API's port has no ``/metrics`` at all and the metrics are served only on
the internal port ``FOTOPRONTA_API_METRICS_BIND`` (:func:`api.server.start_metrics_server`), which
Prometheus scrapes inside the compose network. With several uvicorn worker processes set ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's
multiprocess mode) so every process is counted.
"""

from __future__ import annotations

import ipaddress
import os
import time
from typing import Any

from fastapi import Request
from fastapi.responses import Response
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Histogram,
    generate_latest,
    multiprocess,
)
from starlette.types import ASGIApp, Message, Receive, Scope, Send

REQUESTS = Counter(
    "fotopronta_http_requests_total", "HTTP requests answered by the API", ["method", "route", "status"]
)
LATENCY = Histogram(
    "fotopronta_http_request_duration_seconds",
    "Time from request to response headers",
    ["method", "route"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30),
)


class MetricsMiddleware:
    """Pure ASGI middleware (streams such as ``/api/events`` pass through untouched) counting every
    HTTP request by method, route template and status."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Time the request until its response starts; label it with the matched route."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        began = time.perf_counter()
        status = {"code": 500}

        async def send_wrapper(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
                _observe(scope, status["code"], time.perf_counter() - began)
                status["done"] = 1
            await send(message)

        try:
            await self.app(scope, receive, send_wrapper)
        finally:
            if "done" not in status:
                _observe(scope, status["code"], time.perf_counter() - began)


def _route(scope: Scope) -> str:
    route: Any = scope.get("route")
    path = getattr(route, "path", None)
    return str(path) if path else "unmatched"


def _observe(scope: Scope, status: int, seconds: float) -> None:
    method, route = scope.get("method", "GET"), _route(scope)
    REQUESTS.labels(method, route, str(status)).inc()
    LATENCY.labels(method, route).observe(seconds)


def _private_client(request: Request) -> bool:
    host = request.client.host if request.client else ""
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return host in ("testclient", "testserver", "localhost")
    return address.is_loopback or address.is_private


def metrics(request: Request) -> Response:
    """The API's metrics for Prometheus (404 outside loopback/private networks)."""
    if not _private_client(request):
        return Response(
            '{"detail":"Risorsa non trovata.","code":"not_found"}', 404, media_type="application/json"
        )
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
