"""API key secrets: how they are made, shown and stored.

A secret is ``fp_live_`` or ``fp_test_`` followed by 43 base-62 characters drawn with :mod:`secrets`
(62**43 ≈ 2**256, i.e. 32 random bytes of entropy; base 62 so a double click selects it whole). Only its
SHA-256 (hex) is stored: a secret of that entropy needs no slow hash (the guess space, not the hash
speed, protects it; GitHub and Stripe store their tokens the same way), and the lookup by hash is one
index probe. The list shows its :func:`display_prefix` (``fp_live_`` and 8 characters).
"""

from __future__ import annotations

import hashlib
import secrets
import string
from typing import Literal

KeyMode = Literal["live", "test"]
SECRET_ALPHABET = string.ascii_letters + string.digits
SECRET_RANDOM_CHARS = 43
"""Random characters after the mode prefix: 43 × log2(62) ≈ 256 bits."""
PREFIX_RANDOM_CHARS = 8
"""Random characters kept in :func:`display_prefix` (about 48 bits: names a key, never opens one)."""
MODE_PREFIXES: dict[str, str] = {"live": "fp_live_", "test": "fp_test_"}


def new_secret(mode: KeyMode) -> str:
    """A fresh secret of ``mode``: ``fp_live_…`` / ``fp_test_…`` + :data:`SECRET_RANDOM_CHARS` base-62
    characters.

    Raises:
        KeyError: ``mode`` is neither ``live`` nor ``test``.
    """
    body = "".join(secrets.choice(SECRET_ALPHABET) for _ in range(SECRET_RANDOM_CHARS))
    return MODE_PREFIXES[mode] + body


def hash_secret(secret: str) -> str:
    """The stored form of ``secret``: its SHA-256 as 64 hex characters."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def display_prefix(secret: str) -> str:
    """What lists show of a secret: its mode prefix and first :data:`PREFIX_RANDOM_CHARS` characters."""
    return secret[: len(MODE_PREFIXES["live"]) + PREFIX_RANDOM_CHARS]


def mode_of(secret: str) -> KeyMode | None:
    """``live`` or ``test`` from the secret's prefix; ``None`` when it has neither (not one of ours)."""
    if secret.startswith(MODE_PREFIXES["live"]):
        return "live"
    if secret.startswith(MODE_PREFIXES["test"]):
        return "test"
    return None


def looks_like_secret(value: str) -> bool:
    """Whether ``value`` has the shape of a secret (prefix, length, alphabet): anything else is refused
    without a database query."""
    mode = mode_of(value)
    if mode is None:
        return False
    body = value[len(MODE_PREFIXES[mode]) :]
    return len(body) == SECRET_RANDOM_CHARS and all(c in SECRET_ALPHABET for c in body)
