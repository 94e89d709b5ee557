"""``Idempotency-Key`` on the real stack, as Stripe does it: 20 clients send 25 photos each through
``POST /v1/jobs`` and re-send about 20 % of them with the same key, as if the answer were lost (some
while the first request is still in flight, some after it answered): exactly 500 jobs, each reserved
and charged once, every balance equal to its ledger; a retry gets the first answer again
(``Idempotent-Replayed: true``); the same key with another body is 422 ``idempotency_key_reused``."""

from __future__ import annotations

import asyncio
import base64
import uuid
from collections import Counter
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from sqlalchemy import func, select, update

from fotopronta import ledger
from fotopronta.db import session_factory
from fotopronta.models import CreditLedgerEntry, IdempotencyRecord, PhotoProcessingJob
from tests.stack.test_public_jobs import new_key
from tests.utils.factories import product_photo_bytes
from tests.utils.jobs import credits_and_ledger, ledger_kinds, wait_job_status

pytestmark = pytest.mark.stack

CLIENTS = 20
PHOTOS = 25


IN_FLIGHT: Counter[str] = Counter()
"""409 answers seen: re-sends that arrived while the first request with their key was in flight."""


async def _post_until_answered(
    api: httpx.AsyncClient, key: dict[str, str], body: dict, idem: str
) -> httpx.Response:
    """POST, and on 409 (the first request with this key still in flight) try again shortly, as a
    client following the docs does."""
    for _ in range(200):
        resp = await api.post("/v1/jobs", headers={**key, "Idempotency-Key": idem}, json=body)
        if resp.status_code != 409:
            return resp
        assert resp.json()["code"] == "idempotency_key_in_use", resp.text
        IN_FLIGHT["409"] += 1
        await asyncio.sleep(0.05)
    raise AssertionError(f"{idem} still in flight")


async def _client(api: httpx.AsyncClient, n: int) -> tuple[uuid.UUID, list[str], Counter[str]]:
    _, key, user_id = await new_key(api)
    with session_factory().begin() as session:
        ledger.grant(
            session, user_id=user_id, amount=20, idempotency_key=f"test-idem:{user_id}", expires_at=None
        )
    ids: list[str] = []
    seen: Counter[str] = Counter()
    for i in range(PHOTOS):
        body = {
            "image_file_b64": base64.b64encode(product_photo_bytes((48 + n, 36 + i))).decode(),
            "external_id": f"{n}-{i}",
        }
        idem = f"client-{n}-photo-{i}-{uuid.uuid4()}"
        if i % 5 == 0 and i % 10 == 0:  # re-sent while the first is in flight
            answers = await asyncio.gather(
                _post_until_answered(api, key, body, idem), _post_until_answered(api, key, body, idem)
            )
        elif i % 5 == 0:  # re-sent after the answer was "lost"
            answers = [await _post_until_answered(api, key, body, idem) for _ in range(2)]
        else:
            answers = [await _post_until_answered(api, key, body, idem)]
        for resp in answers:
            assert resp.status_code == 202, resp.text
            seen["replayed" if resp.headers.get("Idempotent-Replayed") == "true" else "first"] += 1
        assert len({r.json()["id"] for r in answers}) == 1  # every answer names the same job
        assert len({r.content for r in answers}) == 1  # a replay is the first answer, byte for byte
        ids.append(answers[0].json()["id"])
    return user_id, ids, seen


