"""The remove.bg-compatible endpoint on the real stack: the request forms of remove.bg's own API
documentation (multipart ``image_file``, ``image_url``, ``image_file_b64`` as a form and as JSON;
``size``, ``type``, ``format``, ``bg_color``, ``crop``, ``channels``) answered as remove.bg answers
(image bytes or ``{"data": {"result_b64": …}}``, ``X-Credits-Charged``, ``X-Width``, ``X-Height``,
errors ``{"errors": [...]}`` with its status codes), each a real job of the same workflow and ledger; and
the ``removebg`` client library from PyPI, pointed at a live server, gets its result."""

from __future__ import annotations

import asyncio
import base64
import io
import threading
import uuid
import zipfile
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx
import pytest
from PIL import Image
from removebg import removebg  # the 'removebg' client from PyPI (dev extra)

from fotopronta.db import session_factory
from fotopronta.models import PhotoProcessingJob
from tests.stack.test_public_jobs import new_key
from tests.utils.factories import login, make_user, product_photo_bytes, settings_env
from tests.utils.jobs import count_rows, credits_and_ledger, ledger_kinds, new_user
from tests.utils.live_server import LiveServer

pytestmark = pytest.mark.stack

PHOTO = product_photo_bytes((200, 150))


def _image(resp: httpx.Response) -> Image.Image:
    assert resp.status_code == 200, resp.text
    img = Image.open(io.BytesIO(resp.content))
    assert (img.width, img.height) == (int(resp.headers["X-Width"]), int(resp.headers["X-Height"]))
    assert resp.headers["X-Credits-Charged"] == "1"
    return img


def _errors(resp: httpx.Response, status: int, code: str) -> None:
    assert resp.status_code == status, resp.text
    errors = resp.json()["errors"]
    assert len(errors) == 1 and errors[0]["code"] == code and errors[0]["title"]


class _Photo(BaseHTTPRequestHandler):
    def log_message(self, *_args: object) -> None:
        return

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "image/jpeg")
        self.send_header("Content-Length", str(len(PHOTO)))
        self.end_headers()
        self.wfile.write(PHOTO)


@pytest.fixture
def photo_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Photo)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/example.jpg"
    finally:
        server.shutdown()
        server.server_close()


async def test_the_documented_request_forms(api: httpx.AsyncClient, photo_url: str) -> None:
    sessions = session_factory()
    seller, key, user_id = await new_key(api)
    secret = key["Authorization"].split(" ", 1)[1]
    headers = {"X-Api-Key": secret}

    # multipart image_file, size=auto: a transparent PNG of the photo's size (format auto)
    resp = await api.post(
        "/v1.0/removebg",
        headers=headers,
        files={"image_file": ("file.jpg", PHOTO, "image/jpeg")},
        data={"size": "auto"},
    )
    img = _image(resp)
    assert resp.headers["content-type"] == "image/png" and img.mode == "RGBA" and img.size == (200, 150)
    alpha = img.getchannel("A")
    assert alpha.getpixel((3, 3)) < 30 and alpha.getpixel((100, 75)) > 220
    top, left = int(resp.headers["X-Foreground-Top"]), int(resp.headers["X-Foreground-Left"])
    assert 0 < left < 100 and 0 < top < 75 and int(resp.headers["X-Foreground-Width"]) < 200
    job_id = resp.headers["X-Job-Id"]
    assert ledger_kinds(sessions, job_id) == ["reserve", "charge"]

    # image_url (multipart form, as in remove.bg's examples; loopback allowed as under make dev)
    with settings_env(fetch_allow_loopback="true"):
        resp = await api.post(
            "/v1.0/removebg", headers=headers, files={"size": (None, "auto"), "image_url": (None, photo_url)}
        )
    assert _image(resp).mode == "RGBA"

    # image_file_b64 as a urlencoded form, preview size, a colour name: an opaque JPG (format auto)
    b64 = base64.b64encode(PHOTO).decode()
    resp = await api.post(
        "/v1.0/removebg",
        headers=headers,
        data={"image_file_b64": b64, "size": "preview", "bg_color": "green"},
    )
    img = _image(resp)
    assert (
        resp.headers["content-type"] == "image/jpeg"
        and img.getpixel((2, 2))[1] > 100 > img.getpixel((2, 2))[0]
    )

    # JSON with Accept: application/json: {"data": {"result_b64": ...}}; crop, hex colour, type
    resp = await api.post(
        "/v1.0/removebg",
        headers={**headers, "Accept": "application/json"},
        json={"image_file_b64": b64, "crop": True, "bg_color": "81d4fa", "format": "png", "type": "product"},
    )
    assert resp.status_code == 200, resp.text
    data = resp.json()["data"]
    cropped = Image.open(io.BytesIO(base64.b64decode(data["result_b64"])))
    assert cropped.format == "PNG" and cropped.width < 200 and cropped.height < 150
    assert data["foreground_width"] == cropped.width and resp.headers["X-Type"] == "product"

    # channels=alpha: the matte alone; format=zip: color.jpg and alpha.png; crop with a margin
    alpha_only = _image(
        await api.post("/v1.0/removebg", headers=headers, data={"image_file_b64": b64, "channels": "alpha"})
    )
    assert alpha_only.mode == "L"
    resp = await api.post("/v1.0/removebg", headers=headers, data={"image_file_b64": b64, "format": "zip"})
    assert resp.status_code == 200 and resp.headers["content-type"] == "application/zip"
    assert sorted(zipfile.ZipFile(io.BytesIO(resp.content)).namelist()) == ["alpha.png", "color.jpg"]
    margin = _image(
        await api.post(
            "/v1.0/removebg",
            headers=headers,
            data={"image_file_b64": b64, "crop": "true", "crop_margin": "10px"},
        )
    )
    assert margin.width == cropped.width + 20

    # every call is an ordinary job: seven photos in /photos, seven credits
    assert len((await api.get("/api/photos", headers=seller)).json()["items"]) == 7
    assert credits_and_ledger(sessions, user_id) == (8, 8)
    account = await api.get("/v1.0/account", headers=headers)
    assert account.status_code == 200
    assert account.json()["data"]["attributes"]["credits"]["total"] == 8


