"""Job error codes: migration 0008 gives every failed or rejected job written before codes existed the
code its message implies, agreeing with the fallback the reprocess rule uses for a failure without a
code (:func:`fotopronta.domain.error_code_from_message`); and the rule itself reads the code first.

The stack tests in ``test_reprocess_and_job_types.py`` check that a failing workflow stores its code and
that the API and the workflow's ``reprocess`` update follow it."""

from __future__ import annotations

import importlib.util
import uuid
from types import ModuleType

import pytest
from temporalio.testing import ActivityEnvironment

from activities.contracts import CANCELLED_BY_SELLER_MESSAGE, FailJobInput
from activities.jobs import JobActivities
from fotopronta.db import MIGRATIONS_DIR, get_engine, session_factory
from fotopronta.domain import (
    REPROCESSABLE_ERROR_CODES,
    RETRYABLE_ERROR_MARKERS,
    JobErrorCode,
    JobStatus,
    can_reprocess,
    error_code_from_message,
)
from fotopronta.models import PhotoProcessingJob
from fotopronta.settings import Settings
from fotopronta.storage import get_storage
from tests.utils.jobs import job_row, new_photo_job, new_user

pytestmark = pytest.mark.stack

TIMEOUT_MESSAGE = "Elaborazione non completata in tempo (processing timeout): puoi riprovare."
SERVER_MESSAGE = "Errore elaborazione dopo 3 tentativi (server error): onnxruntime: out of memory"


def _migration_0008() -> ModuleType:
    path = MIGRATIONS_DIR / "versions" / "0008_job_error_codes.py"
    spec = importlib.util.spec_from_file_location("migration_0008", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _legacy_job(
    user_id: uuid.UUID, status: JobStatus, message: str | None, code: str | None = None
) -> uuid.UUID:
    """A job row as written before codes existed (``error_code`` NULL unless ``code``); its id."""
    sessions = session_factory()
    _, job_id = new_photo_job(sessions, get_storage(), user_id)
    with sessions.begin() as session:
        job = session.get_one(PhotoProcessingJob, job_id)
        job.status, job.error_message, job.error_code = status.value, message, code
    return job_id


def test_backfill_classifies_each_writer_of_a_failure_once(postgres: Settings) -> None:  # noqa: ARG001
    migration = _migration_0008()
    user_id = new_user(session_factory())
    expected = {
        _legacy_job(user_id, JobStatus.failed, TIMEOUT_MESSAGE): JobErrorCode.timeout,
        _legacy_job(user_id, JobStatus.failed, SERVER_MESSAGE): JobErrorCode.processing_failed,
        _legacy_job(
            user_id, JobStatus.failed, "Quota Exceeded dal fornitore"
        ): JobErrorCode.processing_failed,
        _legacy_job(user_id, JobStatus.failed, "Impossibile leggere l'immagine"): JobErrorCode.bad_image,
        _legacy_job(user_id, JobStatus.failed, None): JobErrorCode.bad_image,
        _legacy_job(user_id, JobStatus.failed, CANCELLED_BY_SELLER_MESSAGE): JobErrorCode.cancelled_by_client,
        _legacy_job(user_id, JobStatus.failed, migration.LOST_MESSAGE): JobErrorCode.result_lost,
        _legacy_job(user_id, JobStatus.rejected_human, "Foto troppo sfocata"): JobErrorCode.rejected,
    }
    # a code already written is kept, whatever the message says
    coded = _legacy_job(user_id, JobStatus.failed, SERVER_MESSAGE, JobErrorCode.bad_image.value)
    untouched = {
        _legacy_job(user_id, JobStatus.waiting_for_credits, "Crediti terminati"),
        _legacy_job(user_id, JobStatus.completed, None),
    }

    with get_engine().begin() as conn:
        assert migration.backfill(conn) >= len(expected)
    with get_engine().begin() as conn:
        assert migration.backfill(conn) == 0  # once: every ended job now has its code

    sessions = session_factory()
    for job_id, code in expected.items():
        job = job_row(sessions, job_id)
        assert job.error_code == code, (job.error_message, job.error_code)
        # the backfill and the rule's fallback for a failure without a code agree on reprocessing
        by_message = can_reprocess(job.status, None, job.error_message)
        assert can_reprocess(job.status, job.error_code, job.error_message) == by_message, job.error_message
    assert job_row(sessions, coded).error_code == JobErrorCode.bad_image
    for job_id in untouched:
        assert job_row(sessions, job_id).error_code is None


def test_the_markers_of_the_migration_are_the_rules() -> None:
    """The migration's frozen markers are SPEC §4's, and each marker maps to a reprocessable code."""
    migration = _migration_0008()
    assert {"processing timeout", *migration.OTHER_MARKERS} == set(RETRYABLE_ERROR_MARKERS)
    for marker in RETRYABLE_ERROR_MARKERS:
        assert error_code_from_message(f"Errore: {marker.upper()}") in REPROCESSABLE_ERROR_CODES
    assert error_code_from_message("Impossibile leggere l'immagine") is None


@pytest.mark.parametrize(
    ("status", "code", "message", "allowed"),
    [
        (JobStatus.failed, JobErrorCode.timeout, "Tempo scaduto", True),
        (JobStatus.failed, JobErrorCode.processing_failed, None, True),
        (JobStatus.failed, JobErrorCode.bad_image, SERVER_MESSAGE, False),  # the code wins over the text
        (JobStatus.failed, JobErrorCode.cancelled_by_client, TIMEOUT_MESSAGE, False),
        (JobStatus.failed, None, SERVER_MESSAGE, True),  # no code: the message's marker decides
        (JobStatus.failed, None, "Impossibile leggere l'immagine", False),
        (JobStatus.rejected_human, JobErrorCode.timeout, TIMEOUT_MESSAGE, False),  # only a failed job
        (JobStatus.completed, None, None, False),
    ],
)
def test_can_reprocess_reads_the_code_first(
    status: JobStatus, code: JobErrorCode | None, message: str | None, allowed: bool
) -> None:
    assert can_reprocess(status, code, message) is allowed


@pytest.mark.parametrize(
    ("message", "code", "stored"),
    [
        ("Impossibile leggere l'immagine", JobErrorCode.bad_image.value, JobErrorCode.bad_image),
        (
            SERVER_MESSAGE,
            JobErrorCode.bad_image.value,
            JobErrorCode.bad_image,
        ),  # the code is written as given
        # an input without a code (scheduled by a worker that predates codes): read from the message
        (TIMEOUT_MESSAGE, None, JobErrorCode.timeout),
        (SERVER_MESSAGE, None, JobErrorCode.processing_failed),
        ("Impossibile leggere l'immagine", None, JobErrorCode.bad_image),
    ],
)
def test_fail_job_writes_the_message_and_the_code(
    postgres: Settings,  # noqa: ARG001
    message: str,
    code: str | None,
    stored: JobErrorCode,
) -> None:
    sessions = session_factory()
    user_id = new_user(sessions)
    _, job_id = new_photo_job(sessions, get_storage(), user_id)
    activities = JobActivities(sessions)
    for _ in range(2):  # idempotent: a retried activity writes the same row
        ActivityEnvironment().run(activities.fail_job, FailJobInput(str(job_id), message, code))
    job = job_row(sessions, job_id)
    assert (job.status, job.error_message, job.error_code) == ("failed", message, stored)
