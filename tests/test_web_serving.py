"""How the API serves the built web app and the crawler files, without the stack."""

from __future__ import annotations

import gzip
from pathlib import Path

import httpx
import pytest
from fastapi import FastAPI

from api.main import _mount_seo, _mount_web
from fotopronta.links import RequestOriginMiddleware


@pytest.fixture
def web(tmp_path: Path) -> httpx.AsyncClient:
    dist = tmp_path / "dist"
    (dist / "assets").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>FotoPronta</title><div id=root></div>")
    script = "console.log('landing');" * 100
    (dist / "assets" / "index-abc123.js").write_text(script)
    (dist / "assets" / "index-abc123.js.gz").write_bytes(gzip.compress(script.encode()))
    app = FastAPI()
    app.add_middleware(RequestOriginMiddleware)
    _mount_seo(app)
    _mount_web(app, dist)
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8123")


async def test_robots_and_sitemap_are_real_files_for_the_serving_address(web: httpx.AsyncClient) -> None:
    robots = await web.get("/robots.txt")
    assert robots.status_code == 200
    assert robots.headers["content-type"].startswith("text/plain")
    assert "User-agent: *" in robots.text.splitlines()
    assert "Sitemap: http://127.0.0.1:8123/sitemap.xml" in robots.text.splitlines()
    sitemap = await web.get("/sitemap.xml")
    assert sitemap.headers["content-type"].startswith("application/xml")
    assert "<loc>http://127.0.0.1:8123/privacy-policy</loc>" in sitemap.text
    assert "<html" not in robots.text + sitemap.text


async def test_scripts_travel_gzipped_and_hashed_assets_are_cached_for_good(web: httpx.AsyncClient) -> None:
    response = await web.get("/assets/index-abc123.js", headers={"Accept-Encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["content-type"].startswith("text/javascript")
    assert int(response.headers["content-length"]) < 200
    assert response.text.startswith("console.log('landing');")  # httpx decodes it
    assert "immutable" in response.headers["cache-control"]
    plain = await web.get("/assets/index-abc123.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    assert plain.text == response.text
    shell = await web.get("/dashboard")
    assert shell.headers["cache-control"] == "no-cache"
    assert "FotoPronta" in shell.text
