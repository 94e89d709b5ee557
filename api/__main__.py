"""``python -m api``: serve the API with uvicorn on the configured host and port.

uvicorn's own ``X-Forwarded-For`` handling is off (by default it believes the header from 127.0.0.1,
which lets anyone on the host rotate their IP): the API reads the header itself, only from
``FOTOPRONTA_TRUSTED_PROXIES`` (``api.deps.client_ip``).

Worker processes: ``FOTOPRONTA_API_WORKERS``, by default one per CPU (:func:`worker_count`). With more
than one, ``/metrics`` needs prometheus-client's multiprocess mode: ``PROMETHEUS_MULTIPROC_DIR`` is set
here (``<data_dir>/prometheus``, emptied at start) unless the environment sets it. Each process has
its own ``LISTEN`` connection for ``/api/events`` (``api.events_bus``): PostgreSQL delivers every
``NOTIFY`` to all of them, so a stream sees every change whichever process serves it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import uvicorn

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


if __name__ == "__main__":
    settings = get_settings()
    configure_logging(settings.log_format)
    workers = worker_count(settings)
    prepare_multiprocess_metrics(settings, workers)
    uvicorn.run(
        "api.main:app",
        host=settings.api_host,
        port=settings.api_port,
        workers=workers,
        log_level="info",
        log_config=None,
        proxy_headers=False,
    )
