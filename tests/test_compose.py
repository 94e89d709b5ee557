"""``docker-compose.yml`` (production) against the Compose Specification's JSON schema (vendored in
``tests/schemas/``) and our own rules: pinned images, health checks, the Temporal UI and the
internal services not published beyond the host's loopback, scalable retouch workers with less CPU
than the API, Temporal's set-up as in its own compose files, search attributes kept in step with the
code. ``docker compose config`` runs too where the compose plugin exists (CI machines without Docker
skip it)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from activities.contracts import JOB_SEARCH_ATTRIBUTES

REPO = Path(__file__).resolve().parent.parent
COMPOSE = REPO / "docker-compose.yml"
SCHEMA = Path(__file__).resolve().parent / "schemas" / "compose-spec.json"

ONE_SHOT_JOBS = {"temporal-schema", "temporal-namespace", "migrate", "s3-buckets"}
PUBLIC = {"proxy"}  # the only service published beyond 127.0.0.1: the reverse proxy in front of the API


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    """The parsed compose file (YAML anchors and merge keys resolved)."""
    return yaml.safe_load(COMPOSE.read_text())


def test_compose_file_matches_the_compose_specification_schema(compose: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text())
    validator = jsonschema.Draft7Validator(schema)
    errors = sorted(validator.iter_errors(compose), key=lambda e: list(e.absolute_path))
    assert not errors, "\n".join(f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in errors)
    print(
        f"docker-compose.yml: valid against the Compose Specification schema ({len(compose['services'])} services)"
    )


def test_every_image_is_pinned_to_a_version(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        image = service.get("image")
        assert image, f"{name}: no image"
        repo, _, tag = image.rpartition(":")
        assert repo and tag and "/" not in tag, f"{name}: {image} has no tag"
        assert tag != "latest" and re.search(r"\d", tag), f"{name}: {image} is not pinned to a version"
        assert not repo.startswith("minio/"), f"{name}: MinIO's images are gone from Docker Hub"


def test_long_running_services_have_health_checks(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        if name in ONE_SHOT_JOBS:
            continue
        check = service.get("healthcheck") or {}
        assert check.get("test") and not check.get("disable"), f"{name}: no health check"


def _published(service: dict[str, Any]) -> list[str]:
    return [
        str(p) if not isinstance(p, dict) else f"{p.get('host_ip', '')}:{p.get('published')}"
        for p in service.get("ports", [])
    ]


def test_only_the_api_is_published_beyond_loopback(compose: dict[str, Any]) -> None:
    """The Temporal UI is published on loopback only: whoever reaches it can signal or terminate every job."""
    ui = compose["services"]["temporal-ui"]
    assert _published(ui) and all(p.startswith("127.0.0.1:") for p in _published(ui))
    for name, service in compose["services"].items():
        if name in PUBLIC:
            continue
        for port in _published(service):
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} beyond the host's loopback"


def test_the_api_sits_behind_a_reverse_proxy_with_stated_limits(compose: dict[str, Any]) -> None:
    """Caddy is the only way in: it publishes 80/443, the API publishes nothing, they share the
    ``edge`` network whose subnet is the only trusted ``X-Forwarded-For`` source, and the Caddyfile
    states the head size, head and request read times, idle keep-alive and body size."""
    services = compose["services"]
    proxy, api = services["proxy"], services["api"]
    assert proxy["image"].startswith("caddy:")
    assert not api.get("ports"), "the API is reached through the proxy only"
    assert "edge" in proxy["networks"] and "edge" in api["networks"]
    subnet = compose["networks"]["edge"]["ipam"]["config"][0]["subnet"]
    assert api["environment"]["FOTOPRONTA_TRUSTED_PROXIES"] == subnet
    caddyfile = (REPO / "infra" / "caddy" / "Caddyfile").read_text()
    assert "./infra/caddy/Caddyfile:/etc/caddy/Caddyfile:ro" in proxy["volumes"]
    for directive in (
        r"read_header \d+s",
        r"read_body \d+m",
        r"idle \d+s",
        r"max_header_size \d+KB",
        r"max_size \d+MB",
        r"reverse_proxy api:8000",
    ):
        assert re.search(directive, caddyfile), f"Caddyfile: no {directive}"


def test_temporal_is_set_up_as_temporals_own_compose_files_do(compose: dict[str, Any]) -> None:
    services = compose["services"]
    images = {name: s["image"].rsplit(":", 1)[0] for name, s in services.items()}
    assert "temporalio/auto-setup" not in images.values()
    assert images["temporal"] == "temporalio/server"
    assert images["temporal-schema"] == images["temporal-namespace"] == "temporalio/admin-tools"
    assert (
        services["temporal"]["depends_on"]["temporal-schema"]["condition"] == "service_completed_successfully"
    )
    assert services["temporal-namespace"]["depends_on"]["temporal"]["condition"] == "service_healthy"
    for app in ("api", "worker-jobs", "worker-retouch"):
        assert (
            services[app]["depends_on"]["temporal-namespace"]["condition"] == "service_completed_successfully"
        )


def test_search_attributes_registered_in_production_match_the_code() -> None:
    script = (REPO / "infra" / "temporal" / "setup-namespace.sh").read_text()
    listed = re.search(r"for name in ([A-Za-z ]+); do", script)
    assert listed, "setup-namespace.sh: search attribute loop not found"
    assert listed.group(1).split() == [key.name for key in JOB_SEARCH_ATTRIBUTES]
    assert "--type Keyword" in script


def test_retouch_workers_scale_and_yield_the_cpu_to_the_api(compose: dict[str, Any]) -> None:
    services = compose["services"]
    retouch = services["worker-retouch"]
    assert "container_name" not in retouch and not retouch.get("ports"), "--scale needs no fixed name or port"
    assert retouch["cpu_shares"] < services["worker-jobs"]["cpu_shares"] < services["api"]["cpu_shares"]
    assert retouch["command"][:3] == ["nice", "-n", "10"]
    from infra.devstack import RETOUCH_NICE

    assert retouch["command"][2] == str(RETOUCH_NICE), "make dev, bench and compose: one nice level"
    for name in ("worker-jobs", "worker-retouch"):
        assert services[name]["environment"]["FOTOPRONTA_WORKER_METRICS_BIND"].endswith(":9464")
    assert services["api"]["environment"]["FOTOPRONTA_LOG_FORMAT"] == "json"


def _compose_plugin() -> str | None:
    docker = shutil.which("docker")
    if not docker:
        return None
    probe = subprocess.run([docker, "compose", "version"], capture_output=True, check=False)
    return docker if probe.returncode == 0 else None


@pytest.mark.skipif(_compose_plugin() is None, reason="docker compose plugin not installed here")
def test_docker_compose_config_accepts_the_file() -> None:
    env = {
        **os.environ,
        "POSTGRES_PASSWORD": "x",
        "S3_ACCESS_KEY": "x",
        "S3_SECRET_KEY": "x",
        "FOTOPRONTA_JWT_SECRET": "x" * 40,
        "FOTOPRONTA_STRIPE_SECRET_KEY": "sk_test_x",
        "FOTOPRONTA_STRIPE_WEBHOOK_SECRET": "whsec_x",
    }
    result = subprocess.run(
        [str(_compose_plugin()), "compose", "-f", str(COMPOSE), "config", "--quiet"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stderr
