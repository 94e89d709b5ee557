"""``Idempotency-Key`` of the public API, as Stripe does it, stored in PostgreSQL
(``api_idempotency_keys``, one row per account and key, kept ``settings.idempotency_ttl_s``, 24 h).

- The first request with a key claims it (:func:`claim`): the row holds the request's fingerprint and a
  lock (``locked_until``) while it runs, then its answer (:func:`store_answer`).
- A retry with the same fingerprint gets that answer again (:class:`Replay`, answered with
  ``Idempotent-Replayed: true``): no second job, no second charge.
- The same key with another fingerprint: 422 ``idempotency_key_reused``.
- A retry while the first is still in flight: 409 ``idempotency_key_in_use``. A request that died
  without an answer (a crashed process) frees its key when the lock lapses
  (``settings.idempotency_lock_s``); the retry that takes it over re-runs, and the job ids derived from
  the claim (:meth:`Claim.job_id`) make that re-run find the jobs the first one committed instead of
  creating others.
- An answer that must not be kept (a 5xx, a 429) unlocks the key (:func:`release`), so a retry runs
  again under the same claim.
"""

from __future__ import annotations

import hashlib
import json
import random
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.dialects.postgresql import insert

from api.errors import ApiError
from fotopronta.db import session_factory
from fotopronta.models import IdempotencyRecord
from fotopronta.settings import get_settings

MAX_KEY_LENGTH = 255
JOB_ID_NAMESPACE = uuid.UUID("7c5b1f0e-4b0e-4a53-9a8e-2f6f1c0f4d21")
"""UUIDv5 namespace of the job ids derived from an idempotency claim."""
CLEANUP_PROBABILITY = 0.02
"""Share of claims that also delete every expired row."""
REPLAYED_HEADER = "Idempotent-Replayed"


@dataclass(frozen=True)
class Claim:
    """This request holds the key: ``record_id`` names the claim (a key claimed again after its 24 h
    is a new claim)."""

    user_id: uuid.UUID
    key: str
    record_id: int

    def job_id(self, index: int = 0) -> uuid.UUID:
        """The id of the ``index``-th job this request creates: the same for every retry of the claim,
        so its workflow id (``photo-job-{id}``) is derived from the idempotency key too."""
        return uuid.uuid5(JOB_ID_NAMESPACE, f"{self.user_id}:{self.record_id}:{self.key}:{index}")


@dataclass(frozen=True)
class Replay:
    """The first answer of a key, to send again."""

    status: int
    headers: dict[str, str]
    body: bytes


def fingerprint(method: str, path: str, params: Any) -> str:
    """SHA-256 (hex) of the request: method, path and its parameters as canonical JSON (file contents
    enter as their own SHA-256, so a multipart body with another boundary is the same request)."""
    canonical = json.dumps([method.upper(), path, params], sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()


def check_key(key: str) -> str:
    """The key as given, if usable.

    Raises:
        ApiError: 400 ``invalid_idempotency_key`` when empty, longer than 255 characters or not
            printable ASCII.
    """
    if not key or len(key) > MAX_KEY_LENGTH or not all(32 <= ord(c) < 127 for c in key):
        raise ApiError(
            400,
            f"Idempotency-Key non valida: da 1 a {MAX_KEY_LENGTH} caratteri ASCII stampabili.",
            "invalid_idempotency_key",
        )
    return key


def claim(user_id: uuid.UUID, key: str, print_: str) -> Claim | Replay:
    """Claim ``key`` of ``user_id`` for a request with fingerprint ``print_``, or get its stored answer
    (blocking: threadpool; its own transaction).

    Raises:
        ApiError: 422 ``idempotency_key_reused`` (another request used the key); 409
            ``idempotency_key_in_use`` (the first request is still running).
    """
    settings = get_settings()
    now = datetime.now(UTC)
    lock = now + timedelta(seconds=settings.idempotency_lock_s)
    expires = now + timedelta(seconds=settings.idempotency_ttl_s)
    with session_factory()() as session, session.begin():
        if random.random() < CLEANUP_PROBABILITY:  # noqa: S311 - housekeeping, not security
            session.execute(delete(IdempotencyRecord).where(IdempotencyRecord.expires_at < now))
        session.execute(
            delete(IdempotencyRecord).where(
                IdempotencyRecord.user_id == user_id,
                IdempotencyRecord.key == key,
                IdempotencyRecord.expires_at < now,
            )
        )
        inserted = session.execute(
            insert(IdempotencyRecord)
            .values(user_id=user_id, key=key, fingerprint=print_, locked_until=lock, expires_at=expires)
            .on_conflict_do_nothing(index_elements=["user_id", "key"])
            .returning(IdempotencyRecord.id)
        ).scalar_one_or_none()
        if inserted is not None:
            return Claim(user_id=user_id, key=key, record_id=inserted)
        record = session.execute(
            select(IdempotencyRecord)
            .where(IdempotencyRecord.user_id == user_id, IdempotencyRecord.key == key)
            .with_for_update()
        ).scalar_one()
        if record.fingerprint != print_:
            raise ApiError(
                422,
                "Questa Idempotency-Key è già stata usata per una richiesta diversa: usa una chiave nuova "
                "per ogni nuova richiesta.",
                "idempotency_key_reused",
                "Idempotency-Key riutilizzata",
            )
        if record.response_status is not None:
            return Replay(
                status=record.response_status,
                headers=dict(record.response_headers or {}),
                body=bytes(record.response_body or b""),
            )
        if record.locked_until is not None and record.locked_until > now:
            raise ApiError(
                409,
                "Una richiesta con questa Idempotency-Key è ancora in corso: riprova tra qualche secondo.",
                "idempotency_key_in_use",
                "Richiesta in corso",
            )
        record.locked_until = lock  # the first request died without an answer: this one takes over
        return Claim(user_id=user_id, key=key, record_id=record.id)


def store_answer(claim_: Claim, status: int, headers: dict[str, str], body: bytes) -> None:
    """Keep the answer of a claimed request for its retries and unlock the key (blocking)."""
    with session_factory()() as session, session.begin():
        record = session.get(IdempotencyRecord, claim_.record_id)
        if record is None:
            return
        record.response_status = status
        record.response_headers = headers
        record.response_body = body
        record.locked_until = None


def release(claim_: Claim) -> None:
    """Unlock a claim whose answer is not kept (a 5xx, a 429) without forgetting it: a retry takes it
    over and runs again under the same claim, so it derives the same job ids and finds whatever the
    first attempt committed (blocking)."""
    with session_factory()() as session, session.begin():
        record = session.get(IdempotencyRecord, claim_.record_id)
        if record is not None and record.response_status is None:
            record.locked_until = None


def keepable(status: int) -> bool:
    """Whether an answer is kept for retries: everything the endpoint decided (2xx, 4xx) but a 429 and
    the 409 of a concurrent request; a 5xx is released so that a retry can succeed."""
    return status < 500 and status not in (429,)
