"""Upload and download attacks against a running FotoPronta stack.

Run it against ``make dev`` (or ``python -m infra.devstack`` on other ports)::

    python -m tests.attack.uploads --base-url http://localhost:8000 --email giulia@example.it --password segreto123

Without ``--email`` it signs up a fresh client and confirms it through the development outbox
(``GET /api/dev/mail``). With ``--designer-email``/``--designer-password`` (a graphic or admin account,
e.g. from ``fotopronta create-user --role graphic``) it also takes the unicode-named photo as a designer
and downloads its original. It prints one line per attack, ``expected`` vs ``got``, and exits 1 when
any attack got something other than expected.

Attacks:

- ``bomb-png``: a ~321 KB PNG of 10500×10500 px (110 MP) sent as ``image/png``; if stored, its
  thumbnail is requested once and timed (today the API decodes it: ~1 GB, seconds of CPU);
- ``text-as-jpg``, ``pdf``, ``svg``, ``empty``: a text file named ``.jpg``, a PDF, an SVG with a script
  and a 0-byte file, each sent with an ``image/*`` Content-Type;
- ``unicode-name``: a real JPEG named ``fotò_€_😀 "citazione".jpg`` (accepted; as a designer, the
  original's download must carry RFC 6266 ``filename=``/``filename*=``);
- ``headers``: the security headers on ``/``, ``/api/me`` and a download.
"""

from __future__ import annotations

import argparse
import io
import struct
import subprocess
import sys
import time
import urllib.parse
import uuid
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import httpx

REFUSED = "400, nothing stored"


@dataclass
class Outcome:
    """One attack's line: what a safe stack answers and what this one did."""

    name: str
    expected: str
    got: str
    ok: bool

    def line(self) -> str:
        """``OK|FAIL  name  expected: …  got: …``."""
        return (
            f"{'OK  ' if self.ok else 'FAIL'}  {self.name:<14} expected: {self.expected:<42} got: {self.got}"
        )


def bomb_png(width: int = 10_500, height: int = 10_500) -> bytes:
    """A valid RGB PNG of ``width``×``height`` px whose pixels are all black: the zlib stream of
    ~330 MB of zeros is ~320 KB, so the file is tiny and decoding it costs width×height×3 bytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    row = b"\x00" * (1 + width * 3)  # filter byte 0 + RGB
    comp = zlib.compressobj(9)
    parts = [comp.compress(row) for _ in range(height)]
    parts.append(comp.flush())
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", b"".join(parts)) + chunk(b"IEND", b"")


def small_jpeg() -> bytes:
    """A 320×240 JPEG of a red ellipse on grey (a product shot the pipeline can process)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 240), (150, 150, 150))
    ImageDraw.Draw(img).ellipse((90, 40, 230, 200), fill=(200, 40, 40))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=90)
    return buf.getvalue()


PDF = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\n"
    b"trailer<</Root 1 0 R>>\n%%EOF\n"
)
SVG = (
    b'<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">'
    b"<script>alert(document.cookie)</script><rect width='10' height='10'/></svg>"
)
UNICODE_NAME = 'fotò_€_😀 "citazione".jpg'
SECURITY_HEADERS = ("content-security-policy", "x-content-type-options", "x-frame-options", "referrer-policy")


