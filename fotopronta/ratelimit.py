"""Moving-window rate limits stored in PostgreSQL.

The ``limits`` library parses the limit strings (``"10/15 minutes"``) but has no PostgreSQL storage,
and the stack runs no Redis or Memcached; so the counting is this small module over the table
``rate_limit_hits`` (migration 0005): one row per counted event, ``key`` (e.g. ``login:ip:203.0.113.7``)
and ``hit_at``. A limit of N per W seconds allows a new event while fewer than N rows of the key are
younger than W seconds (an exact moving window, no burst at window edges). Every API replica shares
the table and the counts survive restarts.

Writes run in their own short transaction (``engine.begin()``), so a request that fails afterwards
still counts. :func:`hit` serialises callers of one key with ``pg_advisory_xact_lock``, so parallel
requests cannot overshoot. Rows are at most N per key per window (refused events are not stored) and
expired rows are deleted now and then.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from limits import parse
from sqlalchemy import text

from fotopronta.db import get_engine

CLEANUP_PROBABILITY = 0.02
"""Share of :func:`hit` calls that also delete every expired row of the table."""


@dataclass(frozen=True)
class Limit:
    """A parsed limit: at most ``amount`` events per ``window_s`` seconds."""

    amount: int
    window_s: int


def parse_limit(limit: str) -> Limit:
    """Parse ``"10/15 minutes"``, ``"5/hour"``, … (the ``limits`` library's syntax)."""
    item = parse(limit)
    return Limit(amount=item.amount, window_s=item.get_expiry())


def make_key(*parts: str) -> str:
    """The storage key of ``parts`` (``make_key("login", "ip", "1.2.3.4")`` → ``login:ip:1.2.3.4``)."""
    return ":".join(parts)


def used(limit: str, key: str) -> int:
    """How many events of ``key`` fall in ``limit``'s current window (counts nothing)."""
    parsed = parse_limit(limit)
    with get_engine().connect() as conn:
        count = conn.execute(
            text("SELECT count(*) FROM rate_limit_hits WHERE key = :key AND hit_at > :since"),
            {"key": key, "since": datetime.now(UTC) - timedelta(seconds=parsed.window_s)},
        ).scalar_one()
    return int(count)


def check(limit: str, key: str) -> bool:
    """Whether one more event for ``key`` is allowed under ``limit`` now (counts nothing)."""
    return used(limit, key) < parse_limit(limit).amount


def hit(limit: str, key: str) -> bool:
    """Count one event for ``key`` if ``limit`` allows it; return whether it was allowed.

    A refused event is not stored, so an attacker who keeps trying does not extend the wait beyond
    the window of the last allowed events.
    """
    parsed = parse_limit(limit)
    now = datetime.now(UTC)
    with get_engine().begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})
        used = conn.execute(
            text("SELECT count(*) FROM rate_limit_hits WHERE key = :key AND hit_at > :since"),
            {"key": key, "since": now - timedelta(seconds=parsed.window_s)},
        ).scalar_one()
        if int(used) >= parsed.amount:
            return False
        conn.execute(
            text("INSERT INTO rate_limit_hits (key, hit_at, expires_at) VALUES (:key, :now, :expires)"),
            {"key": key, "now": now, "expires": now + timedelta(seconds=parsed.window_s)},
        )
        if random.random() < CLEANUP_PROBABILITY:  # noqa: S311 - not a security decision
            conn.execute(text("DELETE FROM rate_limit_hits WHERE expires_at < :now"), {"now": now})
    return True


@dataclass(frozen=True)
class Window:
    """The state of a key's window after :func:`hit_window`: whether the event was ``allowed``, the
    ``limit`` (events per window), how many are ``remaining`` and ``reset_s``, the seconds until the
    oldest counted event leaves the window (one more event is allowed then; the ``RateLimit-Reset`` and
    ``Retry-After`` of draft-ietf-httpapi-ratelimit-headers)."""

    allowed: bool
    limit: int
    remaining: int
    reset_s: int


def hit_window(limit: str, key: str) -> Window:
    """:func:`hit`, answering the window's state too (one transaction, serialised per key)."""
    parsed = parse_limit(limit)
    now = datetime.now(UTC)
    since = now - timedelta(seconds=parsed.window_s)
    with get_engine().begin() as conn:
        conn.execute(text("SELECT pg_advisory_xact_lock(hashtext(:key))"), {"key": key})
        count, oldest = conn.execute(
            text("SELECT count(*), min(hit_at) FROM rate_limit_hits WHERE key = :key AND hit_at > :since"),
            {"key": key, "since": since},
        ).one()
        count = int(count)
        allowed = count < parsed.amount
        if allowed:
            conn.execute(
                text("INSERT INTO rate_limit_hits (key, hit_at, expires_at) VALUES (:key, :now, :expires)"),
                {"key": key, "now": now, "expires": now + timedelta(seconds=parsed.window_s)},
            )
            count += 1
            oldest = oldest or now
            if random.random() < CLEANUP_PROBABILITY:  # noqa: S311 - not a security decision
                conn.execute(text("DELETE FROM rate_limit_hits WHERE expires_at < :now"), {"now": now})
    reset = (oldest + timedelta(seconds=parsed.window_s) - now).total_seconds() if oldest else 0
    return Window(
        allowed=allowed,
        limit=parsed.amount,
        remaining=max(parsed.amount - count, 0),
        reset_s=max(int(reset + 0.999), 1 if not allowed else 0),
    )
