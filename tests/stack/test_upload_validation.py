"""Every upload is checked by its content before anything is stored or charged, and a
thumbnail never decodes an unbounded original inside the API.

Refused (400, no photo row, no order, no file, no credit): a 321 KB PNG of 110 MP, a text file named
``.jpg``, a PDF (whatever its Content-Type), an SVG, a 0-byte file, a file over the per-file limit, and
a batch in which one file is bad. Accepted by content whatever the client claims: a JPEG sent as
``application/octet-stream``, a PNG named ``.jpg``, a camera RAW (DNG) and a HEIC.
"""

from __future__ import annotations

import io
import time
import uuid
from pathlib import Path

import httpx
import pytest
from PIL import Image
from sqlalchemy import func, select

from fotopronta.db import session_scope
from fotopronta.models import CreditLedgerEntry, Order, Photo, PhotoProcessingJob, Profile
from fotopronta.storage import BUCKET_UPLOADS, get_storage, new_upload_key
from tests.attack.uploads import PDF, SVG, bomb_png
from tests.retouch.retouch_images import tiny_dng
from tests.utils.factories import login, make_user, product_photo_bytes, settings_env
from tests.utils.stack import Stack

pytestmark = pytest.mark.stack

UNSUPPORTED = ("Solo le immagini sono supportate", "Alcuni file ignorati")


def _user(email: str) -> uuid.UUID:
    with session_scope() as session:
        return session.execute(select(Profile.id).where(Profile.email == email)).scalar_one()


def _nothing_stored(stack: Stack, user_id: uuid.UUID) -> None:
    """No photo, order or ledger entry beyond the sign-up grant, no file in the user's upload folder."""
    with session_scope() as session:
        for model in (Photo, Order, PhotoProcessingJob):
            count = session.execute(
                select(func.count()).select_from(model).where(model.user_id == user_id)  # type: ignore[attr-defined]
            ).scalar_one()
            assert count == 0, f"{model.__name__}: {count}"
        kinds = session.execute(
            select(CreditLedgerEntry.kind).where(CreditLedgerEntry.user_id == user_id)
        ).scalars()
        assert list(kinds) == ["grant"]
        assert session.get_one(Profile, user_id).credits_remaining == 15
    folder = Path(stack.storage_root) / BUCKET_UPLOADS / str(user_id)
    assert not folder.exists() or not any(folder.iterdir()), list(folder.iterdir())


def _png(size: tuple[int, int] = (120, 90)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 40)).save(buf, "PNG")
    return buf.getvalue()


def _heic() -> bytes:
    import pillow_heif

    pillow_heif.register_heif_opener()
    buf = io.BytesIO()
    Image.new("RGB", (64, 48), (200, 30, 40)).save(buf, "HEIF", quality=90)
    return buf.getvalue()


async def test_non_images_bombs_and_empty_files_are_refused_before_anything_is_stored(
    stack: Stack, api: httpx.AsyncClient
) -> None:
    email, password = make_user()
    headers = await login(api, email, password)
    user_id = _user(email)
    bomb = bomb_png()
    assert len(bomb) < 400_000  # 10500 x 10500 px = 110 MP in ~321 KB

    cases: list[tuple[list[tuple[str, bytes, str]], tuple[str, str], dict[str, str]]] = [
        (
            [("bomba.png", bomb, "image/png")],
            (
                "Impossibile caricare bomba.png: immagine troppo grande, 110 megapixel (massimo 80). "
                "Riduci la risoluzione e riprova.",
                "Errore upload",
            ),
            {},
        ),
        ([("scarpa.jpg", b"non sono una foto\n" * 20, "image/jpeg")], UNSUPPORTED, {}),
        ([("fattura.pdf", PDF, "application/pdf")], UNSUPPORTED, {}),
        ([("fattura.jpg", PDF, "image/jpeg")], UNSUPPORTED, {}),
        ([("logo.svg", SVG, "image/svg+xml")], UNSUPPORTED, {}),
        (
            [("vuota.jpg", b"", "image/jpeg")],
            ("Impossibile caricare vuota.jpg: il file è vuoto.", "Errore upload"),
            {},
        ),
        # one bad file refuses the batch: the good one is not stored either
        (
            [("ok.jpg", product_photo_bytes((160, 120)), "image/jpeg"), ("nota.jpg", b"ciao", "image/jpeg")],
            UNSUPPORTED,
            {},
        ),
        (
            [("grande.jpg", product_photo_bytes((640, 480)), "image/jpeg")],
            ("Impossibile caricare grande.jpg: file troppo grande (massimo 2 KB).", "Errore upload"),
            {"max_file_bytes": "2000"},
        ),
    ]
    for files, (detail, title), env in cases:
        with settings_env(**env):
            resp = await api.post("/api/photos", headers=headers, files=[("files", f) for f in files])
        assert resp.status_code == 400, (files[0][0], resp.text)
        assert (resp.json()["detail"], resp.json().get("title")) == (detail, title), resp.json()
        _nothing_stored(stack, user_id)


