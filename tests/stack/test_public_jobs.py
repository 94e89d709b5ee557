"""``/v1`` jobs on the real stack (PostgreSQL, Temporal, the retouch worker): a job started with an API
key runs the same ``PhotoJobWorkflow``, is charged through the same ledger and shows in the seller's
/photos and /orders; results in three formats; cursor pages and filters; the free rework; deletion;
batches; the account. Bad input is refused with the web upload's Italian messages as problem+json, and
nothing is stored or charged."""

from __future__ import annotations

import base64
import io
import uuid

import httpx
import pytest
from PIL import Image

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.models import Photo, PhotoProcessingJob
from tests.utils.factories import login, make_user, product_photo_bytes
from tests.utils.jobs import count_rows, credits_and_ledger, ledger_kinds, wait_job_status

pytestmark = pytest.mark.stack

PHOTO_64 = product_photo_bytes((64, 48))


async def new_key(api: httpx.AsyncClient, **body: object) -> tuple[dict[str, str], dict[str, str], uuid.UUID]:
    """A fresh seller: ``(web session headers, API key headers, user id)``."""
    email, password = make_user()
    seller = await login(api, email, password)
    resp = await api.post("/api/api-keys", headers=seller, json={"name": "test", **body})
    assert resp.status_code == 201, resp.text
    me = (await api.get("/api/me", headers=seller)).json()
    return seller, {"Authorization": f"Bearer {resp.json()['secret']}"}, uuid.UUID(me["id"])


