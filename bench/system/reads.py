"""Read benchmark: C concurrent clients on ``/api/me`` and the first page of
``/api/photos`` for T seconds against a running stack; prints requests/s and p50/p99 per endpoint.

It starts nothing: point it at a stack (``make dev``, or ``python -m infra.devstack`` on other ports)
and a user. ``--seed N`` first creates a confirmed user with N photo rows (no files; each with a
completed job) directly in the database the ``FOTOPRONTA_*`` settings point to, and uses it::

    FOTOPRONTA_POSTGRES_PORT=5533 .venv/bin/python -m bench.system.reads --base-url http://127.0.0.1:8100 \\
        --seed 300 --clients 16 --seconds 20
    .venv/bin/python -m bench.system.reads --base-url http://127.0.0.1:8000 --email a@b.it --password segreto123

The first page is ``GET /api/photos?limit=24`` (an API without pagination ignores ``limit`` and
returns every photo, so the same command measures a build without pagination for comparison).
Figures depend on the machine's load; no asserts.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
import uuid
from datetime import UTC, datetime, timedelta

import httpx

ENDPOINTS = {"me": ("/api/me", {}), "photos": ("/api/photos", {"limit": "24"})}


def seed_user(n: int) -> tuple[str, str]:
    """Create a confirmed user with ``n`` photos (rows only, a completed AI job each); returns
    ``(email, password)``."""
    from fotopronta.accounts import create_user
    from fotopronta.db import session_scope
    from fotopronta.models import Photo, PhotoProcessingJob

    email, password = f"bench-{uuid.uuid4().hex[:8]}@example.it", "segreto123"
    base = datetime.now(UTC) - timedelta(days=1)
    with session_scope() as session:
        profile = create_user(session, email=email, password=password, first_name="Bench")
        for i in range(n):
            at = base + timedelta(seconds=i)
            photo = Photo(
                user_id=profile.id,
                original_filename=f"prodotto-{i:04d}.jpg",
                file_size=250_000,
                file_format="image/jpeg",
                upload_path=f"{profile.id}/bench-{i}.jpg",
                status="processed",
                created_at=at,
            )
            session.add(photo)
            session.flush()
            session.add(
                PhotoProcessingJob(
                    photo_id=photo.id,
                    user_id=profile.id,
                    job_type="background_removal",
                    status="completed",
                    created_at=at,
                    processing_details={"seo_filename": f"prodotto-bianco-{i:04d}.jpg"},
                )
            )
    return email, password


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0–1) of ``values`` (nearest rank), 0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


async def run(base_url: str, token: str, clients: int, seconds: float) -> dict[str, list[float]]:
    """``clients`` tasks alternating the two endpoints until ``seconds`` pass; latencies in ms per
    endpoint (non-2xx answers are counted under ``errors``)."""
    latencies: dict[str, list[float]] = {name: [] for name in [*ENDPOINTS, "errors"]}
    headers = {"Authorization": f"Bearer {token}"}
    deadline = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=base_url, headers=headers, timeout=60, limits=limits) as http:

        async def client() -> None:
            while time.monotonic() < deadline:
                for name, (path, params) in ENDPOINTS.items():
                    began = time.perf_counter()
                    resp = await http.get(path, params=params)
                    elapsed = (time.perf_counter() - began) * 1000
                    latencies[name if resp.is_success else "errors"].append(elapsed)

        await asyncio.gather(*(client() for _ in range(clients)))
    return latencies


def main() -> None:
    """Parse arguments, log in (or seed a user), run the clients and print the table."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--base-url", default="http://127.0.0.1:8000")
    parser.add_argument("--email")
    parser.add_argument("--password", default="segreto123")
    parser.add_argument("--seed", type=int, default=0, help="create a user with this many photos first")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    email, password = args.email, args.password
    if args.seed:
        email, password = seed_user(args.seed)
    if not email:
        parser.error("--email or --seed N")
    login = httpx.post(
        f"{args.base_url}/api/auth/login", json={"email": email, "password": password}, timeout=60
    )
    login.raise_for_status()
    token = login.json()["access_token"]
    photos = httpx.get(
        f"{args.base_url}/api/photos", params={"limit": 100}, headers={"Authorization": f"Bearer {token}"}
    ).json()
    total = photos["counts"]["total"] if isinstance(photos, dict) else len(photos)
    latencies = asyncio.run(run(args.base_url, token, args.clients, args.seconds))
    print(f"{args.clients} clients, {args.seconds:.0f} s, user with {total} photos, {args.base_url}")
    print("| endpoint | requests | req/s | p50 ms | p99 ms |")
    print("|---|---|---|---|---|")
    for name, values in latencies.items():
        if name == "errors" and not values:
            continue
        print(
            f"| {name} | {len(values)} | {len(values) / args.seconds:.1f} | "
            f"{statistics.median(values) if values else 0:.1f} | {percentile(values, 0.99):.1f} |"
        )


if __name__ == "__main__":
    main()
