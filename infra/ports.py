"""Free TCP ports for test stacks, chosen *outside* the kernel's ephemeral range.

A port taken with ``bind(("127.0.0.1", 0))`` comes from the ephemeral range
(``/proc/sys/net/ipv4/ip_local_port_range``, usually 32768–60999), the same range the kernel uses for
the source port of every outgoing connection and that the Temporal dev server uses for its internal
services and HTTP port. Between the moment we release such a port and the moment the server we give it
to binds it, one of those connections can take it, and the server exits with "address already in
use" (this made a CI run fail: the Temporal Web UI could not bind its port). Ports below the
ephemeral range are never handed out implicitly, so only an explicit ``bind`` can race us.
"""

from __future__ import annotations

import random
import socket
from pathlib import Path

#: Lowest port we hand out: above the registered services commonly run on developer machines.
LOWEST_PORT = 15000
_EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
_ATTEMPTS = 200


def ephemeral_range() -> tuple[int, int]:
    """The kernel's ephemeral port range ``(low, high)``; ``(32768, 60999)`` where it cannot be read."""
    try:
        low, high = (int(x) for x in _EPHEMERAL_RANGE_FILE.read_text().split())
    except (OSError, ValueError):
        return 32768, 60999
    return low, high


def free_port(host: str = "127.0.0.1", *, taken: set[int] | None = None) -> int:
    """A TCP port on ``host`` that is free now and lies below the ephemeral range.

    Args:
        host: address the port will be bound on.
        taken: ports already handed out to this caller (not returned again); the chosen port is added.

    Raises:
        RuntimeError: no free port found in 200 random tries (the range is ~17 000 ports wide).
    """
    low, _ = ephemeral_range()
    upper = max(low - 1, LOWEST_PORT + 1000)
    taken = taken if taken is not None else set()
    rng = random.SystemRandom()
    for _ in range(_ATTEMPTS):
        port = rng.randint(LOWEST_PORT, upper)
        if port in taken:
            continue
        with socket.socket() as s:
            try:
                s.bind((host, port))
            except OSError:
                continue
        taken.add(port)
        return port
    raise RuntimeError(f"no free TCP port between {LOWEST_PORT} and {upper}")
