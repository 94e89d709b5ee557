"""Italian SEO file names for delivered results: ``slugify`` and ``seo_filename``.

Standard library only: the API (``fotopronta/results.py``, download names) imports it without loading
numpy; :mod:`retouch.colors` re-exports both for the pipeline.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["seo_filename", "slugify"]


def slugify(text: str, max_len: int = 60) -> str:
    """ASCII slug for URLs/file names: accents removed, lower case, words joined by ``-``.

    >>> slugify("Borsa in Pelle – Nero Opaco")
    'borsa-in-pelle-nero-opaco'
    """
    norm = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii").lower()
    slug = re.sub(r"[^a-z0-9]+", "-", norm).strip("-")
    if len(slug) > max_len:
        slug = slug[:max_len].rsplit("-", 1)[0] or slug[:max_len]
    return slug


def seo_filename(
    brand: str | None, category: str | None, colour: str | None, short_id: str | None, ext: str = "jpg"
) -> str:
    """Italian SEO file name: ``<brand>-<category>-<colour>-<short id>.<ext>``, empty parts skipped.

    Example: ``seo_filename("Nike", "Scarpe da corsa", "rosso", "a1b2c3")`` ->
    ``"nike-scarpe-da-corsa-rosso-a1b2c3.jpg"``. Falls back to ``foto-prodotto`` when nothing is known.
    Repeated words (a colour already in the category) are not repeated.
    """
    words: list[str] = []
    for part in (brand, category, colour, short_id):
        if part:
            for w in slugify(part).split("-"):
                if w and (w not in words or part is short_id):
                    words.append(w)
    stem = "-".join(words)[:90].strip("-") or "foto-prodotto"
    return f"{stem}.{ext}"
