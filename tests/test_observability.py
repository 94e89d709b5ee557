"""Operations: the API's Prometheus ``/metrics``, the Temporal SDK's Prometheus
endpoint of the workers, and JSON logs that carry the job id."""

from __future__ import annotations

import dataclasses
import io
import json
import logging
import urllib.request
import uuid

import httpx
import pytest
from temporalio import activity
from temporalio.testing import ActivityEnvironment

from fotopronta.logs import JobIdFilter, configure_logging
from fotopronta.settings import Settings
from infra.ports import free_port


async def test_api_metrics_count_requests_by_route_template() -> None:
    from api.main import create_app

    app = create_app(with_lifespan=False)
    transport = httpx.ASGITransport(app=app, client=("10.0.3.7", 40000))  # Prometheus in the compose network
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        photo = uuid.uuid4()
        assert (await client.get(f"/api/photos/{photo}/download")).status_code == 401
        resp = await client.get("/metrics")
    assert resp.status_code == 200
    assert resp.headers["content-type"].startswith("text/plain")
    text = resp.text
    assert (
        'fotopronta_http_requests_total{method="GET",route="/api/photos/{photo_id}/download",status="401"}'
        in text
    )
    assert "fotopronta_http_request_duration_seconds_bucket" in text
    assert str(photo) not in text  # ids never become labels


async def test_api_metrics_are_not_served_to_the_internet() -> None:
    from api.main import create_app

    app = create_app(with_lifespan=False)
    transport = httpx.ASGITransport(app=app, client=("151.101.65.140", 40000))
    async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
        assert (await client.get("/metrics")).status_code == 404


def test_worker_exports_temporal_sdk_metrics_for_prometheus() -> None:
    from workflows.worker import sdk_runtime

    port = free_port()
    assert sdk_runtime(Settings(worker_metrics_bind=None)) is None
    runtime = sdk_runtime(Settings(worker_metrics_bind=f"127.0.0.1:{port}"))
    assert runtime is not None
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as resp:
        assert resp.status == 200


@pytest.fixture
def json_log() -> io.StringIO:
    """The root logger in ``json`` format, writing to a buffer."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    configure_logging("json")
    buffer = io.StringIO()
    handler = root.handlers[0]
    assert isinstance(handler, logging.StreamHandler)
    handler.setStream(buffer)
    yield buffer
    root.handlers[:], level = saved
    root.setLevel(level)


async def test_json_logs_carry_the_job_id_inside_a_job_activity(json_log: io.StringIO) -> None:
    job_id = str(uuid.uuid4())

    @activity.defn
    def retouch_like() -> None:
        logging.getLogger("fotopronta.activities").info("foto elaborata", extra={"bytes": 1234})

    env = ActivityEnvironment()
    env.info = dataclasses.replace(env.info, workflow_id=f"photo-job-{job_id}")
    env.run(retouch_like)
    logging.getLogger("fotopronta.api").warning("fuori da un lavoro")

    first, second = (json.loads(line) for line in json_log.getvalue().splitlines())
    assert first["message"] == "foto elaborata" and first["job_id"] == job_id and first["bytes"] == 1234
    assert first["level"] == "INFO" and first["logger"] == "fotopronta.activities" and first["time"]
    assert second["job_id"] is None


def test_job_id_filter_reads_temporals_logger_context() -> None:
    record = logging.LogRecord("temporalio.workflow", logging.INFO, __file__, 1, "x", None, None)
    record.temporal_workflow = {"workflow_id": "photo-job-42", "workflow_type": "PhotoJobWorkflow"}
    JobIdFilter().filter(record)
    assert record.job_id == "42"
