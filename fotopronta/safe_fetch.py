"""Fetching a URL given by a client (``image_url`` of the public API; later webhook URLs) without
letting it reach inside our network (server-side request forgery).

Every hop (the URL and each redirect, at most ``settings.fetch_max_redirects``) is checked before a
byte is sent: the scheme is ``http`` or ``https``, no user information, and the host name is resolved
here and **every** address it resolves to must be public (:func:`address_allowed`: no loopback, private,
link-local, shared, multicast, reserved or unspecified address, which also rules out the cloud metadata
services at 169.254.169.254, fd00:ec2::254 and 100.100.100.200; IPv4-mapped IPv6 addresses are judged
as the IPv4 address they carry). The connection then goes to the address that was checked (the
``Host`` header and TLS server name stay the host's), so a DNS answer that changes between the check
and the connection (DNS rebinding) cannot redirect it. The body is streamed and cut at ``max_bytes``;
the whole fetch, redirects included, has ``settings.fetch_timeout_s``.

``settings.fetch_allow_loopback`` lets loopback addresses through (``make dev`` turns it on to test
with a local server); it is off by default and in production. Private and metadata addresses are
never allowed.
"""

from __future__ import annotations

import asyncio
import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

import httpx

from fotopronta.settings import get_settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
USER_AGENT = "FotoPronta-Fetch/1.0 (+https://fotopronta.it)"
REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})


class FetchError(Exception):
    """A URL that was refused or could not be fetched: ``code`` (stable, for the API's error) and an
    Italian ``message``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class Fetched:
    """A fetched body: the final ``url`` (after redirects), its ``content_type`` header and ``data``."""

    url: str
    content_type: str
    data: bytes


def address_allowed(ip: IPAddress, *, allow_loopback: bool) -> bool:
    """Whether a connection to ``ip`` may be made: a globally routable unicast address, or (with
    ``allow_loopback``) a loopback one."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if isinstance(ip, ipaddress.IPv6Address) and ip.sixtofour is not None:
        ip = ip.sixtofour
    if ip.is_loopback:
        return allow_loopback
    return ip.is_global and not ip.is_multicast


def _refused(host: str) -> FetchError:
    return FetchError(
        "image_url_forbidden",
        f"L'indirizzo {host} non è raggiungibile da FotoPronta: usa un URL pubblico (http o https).",
    )


async def resolve_checked(host: str, port: int, *, allow_loopback: bool) -> str:
    """Resolve ``host`` and return one of its addresses, after checking that **every** address it
    resolves to is allowed (:func:`address_allowed`).

    Raises:
        FetchError: ``image_url_forbidden`` (an address is not public), ``image_url_unresolvable``.
    """
    try:
        literal: IPAddress | None = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        literal = None
    if literal is not None:
        if not address_allowed(literal, allow_loopback=allow_loopback):
            raise _refused(host)
        return str(literal)
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise FetchError(
            "image_url_unresolvable", f"Impossibile trovare il server {host}: controlla l'URL."
        ) from exc
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    if not addresses:
        raise FetchError("image_url_unresolvable", f"Impossibile trovare il server {host}: controlla l'URL.")
    for address in addresses:
        if not address_allowed(address, allow_loopback=allow_loopback):
            raise _refused(host)
    return str(addresses[0])