class Attacker:
    """A signed-in client (and optionally a designer) against ``base_url``."""

    def __init__(self, base_url: str, timeout_s: float) -> None:
        self.http = httpx.Client(base_url=base_url.rstrip("/"), timeout=timeout_s)
        self.headers: dict[str, str] = {}

    def login(self, email: str, password: str) -> dict[str, str]:
        """Bearer header for ``email``. Raises: SystemExit on a failed login."""
        resp = self.http.post("/api/auth/login", json={"email": email, "password": password})
        if resp.status_code != 200:
            raise SystemExit(f"login {email}: {resp.status_code} {resp.text}")
        return {"Authorization": f"Bearer {resp.json()['access_token']}"}

    def signup(self) -> tuple[str, str]:
        """Sign up a fresh client and confirm it from the development outbox; returns (email, password)."""
        email, password = f"attacco-{uuid.uuid4().hex[:8]}@example.it", "segreto123"
        resp = self.http.post(
            "/api/auth/signup",
            json={"email": email, "password": password, "first_name": "Attacco", "last_name": "Test"},
        )
        if resp.status_code not in (200, 201):
            raise SystemExit(f"signup: {resp.status_code} {resp.text}")
        mail = self.http.get("/api/dev/mail", params={"to": email}).json()
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(mail[0]["links"][0]).query)
        self.http.post(
            "/api/auth/verify", json={"token_hash": query["token_hash"][0], "type": query["type"][0]}
        )
        return email, password

    def photo_ids(self) -> set[str]:
        """Ids of the client's photos."""
        return {
            p["id"]
            for p in self.http.get("/api/photos", headers=self.headers, params={"limit": 100}).json()["items"]
        }

    def credits(self) -> int:
        """The client's balance."""
        return int(self.http.get("/api/me", headers=self.headers).json()["credits_remaining"])

    def upload(
        self, name: str, data: bytes, content_type: str, **form: str
    ) -> tuple[httpx.Response, set[str], int]:
        """POST one file; returns the response, the new photo ids and the credits spent/reserved."""
        before_ids, before_credits = self.photo_ids(), self.credits()
        resp = self.http.post(
            "/api/photos", headers=self.headers, files=[("files", (name, data, content_type))], data=form
        )
        new = self.photo_ids() - before_ids
        return resp, new, before_credits - self.credits()

    def refused(self, name: str, filename: str, data: bytes, content_type: str) -> Outcome:
        """Upload that must be refused with 400 and leave no photo and no credit behind."""
        resp, new, spent = self.upload(filename, data, content_type)
        detail = _detail(resp)
        got = f"{resp.status_code}{' ' + detail if detail else ''}, photos +{len(new)}, credits -{spent}"
        extra = ""
        if new and name == "bomb-png":
            extra = self.thumbnail_cost(next(iter(new)))
        ok = resp.status_code == 400 and not new and spent == 0
        return Outcome(name, f"{REFUSED}, no credit", got + extra, ok)

    def thumbnail_cost(self, photo_id: str) -> str:
        """Time one thumbnail request of a stored photo."""
        start = time.monotonic()
        resp = self.http.get(f"/api/photos/{photo_id}/thumbnail", headers=self.headers)
        return f"; thumbnail {resp.status_code} in {time.monotonic() - start:.1f} s"

    def wait_done(self, photo_id: str, timeout_s: float = 240) -> str:
        """Poll until the photo's latest job leaves the running states; returns its status."""
        deadline = time.monotonic() + timeout_s
        status = "?"
        while time.monotonic() < deadline:
            photos = self.http.get("/api/photos", headers=self.headers, params={"limit": 100}).json()["items"]
            photo = next((p for p in photos if p["id"] == photo_id), None)
            if photo and photo["jobs"]:
                status = photo["jobs"][-1]["status"]
                if status in ("completed", "failed", "pending_human", "completed_human", "rejected_human"):
                    return str(status)
            time.sleep(1)
        return status


def _detail(resp: httpx.Response) -> str:
    try:
        body: Any = resp.json()
    except ValueError:
        return ""
    return f"'{body.get('detail')}'" if isinstance(body, dict) and body.get("detail") else ""


def _missing_headers(resp: httpx.Response) -> list[str]:
    return [h for h in SECURITY_HEADERS if h not in resp.headers]


def attack_unicode(att: Attacker, designer: dict[str, str] | None) -> list[Outcome]:
    """A real JPEG with a unicode, quoted name: accepted; its downloads carry RFC 6266 headers."""
    out: list[Outcome] = []
    resp, new, _ = att.upload(UNICODE_NAME, small_jpeg(), "image/jpeg")
    names = [p.get("original_filename") for p in resp.json()] if resp.status_code == 201 else []
    for photo_id in new:  # the headers attack downloads this one's result
        att.wait_done(photo_id)
    out.append(
        Outcome(
            "unicode-name",
            "201, name kept",
            f"{resp.status_code} {names or _detail(resp)}",
            resp.status_code == 201 and names in ([UNICODE_NAME], [UNICODE_NAME.replace('"', "%22")]),
        )
    )
    if designer is not None:
        resp, new, _ = att.upload(
            UNICODE_NAME, small_jpeg(), "image/jpeg", job_type="background_removal_human"
        )
        if resp.status_code != 201 or not new:
            out.append(Outcome("designer-orig", "200 attachment", f"upload {resp.status_code}", False))
            return out
        photo_id = next(iter(new))
        att.wait_done(photo_id, timeout_s=60)
        jobs = att.http.get("/api/designer/jobs", headers=designer).json()
        job = next((j for j in jobs if j["photo_id"] == photo_id), None)
        if job is None:
            out.append(Outcome("designer-orig", "200 attachment", "job not in the designer queue", False))
            return out
        att.http.post(f"/api/designer/jobs/{job['id']}/assign-to-me", headers=designer)
        dl = att.http.get(f"/api/designer/jobs/{job['id']}/original", headers=designer)
        cd = dl.headers.get("content-disposition", "")
        ok = dl.status_code == 200 and cd.startswith("attachment;") and "filename*=UTF-8''" in cd
        out.append(
            Outcome("designer-orig", "200 attachment; filename*=UTF-8''…", f"{dl.status_code} {cd!r}", ok)
        )
    return out


