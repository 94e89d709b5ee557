"""Database engine and sessions (SQLAlchemy 2 + psycopg 3), and ``alembic upgrade head``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

from alembic.config import Config
from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session, sessionmaker

from fotopronta.settings import get_settings

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"


def get_engine(url: str | None = None) -> Engine:
    """Return the pooled engine for ``url`` (default: settings' database URL), created once per URL.

    The URL is resolved before the cache is consulted, so ``get_engine()``, ``get_engine(None)`` and
    ``get_engine(<the settings URL>)`` are one engine with one pool (they used to be two, each with
    its own pool, and event listeners on one missed the other's statements).

    Recovery after a database outage needs nothing else: ``pool_pre_ping`` tests each pooled
    connection when it is checked out and replaces the dead ones, and a new connection attempt gives
    up after ``connect_timeout`` (5 s) instead of hanging, so requests during the outage fail fast
    (the API answers 503, ``api.errors.database_unavailable_handler``).
    """
    return _engine_for(url or get_settings().sqlalchemy_url)


@lru_cache
def _engine_for(url: str) -> Engine:
    """The engine of :func:`get_engine`, one per resolved ``url``."""
    return create_engine(url, pool_pre_ping=True, pool_size=10, connect_args={"connect_timeout": 5})


def session_factory(url: str | None = None) -> sessionmaker[Session]:
    """A ``sessionmaker`` bound to :func:`get_engine` (``expire_on_commit=False``)."""
    return sessionmaker(get_engine(url), expire_on_commit=False)


@contextmanager
def session_scope(url: str | None = None) -> Iterator[Session]:
    """A transaction: commits on success, rolls back on error, always closes."""
    session = session_factory(url)()
    try:
        yield session
        session.commit()
    except BaseException:
        session.rollback()
        raise
    finally:
        session.close()


def alembic_config(url: str | None = None) -> Config:
    """An Alembic ``Config`` pointing at ``fotopronta/migrations`` and the given database URL."""
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
    cfg.set_main_option("sqlalchemy.url", (url or get_settings().sqlalchemy_url).replace("%", "%%"))
    return cfg


def migrate(url: str | None = None) -> None:
    """Apply every Alembic migration (``alembic upgrade head``)."""
    from alembic import command

    command.upgrade(alembic_config(url), "head")
