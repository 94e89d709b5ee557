"""/photos previews come from a small stored WebP, not the full file.

The original gets a ≤ 512 px WebP preview at upload, an AI result in the retouch activity, a
designer's result when it is uploaded; ``GET /api/photos/{id}/thumbnail`` serves it with
``Cache-Control`` and an ``ETag`` (304 on ``If-None-Match``), and previews are deleted with the photo.
"""

from __future__ import annotations

import asyncio
import io
import time

import httpx
import pytest
from PIL import Image

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, get_storage
from fotopronta.thumbnails import thumbnail_key
from tests.stack.test_human_jobs import _login_id
from tests.utils.factories import login, make_user, product_photo_bytes
from tests.utils.jobs import new_user, wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


def _png(size: tuple[int, int]) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buf, "PNG")
    return buf.getvalue()


async def _photo(api: httpx.AsyncClient, headers: dict[str, str], photo_id: str) -> dict:
    return next(
        p for p in (await api.get("/api/photos", headers=headers)).json()["items"] if p["id"] == photo_id
    )


async def test_ai_photo_previews_are_stored_small_and_cached(stack: Stack, api: httpx.AsyncClient) -> None:
    owner = await login(api, *make_user())
    resp = await api.post(
        "/api/photos",
        headers=owner,
        files=[("files", ("t.jpg", product_photo_bytes((1600, 1200)), "image/jpeg"))],
    )
    photo = resp.json()[0]
    storage = get_storage()
    original_preview = storage.get(BUCKET_UPLOADS, thumbnail_key(photo["upload_path"]))
    assert max(Image.open(io.BytesIO(original_preview)).size) == 512

    first = await api.get(f"/api/photos/{photo['id']}/thumbnail", headers=owner)
    assert first.status_code == 200 and first.headers["content-type"] == "image/webp"
    assert "max-age=86400" in first.headers["cache-control"] and first.headers["etag"]
    again = await api.get(
        f"/api/photos/{photo['id']}/thumbnail", headers={**owner, "If-None-Match": first.headers["etag"]}
    )
    assert again.status_code == 304 and not again.content

    deadline = time.monotonic() + 120
    while (done := await _photo(api, owner, photo["id"]))["status"] != "processed":
        assert time.monotonic() < deadline
        await asyncio.sleep(0.5)
    result_preview = storage.get(BUCKET_PROCESSED, thumbnail_key(done["processed_path"]))
    served = await api.get(f"/api/photos/{photo['id']}/thumbnail", headers=owner)
    assert served.content == result_preview and served.headers["etag"] != first.headers["etag"]
    img = Image.open(io.BytesIO(served.content))
    assert img.format == "WEBP" and max(img.size) <= 512
    assert min(img.convert("RGB").getpixel((0, 0))) >= 250  # the white-background result

    assert (await api.delete(f"/api/photos/{photo['id']}", headers=owner)).status_code in (200, 204)
    for bucket, key in ((BUCKET_UPLOADS, photo["upload_path"]), (BUCKET_PROCESSED, done["processed_path"])):
        assert not storage.exists(bucket, thumbnail_key(key))


async def test_designer_result_preview_is_stored(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client = await _login_id(api, new_user(sessions))
    designer = await _login_id(api, new_user(sessions, role=UserRole.graphic))
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human"},
        files=[("files", ("p.jpg", product_photo_bytes((400, 300)), "image/jpeg"))],
    )
    photo, job = resp.json()[0], resp.json()[0]["jobs"][0]
    await wait_job_status(sessions, job["id"], {"pending_human"})
    for step in ("assign-to-me", "start"):
        assert (await api.post(f"/api/designer/jobs/{job['id']}/{step}", headers=designer)).status_code == 200
    portrait = _png((900, 1500))  # a portrait result: a cropped card would show a thin sliver of it
    resp = await api.post(
        f"/api/designer/jobs/{job['id']}/complete",
        headers=designer,
        files={"file": ("r.png", portrait, "image/png")},
    )
    assert resp.status_code == 200, resp.text
    done = await _photo(api, client, photo["id"])
    stored = get_storage().get(BUCKET_PROCESSED, thumbnail_key(done["processed_path"]))
    assert Image.open(io.BytesIO(stored)).size == (307, 512)
    served = await api.get(f"/api/photos/{photo['id']}/thumbnail", headers=client)
    assert served.headers["content-type"] == "image/webp" and served.content == stored
