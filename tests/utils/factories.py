"""Factory helpers for tests: users, sessions, images."""

from __future__ import annotations

import io
import uuid
from pathlib import Path

import httpx
import numpy as np
from PIL import Image

from fotopronta.accounts import create_user
from fotopronta.db import session_scope
from fotopronta.models import UserRole

SHARED_PHOTOS = Path(__file__).resolve().parents[2].parent / "shared" / "photos"


def unique_email(prefix: str = "venditore") -> str:
    """A fresh e-mail address for one test."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}@example.it"


def make_user(*, role: UserRole = UserRole.client, password: str = "segreto123", email: str | None = None,
              first_name: str = "Giulia") -> tuple[str, str]:
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
