"""Factory helpers for tests: users, sessions, images."""

from __future__ import annotations

import contextlib
import io
import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
from PIL import Image

from fotopronta.accounts import create_user
from fotopronta.db import session_scope
from fotopronta.domain import UserRole

SHARED_PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "photos"


def unique_email(prefix: str = "venditore") -> str:
    """A fresh e-mail address for one test."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.it"


def make_user(
    *,
    role: UserRole = UserRole.client,
    password: str = "segreto123",
    email: str | None = None,
    first_name: str = "Giulia",
) -> tuple[str, str]:
    """Create a confirmed user directly in the database; returns ``(email, password)``."""
    email = email or unique_email(role.value)
    with session_scope() as session:
        create_user(session, email=email, password=password, first_name=first_name, role=role)
    return email, password


async def login(api: httpx.AsyncClient, email: str, password: str) -> dict[str, str]:
    """Log in through the API; returns the ``Authorization`` header."""
    resp = await api.post("/api/auth/login", json={"email": email, "password": password})
    assert resp.status_code == 200, resp.text
    return {"Authorization": f"Bearer {resp.json()['access_token']}"}


def product_photo_bytes(size: tuple[int, int] = (640, 480)) -> bytes:
    """A synthetic product shot (a saturated object on a mottled grey backdrop) as JPEG bytes."""
    w, h = size
    rng = np.random.default_rng(7)
    img = np.full((h, w, 3), 150, np.uint8) + rng.integers(0, 20, (h, w, 1), dtype=np.uint8)
    yy, xx = np.mgrid[0:h, 0:w]
    body = ((xx - w / 2) / (w * 0.22)) ** 2 + ((yy - h / 2) / (h * 0.32)) ** 2 <= 1
    img[body] = (200, 40, 40)
    buf = io.BytesIO()
    Image.fromarray(img).save(buf, "JPEG", quality=92)
    return buf.getvalue()


def shared_photo(name: str) -> tuple[str, bytes] | None:
    """``(file name, bytes)`` of a photo from ``../shared/photos/nomask`` or ``gt/images``, if present."""
    for folder in (SHARED_PHOTOS / "nomask", SHARED_PHOTOS / "gt" / "images"):
        path = folder / name
        if path.is_file():
            return path.name, path.read_bytes()
    return None


async def latest_mail(api: httpx.AsyncClient, to: str) -> dict:
    """The newest e-mail to ``to`` from the development outbox (``GET /api/dev/mail?to=``)."""
    resp = await api.get("/api/dev/mail", params={"to": to})
    assert resp.status_code == 200, resp.text
    assert resp.json(), f"no e-mail to {to}"
    return dict(resp.json()[0])


async def signup_and_confirm(
    api: httpx.AsyncClient,
    email: str,
    password: str = "segreto123",
    first_name: str = "Giulia",
    last_name: str | None = "Bianchi",
) -> dict:
    """Sign up through the API and confirm the account with the e-mailed link (``POST /api/auth/verify``);
    returns the session (``access_token``, ``refresh_token``, ``user``)."""
    resp = await api.post(
        "/api/auth/signup",
        json={"email": email, "password": password, "first_name": first_name, "last_name": last_name},
    )
    assert resp.status_code == 201, resp.text
    link = (await latest_mail(api, email))["links"][0]
    query = dict(part.split("=", 1) for part in link.split("?", 1)[1].split("&"))
    resp = await api.post("/api/auth/verify", json={"token_hash": query["token_hash"], "type": query["type"]})
    assert resp.status_code == 200, resp.text
    return dict(resp.json())


@contextlib.contextmanager
def settings_env(**values: str) -> Iterator[None]:
    """Set ``FOTOPRONTA_<NAME>`` environment variables (e.g. ``mail_backend="smtp"``) for the block and
    rebuild the cached settings; both are restored afterwards."""
    from fotopronta.settings import get_settings

    names = {f"FOTOPRONTA_{k.upper()}": v for k, v in values.items()}
    saved = {k: os.environ.get(k) for k in names}
    os.environ.update(names)
    get_settings.cache_clear()
    try:
        yield
    finally:
        for k, old in saved.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old
        get_settings.cache_clear()


def undecodable_jpeg() -> bytes:
    """A JPEG whose header is whole (the upload check reads its 640×480 px) but whose scan data is cut
    short: it is accepted at upload and fails in the worker's decode ('Impossibile leggere l'immagine…')
    — the way to reach the retouch failure path since non-images are refused at upload."""
    data = product_photo_bytes((640, 480))
    return data[: len(data) // 3]
