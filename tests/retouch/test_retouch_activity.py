"""The retouch activity passes the pipeline's confidence and review flag on to the job row."""

from __future__ import annotations

import uuid
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from retouch_helpers import needs_model
from retouch_images import product_photo
from temporalio.testing import ActivityEnvironment

from activities.contracts import RetouchInput
from activities.retouch import RetouchActivities
from fotopronta.storage import BUCKET_PROCESSED, BUCKET_UPLOADS, LocalStorage


class _OnePhotoSession:
    """Stands in for a SQLAlchemy session that knows one photo (the activity reads its path and name)."""

    def __init__(self, upload_path: str) -> None:
        self.photo = SimpleNamespace(upload_path=upload_path, original_filename="borsa.jpg")

    def __enter__(self) -> _OnePhotoSession:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def get_one(self, _model: Any, _id: uuid.UUID) -> SimpleNamespace:
        return self.photo


@needs_model
def test_activity_details_carry_confidence_and_needs_review(tmp_path: Path):
    storage = LocalStorage(tmp_path)
    user_id, job_id, photo_id = str(uuid.uuid4()), str(uuid.uuid4()), str(uuid.uuid4())
    data, _ = product_photo(480, 360)
    storage.put(BUCKET_UPLOADS, f"{user_id}/borsa.jpg", data, "image/jpeg")
    acts = RetouchActivities(
        lambda: _OnePhotoSession(f"{user_id}/borsa.jpg"),  # type: ignore[arg-type]
        storage,
        "u2netp",
    )
    out = ActivityEnvironment().run(
        acts.retouch_photo, RetouchInput(job_id=job_id, photo_id=photo_id, user_id=user_id, preset="amazon")
    )
    # RetouchOutput.details is what complete_job stores as the job's processing_details
    assert isinstance(out.details["confidence"], float) and 0.0 <= out.details["confidence"] <= 1.0
    assert isinstance(out.details["needs_review"], bool)
    assert storage.get(BUCKET_PROCESSED, out.jpeg_key)[:2] == b"\xff\xd8"
