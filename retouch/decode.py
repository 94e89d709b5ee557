"""Decoding: bytes in any supported format -> 8-bit sRGB array (+ optional alpha), upright.

Supported: JPEG (incl. CMYK/YCCK), PNG (incl. palette, grey, 16 bit, transparency), WebP, TIFF
(8 and 16 bit, via Pillow with a tifffile fallback), HEIC/HEIF/AVIF (pillow-heif) and camera RAW
(CR2, NEF, ARW, DNG and anything else LibRaw reads, via rawpy).

Everything the seller gives us is normalised here so the rest of the pipeline only ever sees
``uint8 (H, W, 3)`` sRGB:

* EXIF orientation is applied (``ImageOps.exif_transpose``; RAW: LibRaw's own flip);
* an embedded ICC profile is converted to sRGB with LittleCMS (``PIL.ImageCms``), perceptual intent;
* CMYK without a profile goes through Pillow's naive inversion (the best we can do without a profile);
* 16-bit data keeps its top 8 bits (after the ICC transform when there is one);
* decompression bombs (more than :data:`MAX_PIXELS`) and files over the byte limit are refused with
  :class:`~retouch.errors.BadImageError` *before* the pixels are decoded.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from PIL import Image, ImageCms, ImageFile, ImageOps

from .errors import BadImageError
from .limits import DEFAULT_MAX_INPUT_BYTES, MAX_PIXELS

__all__ = ["Decoded", "decode_image", "MAX_PIXELS", "DEFAULT_MAX_INPUT_BYTES"]

_TIFF_MAGICS = (b"II*\x00", b"MM\x00*")
# Other RAW containers LibRaw reads that do not start like a TIFF.
_RAW_MAGICS = (
    b"FUJIFILMCCD-RAW",  # RAF
    b"\x00MRM",  # Minolta MRW
    b"IIRO",  # Olympus ORF
    b"IIRS",
    b"IIU\x00",  # Panasonic RW2
    b"FOVb",  # Sigma X3F
)

_HEIF_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1", b"avif", b"avis")

ImageFile.LOAD_TRUNCATED_IMAGES = False


@dataclass
class Decoded:
    """A decoded, upright, sRGB image.

    Attributes:
        rgb: uint8 array (H, W, 3), sRGB.
        alpha: uint8 array (H, W) when the file carried real transparency (some pixel below 250),
            else ``None``. 255 = opaque.
        format: short source format name (``JPEG``, ``PNG``, ``TIFF``, ``HEIF``, ``RAW`` ...).
        mode: the source's Pillow mode (``RGB``, ``CMYK``, ``I;16`` ...) or ``RAW``.
        icc_converted: whether an embedded ICC profile was converted to sRGB.
        bits: bits per channel in the source (8 or 16).
    """

    rgb: np.ndarray
    alpha: np.ndarray | None
    format: str
    mode: str
    icc_converted: bool = False
    bits: int = 8

    @property
    def width(self) -> int:
        """Width in pixels."""
        return int(self.rgb.shape[1])

    @property
    def height(self) -> int:
        """Height in pixels."""
        return int(self.rgb.shape[0])


@lru_cache(maxsize=1)
def _srgb_profile() -> ImageCms.ImageCmsProfile:
    return ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB"))


def srgb_icc_bytes() -> bytes:
    """Return the bytes of LittleCMS's built-in sRGB ICC profile (embedded in our JPEG/WebP outputs)."""
    return bytes(_srgb_profile().tobytes())


_HEIF_REGISTERED = False


def _register_heif() -> None:
    global _HEIF_REGISTERED
    if not _HEIF_REGISTERED:
        import pillow_heif

        pillow_heif.register_heif_opener()
        _HEIF_REGISTERED = True


def _too_big_message(pixels: int) -> str:
    size = f"{pixels / 1e6:.0f} megapixel" if pixels else f"oltre {MAX_PIXELS // 1_000_000} megapixel"
    return (
        f"Immagine troppo grande: {size} (massimo {MAX_PIXELS // 1_000_000}). "
        "Riduci la risoluzione e riprova."
    )


def _check_pixels(width: int, height: int) -> None:
    if width <= 0 or height <= 0:
        raise BadImageError()
    if width * height > MAX_PIXELS:
        raise BadImageError(_too_big_message(width * height))


def _looks_like_heif(data: bytes) -> bool:
    return len(data) > 12 and data[4:8] == b"ftyp" and data[8:12] in _HEIF_BRANDS


def _maybe_raw(data: bytes) -> bool:
    head = data[:16]
    return head.startswith(_TIFF_MAGICS) or any(head.startswith(m) for m in _RAW_MAGICS)