def _check_url(url: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an acceptable URL.

    Raises:
        FetchError: ``image_url_invalid``.
    """
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise FetchError("image_url_invalid", "URL dell'immagine non valido.") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError("image_url_invalid", "L'URL dell'immagine deve iniziare con http:// o https://.")
    if parts.username or parts.password:
        raise FetchError("image_url_invalid", "L'URL dell'immagine non può contenere credenziali.")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


async def _one_hop(
    client: httpx.AsyncClient, url: str, *, max_bytes: int, allow_loopback: bool
) -> tuple[httpx.Response, bytes | None]:
    """Fetch ``url`` once (no redirect followed), connected to its checked address; the body only when
    the answer is not a redirect."""
    scheme, host, port = _check_url(url)
    address = await resolve_checked(host, port, allow_loopback=allow_loopback)
    parts = urlsplit(url)
    netloc = f"[{address}]" if ":" in address else address
    target = parts._replace(netloc=f"{netloc}:{port}").geturl()
    host_header = host if parts.port is None else f"{host}:{port}"
    if ":" in host and not host.startswith("["):
        host_header = f"[{host}]" if parts.port is None else f"[{host}]:{port}"
    request = client.build_request(
        "GET",
        target,
        headers={
            "Host": host_header,
            "User-Agent": USER_AGENT,
            "Accept": "image/*,*/*;q=0.5",
            "Accept-Encoding": "identity",
        },
        extensions={"sni_hostname": host} if scheme == "https" else {},
    )
    response = await client.send(request, stream=True)
    try:
        if response.status_code in REDIRECT_STATUSES:
            return response, None
        if response.status_code != 200:
            raise FetchError(
                "image_url_fetch_failed",
                f"Il server dell'immagine ha risposto {response.status_code}: controlla l'URL.",
            )
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > max_bytes:
            raise too_large(max_bytes)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_raw():
            size += len(chunk)
            if size > max_bytes:
                raise too_large(max_bytes)
            chunks.append(chunk)
        return response, b"".join(chunks)
    finally:
        await response.aclose()


def too_large(max_bytes: int) -> FetchError:
    """``file_too_large``: the body passed ``max_bytes``."""
    return FetchError(
        "file_too_large",
        f"L'immagine all'URL indicato è troppo grande (massimo {max_bytes // (1024 * 1024)} MB).",
    )


async def fetch(url: str, *, max_bytes: int | None = None) -> Fetched:
    """GET ``url`` safely (see the module docstring) and return its body.

    Args:
        url: an ``http``/``https`` URL, at most 2,048 characters.
        max_bytes: the largest body accepted (default ``settings.max_file_bytes``).

    Raises:
        FetchError: codes ``image_url_invalid``, ``image_url_forbidden``, ``image_url_unresolvable``,
            ``image_url_fetch_failed`` (a status other than 200, a connection or TLS error, too many
            redirects), ``image_url_timeout``, ``file_too_large``; each with an Italian message.
    """
    settings = get_settings()
    limit = max_bytes if max_bytes is not None else settings.max_file_bytes
    if len(url) > 2048:
        raise FetchError("image_url_invalid", "L'URL dell'immagine è troppo lungo (massimo 2048 caratteri).")
    allow_loopback = settings.fetch_allow_loopback
    timeout = httpx.Timeout(settings.fetch_timeout_s)
    try:
        async with (
            asyncio.timeout(settings.fetch_timeout_s),
            httpx.AsyncClient(timeout=timeout, follow_redirects=False, trust_env=False) as client,
        ):
            current = url
            for _ in range(settings.fetch_max_redirects + 1):
                response, data = await _one_hop(
                    client, current, max_bytes=limit, allow_loopback=allow_loopback
                )
                if data is not None:
                    return Fetched(
                        url=current, content_type=response.headers.get("content-type", ""), data=data
                    )
                location = response.headers.get("location")
                if not location:
                    raise FetchError(
                        "image_url_fetch_failed",
                        "Il server dell'immagine ha risposto con un reindirizzamento senza destinazione.",
                    )
                current = urljoin(current, location)
            raise FetchError("image_url_fetch_failed", "Troppi reindirizzamenti per l'URL dell'immagine.")
    except TimeoutError as exc:
        raise FetchError("image_url_timeout", "Il server dell'immagine non ha risposto in tempo.") from exc
    except httpx.TimeoutException as exc:
        raise FetchError("image_url_timeout", "Il server dell'immagine non ha risposto in tempo.") from exc
    except httpx.HTTPError as exc:
        raise FetchError(
            "image_url_fetch_failed", "Impossibile scaricare l'immagine dall'URL indicato: controlla l'URL."
        ) from exc
