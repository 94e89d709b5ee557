"""Limit attacks against a running FotoPronta stack: oversized bodies, NUL bytes, long names and
header injection; one line per attack, expected vs got.

    python -m tests.attack.limits --base-url http://localhost:8000 [--email … --password …]

Without ``--email`` it signs up a throw-away client and confirms it from the development outbox
(``GET /api/dev/mail``); the attacks that need an e-mailed link are skipped where there is no outbox.
Bodies are streamed over a raw socket, so a line can say how much of a body the server took before it
answered (a safe stack answers after the first few MB at most: what the kernel's socket buffers hold).

Attacks:

- ``anon-upload-chunked``: an anonymous multipart ``POST /api/photos`` of ``--upload-mb`` MB (300),
  chunked: 401 before the body is read;
- ``anon-upload-declared``: the same with ``Content-Length``: 401 at once;
- ``anon-json-declared`` / ``anon-json-chunked``: a 100 MB JSON body to ``/api/auth/logout``: 413;
- ``client-upload-over-batch``: a signed-in client's 150 MB chunked upload: 413 (batch limit), no photo;
- ``nul-*``: a NUL in ``q`` of ``/api/photos``, ``/api/admin/jobs``, ``/api/admin/users``, in the
  e-mail of login, forgot and sign-up, in ``sessionId`` of payments verify, in a name of ``PATCH
  /api/me`` and in an upload's file name: 400/422 with an Italian message, never a 500;
- ``long-filename``: a 600-character file name: accepted and stored cut to ≤ 150 characters, ``.jpg`` kept;
- ``crlf-filename``: a file name carrying ``\\r\\nSet-Cookie:``: refused, or stored without CR/LF;
- ``crlf-signup-email``: an e-mail address carrying ``\\r\\nBcc:`` (a mail header): 400/422;
- ``name-injection``: sign-up with a first name of several lines and a link: 422, no e-mail sent;
- ``host-header-link``: ``password/forgot`` with ``Host: 192.168.66.6:8000``: the e-mailed link does not
  point there (development outbox only).

Exit status 0 when every attack got what was expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import io
import json
import select
import socket
import ssl
import sys
import time
import uuid
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import httpx

PASSWORD = "segreto123"
MB = 1024 * 1024
BOUNDARY = "attaccoconfine"
SAFE_READ_MB = 16
"""Most a safe stack may take of a refused body before answering (socket buffers on both sides)."""


def small_jpeg() -> bytes:
    """A 320×240 JPEG (a product shot the pipeline can process)."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (320, 240), (150, 150, 150))
    ImageDraw.Draw(img).ellipse((90, 40, 230, 200), fill=(200, 40, 40))
    buf = io.BytesIO()
    img.save(buf, "JPEG", quality=90)
    return buf.getvalue()


def multipart(filename: str, data: bytes, *, close: bool = True) -> bytes:
    """A ``multipart/form-data`` body with one ``files`` part, the file name written raw (bytes as
    UTF-8, NUL and CR/LF included: no client library would send them)."""
    head = (
        f'--{BOUNDARY}\r\nContent-Disposition: form-data; name="files"; filename="{filename}"\r\n'
        "Content-Type: image/jpeg\r\n\r\n"
    ).encode()
    return head + data + (f"\r\n--{BOUNDARY}--\r\n".encode() if close else b"")


class RawResponse:
    """What the server answered to a streamed body: status, body text, and bytes it took first."""

    def __init__(self, status: int, text: str, sent: int, total: int) -> None:
        self.status, self.text, self.sent, self.total = status, text, sent, total

    def detail(self) -> str:
        """The JSON ``detail``, or the start of the text."""
        try:
            return str(json.loads(self.text)["detail"])
        except (ValueError, KeyError, TypeError):
            return self.text[:60]

    def summary(self) -> str:
        """``401 'Devi accedere…' after 0.1 of 300 MB``."""
        return f"{self.status} {self.detail()!r} after {self.sent / MB:.1f} of {self.total / MB:.0f} MB"