def _decode_raw(data: bytes) -> Decoded | None:
    """Decode camera RAW with LibRaw; ``None`` when LibRaw does not recognise the file (plain TIFF)."""
    import rawpy

    try:
        raw = rawpy.imread(io.BytesIO(data))
    except (rawpy.LibRawFileUnsupportedError, rawpy.LibRawIOError):
        return None
    except rawpy.LibRawError as exc:  # pragma: no cover - corrupt RAW
        raise BadImageError() from exc
    with raw:
        sizes = raw.sizes
        _check_pixels(int(sizes.width), int(sizes.height))
        try:
            # Camera white balance, sRGB output, 8 bit, LibRaw auto-brightness; LibRaw applies the
            # sensor's orientation flag itself.
            rgb = raw.postprocess(
                use_camera_wb=True,
                output_color=rawpy.ColorSpace.sRGB,
                output_bps=8,
                no_auto_bright=False,
            )
        except rawpy.LibRawError as exc:
            raise BadImageError() from exc
    rgb = np.ascontiguousarray(rgb[..., :3], dtype=np.uint8)
    _check_pixels(rgb.shape[1], rgb.shape[0])
    return Decoded(rgb=rgb, alpha=None, format="RAW", mode="RAW", bits=16)


def _to_8bit(im: Image.Image) -> Image.Image:
    """Convert high-bit-depth greyscale / float modes to 8-bit ``L`` keeping the full range."""
    if im.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I"):
        arr = np.asarray(im)
        if im.mode == "I":
            hi = 65535 if arr.max() > 255 else 255
            arr8 = (np.clip(arr, 0, hi).astype(np.float32) * (255.0 / hi) + 0.5).astype(np.uint8)
        else:
            arr8 = (arr.astype(np.uint16) >> 8).astype(np.uint8)
        return Image.fromarray(arr8, "L")
    if im.mode == "F":
        arr = np.asarray(im, dtype=np.float32)
        scale = 255.0 if arr.max() <= 1.0 else 1.0
        return Image.fromarray(np.clip(arr * scale + 0.5, 0, 255).astype(np.uint8), "L")
    return im


def _decode_tiff16(data: bytes) -> Decoded | None:
    """Fallback for TIFFs Pillow cannot open (16-bit RGBA, planar, exotic compression)."""
    try:
        import tifffile

        with tifffile.TiffFile(io.BytesIO(data)) as tif:
            page = tif.pages.first
            _check_pixels(int(page.imagewidth), int(page.imagelength))
            arr = page.asarray()
            icc = page.tags.get(34675)
            icc_bytes = bytes(icc.value) if icc is not None else None
    except BadImageError:
        raise
    except Exception:
        return None
    if arr.ndim == 3 and arr.shape[0] in (3, 4) and arr.shape[-1] not in (3, 4):
        arr = np.moveaxis(arr, 0, -1)
    bits = 16 if arr.dtype == np.uint16 else 8
    if arr.dtype == np.uint16:
        arr = (arr >> 8).astype(np.uint8)
    elif arr.dtype.kind == "f":
        arr = np.clip(arr * (255.0 if arr.max() <= 1.0 else 1.0) + 0.5, 0, 255).astype(np.uint8)
    elif arr.dtype != np.uint8:
        return None
    if arr.ndim == 2:
        arr = np.repeat(arr[..., None], 3, axis=2)
    alpha = arr[..., 3].copy() if arr.shape[-1] >= 4 else None
    rgb = np.ascontiguousarray(arr[..., :3])
    icc_converted = False
    if icc_bytes:
        rgb, icc_converted = _apply_icc_array(rgb, icc_bytes)
    return Decoded(
        rgb=rgb,
        alpha=_meaningful_alpha(alpha),
        format="TIFF",
        mode="RGB;16",
        bits=bits,
        icc_converted=icc_converted,
    )


def _apply_icc_array(rgb: np.ndarray, icc: bytes) -> tuple[np.ndarray, bool]:
    im, ok = _apply_icc(Image.fromarray(rgb, "RGB"), icc)
    return np.asarray(im.convert("RGB")), ok


def _is_srgb(profile: ImageCms.ImageCmsProfile) -> bool:
    """True for the usual sRGB profiles (by description), so the common case skips the transform."""
    try:
        desc = (ImageCms.getProfileDescription(profile) or "").strip().lower()
    except ImageCms.PyCMSError:
        return False
    return desc.startswith("srgb") and "linear" not in desc and "scrgb" not in desc


