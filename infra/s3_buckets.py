"""``python -m infra.s3_buckets``: create the two buckets (``user-uploads``, ``processed-photos``) on the
configured S3-compatible store if they are missing (the ``s3-buckets`` job of docker-compose.yml)."""

from __future__ import annotations

import logging
import time

from fotopronta.settings import Settings, get_settings
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, S3Storage

log = logging.getLogger("fotopronta.s3_buckets")


def ensure_buckets(
    storage: S3Storage, buckets: tuple[str, ...] = (BUCKET_UPLOADS, BUCKET_PROCESSED)
) -> list[str]:
    """Create each of ``buckets`` that does not exist yet; returns the names created."""
    existing = {b["Name"] for b in storage.client.list_buckets().get("Buckets", [])}
    region = storage.client.meta.region_name
    # outside us-east-1, S3 wants the region named in the request (else IllegalLocationConstraint)
    where = (
        {} if region in (None, "us-east-1") else {"CreateBucketConfiguration": {"LocationConstraint": region}}
    )
    created = []
    for bucket in buckets:
        if bucket not in existing:
            storage.client.create_bucket(Bucket=bucket, **where)
            created.append(bucket)
    return created


def main(settings: Settings | None = None, *, attempts: int = 30) -> None:
    """Create the buckets, retrying every 2 s while the store starts.

    Raises:
        Exception: the store still refuses after ``attempts`` tries.
    """
    logging.basicConfig(level=logging.INFO)
    storage = S3Storage(settings or get_settings())
    for attempt in range(1, attempts + 1):
        try:
            created = ensure_buckets(storage)
            log.info("buckets ready (created: %s)", ", ".join(created) or "none")
            return
        except Exception as exc:
            if attempt == attempts:
                raise
            log.warning("S3 not ready (%s), retrying", exc.__class__.__name__)
            time.sleep(2)


if __name__ == "__main__":
    main()