def _problem(resp: httpx.Response, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.text
    assert resp.headers["content-type"] == "application/problem+json"
    body = resp.json()
    assert body["code"] == code and body["status"] == status and body["detail"]
    assert body["type"].endswith(code) and body["title"]
    assert body["request_id"] == resp.headers["X-Request-Id"]
    return dict(body)


async def test_a_job_from_the_api_is_an_ordinary_job(api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    seller, key, user_id = await new_key(api)
    resp = await api.post(
        "/v1/jobs",
        headers=key,
        files={"image_file": ("scarpa.jpg", product_photo_bytes((160, 120)), "image/jpeg")},
        data={"external_id": "SKU-1", "metadata": '{"colore": "rosso"}', "output_format": "webp"},
    )
    assert resp.status_code == 202, resp.text
    job = resp.json()
    assert resp.headers["Location"] == f"/v1/jobs/{job['id']}"
    assert resp.headers["X-Credits-Charged"] == "1"
    assert int(resp.headers["X-Credits-Remaining"]) in (14, 15)
    assert job["status"] in ("queued", "processing", "succeeded") and job["service"] == "ai"
    assert job["external_id"] == "SKU-1" and job["metadata"] == {"colore": "rosso"}
    assert job["livemode"] is True

    await wait_job_status(sessions, job["id"], {"completed"})
    resp = await api.get(f"/v1/jobs/{job['id']}", headers=key)
    assert resp.status_code == 200
    done = resp.json()
    assert done["status"] == "succeeded" and done["credits_charged"] == 1
    assert resp.headers["X-Credits-Charged"] == "0" and resp.headers["X-Credits-Remaining"] == "14"
    assert done["links"]["result"] == f"/v1/jobs/{job['id']}/result"
    assert ledger_kinds(sessions, job["id"]) == ["reserve", "charge"]
    assert credits_and_ledger(sessions, user_id) == (14, 14)

    # the result: the job's output format by default, or the one asked for
    for fmt, pil in ((None, "WEBP"), ("jpg", "JPEG"), ("webp", "WEBP"), ("png", "PNG")):
        resp = await api.get(
            f"/v1/jobs/{job['id']}/result", headers=key, params={"format": fmt} if fmt else {}
        )
        assert resp.status_code == 200, resp.text
        assert Image.open(io.BytesIO(resp.content)).format == pil
    # PNG: the transparent cutout at the photo's own size, background transparent, product opaque
    cutout = Image.open(io.BytesIO(resp.content))
    assert cutout.mode == "RGBA" and cutout.size == (160, 120)
    alpha = cutout.getchannel("A")
    assert alpha.getpixel((2, 2)) < 30 and alpha.getpixel((80, 60)) > 220

    page = await api.get("/v1/jobs", headers=key)
    assert page.headers["X-Credits-Charged"] == "0" and page.headers["X-Credits-Remaining"] == "14"

    # the same job in the web app's /photos and /orders
    photos = (await api.get("/api/photos", headers=seller)).json()["items"]
    assert [p["jobs"][0]["id"] for p in photos] == [job["id"]]
    orders = (await api.get("/api/orders", headers=seller)).json()
    assert len(orders) == 1 and photos[0]["order_id"] == done["batch_id"]
    # and in the admins' job list, like any upload
    admin = await login(api, *make_user(role=UserRole.admin))
    me = (await api.get("/api/me", headers=seller)).json()
    listed = (await api.get("/api/admin/jobs", headers=admin, params={"page": 1, "q": me["email"]})).json()
    assert [item["id"] for item in listed["items"]] == [job["id"]]

    # the free rework: a designer job at 0 credits
    resp = await api.post(f"/v1/jobs/{job['id']}/rework", headers=key, json={"reason": "ombra troppo forte"})
    assert resp.status_code == 202, resp.text
    rework = resp.json()
    assert rework["service"] == "designer" and rework["rework_of"] == job["id"]
    assert rework["status"] in ("designer_queue", "queued")
    resp = await api.post(f"/v1/jobs/{job['id']}/rework", headers=key, json={"reason": "ancora"})
    _problem(resp, 409, "rework_already_requested")
    assert credits_and_ledger(sessions, user_id) == (14, 14)


async def test_json_forms_pages_and_filters(api: httpx.AsyncClient) -> None:
    _, key, _ = await new_key(api)
    b64 = base64.b64encode(product_photo_bytes((96, 72))).decode()
    ids = []
    for i in range(3):
        resp = await api.post(
            "/v1/jobs", headers=key, json={"image_file_b64": b64, "external_id": f"SKU-{i % 2}"}
        )
        assert resp.status_code == 202, resp.text
        ids.append(resp.json()["id"])
    page = (await api.get("/v1/jobs", headers=key, params={"limit": 2})).json()
    assert [j["id"] for j in page["data"]] == ids[::-1][:2] and page["has_more"]
    rest = (await api.get("/v1/jobs", headers=key, params={"limit": 2, "cursor": page["next_cursor"]})).json()
    assert (
        [j["id"] for j in rest["data"]] == [ids[0]] and not rest["has_more"] and rest["next_cursor"] is None
    )
    sku0 = (await api.get("/v1/jobs", headers=key, params={"external_id": "SKU-0"})).json()["data"]
    assert sorted(j["id"] for j in sku0) == sorted([ids[0], ids[2]])
    for job_id in ids:
        await wait_job_status(session_factory(), job_id, {"completed"})
    done = (await api.get("/v1/jobs", headers=key, params={"status": "succeeded"})).json()["data"]
    assert len(done) == 3
    assert (await api.get("/v1/jobs", headers=key, params={"status": "failed"})).json()["data"] == []
    _problem(await api.get("/v1/jobs", headers=key, params={"cursor": "garbage"}), 400, "invalid_cursor")
    _problem(await api.get("/v1/jobs", headers=key, params={"status": "finito"}), 422, "validation_error")

    # delete: the photo and its jobs are gone
    resp = await api.delete(f"/v1/jobs/{ids[0]}", headers=key)
    assert resp.status_code == 204, resp.text
    _problem(await api.get(f"/v1/jobs/{ids[0]}", headers=key), 404, "job_not_found")
    assert count_rows(session_factory(), PhotoProcessingJob, id=uuid.UUID(ids[0])) == 0


async def test_bad_input_is_refused_and_nothing_is_stored(api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    _, key, user_id = await new_key(api)
    cases = [
        (
            {"files": {"image_file": ("nota.txt", b"non sono una foto", "text/plain")}},
            400,
            "unsupported_type",
        ),
        ({"files": {"image_file": ("vuota.jpg", b"", "image/jpeg")}}, 400, "empty_file"),
        ({"json": {"image_file_b64": "%%%non-base64%%%"}}, 400, "invalid_base64"),
        ({"json": {}}, 400, "missing_image"),
        ({"json": {"image_url": "ftp://example.com/a.jpg"}}, 400, "image_url_invalid"),
        (
            {"json": {"image_file_b64": "AAAA", "image_url": "https://example.com/a.jpg"}},
            400,
            "multiple_images",
        ),
        ({"json": {"image_file_b64": "AAAA", "service": "robot"}}, 422, "validation_error"),
        ({"json": {"image_file_b64": "AAAA", "background": "spiaggia"}}, 400, "invalid_background_category"),
        ({"json": {"image_file_b64": "AAAA", "preset": "ebay"}}, 400, "invalid_preset"),
        ({"content": b"x", "headers": {"Content-Type": "text/plain"}}, 415, "unsupported_media_type"),
        (
            {"files": {"image_file": ("a.jpg", PHOTO_64, "image/jpeg")}, "data": {"external_id": "a\r\nb"}},
            422,
            "validation_error",
        ),
        (
            {"files": {"image_file": ("a.jpg", PHOTO_64, "image/jpeg")}, "data": {"metadata": "[1, 2]"}},
            422,
            "validation_error",
        ),
    ]
    for kwargs, status, code in cases:
        headers = {**key, **kwargs.pop("headers", {})}  # type: ignore[dict-item]
        resp = await api.post("/v1/jobs", headers=headers, **kwargs)  # type: ignore[arg-type]
        body = _problem(resp, status, code)
        if code == "unsupported_type":
            assert body["detail"] == "Solo le immagini sono supportate"
    assert count_rows(sessions, Photo, user_id=user_id) == 0
    assert count_rows(sessions, PhotoProcessingJob, user_id=user_id) == 0
    assert credits_and_ledger(sessions, user_id) == (15, 15)


async def test_batches_and_the_account(api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    _, key, user_id = await new_key(api)
    good = base64.b64encode(product_photo_bytes((96, 72))).decode()
    resp = await api.post(
        "/v1/batches",
        headers=key,
        json={
            "jobs": [
                {"image_file_b64": good, "external_id": "A"},
                {"image_file_b64": base64.b64encode(b"testo").decode(), "external_id": "B"},
                {"image_file_b64": good, "external_id": "C"},
            ]
        },
    )
    assert resp.status_code == 202, resp.text
    batch = resp.json()
    assert resp.headers["X-Credits-Charged"] == "2"
    assert [j["external_id"] for j in batch["jobs"]] == ["A", "C"]
    assert [(r["index"], r["code"]) for r in batch["rejected"]] == [(1, "unsupported_type")]
    for job in batch["jobs"]:
        await wait_job_status(sessions, job["id"], {"completed"})
    resp = await api.get(f"/v1/batches/{batch['id']}", headers=key)
    assert resp.status_code == 200
    assert resp.json()["status"] == "completed" and resp.json()["counts"] == {"succeeded": 2}
    account = (await api.get("/v1/account", headers=key)).json()
    assert account["credits_remaining"] == 13 and account["key"]["credits_used_this_month"] == 2
    assert account["limits"]["jobs_in_flight"] == 0
    assert credits_and_ledger(sessions, user_id) == (13, 13)

    # another account's batch and jobs are not found
    _, other, _ = await new_key(api)
    _problem(await api.get(f"/v1/batches/{batch['id']}", headers=other), 404, "batch_not_found")
    job_id = batch["jobs"][0]["id"]
    for method, path in (
        ("GET", f"/v1/jobs/{job_id}"),
        ("GET", f"/v1/jobs/{job_id}/result"),
        ("DELETE", f"/v1/jobs/{job_id}"),
    ):
        _problem(await api.request(method, path, headers=other), 404, "job_not_found")
    resp = await api.post(f"/v1/jobs/{job_id}/rework", headers=other, json={"reason": "mio"})
    _problem(resp, 404, "job_not_found")


async def test_a_designer_job_queues_and_is_withdrawn_with_its_credits(api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    _, key, user_id = await new_key(api)
    b64 = base64.b64encode(product_photo_bytes((96, 72))).decode()
    resp = await api.post(
        "/v1/jobs", headers=key, json={"image_file_b64": b64, "service": "designer", "notes": "sfondo grigio"}
    )
    assert resp.status_code == 202, resp.text
    assert resp.headers["X-Credits-Charged"] == "3"
    job = resp.json()
    await wait_job_status(sessions, job["id"], {"pending_human"})
    view = (await api.get(f"/v1/jobs/{job['id']}", headers=key)).json()
    assert (
        view["status"] == "designer_queue" and view["service"] == "designer" and view["credits_charged"] == 3
    )
    assert credits_and_ledger(sessions, user_id) == (12, 12)
    _problem(await api.get(f"/v1/jobs/{job['id']}/result", headers=key), 409, "job_not_finished")
    # withdrawn before a designer starts it: the reservation is given back, the photo deleted
    assert (await api.delete(f"/v1/jobs/{job['id']}", headers=key)).status_code == 204
    assert credits_and_ledger(sessions, user_id) == (15, 15)
    _problem(await api.get(f"/v1/jobs/{job['id']}", headers=key), 404, "job_not_found")