def _apply_icc(im: Image.Image, icc: bytes) -> tuple[Image.Image, bool]:
    """Convert ``im`` (RGB, CMYK or L) from its embedded profile to sRGB (perceptual intent).

    Returns the converted image (mode RGB) and whether a transform was applied. A broken profile is
    ignored (the pixels are then taken as sRGB, which is what browsers do).
    """
    try:
        src = ImageCms.ImageCmsProfile(io.BytesIO(icc))
    except (ImageCms.PyCMSError, OSError, ValueError):
        return im, False
    if im.mode == "RGB" and _is_srgb(src):
        return im, False
    try:
        out = ImageCms.profileToProfile(
            im,
            src,
            _srgb_profile(),
            renderingIntent=ImageCms.Intent.PERCEPTUAL,
            outputMode="RGB",
        )
    except (ImageCms.PyCMSError, OSError, ValueError):
        return im, False
    assert out is not None
    return out, True


def _meaningful_alpha(alpha: np.ndarray | None) -> np.ndarray | None:
    """Keep an alpha channel only when some pixel is actually transparent (below 250)."""
    if alpha is None:
        return None
    if int(alpha.min()) >= 250:
        return None
    return np.ascontiguousarray(alpha, dtype=np.uint8)


def _decode_pillow(data: bytes) -> Decoded:  # noqa: C901
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            im: Image.Image = Image.open(io.BytesIO(data))
            fmt = (im.format or "").upper()
            _check_pixels(*im.size)
            im.load()
    except BadImageError:
        raise
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise BadImageError(_too_big_message(0)) from exc
    except Exception as exc:
        if data[:4] in _TIFF_MAGICS:
            dec = _decode_tiff16(data)
            if dec is not None:
                return dec
        raise BadImageError() from exc

    try:
        icc = im.info.get("icc_profile")
        src_mode = im.mode
        bits = 16 if src_mode.startswith("I") or ";16" in src_mode else 8
        try:
            upright = ImageOps.exif_transpose(im)
        except Exception:  # broken EXIF: keep the pixels as stored
            upright = im
        im = upright if upright is not None else im

        # Normalise modes: palette / LA / 1 / 16-bit grey -> L/RGB(A)
        if im.mode == "P":
            im = im.convert("RGBA" if "transparency" in im.info else "RGB")
        elif im.mode == "PA":
            im = im.convert("RGBA")
        elif im.mode == "1":
            im = im.convert("L")
        im = _to_8bit(im)
        alpha: np.ndarray | None = None
        if im.mode in ("RGBA", "LA", "RGBa", "La"):
            if im.mode in ("RGBa", "La"):
                im = im.convert("RGBA")
            alpha = np.asarray(im.getchannel("A"))
            im = im.convert("RGB" if im.mode == "RGBA" else "L")
        if im.mode == "I;16" or im.mode not in ("RGB", "L", "CMYK", "YCbCr", "LAB", "HSV"):
            im = im.convert("RGB")

        icc_converted = False
        if icc and im.mode in ("RGB", "CMYK", "L"):
            im, icc_converted = _apply_icc(im, icc)
        if im.mode != "RGB":
            im = im.convert("RGB")
        rgb = np.asarray(im, dtype=np.uint8)
        if not rgb.flags.writeable or not rgb.flags.c_contiguous:
            rgb = np.array(rgb, dtype=np.uint8, order="C")
    except BadImageError:
        raise
    except Exception as exc:
        raise BadImageError() from exc
    return Decoded(
        rgb=rgb,
        alpha=_meaningful_alpha(alpha),
        format=fmt or "UNKNOWN",
        mode=src_mode,
        icc_converted=icc_converted,
        bits=bits,
    )


def decode_image(data: bytes, *, max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES) -> Decoded:
    """Decode an uploaded file into an upright 8-bit sRGB image.

    Args:
        data: the file's bytes, as uploaded.
        max_input_bytes: refuse larger files (bytes).

    Returns:
        :class:`Decoded` with ``rgb`` uint8 (H, W, 3) and optional ``alpha`` uint8 (H, W).

    Raises:
        BadImageError: empty, too large (bytes or pixels: decompression bomb), unsupported or corrupt.
    """
    if not data:
        raise BadImageError("Il file è vuoto")
    if len(data) > max_input_bytes:
        raise BadImageError(
            f"File troppo grande: {len(data) / 1048576:.1f} MB (massimo {max_input_bytes / 1048576:.0f} MB)"
        )
    if _looks_like_heif(data):
        _register_heif()
    if _maybe_raw(data):
        dec = _decode_raw(data)
        if dec is not None:
            return dec
    return _decode_pillow(data)