async def test_500_jobs_with_retries_make_500_jobs_charged_once(api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    results = await asyncio.gather(*(_client(api, n) for n in range(CLIENTS)))
    all_ids = [job_id for _, ids, _ in results for job_id in ids]
    assert len(all_ids) == len(set(all_ids)) == CLIENTS * PHOTOS
    totals = sum((seen for _, _, seen in results), Counter())
    assert totals["first"] == CLIENTS * PHOTOS and totals["replayed"] == CLIENTS * 5
    assert IN_FLIGHT["409"] > 0  # some re-sends did arrive while the first request was in flight
    user_ids = [user_id for user_id, _, _ in results]
    with sessions() as session:
        jobs = session.execute(
            select(func.count())
            .select_from(PhotoProcessingJob)
            .where(PhotoProcessingJob.user_id.in_(user_ids))
        ).scalar_one()
        assert jobs == CLIENTS * PHOTOS

    # every job runs to its end; then each was reserved and charged exactly once
    deadline = asyncio.get_running_loop().time() + 600
    while True:
        with sessions() as session:
            open_jobs = session.execute(
                select(func.count()).where(
                    PhotoProcessingJob.user_id.in_(user_ids), PhotoProcessingJob.status != "completed"
                )
            ).scalar_one()
        if open_jobs == 0:
            break
        assert asyncio.get_running_loop().time() < deadline, f"{open_jobs} jobs not completed"
        await asyncio.sleep(1)
    with sessions() as session:
        rows = session.execute(
            select(
                CreditLedgerEntry.job_id,
                CreditLedgerEntry.kind,
                func.count(),
                func.sum(CreditLedgerEntry.amount),
            )
            .where(CreditLedgerEntry.user_id.in_(user_ids), CreditLedgerEntry.job_id.is_not(None))
            .group_by(CreditLedgerEntry.job_id, CreditLedgerEntry.kind)
        ).all()
    per_job: dict[uuid.UUID, dict[str, tuple[int, int]]] = {}
    for job_id, kind, count, amount in rows:
        per_job.setdefault(job_id, {})[kind] = (int(count), int(amount))
    assert {str(j) for j in per_job} == set(all_ids)
    assert all(kinds == {"reserve": (1, -1), "charge": (1, 0)} for kinds in per_job.values())
    for user_id in user_ids:
        assert credits_and_ledger(sessions, user_id) == (10, 10)  # 15 + 20 - 25


async def test_the_same_key_with_another_body_is_refused(api: httpx.AsyncClient) -> None:
    _, key, user_id = await new_key(api)
    first = {"image_file_b64": base64.b64encode(product_photo_bytes((64, 48))).decode()}
    headers = {**key, "Idempotency-Key": "ordine-42"}
    resp = await api.post("/v1/jobs", headers=headers, json=first)
    assert resp.status_code == 202 and "Idempotent-Replayed" not in resp.headers
    other = {**first, "external_id": "diverso"}
    resp = await api.post("/v1/jobs", headers=headers, json=other)
    assert resp.status_code == 422, resp.text
    assert resp.json()["code"] == "idempotency_key_reused"
    assert resp.headers["content-type"] == "application/problem+json"
    # a refused request's answer is kept too: the same bad body gets the same problem, and no job
    bad = {"image_file_b64": base64.b64encode(b"testo").decode()}
    bad_headers = {**key, "Idempotency-Key": "ordine-43"}
    answers = [await api.post("/v1/jobs", headers=bad_headers, json=bad) for _ in range(2)]
    assert [r.status_code for r in answers] == [400, 400]
    assert answers[1].headers["Idempotent-Replayed"] == "true" and answers[0].content == answers[1].content
    # a multipart retry with another boundary is the same request
    photo = product_photo_bytes((64, 48))
    answers = [
        await api.post(
            "/v1/jobs",
            headers={**key, "Idempotency-Key": "ordine-44"},
            files={"image_file": ("a.jpg", photo, "image/jpeg")},
        )
        for _ in range(2)
    ]
    assert [r.status_code for r in answers] == [202, 202]
    assert answers[0].json()["id"] == answers[1].json()["id"]
    with session_factory()() as session:
        n = session.execute(
            select(func.count()).select_from(PhotoProcessingJob).where(PhotoProcessingJob.user_id == user_id)
        ).scalar_one()
    assert n == 2
    resp = await api.post("/v1/jobs", headers={**key, "Idempotency-Key": "x" * 256}, json=first)
    assert resp.status_code in (400, 422) and resp.json()["code"] in (
        "invalid_idempotency_key",
        "validation_error",
    )


async def test_a_retry_after_a_crash_finds_the_first_job(api: httpx.AsyncClient) -> None:
    """The first request committed its job and died before storing its answer (its lock lapsed): the
    retry takes the key over, derives the same job id and answers that job; no second job, one charge.
    A key past its 24 hours is a new key."""
    sessions = session_factory()
    _, key, user_id = await new_key(api)
    body = {"image_file_b64": base64.b64encode(product_photo_bytes((64, 48))).decode()}
    headers = {**key, "Idempotency-Key": "crash-1"}
    first = await api.post("/v1/jobs", headers=headers, json=body)
    assert first.status_code == 202, first.text
    with sessions.begin() as session:  # as if the process had died right after the job's commit
        session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.user_id == user_id, IdempotencyRecord.key == "crash-1")
            .values(
                response_status=None,
                response_body=None,
                locked_until=datetime.now(UTC) - timedelta(seconds=1),
            )
        )
    retry = await api.post("/v1/jobs", headers=headers, json=body)
    assert retry.status_code == 202, retry.text
    assert retry.json()["id"] == first.json()["id"] and "Idempotent-Replayed" not in retry.headers
    replay = await api.post("/v1/jobs", headers=headers, json=body)
    assert replay.headers["Idempotent-Replayed"] == "true" and replay.json()["id"] == first.json()["id"]
    await wait_job_status(sessions, first.json()["id"], {"completed"})
    assert ledger_kinds(sessions, first.json()["id"]) == ["reserve", "charge"]

    with sessions.begin() as session:  # 24 hours later
        session.execute(
            update(IdempotencyRecord)
            .where(IdempotencyRecord.user_id == user_id, IdempotencyRecord.key == "crash-1")
            .values(expires_at=datetime.now(UTC) - timedelta(seconds=1))
        )
    later = await api.post("/v1/jobs", headers=headers, json={**body, "external_id": "nuovo"})
    assert later.status_code == 202, later.text
    assert later.json()["id"] != first.json()["id"]
    with sessions() as session:
        n = session.execute(
            select(func.count()).select_from(PhotoProcessingJob).where(PhotoProcessingJob.user_id == user_id)
        ).scalar_one()
    assert n == 2
