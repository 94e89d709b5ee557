"""Object storage behind one interface: a local directory (development, tests) or S3/MinIO (boto3).

Buckets (SPEC §3 "Storage buckets"): ``user-uploads`` (originals) and ``processed-photos``
(results). Keys are ``{user_id}/{timestamp}-{random}.{ext}`` for uploads and
``{user_id}/{job_id}.{jpg,webp}`` for AI results (:func:`result_key`): unique per job, never derived
from the SEO name, which is only the download name (a SEO name cut at 90 characters can lose its short id, so two photos
would share one file).
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path
from typing import Protocol

from fotopronta.settings import Settings, get_settings

BUCKET_UPLOADS = "user-uploads"
BUCKET_PROCESSED = "processed-photos"


class ObjectNotFoundError(FileNotFoundError):
    """The requested object does not exist in the bucket."""


class ObjectStorage(Protocol):
    """Minimal object-store interface used by the API and the activities."""

    def put(self, bucket: str, key: str, data: bytes, content_type: str) -> None:
        """Store ``data`` (bytes) under ``bucket/key``, replacing any previous object."""

    def get(self, bucket: str, key: str) -> bytes:
        """Return the object's bytes. Raises :class:`ObjectNotFoundError`."""

    def delete(self, bucket: str, key: str) -> None:
        """Delete the object; deleting a missing object is not an error."""

    def exists(self, bucket: str, key: str) -> bool:
        """Whether ``bucket/key`` exists."""


def _safe_key(key: str) -> str:
    parts = [p for p in key.split("/") if p not in ("", ".", "..")]
    if not parts or len(parts) != len(key.split("/")):
        raise ValueError(f"invalid object key: {key!r}")
    return "/".join(parts)


class LocalStorage:
    """Objects as files under ``root/{bucket}/{key}`` (writes are atomic via rename)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, bucket: str, key: str) -> Path:
        return self.root / bucket / _safe_key(key)

    def put(self, bucket: str, key: str, data: bytes, content_type: str) -> None:  # noqa: ARG002
        path = self._path(bucket, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(4)}.part")
        tmp.write_bytes(data)
        tmp.replace(path)

    def get(self, bucket: str, key: str) -> bytes:
        try:
            return self._path(bucket, key).read_bytes()
        except FileNotFoundError as exc:
            raise ObjectNotFoundError(f"{bucket}/{key}") from exc

    def delete(self, bucket: str, key: str) -> None:
        self._path(bucket, key).unlink(missing_ok=True)

    def exists(self, bucket: str, key: str) -> bool:
        return self._path(bucket, key).is_file()


class S3Storage:
    """Objects in S3 or MinIO through boto3; bucket names are used as they are."""

    def __init__(self, settings: Settings) -> None:
        import boto3

        self.client = boto3.client(
            "s3",
            endpoint_url=settings.s3_endpoint_url,
            aws_access_key_id=settings.s3_access_key,
            aws_secret_access_key=settings.s3_secret_key,
            region_name=settings.s3_region,
        )

    def put(self, bucket: str, key: str, data: bytes, content_type: str) -> None:
        self.client.put_object(Bucket=bucket, Key=_safe_key(key), Body=data, ContentType=content_type)

    def get(self, bucket: str, key: str) -> bytes:
        try:
            return self.client.get_object(Bucket=bucket, Key=_safe_key(key))["Body"].read()
        except self.client.exceptions.NoSuchKey as exc:
            raise ObjectNotFoundError(f"{bucket}/{key}") from exc

    def delete(self, bucket: str, key: str) -> None:
        self.client.delete_object(Bucket=bucket, Key=_safe_key(key))

    def exists(self, bucket: str, key: str) -> bool:
        from botocore.exceptions import ClientError

        try:
            self.client.head_object(Bucket=bucket, Key=_safe_key(key))
            return True
        except ClientError as exc:
            # only "not found" means absent; an unreachable store or refused credentials must not
            # read as a missing object
            if exc.response.get("Error", {}).get("Code") in ("404", "NoSuchKey", "NotFound"):
                return False
            raise


def get_storage(settings: Settings | None = None) -> ObjectStorage:
    """The configured storage backend (``storage_backend`` setting)."""
    settings = settings or get_settings()
    if settings.storage_backend == "s3":
        return S3Storage(settings)
    return LocalStorage(settings.local_storage_dir)


def new_upload_key(user_id: object, ext: str) -> str:
    """``{user_id}/{timestamp_ms}-{random}.{ext}`` (SPEC §7 Storage upload path)."""
    ext = (ext or "bin").lower().lstrip(".")
    return f"{user_id}/{int(time.time() * 1000)}-{secrets.token_hex(6)}.{ext}"


def result_key(user_id: object, job_id: object, ext: str) -> str:
    """``{user_id}/{job_id}.{ext}``: the key of an AI job's result in ``processed-photos``.

    Unique per job (the job id is a UUID), so no two photos can ever share a result file; the SEO
    name is only the download name (``Content-Disposition``).
    """
    return f"{user_id}/{job_id}.{ext.lower().lstrip('.')}"
