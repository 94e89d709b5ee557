"""Rules for text the API accepts: no NUL or control characters where they make no sense, and
people's names that are one short line with no links (they are shown to staff and must not become
a phishing line).

Used as Pydantic ``Annotated`` types in request bodies (a refused value is a 422 whose ``detail``
is the Italian message of the rule, see :func:`api.errors.validation_error_handler`) and as plain
functions for form fields and file names.

PostgreSQL refuses NUL (U+0000) in ``text`` and ``varchar`` columns, so a NUL that reached a query
would be a 500; these rules stop it at the edge with an Italian message.
"""

from __future__ import annotations

import re
import unicodedata
from pathlib import PurePosixPath
from typing import Annotated

from pydantic import AfterValidator
from pydantic_core import PydanticCustomError

INVALID_CHARACTERS = "Il testo contiene caratteri non ammessi."
"""Message of a refused NUL or control character (422 ``detail``)."""
INVALID_NAME = "Il nome può contenere lettere, numeri, spazi, apostrofi, punti e trattini, su una sola riga e senza link."
"""Message of a refused first or last name (422 ``detail``)."""
NAME_CONTROL = "Il nome contiene caratteri non ammessi: scrivilo su una sola riga."
NAME_TOO_LONG = "Il nome può essere lungo al massimo {max} caratteri."

NAME_MAX_CHARS = 60
"""Longest first or last name accepted, in characters (after trimming)."""
FILENAME_MAX_CHARS = 150
"""Longest stored upload file name, in characters, extension included (the column holds 500)."""
EXTENSION_MAX_CHARS = 10
"""A suffix longer than this (dot included) is not treated as an extension when a name is cut."""

CUSTOM_ERROR_TYPES = frozenset({"invalid_characters", "invalid_name", "name_too_long"})
"""Pydantic error types raised here, whose message is shown as it is."""

_URL_LIKE = re.compile(r"://|www\.|[^\W\d_]{2,}\.[^\W\d_]{2,}", re.IGNORECASE)
"""A scheme, ``www.`` or a ``word.tld`` pair: a link, not a name (``J.R.R.`` and ``D'Amico`` pass)."""
_NAME_PUNCTUATION = frozenset(" '’.-")
"""Characters besides letters and combining marks a name may hold."""
INVISIBLE_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u180e\u17b4\u17b5")
"""Characters that draw nothing but pass as letters or symbols (Hangul fillers U+115F, U+1160, U+3164,
U+FFA0; Braille blank U+2800; Mongolian vowel separator U+180E; Khmer inherent vowels U+17B4/5, Unicode
``Default_Ignorable_Code_Point`` or blank by design): a name made of them shows as nothing to staff."""
NAME_INVISIBLE = "Il nome deve contenere lettere visibili."


_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
REASON_MIN_WORDS = 2
"""A reason for the seller needs at least this many words of letters (two or more letters each)."""


def says_something(text: str) -> bool:
    """Whether ``text`` is made of words a person can read: at least :data:`REASON_MIN_WORDS` words of
    two or more letters (any script; digits and ``_`` are not letters), and letters at least half of
    its non-space characters. ``"__main__"``, ``"999999"`` or ``"!!! ??"`` say nothing;
    ``"Foto sfocata"`` does."""
    words = _LETTER_WORD.findall(text)
    letters = sum(len(w) for w in words)
    visible = sum(1 for ch in text if not ch.isspace())
    return len(words) >= REASON_MIN_WORDS and letters * 2 >= visible


def has_control_characters(value: str, *, allow_newlines: bool = False) -> bool:
    """Whether ``value`` holds NUL or another control or invisible formatting character (Unicode
    categories Cc and Cf, line and paragraph separators). With ``allow_newlines`` ``\\n``, ``\\r`` and
    ``\\t`` are allowed (multi-line notes)."""
    for ch in value:
        if allow_newlines and ch in "\n\r\t":
            continue
        if unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp"):
            return True
    return False


def single_line(value: str) -> str:
    """Pydantic validator: ``value`` unchanged if it has no control characters.

    Raises:
        PydanticCustomError: ``invalid_characters`` (:data:`INVALID_CHARACTERS`).
    """
    if has_control_characters(value):
        raise PydanticCustomError("invalid_characters", INVALID_CHARACTERS)
    return value


def no_nul(value: str) -> str:
    """Pydantic validator for multi-line free text: control characters are refused except newlines
    and tabs.

    Raises:
        PydanticCustomError: ``invalid_characters`` (:data:`INVALID_CHARACTERS`).
    """
    if has_control_characters(value, allow_newlines=True):
        raise PydanticCustomError("invalid_characters", INVALID_CHARACTERS)
    return value


def person_name(value: str) -> str:
    """Pydantic validator of a first or last name: trimmed, inner spaces collapsed, at most
    :data:`NAME_MAX_CHARS` characters of letters, combining marks, digits and ``' ’ . -``, at least
    one visible letter or digit and none of :data:`INVISIBLE_LETTERS`, and nothing that looks like a
    link. An empty string stays empty (the route says it is required).

    Raises:
        PydanticCustomError: ``name_too_long`` or ``invalid_name`` (Italian messages).
    """
    if has_control_characters(value):
        raise PydanticCustomError("invalid_name", NAME_CONTROL)
    name = re.sub(" {2,}", " ", unicodedata.normalize("NFC", value).strip(" "))
    if len(name) > NAME_MAX_CHARS:
        raise PydanticCustomError("name_too_long", NAME_TOO_LONG.format(max=NAME_MAX_CHARS))
    for ch in name:
        if ch in INVISIBLE_LETTERS:
            raise PydanticCustomError("invalid_name", NAME_INVISIBLE)
        if ch in _NAME_PUNCTUATION:
            continue
        if unicodedata.category(ch)[0] not in ("L", "M", "N"):
            raise PydanticCustomError("invalid_name", INVALID_NAME)
    if name and not any(unicodedata.category(ch)[0] in ("L", "N") for ch in name):
        raise PydanticCustomError("invalid_name", NAME_INVISIBLE)
    if _URL_LIKE.search(name):
        raise PydanticCustomError("invalid_name", INVALID_NAME)
    return name


SingleLine = Annotated[str, AfterValidator(single_line)]
"""A one-line string without control characters (e-mail addresses, tokens, ids, search terms)."""
FreeText = Annotated[str, AfterValidator(no_nul)]
"""Multi-line free text (notes): newlines and tabs allowed, other control characters refused."""
PersonName = Annotated[str, AfterValidator(person_name)]
"""A first or last name (:func:`person_name`)."""


def safe_filename(name: str, fallback: str = "foto") -> str | None:
    """The name an uploaded file is stored under: the last path segment (``/`` or ``\\``), in NFC,
    cut to :data:`FILENAME_MAX_CHARS` characters keeping its extension; ``None`` when the name holds
    NUL or another control character (the caller refuses the file). An empty name is ``fallback``.

    Example: ``"C:\\\\foto\\\\" + "a" * 600 + ".jpg"`` → ``"aaa…a.jpg"`` (150 characters).
    """
    if has_control_characters(name):
        return None
    base = unicodedata.normalize("NFC", re.split(r"[/\\]", name)[-1]).strip() or fallback
    if len(base) <= FILENAME_MAX_CHARS:
        return base
    suffix = PurePosixPath(base).suffix
    if not suffix or len(suffix) > EXTENSION_MAX_CHARS:
        return base[:FILENAME_MAX_CHARS]
    return base[: FILENAME_MAX_CHARS - len(suffix)] + suffix
