"""The ``fotopronta`` command installed in ``.venv`` — ``create-user`` against the real
database (confirmed, active, any role), and ``retouch`` on files without any server."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import httpx
import numpy as np
import pytest
from PIL import Image

from tests.utils.factories import login, product_photo_bytes, unique_email
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack

FOTOPRONTA = Path(sys.executable).parent / "fotopronta"


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run the installed ``fotopronta`` script with this session's settings (environment)."""
    return subprocess.run(
        [str(FOTOPRONTA), *args], capture_output=True, text=True, env=dict(os.environ), timeout=300
    )


async def test_create_user_makes_a_confirmed_account_of_any_role(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    assert FOTOPRONTA.exists(), "the fotopronta entry point is not installed in the virtualenv"
    email = unique_email("grafico")
    done = run_cli(
        "create-user",
        "--email",
        email,
        "--password",
        "segreto123",
        "--role",
        "graphic",
        "--first-name",
        "Marco",
    )
    assert done.returncode == 0, done.stderr
    assert "graphic" in done.stdout
    me = (await api.get("/api/me", headers=await login(api, email, "segreto123"))).json()
    # staff accounts are not sellers: no sign-up credits
    assert me["user_role"] == "graphic" and me["is_active"] and me["credits_remaining"] == 0
    again = run_cli("create-user", "--email", email, "--password", "segreto123", "--role", "client")
    assert again.returncode == 1 and "Un utente con questa email è già registrato" in again.stderr
    short = run_cli("create-user", "--email", unique_email(), "--password", "123", "--role", "admin")
    assert short.returncode == 2


def test_retouch_command_writes_results_without_a_server(tmp_path: Path) -> None:
    src = tmp_path / "in"
    src.mkdir()
    (src / "borsa.jpg").write_bytes(product_photo_bytes((320, 240)))
    (src / "rotta.jpg").write_bytes(b"\xff\xd8 not a jpeg")
    out = tmp_path / "out"
    done = run_cli("retouch", str(src / "borsa.jpg"), str(src / "rotta.jpg"), "-o", str(out), "--matte")
    assert done.returncode != 0  # one bad file
    assert "Impossibile leggere l'immagine" in done.stdout + done.stderr
    jpeg = Image.open(out / "borsa.jpg")
    assert jpeg.format == "JPEG"
    rgb = np.asarray(jpeg.convert("RGB"))
    assert (rgb[0, 0] >= 254).all() and (rgb[-1, -1] >= 254).all()
    assert Image.open(out / "borsa.webp").format == "WEBP"
    matte = Image.open(out / "borsa.matte.png")
    assert matte.mode == "L" and matte.size == (320, 240)
    assert Image.open(io.BytesIO((out / "borsa.jpg").read_bytes())).size == jpeg.size
