"""'Scarica selezionate': ``POST /api/photos/zip`` answers one streamed ZIP of the selected delivered
photos, each entry named as its card names it (the SEO name), for the owner only, with a bounded
number of ids."""

from __future__ import annotations

import asyncio
import io
import time
import uuid
import zipfile
from pathlib import PurePath

import httpx
import pytest
from PIL import Image
from sqlalchemy import select

from api.services.photos import ZIP_MAX_PHOTOS
from fotopronta.db import session_scope
from fotopronta.domain import UserRole
from fotopronta.models import Profile
from tests.utils.factories import login, make_user, product_photo_bytes

pytestmark = pytest.mark.stack


def card_name(photo: dict) -> str:
    """The name a photo card shows (web/src/features/photos/components/photo-card.tsx): the SEO name
    of the newest job with details, else the original file name."""
    jobs = sorted((j for j in photo["jobs"] if j.get("processing_details")), key=lambda j: j["created_at"])
    details = jobs[-1]["processing_details"] if jobs else {}
    return str(details.get("seo_filename") or photo["original_filename"])


async def test_twenty_selected_photos_come_as_one_zip_named_as_the_cards(
    stack: object, api: httpx.AsyncClient
) -> None:
    email, password = make_user()
    with session_scope() as session:
        session.execute(select(Profile).where(Profile.email == email)).scalar_one().credits_remaining = 25
    owner = await login(api, email, password)
    ids: list[str] = []
    for batch in range(2):  # a seller's batch holds at most 10 files
        resp = await api.post(
            "/api/photos",
            headers=owner,
            data={"brand": "Borsalino", "category": "cappello"},
            files=[
                ("files", (f"lotto{batch}-{i}.jpg", product_photo_bytes((160, 120)), "image/jpeg"))
                for i in range(10)
            ],
        )
        assert resp.status_code == 201, resp.text
        ids += [p["id"] for p in resp.json()]
    deadline = time.monotonic() + 300
    while True:
        page = (await api.get("/api/photos", headers=owner, params={"limit": 100})).json()
        photos = {p["id"]: p for p in page["items"]}
        if all(photos[i]["status"] == "processed" for i in ids):
            break
        assert time.monotonic() < deadline, [photos[i]["status"] for i in ids]
        await asyncio.sleep(1)

    async with api.stream("POST", "/api/photos/zip", headers=owner, json={"photo_ids": ids}) as resp:
        assert resp.status_code == 200, await resp.aread()
        assert resp.headers["content-type"] == "application/zip"
        assert resp.headers["content-disposition"].startswith("attachment;")
        assert "content-length" not in resp.headers  # streamed, not built whole first
        chunks = [chunk async for chunk in resp.aiter_raw()]
    with zipfile.ZipFile(io.BytesIO(b"".join(chunks))) as archive:
        names = archive.namelist()
        assert len(names) == 20 and len(set(names)) == 20
        expected = [PurePath(card_name(photos[i])).stem + ".jpg" for i in ids]
        assert names == expected  # in the order selected, as the cards name them
        assert all("borsalino" in n for n in names)
        for name in names:
            assert Image.open(io.BytesIO(archive.read(name))).format == "JPEG"
            assert archive.getinfo(name).file_size > 0


async def test_zip_is_the_owners_only_and_bounded(stack: object, api: httpx.AsyncClient) -> None:
    owner = await login(api, *make_user())
    resp = await api.post(
        "/api/photos",
        headers=owner,
        files=[("files", ("uno.jpg", product_photo_bytes((160, 120)), "image/jpeg"))],
    )
    assert resp.status_code == 201
    photo_id = resp.json()[0]["id"]

    stranger = await login(api, *make_user())
    resp = await api.post("/api/photos/zip", headers=stranger, json={"photo_ids": [photo_id]})
    assert resp.status_code == 404 and resp.json()["detail"] == "Foto non trovata"
    admin = await login(api, *make_user(role=UserRole.admin))
    assert (
        await api.post("/api/photos/zip", headers=admin, json={"photo_ids": [photo_id]})
    ).status_code == 404
    designer = await login(api, *make_user(role=UserRole.graphic))
    resp = await api.post("/api/photos/zip", headers=designer, json={"photo_ids": [photo_id]})
    assert resp.status_code == 403
    assert (await api.post("/api/photos/zip", json={"photo_ids": [photo_id]})).status_code == 401

    too_many = [photo_id] + [str(uuid.uuid4()) for _ in range(ZIP_MAX_PHOTOS)]
    resp = await api.post("/api/photos/zip", headers=owner, json={"photo_ids": too_many})
    assert resp.status_code == 400 and resp.json()["code"] == "too_many_photos"
    assert f"al massimo {ZIP_MAX_PHOTOS} foto" in resp.json()["detail"]
    resp = await api.post("/api/photos/zip", headers=owner, json={"photo_ids": []})
    assert resp.status_code == 400 and resp.json()["code"] == "no_photos_selected"
