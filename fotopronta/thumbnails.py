"""Small stored previews for /photos.

Every stored image gets a WebP preview of at most :data:`THUMBNAIL_MAX_PX` px on its long side, kept in
the same bucket under :func:`thumbnail_key` (``{key}.thumb.webp``): the original at upload time, an AI
result in the retouch activity, a designer's result when it is uploaded. ``GET
/api/photos/{id}/thumbnail`` serves the stored preview (``Cache-Control`` and an ``ETag``) and only
decodes the full file for photos stored before this existed (with the 16 MP guard of
``api/routes/photos.py``). Previews are deleted with their image.
"""

from __future__ import annotations

import io
import logging
import warnings

from PIL import Image, ImageOps

from fotopronta.storage import ObjectStorage

THUMBNAIL_MAX_PX = 512
"""Long side of a stored preview (a /photos card is at most ~300 CSS px wide: sharp at 1.5×)."""
MAX_DECODE_PIXELS = 16_000_000
"""Do not decode more than this for a preview (a JPEG is decoded at reduced scale first)."""
log = logging.getLogger("fotopronta.thumbnails")


def thumbnail_key(key: str) -> str:
    """The storage key of ``key``'s preview, in the same bucket."""
    return f"{key}.thumb.webp"


def make_thumbnail(data: bytes, max_px: int = THUMBNAIL_MAX_PX) -> bytes:
    """A WebP (quality 80) of ``data`` fitted in ``max_px``×``max_px``, EXIF-oriented; transparency is
    flattened on white (previews sit on white cards).

    Raises:
        ValueError: the image would decode to more than :data:`MAX_DECODE_PIXELS` pixels.
        OSError: not an image Pillow can read.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)
        img = Image.open(io.BytesIO(data))
    with img:
        img.draft("RGB", (max_px, max_px))
        if img.size[0] * img.size[1] > MAX_DECODE_PIXELS:
            raise ValueError(f"{img.size[0]}x{img.size[1]} px is too large for a preview")
        oriented = ImageOps.exif_transpose(img)
        oriented.thumbnail((max_px, max_px), Image.Resampling.LANCZOS)
        buf = io.BytesIO()
        flatten_on_white(oriented).save(buf, "WEBP", quality=80, method=4)
        return buf.getvalue()


def store_thumbnail(storage: ObjectStorage, bucket: str, key: str, data: bytes) -> bool:
    """Make and store the preview of the image ``data`` stored at ``bucket``/``key``. Best effort: a
    failure is logged and the endpoint falls back to decoding the file. Returns whether it was stored."""
    try:
        storage.put(bucket, thumbnail_key(key), make_thumbnail(data), "image/webp")
    except Exception:
        log.warning("preview of %s/%s not stored", bucket, key, exc_info=True)
        return False
    return True


def flatten_on_white(img: Image.Image) -> Image.Image:
    """``img`` as RGB, transparent pixels (RGBA, LA or P with transparency) composited on white
    (255, 255, 255): previews show a product on the page's white, not on black."""
    if img.mode in ("RGBA", "LA", "P"):
        rgba = img.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        return flat
    return img.convert("RGB")
