"""Orders: every upload batch is an order; details list its photos and the download is a ZIP of the
delivered photos under their SEO names (DESIGN decisions, SPEC §2 /orders)."""

from __future__ import annotations

import asyncio
import io
import time
import zipfile

import httpx
import pytest
from PIL import Image

from tests.utils.factories import login, make_user, product_photo_bytes

pytestmark = pytest.mark.stack


async def test_batch_order_details_and_zip(stack: object, api: httpx.AsyncClient) -> None:
    owner = await login(api, *make_user())
    resp = await api.post(
        "/api/photos",
        headers=owner,
        data={"brand": "Borsalino", "category": "cappello"},
        files=[("files", (f"c{i}.jpg", product_photo_bytes((160, 120)), "image/jpeg")) for i in range(2)],
    )
    assert resp.status_code == 201
    order_id = resp.json()[0]["order_id"]
    assert order_id and all(p["order_id"] == order_id for p in resp.json())
    deadline = time.monotonic() + 180
    while True:
        orders = (await api.get("/api/orders", headers=owner)).json()
        order = next(o for o in orders if o["id"] == order_id)
        if order["status"] == "completed":
            break
        assert time.monotonic() < deadline, order
        await asyncio.sleep(0.5)
    assert order["total_photos"] == 2 and order["processed_photos"] == 2
    assert order["package_type"] == "Ritocco AI" and order["total_amount"] == 2

    detail = (await api.get(f"/api/orders/{order_id}", headers=owner)).json()
    assert len(detail["photos"]) == 2 and all(p["status"] == "processed" for p in detail["photos"])
    resp = await api.get(f"/api/orders/{order_id}/download", headers=owner)
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/zip"
    with zipfile.ZipFile(io.BytesIO(resp.content)) as archive:
        names = archive.namelist()
        assert len(names) == 2 and len(set(names)) == 2
        assert all(n.endswith(".jpg") and "borsalino" in n for n in names)
        for name in names:
            assert Image.open(io.BytesIO(archive.read(name))).format == "JPEG"

    stranger = await login(api, *make_user())
    assert (await api.get(f"/api/orders/{order_id}", headers=stranger)).status_code == 404
    assert (await api.get(f"/api/orders/{order_id}/download", headers=stranger)).status_code == 404


async def test_thumbnails_show_original_then_result_to_the_owner_only(
    stack: object, api: httpx.AsyncClient
) -> None:
    owner = await login(api, *make_user())
    resp = await api.post(
        "/api/photos",
        headers=owner,
        files=[("files", ("t.jpg", product_photo_bytes((1200, 900)), "image/jpeg"))],
    )
    photo = resp.json()[0]
    first = await api.get(f"/api/photos/{photo['id']}/thumbnail", headers=owner, params={"size": 200})
    assert first.status_code == 200 and first.headers["content-type"] == "image/jpeg"
    assert max(Image.open(io.BytesIO(first.content)).size) == 200
    deadline = time.monotonic() + 120
    while (await api.get("/api/photos", headers=owner)).json()["items"][0]["status"] != "processed":
        assert time.monotonic() < deadline
        await asyncio.sleep(0.5)
    done = await api.get(f"/api/photos/{photo['id']}/thumbnail", headers=owner)
    assert done.status_code == 200
    corner = Image.open(io.BytesIO(done.content)).convert("RGB").getpixel((0, 0))
    assert min(corner) >= 250  # the white-background result, not the grey original
    stranger = await login(api, *make_user())
    assert (await api.get(f"/api/photos/{photo['id']}/thumbnail", headers=stranger)).status_code == 404
    assert (
        await api.get(f"/api/photos/{photo['id']}/thumbnail", headers=owner, params={"size": 5000})
    ).status_code == 422