async def test_errors_in_remove_bg_shape_charge_nothing(api: httpx.AsyncClient) -> None:
    sessions = session_factory()
    _, key, user_id = await new_key(api)
    headers = {"X-Api-Key": key["Authorization"].split(" ", 1)[1]}
    b64 = base64.b64encode(PHOTO).decode()
    cases = [
        ({"data": {"size": "auto"}}, 400, "missing_source"),
        (
            {"data": {"image_file_b64": b64, "image_url": "https://example.com/a.jpg"}},
            400,
            "multiple_sources",
        ),
        ({"data": {"image_file_b64": b64, "size": "gigante"}}, 400, "invalid_size"),
        ({"data": {"image_file_b64": b64, "format": "gif"}}, 400, "invalid_format"),
        ({"data": {"image_file_b64": b64, "channels": "rgb"}}, 400, "invalid_channels"),
        ({"data": {"image_file_b64": b64, "bg_color": "nonuncolore"}}, 400, "invalid_bg_color"),
        ({"data": {"image_file_b64": b64, "scale": "50%"}}, 400, "unsupported_parameter"),
        ({"files": {"image_file": ("a.txt", b"non una foto", "text/plain")}}, 400, "invalid_file_type"),
        ({"data": {"image_url": "http://169.254.169.254/latest/meta-data"}}, 400, "invalid_image_url"),
    ]
    for kwargs, status, code in cases:
        _errors(await api.post("/v1.0/removebg", headers=headers, **kwargs), status, code)  # type: ignore[arg-type]
    for bad in ({}, {"X-Api-Key": "fp_live_" + "x" * 43}):
        _errors(
            await api.post("/v1.0/removebg", headers=bad, data={"image_file_b64": b64}), 403, "auth_failed"
        )
    assert count_rows(sessions, PhotoProcessingJob, user_id=user_id) == 0
    assert credits_and_ledger(sessions, user_id) == (15, 15)

    # no credits: 402, nothing stored
    poor = new_user(sessions, credits=0)
    with session_factory()() as session:
        from fotopronta.models import Profile

        email = session.get_one(Profile, poor).email
    web = await login(api, email, "segreto123")
    secret = (await api.post("/api/api-keys", headers=web, json={"name": "x"})).json()["secret"]
    _errors(
        await api.post("/v1.0/removebg", headers={"X-Api-Key": secret}, data={"image_file_b64": b64}),
        402,
        "insufficient_credits",
    )
    assert count_rows(sessions, PhotoProcessingJob, user_id=poor) == 0


async def test_a_remove_bg_client_library_works(live_api: LiveServer, tmp_path: Path) -> None:
    email, password = make_user()
    web = await login(live_api.client, email, password)
    secret = (await live_api.client.post("/api/api-keys", headers=web, json={"name": "lib"})).json()["secret"]
    source = tmp_path / f"prodotto-{uuid.uuid4().hex[:6]}.jpg"
    source.write_bytes(PHOTO)
    removebg.API_ENDPOINT = f"{live_api.base_url}/v1.0/removebg"  # the library's base URL, switched
    client = removebg.RemoveBg(secret, str(tmp_path / "errori.log"))
    await asyncio.to_thread(client.remove_background_from_img_file, str(source), size="auto")
    out = Image.open(f"{source}_no_bg.png")
    assert out.mode == "RGBA" and out.size == (200, 150)
    await asyncio.to_thread(
        client.remove_background_from_base64_img,
        base64.b64encode(PHOTO).decode(),
        new_file_name=str(tmp_path / "b64.png"),
    )
    assert Image.open(tmp_path / "b64.png").mode == "RGBA"
