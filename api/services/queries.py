"""Small SQL helpers the services share."""

from __future__ import annotations


def escape_like(text: str) -> str:
    """``text`` with ``\\``, ``%`` and ``_`` escaped for a LIKE pattern (``escape="\\\\"``)."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def like_pattern(term: str) -> str:
    """``%term%`` lower-cased for a case-insensitive LIKE on ``lower(column)``, wildcards escaped."""
    return "%" + escape_like(term.lower()) + "%"
