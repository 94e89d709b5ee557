"""The API server behind ``python -m api``: uvicorn on the configured host and port, one or more workers.

uvicorn's own ``X-Forwarded-For`` handling is off (by default it believes the header from 127.0.0.1,
which lets anyone on the host rotate their IP): the API reads the header itself, only from
``FOTOPRONTA_TRUSTED_PROXIES`` (``api.deps.client_ip``). Slow and oversized requests are bounded per
connection by :mod:`api.http_guard` (:func:`server_config`).

Worker processes: ``FOTOPRONTA_API_WORKERS``, by default one per CPU (:func:`worker_count`). Each
worker listens on its own ``SO_REUSEPORT`` socket (:func:`listen_socket`), so the kernel spreads new
connections evenly over the workers. With uvicorn's ``--workers`` they share one socket, and an asyncio
worker accepts a whole burst of connections at once: measured with 16 keep-alive readers
(``bench/system/load.py``), one worker served all of them (one core busy, the other idle). The supervisor
(:func:`supervise`) restarts a worker that dies and stops them all on SIGINT/SIGTERM. With more
than one, the metrics need prometheus-client's multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR`` is set
here (``<data_dir>/prometheus``, emptied at start) unless the environment sets it. Each process has
its own ``LISTEN`` connection for ``/api/events`` (``api.events_bus``): PostgreSQL delivers every
``NOTIFY`` to all of them, so a stream sees every change whichever process serves it.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import signal
import socket
import tempfile
import time
from pathlib import Path
from types import FrameType
from typing import Any

import uvicorn
from prometheus_client import REGISTRY, CollectorRegistry, multiprocess, start_http_server

from api.http_guard import GuardedHttpToolsProtocol
from fotopronta.logs import configure_logging
from fotopronta.settings import Settings, get_settings


def worker_count(settings: Settings) -> int:
    """``settings.api_workers`` if set, else ``os.cpu_count()`` (at least 1)."""
    if settings.api_workers is not None:
        return max(1, settings.api_workers)
    return max(1, os.cpu_count() or 1)


def prepare_multiprocess_metrics(settings: Settings, workers: int) -> None:
    """With several workers, point prometheus-client at a fresh shared directory (before any worker
    imports it), so ``/metrics`` adds up every process."""
    if workers < 2 or os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        return
    directory = settings.data_dir / "prometheus"
    try:
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True, exist_ok=True)
    except OSError:  # read-only data directory (a container): a private temporary one
        directory = Path(tempfile.mkdtemp(prefix="fotopronta-prometheus-"))
    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(directory)


def start_metrics_server(bind: str) -> int:
    """Serve the API's Prometheus metrics at ``http://{bind}/metrics`` (``host:port``, e.g.
    ``0.0.0.0:9465``) from a daemon thread of this process: every worker's counters in multiprocess
    mode (``PROMETHEUS_MULTIPROC_DIR``), else this process's. This is the only place production serves
    them (the public port's ``/metrics`` exists in development only). Returns the port.

    Raises:
        ValueError: ``bind`` has no numeric port.
        OSError: the port is taken.
    """
    host, _, port = bind.rpartition(":")
    registry = REGISTRY
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    start_http_server(int(port), addr=host.strip("[]") or "0.0.0.0", registry=registry)  # noqa: S104
    return int(port)


def listen_socket(host: str, port: int, *, backlog: int = 2048) -> socket.socket:
    """A listening TCP socket on ``host:port`` with ``SO_REUSEADDR`` and ``SO_REUSEPORT``: every worker
    binds its own, and Linux hashes each new connection to one of them (``socket(7)``).

    Raises:
        OSError: the port is taken by a socket without ``SO_REUSEPORT``, or the address is invalid.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind((host, port))
    sock.listen(backlog)
    sock.set_inheritable(True)
    return sock


def server_config(app: Any = "api.main:app", **overrides: Any) -> uvicorn.Config:
    """The uvicorn configuration every API process runs with (``overrides`` are passed on, e.g.
    ``host``, ``port``, ``lifespan``):

    - ``http``: :class:`api.http_guard.GuardedHttpToolsProtocol`, uvicorn's httptools protocol with
      bounds on the request head (size, header count, time) and on the body's arrival rate;
    - ``timeout_keep_alive``: ``settings.http_keep_alive_s`` between requests;
    - ``proxy_headers=False`` (the API reads ``X-Forwarded-For`` itself, see the module docstring).
    """
    settings = get_settings()
    options: dict[str, Any] = {
        "http": GuardedHttpToolsProtocol,
        "timeout_keep_alive": settings.http_keep_alive_s,
        "log_level": "info",
        "log_config": None,
        "proxy_headers": False,
        "timeout_graceful_shutdown": 10,
        **overrides,
    }
    return uvicorn.Config(app, **options)


def serve_worker(host: str, port: int) -> None:
    """One API worker process: its own socket (:func:`listen_socket`), one uvicorn server on it."""
    settings = get_settings()
    configure_logging(settings.log_format)
    sock = listen_socket(host, port)
    uvicorn.Server(server_config()).run(sockets=[sock])


RESTART_BACKOFF_S = 1.0
"""Seconds between restarts of a worker that exited on its own (a crash loop does not spin)."""


def supervise(host: str, port: int, workers: int) -> int:
    """Run ``workers`` processes of :func:`serve_worker`; restart one that exits unexpectedly; on
    SIGINT/SIGTERM stop them all (SIGTERM, then SIGKILL after 15 s) and return 0."""
    ctx = multiprocessing.get_context("spawn")
    procs: list[multiprocessing.process.BaseProcess] = []
    stopping = False

    def start() -> multiprocessing.process.BaseProcess:
        proc = ctx.Process(target=serve_worker, args=(host, port), name="fotopronta-api-worker")
        proc.start()
        return proc

    def on_signal(_signum: int, _frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    procs = [start() for _ in range(workers)]
    while not stopping:
        time.sleep(0.5)
        for i, proc in enumerate(procs):
            if not proc.is_alive() and not stopping:
                time.sleep(RESTART_BACKOFF_S)
                procs[i] = start()
    for proc in procs:
        if proc.pid is not None and proc.is_alive():
            os.kill(proc.pid, signal.SIGTERM)
    deadline = time.monotonic() + 15
    for proc in procs:
        proc.join(max(0.0, deadline - time.monotonic()))
        if proc.is_alive():
            proc.kill()
    return 0


def main() -> None:
    """Serve the API until SIGINT/SIGTERM (``python -m api``)."""
    settings = get_settings()
    configure_logging(settings.log_format)
    workers = worker_count(settings)
    prepare_multiprocess_metrics(settings, workers)
    if settings.api_metrics_bind:
        start_metrics_server(settings.api_metrics_bind)
    if workers == 1:
        uvicorn.Server(server_config(host=settings.api_host, port=settings.api_port)).run()
    else:
        raise SystemExit(supervise(settings.api_host, settings.api_port, workers))
