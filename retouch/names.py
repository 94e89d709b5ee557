"""Italian SEO file names for delivered results: ``slugify`` and ``seo_filename``.

Standard library only: the API (``fotopronta/results.py``, download names) imports it without loading
numpy; :mod:`retouch.colors` re-exports both for the pipeline.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["name_words", "seo_filename", "slugify"]

CAMERA_WORDS = frozenset(
    [
        "img",
        "image",
        "immagine",
        "dsc",
        "dscn",
        "dscf",
        "dcim",
        "pxl",
        "mvimg",
        "gopr",
        "dji",
        "sam",
        "screenshot",
        "schermata",
        "foto",
        "photo",
        "pic",
        "picture",
        "whatsapp",
        "copy",
        "copia",
        "copie",
        "final",
        "finale",
        "edit",
        "modificata",
        "scan",
        "scansione",
        "untitled",
        "senza",
        "titolo",
        "new",
        "nuovo",
        "jpg",
        "jpeg",
        "png",
        "webp",
        "heic",
        "tif",
        "tiff",
        "raw",
        # editing apps and what they add to a name (``lamp2_meitu_1``, ``borsa-photoroom``, ``edited``)
        "meitu",
        "photoroom",
        "snapseed",
        "lightroom",
        "picsart",
        "canva",
        "vsco",
        "facetune",
        "remini",
        "removebg",
        "remove",
        "bg",
        "cutout",
        "edited",
        "modified",
        "modifica",
        "enhanced",
        "retouched",
        "export",
        "exported",
        "resized",
        "compressed",
        "cropped",
        "upscaled",
        "hdr",
        "version",
        "versione",
        "ver",
        "draft",
        "bozza",
        "output",
        "snap",
        "pexels",
        "unsplash",
    ]
)
"""Words of camera and editing-app file names (``IMG_0001``, ``PXL_2024…``, ``WhatsApp Image …``,
``Screenshot …``, ``copia``, ``meitu``, ``photoroom``, ``edited``) that say nothing about the product:
left out of SEO names. Camera makers' names are not here: they can be the product's brand."""


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


def name_words(filename: str | None, max_words: int = 6) -> str:
    """The words of an original file name that can describe the product, joined by spaces: the
    extension, numbers, words with digits inside (``a4b``, ``x2``), single letters and the
    :data:`CAMERA_WORDS` are left out, digits at a word's ends are dropped (``lamp2`` is ``lamp``,
    ``img2`` is ``img``, a camera word); at most ``max_words`` words.

    >>> name_words("Borsa_pelle-NERA (2).JPG")
    'borsa pelle nera'
    >>> name_words("IMG_20240101_0001.jpg")
    ''
    >>> name_words("lamp2_meitu_1.jpg")
    'lamp'
    """
    if not filename:
        return ""
    stem = filename.rsplit("/", 1)[-1]
    if "." in stem:
        stem = stem.rsplit(".", 1)[0]
    words = []
    for token in slugify(stem, max_len=200).split("-"):
        # digits stuck to a word (``lamp2``, ``3borse``) are a counter, not the word: keep the word
        w = token.strip("0123456789") if len(token.strip("0123456789")) >= 3 else token
        if len(w) > 1 and w.isalpha() and w not in CAMERA_WORDS:
            words.append(w)
    return " ".join(words[:max_words])


def _same_word(a: str, b: str) -> bool:
    """``a`` and ``b`` are one word, or one Italian word in another gender or number (``nero``,
    ``nera``, ``neri``: same length, only the final vowel differs)."""
    if a == b:
        return True
    return len(a) == len(b) > 3 and a[:-1] == b[:-1] and a[-1] in "aeio" and b[-1] in "aeio"


def seo_filename(
    brand: str | None,
    category: str | None,
    colour: str | None,
    short_id: str | None,
    ext: str = "jpg",
    *,
    original_filename: str | None = None,
    colours: list[str] | None = None,
) -> str:
    """Italian SEO file name: ``<brand>-<category>-<colour>-<short id>.<ext>``, empty parts skipped.

    Without a brand and a category the product is described by the words of ``original_filename``
    (:func:`name_words`) and by ``colours`` (the main colours' names, most present first; ``colour``
    is used when not given): ``seo_filename(None, None, "nero", "f790cd1b",
    original_filename="borsa_pelle.jpg", colours=["nero", "marrone"])`` ->
    ``"borsa-pelle-nero-marrone-f790cd1b.jpg"``.

    Example: ``seo_filename("Nike", "Scarpe da corsa", "rosso", "a1b2c3")`` ->
    ``"nike-scarpe-da-corsa-rosso-a1b2c3.jpg"``. Falls back to ``foto-prodotto`` (plus the colour and
    the short id) when nothing else is known. Repeated words (a colour already in the category) are not
    repeated, nor a colour the name already has in another gender or number (``nera`` and ``nero``).
    """
    described: tuple[str | None, ...] = (brand, category, colour)
    if not (brand or "").strip() and not (category or "").strip():
        named = name_words(original_filename) or "foto prodotto"
        described = (named, *(colours[:2] if colours else [colour]))
    words: list[str] = []
    for part in (*described, short_id):
        if part:
            for w in slugify(part).split("-"):
                if w and (part is short_id or not any(_same_word(w, x) for x in words)):
                    words.append(w)
    stem = "-".join(words)[:90].strip("-") or "foto-prodotto"
    return f"{stem}.{ext}"
