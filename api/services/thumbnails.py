"""Previews decoded by the API (the photo cards' and the designer queue's thumbnails): a JPEG of at
most ``size`` px, decoded under a pixel cap and at most two at a time, and the stored WebP previews.
Pure over bytes and storage: no database."""

from __future__ import annotations

import contextlib
import hashlib
import io
import threading
import warnings

from PIL import Image, ImageOps

from api.errors import ApiError
from fotopronta.storage import ObjectNotFoundError, get_storage
from fotopronta.thumbnails import flatten_on_white, thumbnail_key

THUMBNAIL_CACHE_S = 300
STORED_THUMBNAIL_CACHE_S = 86_400
"""A stored preview never changes under its key (results get new keys; the web app puts the result's
key in the URL), so browsers may keep it a day and revalidate with its ETag."""
THUMBNAIL_MAX_DECODE_PIXELS = 16_000_000
"""Hard cap on the pixels the API decodes for one preview (16 MP: at most 64 MB as RGBA). A JPEG is
decoded at 1/2, 1/4 or 1/8 scale (``draft``), so a JPEG of up to 1 GP fits; a larger PNG, WebP, TIFF or
HEIC original has no preview until its result exists (404 'Anteprima non disponibile'), and an upload
over 80 MP is refused anyway (:mod:`api.uploads`)."""
THUMBNAIL_DECODE_SLOTS = threading.BoundedSemaphore(2)
"""At most two previews decode at the same time in one API process (≤ 128 MB of pixels in all)."""


class ThumbnailTooLargeError(ValueError):
    """Decoding this image for a preview would exceed :data:`THUMBNAIL_MAX_DECODE_PIXELS`."""


def thumbnail_unavailable() -> ApiError:
    """404 'Anteprima non disponibile' (the file is gone or cannot be decoded here)."""
    return ApiError(404, "Anteprima non disponibile", "thumbnail_unavailable")


def stored_preview(bucket: str, key: str) -> tuple[bytes, str] | None:
    """The stored WebP preview of ``key`` (``fotopronta.thumbnails``) and its strong ``ETag``, or
    ``None`` when none was stored."""
    with contextlib.suppress(ObjectNotFoundError):
        stored = get_storage().get(bucket, thumbnail_key(key))
        return stored, '"' + hashlib.sha256(stored).hexdigest()[:32] + '"'
    return None


def decoded_preview(bucket: str, key: str, size: int) -> bytes:
    """A JPEG preview of the file ``key`` decoded from storage (:func:`thumbnail_jpeg`).

    Raises:
        ApiError: 404 'Anteprima non disponibile' when the file is gone, unreadable or over the cap.
    """
    try:
        return thumbnail_jpeg(get_storage().get(bucket, key), size)
    except (ObjectNotFoundError, OSError, ValueError, Image.DecompressionBombError) as exc:
        raise thumbnail_unavailable() from exc  # ThumbnailTooLargeError is a ValueError


def thumbnail_jpeg(data: bytes, size: int) -> bytes:
    """Decode (JPEG at reduced scale via ``draft``), apply EXIF orientation, fit in ``size``×``size``
    px, flatten transparency on white, encode JPEG quality 82. The pixel count is read from the header
    (after ``draft``) and checked against :data:`THUMBNAIL_MAX_DECODE_PIXELS` *before* decoding; at
    most two decodes run at once (:data:`THUMBNAIL_DECODE_SLOTS`).

    Raises:
        ThumbnailTooLargeError: the decode would exceed the cap.
        OSError, ValueError: not an image Pillow can read.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", Image.DecompressionBombWarning)  # our own cap is far lower
        img = Image.open(io.BytesIO(data))
    with img:
        img.draft("RGB", (size, size))  # JPEG only: decode at 1/2..1/8 scale; size reflects it
        width, height = img.size
        if width * height > THUMBNAIL_MAX_DECODE_PIXELS:
            raise ThumbnailTooLargeError(f"{width}x{height} px")
        with THUMBNAIL_DECODE_SLOTS:
            return encode_thumbnail(img, size)


def encode_thumbnail(img: Image.Image, size: int) -> bytes:
    """Orient, fit in ``size``×``size`` px, flatten on white and encode JPEG quality 82."""
    oriented = ImageOps.exif_transpose(img)
    oriented.thumbnail((size, size))
    buf = io.BytesIO()
    flatten_on_white(oriented).save(buf, "JPEG", quality=82)
    return buf.getvalue()
