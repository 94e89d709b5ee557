"""The boto3 storage backend (``fotopronta.storage.S3Storage``, used in production) against an
S3-compatible server on loopback: moto's server mode, started here on a free port."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from fotopronta.settings import Settings
from fotopronta.storage import (
    BUCKET_PROCESSED,
    BUCKET_UPLOADS,
    ObjectNotFoundError,
    S3Storage,
    get_storage,
    new_upload_key,
)
from infra.ports import free_port
from infra.s3_buckets import ensure_buckets


@pytest.fixture(scope="module")
def s3_settings() -> Iterator[Settings]:
    """Settings pointing at a moto S3 server on 127.0.0.1 (path-style addressing, as SeaweedFS)."""
    from moto.server import ThreadedMotoServer

    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield Settings(
            storage_backend="s3",
            s3_endpoint_url=f"http://localhost:{port}",
            s3_access_key="fotopronta",
            s3_secret_key="segreto-di-prova",
        )
    finally:
        server.stop()


@pytest.fixture(scope="module")
def s3(s3_settings: Settings) -> S3Storage:
    """The backend ``get_storage`` builds for ``storage_backend=s3``, with both buckets created."""
    storage = get_storage(s3_settings)
    assert isinstance(storage, S3Storage)
    assert ensure_buckets(storage) == [BUCKET_UPLOADS, BUCKET_PROCESSED]
    assert ensure_buckets(storage) == []  # idempotent (the compose job runs on every `up`)
    return storage


def test_put_get_exists_delete(s3: S3Storage) -> None:
    key = new_upload_key("3f1c0e8a-0000-4000-8000-000000000001", "jpg")
    data = b"\xff\xd8\xff" + bytes(range(256)) * 64
    s3.put(BUCKET_UPLOADS, key, data, "image/jpeg")
    assert s3.exists(BUCKET_UPLOADS, key)
    assert s3.get(BUCKET_UPLOADS, key) == data
    head = s3.client.head_object(Bucket=BUCKET_UPLOADS, Key=key)
    assert head["ContentType"] == "image/jpeg"
    assert not s3.exists(BUCKET_PROCESSED, key)  # buckets are separate
    s3.put(BUCKET_UPLOADS, key, b"nuovo", "image/jpeg")  # replaces
    assert s3.get(BUCKET_UPLOADS, key) == b"nuovo"
    s3.delete(BUCKET_UPLOADS, key)
    assert not s3.exists(BUCKET_UPLOADS, key)
    s3.delete(BUCKET_UPLOADS, key)  # deleting a missing object is not an error


def test_missing_object_raises_object_not_found(s3: S3Storage) -> None:
    with pytest.raises(ObjectNotFoundError):
        s3.get(BUCKET_PROCESSED, "nessuno/manca.jpg")


def test_unicode_and_nested_keys(s3: S3Storage) -> None:
    key = "utente/2026/fotò ☀ prodotto.webp"
    s3.put(BUCKET_PROCESSED, key, b"RIFF", "image/webp")
    assert s3.get(BUCKET_PROCESSED, key) == b"RIFF"


def test_unsafe_keys_are_refused(s3: S3Storage) -> None:
    for key in ("../altro/utente.jpg", "a//b.jpg", ""):
        with pytest.raises(ValueError):
            s3.put(BUCKET_UPLOADS, key, b"x", "image/jpeg")


def test_an_unreachable_store_is_an_error_not_a_missing_object(s3_settings: Settings) -> None:
    """``exists`` used to answer ``False`` for any failure (store down, credentials refused)."""
    down = S3Storage(s3_settings.model_copy(update={"s3_endpoint_url": f"http://127.0.0.1:{free_port()}"}))
    with pytest.raises(Exception) as info:
        down.exists(BUCKET_UPLOADS, "u/presente.jpg")
    assert not isinstance(info.value, ObjectNotFoundError)
