"""The retouch activity (task queue ``retouch``): original → ``retouch`` pipeline → stored results."""

from __future__ import annotations

import contextvars
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy.exc import NoResultFound, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.contracts import BAD_IMAGE_ERROR, RetouchInput, RetouchOutput
from activities.delivery import job_gone
from fotopronta.models import Photo
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, ObjectStorage, result_key
from fotopronta.thumbnails import store_thumbnail
from retouch.errors import BadImageError

HEARTBEAT_INTERVAL_S = 5.0
"""Seconds between heartbeats while the pipeline runs (well under the workflow's 30 s timeout)."""

DB_WAIT_S = 120.0
"""Seconds the activity waits for an unreachable database before letting the attempt fail: a short
database outage (a restart, a fail-over) must not use up the retouch's 3 attempts."""


@contextmanager
def heartbeating(interval_s: float = HEARTBEAT_INTERVAL_S) -> Iterator[None]:
    """Heartbeat from a background thread while the block runs, so a dead worker is noticed by its
    heartbeat timeout and the attempt moves to another worker (the pipeline is one long call)."""
    stop = threading.Event()
    context = contextvars.copy_context()

    def beat() -> None:
        while not stop.wait(interval_s):
            context.run(activity.heartbeat)

    thread = threading.Thread(target=beat, name="retouch-heartbeat", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()


class RetouchActivities:
    """Holds the storage client, the session factory, the rembg model name and the directory of its
    file (``None``: the process's own, :class:`retouch.models.NetworkConfig`); the onnxruntime session
    itself is created once per process by :func:`retouch.warm_up` / the first photo."""

    def __init__(
        self,
        sessions: sessionmaker[Session],
        storage: ObjectStorage,
        model_name: str,
        models_dir: Path | None = None,
    ) -> None:
        self.sessions = sessions
        self.storage = storage
        self.model_name = model_name
        self.models_dir = models_dir

    def _upload_path(self, photo_id: str, job_id: str) -> tuple[str, str]:
        """The photo's storage key and original file name; while the database cannot be reached, try
        again every second (heartbeating) for up to :data:`DB_WAIT_S` seconds instead of failing the
        attempt at once.

        Raises:
            ApplicationError: ``JobGoneError`` (non-retryable) when the photo was deleted.
        """
        deadline = time.monotonic() + DB_WAIT_S
        while True:
            try:
                with self.sessions() as session:
                    photo = session.get_one(Photo, uuid.UUID(photo_id))
                    return photo.upload_path, photo.original_filename
            except NoResultFound as exc:
                raise job_gone(job_id) from exc
            except OperationalError:
                if time.monotonic() >= deadline:
                    raise
                activity.heartbeat("waiting for the database")
                time.sleep(1.0)

    @activity.defn(name="retouch_photo")
    def retouch_photo(self, inp: RetouchInput) -> RetouchOutput:
        """Read the original, run the pipeline with the job's options, store JPEG and WebP (and, with
        ``inp.cutout``, the transparent cutout as PNG) under
        ``processed-photos/{user_id}/{job_id}.{jpg,webp,png}`` (:func:`fotopronta.storage.result_key`:
        unique per job; the SEO name in ``details["seo_filename"]`` is only the download name).

        Raises:
            ApplicationError: type ``BadImageError``, non-retryable, when the image cannot be decoded
                or is refused (message in Italian). Other errors are retried by the workflow's policy.
        """
        # the pipeline (numpy, scipy, onnxruntime) loads on the first photo, not on import: the
        # workflow module imports this class for its typed activity reference, and the API and the
        # photo-jobs worker import the workflow module (tests/test_lean_imports.py)
        from retouch.models import NetworkConfig
        from retouch.pipeline import RetouchOptions
        from retouch.pipeline import retouch as run_pipeline

        upload_path, original_filename = self._upload_path(inp.photo_id, inp.job_id)
        original = self.storage.get(BUCKET_UPLOADS, upload_path)
        activity.heartbeat("decoded")
        options = RetouchOptions(
            preset=inp.preset,
            shadow=inp.shadow,
            background_category=inp.background_category,
            brand=inp.brand,
            category=inp.category,
            short_id=inp.job_id[:8],
            original_filename=original_filename,
        )
        try:
            with heartbeating():
                result = run_pipeline(
                    original,
                    options,
                    model_name=self.model_name,
                    cutout=inp.cutout,
                    network=NetworkConfig(models_dir=self.models_dir),
                )
        except BadImageError as exc:
            raise ApplicationError(str(exc), type=BAD_IMAGE_ERROR, non_retryable=True) from exc
        # keys from ids, never from the SEO name (cut at 90 characters it can lose the short id and
        # two photos would share one file); the SEO name is the download name only
        jpeg_key = result_key(inp.user_id, inp.job_id, "jpg")
        webp_key = result_key(inp.user_id, inp.job_id, "webp")
        self.storage.put(BUCKET_PROCESSED, jpeg_key, result.jpeg, "image/jpeg")
        self.storage.put(BUCKET_PROCESSED, webp_key, result.webp, "image/webp")
        store_thumbnail(self.storage, BUCKET_PROCESSED, jpeg_key, result.jpeg)  # /photos preview
        if inp.cutout:  # the public API's transparent cutout (deleted with the photo's other files)
            cutout = result.cutout_png()
            self.storage.put(
                BUCKET_PROCESSED, result_key(inp.user_id, inp.job_id, "png"), cutout, "image/png"
            )
        return RetouchOutput(
            jpeg_key=jpeg_key,
            webp_key=webp_key,
            width=result.width,
            height=result.height,
            details=dict(result.details),
        )