async def test_images_are_recognised_by_content(stack: Stack, api: httpx.AsyncClient) -> None:
    headers = await login(api, *make_user())
    resp = await api.post(
        "/api/photos",
        headers=headers,
        data={"job_type": "background_removal_human"},  # nothing to process here: a designer's queue
        files=[
            ("files", ("senza-nome.bin", product_photo_bytes((160, 120)), "application/octet-stream")),
            ("files", ("in-realta-png.jpg", _png(), "image/jpeg")),
            ("files", ("IMG_0001.DNG", tiny_dng(), "")),
            ("files", ("IMG_0002.HEIC", _heic(), "application/octet-stream")),
        ],
    )
    assert resp.status_code == 201, resp.text
    got = [(p["file_format"], p["width"], p["height"]) for p in resp.json()]
    assert got == [
        ("image/jpeg", 160, 120),
        ("image/png", 120, 90),
        ("image/x-adobe-dng", 64, 48),
        ("image/heic", 64, 48),
    ]
    with session_scope() as session:
        paths = [session.get_one(Photo, uuid.UUID(p["id"])).upload_path for p in resp.json()]
    assert [p.rsplit(".", 1)[1] for p in paths] == ["jpg", "png", "dng", "heic"]


async def test_thumbnail_never_decodes_an_unbounded_original(stack: Stack, api: httpx.AsyncClient) -> None:
    """A 110 MP PNG stored before uploads were checked: its preview is refused from the header, at once,
    instead of decoding ~330 MB of pixels; a normal photo still gets its preview."""
    email, password = make_user()
    headers = await login(api, email, password)
    user_id = _user(email)
    storage = get_storage()
    ids = {}
    for name, data, mime in (
        ("bomba.png", bomb_png(), "image/png"),
        ("borsa.jpg", product_photo_bytes(), "image/jpeg"),
    ):
        key = new_upload_key(user_id, name.rsplit(".", 1)[1])
        storage.put(BUCKET_UPLOADS, key, data, mime)
        with session_scope() as session:
            photo = Photo(
                user_id=user_id,
                original_filename=name,
                file_size=len(data),
                file_format=mime,
                upload_path=key,
                status="uploaded",
            )
            session.add(photo)
            session.flush()
            ids[name] = photo.id
    start = time.monotonic()
    resp = await api.get(f"/api/photos/{ids['bomba.png']}/thumbnail", headers=headers)
    elapsed = time.monotonic() - start
    assert resp.status_code == 404 and resp.json()["detail"] == "Anteprima non disponibile", resp.status_code
    assert elapsed < 1.0, f"{elapsed:.2f} s: the pixels were decoded"

    resp = await api.get(f"/api/photos/{ids['borsa.jpg']}/thumbnail", headers=headers, params={"size": 128})
    assert resp.status_code == 200 and resp.headers["content-type"] == "image/jpeg"
    assert max(Image.open(io.BytesIO(resp.content)).size) == 128