class Attack:
    """Shared state: the base URL, the client's bearer header and the results printed so far."""

    def __init__(self, base_url: str, timeout_s: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.http = httpx.Client(base_url=self.base_url, timeout=timeout_s)
        self.timeout_s = timeout_s
        self.headers: dict[str, str] = {}
        self.email = ""
        self.failures = 0

    def report(self, name: str, expected: str, got: str, ok: bool) -> None:
        """Print one line: ``[OK|FAIL] name: expected …; got …``."""
        self.failures += 0 if ok else 1
        print(f"[{'OK' if ok else 'FAIL'}] {name}: expected {expected}; got {got}", flush=True)

    def skip(self, name: str, why: str) -> None:
        """Report an attack that could not run."""
        print(f"[SKIP] {name}: {why}", flush=True)

    # --- accounts ---------------------------------------------------------------------------------------------
    def sign_in(self, email: str | None, password: str | None) -> bool:
        """Log in ``email`` or sign up and confirm a throw-away client; whether a session was made."""
        if email is None:
            email, password = f"attacco-{uuid.uuid4().hex[:8]}@example.it", PASSWORD
            resp = self.http.post(
                "/api/auth/signup", json={"email": email, "password": password, "first_name": "Attacco"}
            )
            link = self.latest_link(email)
            if resp.status_code != 201 or link is None:
                return False
            query = {k: v[0] for k, v in parse_qs(urlsplit(link).query).items()}
            self.http.post(
                "/api/auth/verify", json={"token_hash": query["token_hash"], "type": query["type"]}
            )
        resp = self.http.post("/api/auth/login", json={"email": email, "password": password})
        if resp.status_code != 200:
            return False
        self.email = email
        self.headers = {"Authorization": f"Bearer {resp.json()['access_token']}"}
        return True

    def latest_link(self, email: str) -> str | None:
        """The newest e-mailed link to ``email`` from the development outbox (``None`` without one)."""
        resp = self.http.get("/api/dev/mail", params={"to": email})
        if resp.status_code != 200 or not resp.json():
            return None
        return str(resp.json()[0]["links"][0])

    # --- raw streaming --------------------------------------------------------------------------------------
    def stream(
        self, path: str, headers: dict[str, str], head: bytes, total: int, *, declared: bool
    ) -> RawResponse:
        """POST ``head`` then filler bytes up to ``total`` over a raw socket, with ``Content-Length``
        (``declared``) or chunked, stopping as soon as the server answers; the answer and how much of
        the body had been sent by then."""
        url = urlsplit(self.base_url)
        port = url.port or (443 if url.scheme == "https" else 80)
        sock: socket.socket = socket.create_connection((url.hostname or "localhost", port), self.timeout_s)
        if url.scheme == "https":
            sock = ssl.create_default_context().wrap_socket(sock, server_hostname=url.hostname)
        framing = {"Content-Length": str(total)} if declared else {"Transfer-Encoding": "chunked"}
        lines = [f"POST {path} HTTP/1.1", f"Host: {url.netloc}", "Connection: close"]
        lines += [f"{k}: {v}" for k, v in {**headers, **framing}.items()]
        sent = 0
        try:
            sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
            for piece in self._pieces(head, total):
                if select.select([sock], [], [], 0)[0]:
                    break
                sock.sendall(piece if declared else f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                sent += len(piece)
            else:
                if not declared:
                    sock.sendall(b"0\r\n\r\n")
        except OSError:
            pass  # the server closed the connection while we were still sending: read its answer
        return self._read(sock, sent, total)

    @staticmethod
    def _pieces(head: bytes, total: int, size: int = 256 * 1024) -> Iterator[bytes]:
        yield head
        left = total - len(head)
        filler = b"\xff" * size
        while left > 0:
            yield filler[: min(size, left)]
            left -= size

    def _read(self, sock: socket.socket, sent: int, total: int) -> RawResponse:
        data = b""
        deadline = time.monotonic() + self.timeout_s
        try:
            while time.monotonic() < deadline:
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError:
            pass
        finally:
            sock.close()
        head, _, body = data.partition(b"\r\n\r\n")
        parts = head.split(b" ", 2)
        status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0
        if b"transfer-encoding: chunked" in head.lower():
            body = _dechunk(body)
        return RawResponse(status, body.decode("utf-8", "replace"), sent, total)

    # --- oversized bodies -------------------------------------------------------------------------------------
    def oversized(self, upload_mb: int) -> None:
        """Anonymous uploads and JSON bodies, and a client's upload over the batch limit."""
        form = {"Content-Type": f"multipart/form-data; boundary={BOUNDARY}"}
        head = multipart("grande.jpg", b"\xff\xd8\xff", close=False)
        for name, declared in (("anon-upload-chunked", False), ("anon-upload-declared", True)):
            got = self.stream("/api/photos", form, head, upload_mb * MB, declared=declared)
            ok = got.status == 401 and got.sent <= SAFE_READ_MB * MB
            self.report(name, f"401 after at most {SAFE_READ_MB} MB", got.summary(), ok)
        json_head = b'{"refresh_token": "'
        for name, declared in (("anon-json-declared", True), ("anon-json-chunked", False)):
            got = self.stream(
                "/api/auth/logout",
                {"Content-Type": "application/json"},
                json_head,
                100 * MB,
                declared=declared,
            )
            ok = got.status == 413 and got.sent <= SAFE_READ_MB * MB
            self.report(name, f"413 after at most {SAFE_READ_MB} MB", got.summary(), ok)
        if not self.headers:
            self.skip("client-upload-over-batch", "no signed-in client")
            return
        before = self.photo_count()
        got = self.stream("/api/photos", {**form, **self.headers}, head, 150 * MB, declared=False)
        added = self.photo_count() - before
        ok = got.status == 413 and got.sent <= 120 * MB and added == 0
        self.report(
            "client-upload-over-batch",
            "413 within the batch limit, no photo",
            f"{got.summary()}, photos +{added}",
            ok,
        )

    def photo_count(self) -> int:
        """How many photos the signed-in client has."""
        resp = self.http.get("/api/photos", headers=self.headers, params={"limit": 1})
        return int(resp.json()["counts"]["total"]) if resp.status_code == 200 else -1

    # --- NUL bytes, long names, header injection ----------------------------------------------------------------
    def refused_cleanly(
        self, name: str, resp: httpx.Response, *, allowed: tuple[int, ...] = (400, 422)
    ) -> None:
        """Report a request that must be refused with an Italian 400/422 (never a 500)."""
        try:
            body = resp.json()
            detail = str(body.get("detail", "")) if isinstance(body, dict) else resp.text[:60]
        except ValueError:
            detail = resp.text[:60]
        ok = resp.status_code in allowed and resp.status_code < 500
        self.report(name, f"{'/'.join(map(str, allowed))} in Italian", f"{resp.status_code} {detail!r}", ok)

    def nul_bytes(self) -> None:
        """A NUL in every field the outside test listed."""
        h = self.headers
        for name, path in (
            ("nul-q-photos", "/api/photos"),
            ("nul-q-admin-jobs", "/api/admin/jobs"),
            ("nul-q-admin-users", "/api/admin/users"),
        ):
            self.refused_cleanly(name, self.http.get(path, params={"q": "borsa\x00"}, headers=h))
        bad = "attacco\x00@example.it"
        self.refused_cleanly(
            "nul-login-email", self.http.post("/api/auth/login", json={"email": bad, "password": PASSWORD})
        )
        self.refused_cleanly(
            "nul-forgot-email", self.http.post("/api/auth/password/forgot", json={"email": bad})
        )
        self.refused_cleanly(
            "nul-signup-email",
            self.http.post("/api/auth/signup", json={"email": bad, "password": PASSWORD, "first_name": "A"}),
        )
        if not h:
            for name in ("nul-verify-session", "nul-me-name", "nul-upload-filename"):
                self.skip(name, "no signed-in client")
            return
        self.refused_cleanly(
            "nul-verify-session",
            self.http.post("/api/payments/verify", headers=h, json={"sessionId": "cs_\x00"}),
        )
        self.refused_cleanly(
            "nul-me-name", self.http.patch("/api/me", headers=h, json={"first_name": "A\x00"})
        )
        self.refused_cleanly("nul-upload-filename", self.raw_upload("borsa\x00.jpg"))

    def raw_upload(self, filename: str) -> httpx.Response:
        """Upload a small JPEG under ``filename``, written raw into the multipart body."""
        return self.http.post(
            "/api/photos",
            headers={**self.headers, "Content-Type": f"multipart/form-data; boundary={BOUNDARY}"},
            content=multipart(filename, small_jpeg()),
        )

    def names(self) -> None:
        """Long and CR/LF file names, a phishing first name, and a forged ``Host`` in a reset link."""
        if self.headers:
            resp = self.raw_upload("borsa-" + "a" * 600 + ".jpg")
            stored = resp.json()[0]["original_filename"] if resp.status_code == 201 else ""
            ok = resp.status_code == 201 and 0 < len(stored) <= 150 and stored.endswith(".jpg")
            self.report(
                "long-filename",
                "201, name cut to ≤ 150 with .jpg",
                f"{resp.status_code}, {len(stored)} chars",
                ok,
            )
            resp = self.raw_upload("a.jpg\r\nSet-Cookie: sessione=rubata")
            stored = resp.json()[0]["original_filename"] if resp.status_code == 201 else ""
            ok = resp.status_code in (400, 422) or (resp.status_code == 201 and not set(stored) & set("\r\n"))
            self.report(
                "crlf-filename", "400, or a stored name without CR/LF", f"{resp.status_code} {stored!r}", ok
            )
        else:
            self.skip("long-filename", "no signed-in client")
        resp = self.http.post(
            "/api/auth/signup",
            json={
                "email": "vittima@example.it\r\nBcc:spam@evil.example",
                "password": PASSWORD,
                "first_name": "A",
            },
        )
        self.refused_cleanly("crlf-signup-email", resp)
        victim = f"vittima-{uuid.uuid4().hex[:8]}@example.it"
        phishing = (
            "Giulia\n\nATTENZIONE: il tuo account è stato sospeso. Accedi da https://evil.example/login"
        )
        resp = self.http.post(
            "/api/auth/signup", json={"email": victim, "password": PASSWORD, "first_name": phishing}
        )
        mail = self.http.get("/api/dev/mail", params={"to": victim})
        sent = len(mail.json()) if mail.status_code == 200 else "?"
        ok = resp.status_code in (400, 422) and sent in (0, "?")
        self.report("name-injection", "400/422, no e-mail", f"{resp.status_code}, e-mails {sent}", ok)
        if not self.email:
            self.skip("host-header-link", "no account")
            return
        self.http.post(
            "/api/auth/password/forgot", json={"email": self.email}, headers={"Host": "192.168.66.6:8000"}
        )
        link = self.latest_link(self.email)
        if link is None:
            self.skip("host-header-link", "no development outbox to read the link from")
            return
        host = urlsplit(link).netloc
        self.report("host-header-link", "a link not on 192.168.66.6", host, "192.168.66.6" not in host)


def _dechunk(body: bytes) -> bytes:
    """The payload of a chunked HTTP/1.1 body (best effort: stops at the first malformed size)."""
    out = b""
    while body:
        size_line, _, rest = body.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out += rest[:size]
        body = rest[size + 2 :]
    return out


def main(argv: list[str] | None = None) -> int:
    """Run every attack and print one line each; exit 1 if any got an unexpected answer."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-url", default="http://localhost:8000")
    parser.add_argument("--email", help="a confirmed client (default: sign one up through the outbox)")
    parser.add_argument("--password")
    parser.add_argument("--upload-mb", type=int, default=300, help="size of the anonymous upload")
    parser.add_argument("--timeout", type=float, default=60)
    args = parser.parse_args(argv)
    attack = Attack(args.base_url, args.timeout)
    if not attack.sign_in(args.email, args.password):
        print("[SKIP] (no signed-in client: pass --email/--password of a confirmed account)", flush=True)
    attack.oversized(args.upload_mb)
    attack.nul_bytes()
    attack.names()
    return 1 if attack.failures else 0


if __name__ == "__main__":
    sys.exit(main())
