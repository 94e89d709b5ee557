"""Logging set-up shared by the API and the workers.

``log_format=json`` (production, docker-compose.yml): one JSON object per line (python-json-logger)
with ``time``, ``level``, ``logger``, ``message``, any ``extra`` fields, and ``job_id`` whenever the
record comes from inside a photo-job workflow or activity (taken from the workflow id
``photo-job-{job_id}``) or a caller passed ``extra={"job_id": …}``. ``text`` (default): the classic
one-line format, with ``[job …]`` when a job id is known.
"""

from __future__ import annotations

import logging
from typing import Any

JOB_WORKFLOW_PREFIX = "photo-job-"


def _job_id_from_temporal() -> str | None:
    """The job id of the photo-job activity running in this context, if any."""
    try:
        from temporalio import activity
    except ImportError:  # pragma: no cover - temporalio is a dependency
        return None
    if not activity.in_activity():
        return None
    workflow_id = activity.info().workflow_id or ""
    return (
        workflow_id.removeprefix(JOB_WORKFLOW_PREFIX) if workflow_id.startswith(JOB_WORKFLOW_PREFIX) else None
    )


class JobIdFilter(logging.Filter):
    """Adds ``record.job_id``: from ``extra``, from Temporal's ``temporal_activity``/``temporal_workflow``
    context (the SDK's activity and workflow loggers), or from the activity running in this thread."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Always keeps the record; only adds the attribute."""
        job_id: Any = getattr(record, "job_id", None)
        if job_id is None:
            for attr in ("temporal_activity", "temporal_workflow"):
                info = getattr(record, attr, None)
                workflow_id = info.get("workflow_id", "") if isinstance(info, dict) else ""
                if workflow_id.startswith(JOB_WORKFLOW_PREFIX):
                    job_id = workflow_id.removeprefix(JOB_WORKFLOW_PREFIX)
                    break
        if job_id is None:
            job_id = _job_id_from_temporal()
        record.job_id = job_id
        return True


class _TextFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        text = super().format(record)
        job_id = getattr(record, "job_id", None)
        return f"{text} [job {job_id}]" if job_id else text


def configure_logging(log_format: str = "text", level: int = logging.INFO) -> None:
    """Configure the root logger (and uvicorn's) for ``log_format`` ``json`` or ``text``."""
    handler = logging.StreamHandler()
    handler.addFilter(JobIdFilter())
    if log_format == "json":
        from pythonjsonlogger.json import JsonFormatter

        handler.setFormatter(
            JsonFormatter(
                "{levelname}{name}{message}{job_id}",
                style="{",
                rename_fields={"levelname": "level", "name": "logger"},
                timestamp="time",
            )
        )
    else:
        handler.setFormatter(_TextFormatter("%(asctime)s %(name)s %(levelname)s %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        logger = logging.getLogger(name)
        logger.handlers[:] = []
        logger.propagate = True
