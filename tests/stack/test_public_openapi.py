"""The public API's OpenAPI document and reference: ``/v1/openapi.json`` and ``/v1/docs`` are served in
production too; Schemathesis fuzzes every ``/v1`` operation with a real key against a live server on a
short budget: no 5xx, no status the document does not list, every response matching its schema and
content type."""

from __future__ import annotations

import asyncio

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given, settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)
from schemathesis.generation import GenerationMode

from tests.utils.factories import login, make_user, settings_env
from tests.utils.live_server import LiveServer

pytestmark = pytest.mark.stack

EXAMPLES_PER_OPERATION = 25
"""Hypothesis examples per operation: the short budget of ``make test`` (about a minute in all)."""


async def test_reference_and_document_are_served_in_production(api: httpx.AsyncClient) -> None:
    from api.main import create_app

    with settings_env(environment="production", jwt_secret="x" * 48, public_url="https://fotopronta.example"):
        app = create_app(with_lifespan=False)
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="https://fotopronta.example"
    ) as client:
        doc = await client.get("/v1/openapi.json")
        assert doc.status_code == 200
        assert doc.json()["info"]["title"] == "FotoPronta API"
        assert {"/jobs", "/jobs/{job_id}", "/jobs/{job_id}/result", "/batches", "/account"} <= set(
            doc.json()["paths"]
        )
        page = await client.get("/v1/docs")
        assert page.status_code == 200 and "swagger-ui" in page.text and "/v1/openapi.json" in page.text
        assert "cdn.jsdelivr.net" in page.headers["content-security-policy"]
        assert (await client.get("/v1.0/openapi.json")).status_code == 200


async def test_schemathesis_finds_nothing(live_api: LiveServer) -> None:
    email, password = make_user()
    web = await login(live_api.client, email, password)
    secret = (await live_api.client.post("/api/api-keys", headers=web, json={"name": "fuzz"})).json()[
        "secret"
    ]
    auth = {"Authorization": f"Bearer {secret}"}
    base = f"{live_api.base_url}/v1"
    checks = [
        not_a_server_error,
        status_code_conformance,
        content_type_conformance,
        response_schema_conformance,
    ]
    failures: list[str] = []

    def fuzz() -> int:
        schema = schemathesis.openapi.from_url(f"{base}/openapi.json")
        calls = 0
        for result in schema.get_all_operations():
            operation = result.ok()

            @given(case=operation.as_strategy(generation_mode=GenerationMode.POSITIVE))
            @settings(
                max_examples=EXAMPLES_PER_OPERATION,
                deadline=None,
                phases=[Phase.explicit, Phase.generate],
                suppress_health_check=list(HealthCheck),
                database=None,
            )
            def check(case: schemathesis.Case) -> None:
                nonlocal calls
                calls += 1
                case.call_and_validate(base_url=base, headers=auth, checks=checks, timeout=30)

            try:
                check()
            except Exception as exc:  # collect every operation's failure, then report them together
                failures.append(f"{operation.label}: {exc}")
        return calls

    with settings_env(api_rate_limit="100000/minute", fetch_timeout_s="1"):
        calls = await asyncio.to_thread(fuzz)
    assert not failures, "\n\n".join(failures)
    assert calls >= 7 * 5  # every operation was really exercised