def attack_headers(att: Attacker) -> Outcome:
    """Security headers on the web app, the API and a download (a photo's result or thumbnail)."""
    missing: dict[str, list[str]] = {}
    for path, headers in (("/", {}), ("/api/me", att.headers)):
        miss = _missing_headers(att.http.get(path, headers=headers))
        if miss:
            missing[path] = miss
    photos = att.http.get("/api/photos", headers=att.headers, params={"limit": 100}).json()["items"]
    done = [p for p in photos if p.get("status") == "processed"]
    if done:
        dl = att.http.get(f"/api/photos/{done[0]['id']}/download", headers=att.headers)
        miss = _missing_headers(dl)
        if not dl.headers.get("content-disposition", "").startswith("attachment"):
            miss.append("content-disposition: attachment")
        if miss:
            missing["download"] = miss
    got = (
        "all present"
        if not missing
        else "missing " + "; ".join(f"{k}: {', '.join(v)}" for k, v in missing.items())
    )
    return Outcome("headers", "CSP, nosniff, X-Frame-Options, Referrer-Policy", got, not missing)


def main(argv: list[str] | None = None) -> int:
    """Run every attack once and print one line each; exit 1 when any got an unexpected answer."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base-url", default="http://localhost:8000")
    parser.add_argument("--email", help="an existing confirmed client (default: sign up a new one)")
    parser.add_argument("--password")
    parser.add_argument("--designer-email", help="a graphic/admin account for the designer download")
    parser.add_argument("--designer-password")
    parser.add_argument(
        "--create-designer",
        action="store_true",
        help="create a graphic account with `python -m fotopronta.cli create-user` (needs the stack's "
        "FOTOPRONTA_* environment in this shell)",
    )
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds per HTTP request")
    args = parser.parse_args(argv)

    att = Attacker(args.base_url, args.timeout)
    if args.email:
        email, password = args.email, args.password or ""
    else:
        email, password = att.signup()
    att.headers = att.login(email, password)
    designer: dict[str, str] | None = None
    if args.create_designer and not args.designer_email:
        args.designer_email, args.designer_password = (
            f"grafico-{uuid.uuid4().hex[:8]}@example.it",
            "segreto123",
        )
        subprocess.run(
            [sys.executable, "-m", "fotopronta.cli", "create-user", "--email", args.designer_email,
             "--password", args.designer_password, "--role", "graphic"],
            check=True, capture_output=True,
        )  # fmt: skip
    if args.designer_email:
        designer = att.login(args.designer_email, args.designer_password or "")
    print(f"# {args.base_url} as {email}", flush=True)

    outcomes: list[Outcome] = []

    def run(name: str, attack: Callable[[], Outcome | list[Outcome]]) -> None:
        try:
            result = attack()
        except httpx.HTTPError as exc:  # e.g. the server dropped the connection after a 500
            result = Outcome(name, "an answer", f"{type(exc).__name__}: {exc}", False)
        for outcome in result if isinstance(result, list) else [result]:
            outcomes.append(outcome)
            print(outcome.line(), flush=True)

    run("bomb-png", lambda: att.refused("bomb-png", "bomba.png", bomb_png(), "image/png"))
    run(
        "text-as-jpg",
        lambda: att.refused("text-as-jpg", "scarpa.jpg", b"non sono una foto\n" * 20, "image/jpeg"),
    )
    run("pdf", lambda: att.refused("pdf", "fattura.pdf", PDF, "image/jpeg"))
    run("svg", lambda: att.refused("svg", "logo.svg", SVG, "image/svg+xml"))
    run("empty", lambda: att.refused("empty", "vuota.jpg", b"", "image/jpeg"))
    run("unicode-name", lambda: attack_unicode(att, designer))
    att.http.close()  # a fresh connection: a server error may have left the old one broken
    att.http = httpx.Client(base_url=att.http.base_url, timeout=args.timeout)
    run("headers", lambda: attack_headers(att))
    failed = [o.name for o in outcomes if not o.ok]
    print(
        f"# {len(outcomes) - len(failed)}/{len(outcomes)} as expected"
        + (f"; failed: {failed}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
