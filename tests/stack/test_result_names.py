"""Names that say what the product is.

- A designer's result is offered (single download and inside the order ZIP) under an SEO name built
  like the AI pipeline's (brand, category, colour, job id), not the stored ``processed-…`` key.
- A seller saves a default brand and category (``PATCH /api/me``; migration 0006) that the web app
  uses to prefill the upload form.
"""

from __future__ import annotations

import io
import re
import zipfile

import httpx
import pytest

from fotopronta.db import session_factory
from fotopronta.domain import UserRole
from tests.stack.test_human_jobs import _login_id, _png
from tests.utils.factories import login, make_user, product_photo_bytes
from tests.utils.jobs import new_user, wait_job_status
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack


async def test_designer_result_has_an_seo_name_in_the_order_zip(stack: Stack, api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    client = await _login_id(api, new_user(sessions))
    designer = await _login_id(api, new_user(sessions, role=UserRole.graphic))
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human", "brand": "Gelateria Aurora", "category": "Gelato"},
        files=[("files", ("IMG_0001.jpg", product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    photo, job = resp.json()[0], resp.json()[0]["jobs"][0]
    await wait_job_status(sessions, job["id"], {"pending_human"})
    for step in ("assign-to-me", "start"):
        assert (await api.post(f"/api/designer/jobs/{job['id']}/{step}", headers=designer)).status_code == 200
    resp = await api.post(
        f"/api/designer/jobs/{job['id']}/complete",
        headers=designer,
        files={"file": ("r.png", _png(), "image/png")},
    )
    assert resp.status_code == 200, resp.text

    expected = f"gelateria-aurora-gelato-{job['id'][:8]}.png"
    resp = await api.get(f"/api/orders/{photo['order_id']}/download", headers=client)
    assert resp.status_code == 200, resp.text
    with zipfile.ZipFile(io.BytesIO(resp.content)) as archive:
        assert archive.namelist() == [expected]
    single = await api.get(f"/api/photos/{photo['id']}/download", headers=client)
    assert expected in single.headers["content-disposition"]
    assert not re.search(r"processed-", single.headers["content-disposition"])


async def test_profile_default_brand_and_category(stack: Stack, api: httpx.AsyncClient) -> None:
    headers = await login(api, *make_user())
    me = (await api.get("/api/me", headers=headers)).json()
    assert me["default_brand"] is None and me["default_category"] is None
    resp = await api.patch(
        "/api/me", headers=headers, json={"default_brand": " Gelateria Aurora ", "default_category": "Gelato"}
    )
    assert resp.status_code == 200, resp.text
    assert (resp.json()["default_brand"], resp.json()["default_category"]) == ("Gelateria Aurora", "Gelato")
    me = (await api.get("/api/me", headers=headers)).json()
    assert (me["default_brand"], me["default_category"], me["first_name"]) == (
        "Gelateria Aurora",
        "Gelato",
        me["first_name"],
    )
    resp = await api.patch(
        "/api/me", headers=headers, json={"default_brand": "", "default_category": "x" * 101}
    )
    assert resp.status_code in (400, 422)
    resp = await api.patch("/api/me", headers=headers, json={"default_brand": "  "})
    assert resp.json()["default_brand"] is None and resp.json()["default_category"] == "Gelato"


async def test_results_without_brand_are_named_from_the_file_name(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    """Every result gets an SEO name: a designer's is stored with the job (shown, searched, downloaded
    under it) and, like an AI result's, built from the original file name's words and the colours when
    the seller gave no brand and no category."""
    sessions = session_factory()
    client = await _login_id(api, new_user(sessions))
    designer = await _login_id(api, new_user(sessions, role=UserRole.graphic))
    resp = await api.post(
        "/api/photos",
        headers=client,
        data={"job_type": "background_removal_human"},
        files=[("files", ("IMG_0042 borsa_pelle (2).jpg", product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    photo, job = resp.json()[0], resp.json()[0]["jobs"][0]
    await wait_job_status(sessions, job["id"], {"pending_human"})
    for step in ("assign-to-me", "start"):
        assert (await api.post(f"/api/designer/jobs/{job['id']}/{step}", headers=designer)).status_code == 200
    resp = await api.post(
        f"/api/designer/jobs/{job['id']}/complete",
        headers=designer,
        files={"file": ("r.png", _png(), "image/png")},
    )
    assert resp.status_code == 200, resp.text
    listed = (await api.get("/api/photos", headers=client, params={"q": "borsa-pelle"})).json()["items"]
    assert [p["id"] for p in listed] == [photo["id"]]
    seo = listed[0]["jobs"][0]["processing_details"]["seo_filename"]
    assert seo == f"borsa-pelle-{job['id'][:8]}.jpg"
    single = await api.get(f"/api/photos/{photo['id']}/download", headers=client)
    assert f'filename="borsa-pelle-{job["id"][:8]}.png"' in single.headers["content-disposition"]

    resp = await api.post(
        "/api/photos",
        headers=client,
        files=[("files", ("tazza_colazione.jpg", product_photo_bytes((200, 150)), "image/jpeg"))],
    )
    assert resp.status_code == 201, resp.text
    ai_job = resp.json()[0]["jobs"][0]
    await wait_job_status(sessions, ai_job["id"], {"completed"})
    found = (await api.get("/api/photos", headers=client, params={"q": "tazza_colazione"})).json()["items"]
    ai_photo = found[0]
    details = ai_photo["jobs"][0]["processing_details"]
    colours = [c["name"] for c in details["colors"]][:2]
    assert details["seo_filename"].startswith("tazza-colazione-")
    assert details["seo_filename"].endswith(f"-{ai_job['id'][:8]}.jpg")
    assert colours and colours[0] in details["seo_filename"]
