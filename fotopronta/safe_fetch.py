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

:func:`request` sends any method (a webhook's ``POST``) under these rules; :func:`fetch` is the
``image_url`` download; :func:`check_public_url` checks a URL without sending anything (a webhook URL
when it is registered).

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


def _refused(host: str, prefix: str) -> FetchError:
    return FetchError(
        f"{prefix}_forbidden",
        f"L'indirizzo {host} non è raggiungibile da FotoPronta: usa un URL pubblico (http o https).",
    )


async def resolve_checked(host: str, port: int, *, allow_loopback: bool, prefix: str = "url") -> str:
    """Resolve ``host`` and return one of its addresses, after checking that **every** address it
    resolves to is allowed (:func:`address_allowed`).

    Raises:
        FetchError: ``{prefix}_forbidden`` (an address is not public), ``{prefix}_unresolvable``.
    """
    try:
        literal: IPAddress | None = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        literal = None
    if literal is not None:
        if not address_allowed(literal, allow_loopback=allow_loopback):
            raise _refused(host, prefix)
        return str(literal)
    unresolvable = FetchError(
        f"{prefix}_unresolvable", f"Impossibile trovare il server {host}: controlla l'URL."
    )
    try:
        infos = await asyncio.get_running_loop().getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise unresolvable from exc
    addresses = [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]
    if not addresses:
        raise unresolvable
    for address in addresses:
        if not address_allowed(address, allow_loopback=allow_loopback):
            raise _refused(host, prefix)
    return str(addresses[0])


def _check_url(url: str, prefix: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of an acceptable URL.

    Raises:
        FetchError: ``{prefix}_invalid``.
    """
    if len(url) > 2048:
        raise FetchError(f"{prefix}_invalid", "L'URL è troppo lungo (massimo 2048 caratteri).")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise FetchError(f"{prefix}_invalid", "URL non valido.") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"{prefix}_invalid", "L'URL deve iniziare con http:// o https://.")
    if parts.username or parts.password:
        raise FetchError(f"{prefix}_invalid", "L'URL non può contenere credenziali.")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80)


async def check_public_url(url: str, *, prefix: str = "url") -> None:
    """Check ``url`` as :func:`request` would before sending (scheme, credentials, every address its
    host resolves to), without sending anything: e.g. a webhook URL when it is registered.

    Raises:
        FetchError: ``{prefix}_invalid``, ``{prefix}_forbidden``, ``{prefix}_unresolvable``.
    """
    _, host, port = _check_url(url, prefix)
    await resolve_checked(host, port, allow_loopback=get_settings().fetch_allow_loopback, prefix=prefix)


@dataclass(frozen=True)
class SafeResponse:
    """An answer of :func:`request`: the final ``url``, ``status``, ``headers`` and the body ``data``
    (at most ``max_bytes``)."""

    url: str
    status: int
    headers: httpx.Headers
    data: bytes


def too_large(max_bytes: int, prefix: str = "url") -> FetchError:
    """``file_too_large``: the body passed ``max_bytes``."""
    del prefix  # the same code wherever the body came from
    return FetchError(
        "file_too_large",
        f"Il file all'URL indicato è troppo grande (massimo {max_bytes // (1024 * 1024)} MB).",
    )


async def _one_hop(
    client: httpx.AsyncClient,
    method: str,
    url: str,
    *,
    content: bytes | None,
    headers: dict[str, str],
    max_bytes: int,
    allow_loopback: bool,
    read_redirect: bool,
    prefix: str,
) -> tuple[httpx.Response, bytes | None]:
    """Send one request (no redirect followed) to the address the URL's host was checked at; the body
    (at most ``max_bytes``) unless the answer is a redirect to follow."""
    scheme, host, port = _check_url(url, prefix)
    address = await resolve_checked(host, port, allow_loopback=allow_loopback, prefix=prefix)
    parts = urlsplit(url)
    netloc = f"[{address}]" if ":" in address else address
    target = parts._replace(netloc=f"{netloc}:{port}").geturl()
    host_header = host if parts.port is None else f"{host}:{port}"
    if ":" in host and not host.startswith("["):
        host_header = f"[{host}]" if parts.port is None else f"[{host}]:{port}"
    built = client.build_request(
        method,
        target,
        content=content,
        headers={"User-Agent": USER_AGENT, "Accept-Encoding": "identity", **headers, "Host": host_header},
        extensions={"sni_hostname": host} if scheme == "https" else {},
    )
    response = await client.send(built, stream=True)
    try:
        if response.status_code in REDIRECT_STATUSES and not read_redirect:
            return response, None
        declared = response.headers.get("content-length")
        if declared and declared.isdigit() and int(declared) > max_bytes:
            raise too_large(max_bytes, prefix)
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_raw():
            size += len(chunk)
            if size > max_bytes:
                raise too_large(max_bytes, prefix)
            chunks.append(chunk)
        return response, b"".join(chunks)
    finally:
        await response.aclose()


async def request(
    method: str,
    url: str,
    *,
    content: bytes | None = None,
    headers: dict[str, str] | None = None,
    max_bytes: int,
    timeout_s: float | None = None,
    follow_redirects: bool = True,
    prefix: str = "url",
) -> SafeResponse:
    """Send ``method`` to ``url`` safely (see the module docstring): every hop checked, the body cut at
    ``max_bytes``, all of it within ``timeout_s`` (default ``settings.fetch_timeout_s``). Redirects
    (at most ``settings.fetch_max_redirects``) are followed when ``follow_redirects``: 307/308 keep the
    method and body, 301/302/303 go on as a ``GET`` without a body. Any status is answered; the caller
    decides what a non-2xx means.

    Raises:
        FetchError: codes ``{prefix}_invalid``, ``{prefix}_forbidden``, ``{prefix}_unresolvable``,
            ``{prefix}_fetch_failed`` (a connection or TLS error, too many redirects),
            ``{prefix}_timeout`` and ``file_too_large``; each with an Italian message.
    """
    settings = get_settings()
    allow_loopback = settings.fetch_allow_loopback
    seconds = timeout_s if timeout_s is not None else settings.fetch_timeout_s
    try:
        async with (
            asyncio.timeout(seconds),
            httpx.AsyncClient(
                timeout=httpx.Timeout(seconds), follow_redirects=False, trust_env=False
            ) as client,
        ):
            current, verb, body = url, method.upper(), content
            for _ in range(settings.fetch_max_redirects + 1):
                response, data = await _one_hop(
                    client,
                    verb,
                    current,
                    content=body,
                    headers=headers or {},
                    max_bytes=max_bytes,
                    allow_loopback=allow_loopback,
                    read_redirect=not follow_redirects,
                    prefix=prefix,
                )
                if data is not None:
                    return SafeResponse(
                        url=current, status=response.status_code, headers=response.headers, data=data
                    )
                location = response.headers.get("location")
                if not location:
                    raise FetchError(
                        f"{prefix}_fetch_failed",
                        "Il server ha risposto con un reindirizzamento senza destinazione.",
                    )
                current = urljoin(current, location)
                if response.status_code in (301, 302, 303):
                    verb, body = "GET", None
            raise FetchError(f"{prefix}_fetch_failed", "Troppi reindirizzamenti per l'URL indicato.")
    except TimeoutError as exc:
        raise FetchError(f"{prefix}_timeout", "Il server all'URL indicato non ha risposto in tempo.") from exc
    except httpx.TimeoutException as exc:
        raise FetchError(f"{prefix}_timeout", "Il server all'URL indicato non ha risposto in tempo.") from exc
    except httpx.HTTPError as exc:
        raise FetchError(
            f"{prefix}_fetch_failed", "Impossibile contattare il server all'URL indicato."
        ) from exc


async def fetch(url: str, *, max_bytes: int | None = None) -> Fetched:
    """GET an image at ``url`` safely (:func:`request`; codes prefixed ``image_url``) and return its
    body; a status other than 200 is an error.

    Args:
        url: an ``http``/``https`` URL, at most 2,048 characters.
        max_bytes: the largest body accepted (default ``settings.max_file_bytes``).

    Raises:
        FetchError: codes ``image_url_invalid``, ``image_url_forbidden``, ``image_url_unresolvable``,
            ``image_url_fetch_failed`` (a status other than 200, a connection or TLS error, too many
            redirects), ``image_url_timeout``, ``file_too_large``; each with an Italian message.
    """
    limit = max_bytes if max_bytes is not None else get_settings().max_file_bytes
    answer = await request(
        "GET", url, headers={"Accept": "image/*,*/*;q=0.5"}, max_bytes=limit, prefix="image_url"
    )
    if answer.status != 200:
        raise FetchError(
            "image_url_fetch_failed", f"Il server dell'immagine ha risposto {answer.status}: controlla l'URL."
        )
    return Fetched(url=answer.url, content_type=answer.headers.get("content-type", ""), data=answer.data)
