"""What an uploaded file really is, decided from its bytes before anything is stored or charged
(SPEC §5 client upload, §9 limits).

:func:`inspect_image` sniffs the type from the magic bytes (never the client's Content-Type or file
extension) and reads the dimensions from the header only (Pillow's lazy ``Image.open``, pillow-heif's
container metadata, LibRaw's ``open_buffer`` without ``unpack``): no pixel is decoded, so a 321 KB PNG
claiming 110 MP costs a few KB of memory to refuse.

Accepted: JPEG, PNG, WebP, GIF, BMP, TIFF (8/16 bit), HEIC/HEIF/AVIF and camera RAW (TIFF-based CR2,
NEF, ARW, DNG…, and RAF, MRW, ORF, RW2, X3F), i.e. what ``retouch.decode`` can decode. Refused with an
Italian message: anything else (text, PDF, SVG, HTML, archives), empty files, files over
``settings.max_file_bytes`` (50 MB) and images over :data:`retouch.decode.MAX_PIXELS` (80 MP).
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from pathlib import PurePath

from fastapi import UploadFile
from fastapi.concurrency import run_in_threadpool
from PIL import Image

from api.errors import ApiError
from api.text_rules import safe_filename
from fotopronta.domain import UserRole
from fotopronta.settings import get_settings
from retouch.limits import MAX_PIXELS

UPLOAD_MAX_PARTS = 100
UPLOAD_MAX_FIELDS = 20
"""File parts and text fields the multipart parser accepts on ``POST /api/photos`` before it refuses the form (400): far
above the batch rules (25 files for admins, 7 text fields), so :func:`check_batch` still gives SPEC's
message, but a body of thousands of tiny parts is refused while it streams."""

UNSUPPORTED = "Solo le immagini sono supportate"
"""SPEC §5 client upload: the message for a file that is not an image (title 'Alcuni file ignorati')."""
UNSUPPORTED_TITLE = "Alcuni file ignorati"
UPLOAD_TITLE = "Errore upload"
INVALID_FILENAME = "Il nome di un file contiene caratteri non ammessi: rinominalo e riprova."
"""Detail of the 400 ``invalid_filename``: a file name holding NUL or another control character."""
"""SPEC §8 Upload: 'Errore upload' ('Impossibile caricare {file}')."""

_TIFF_MAGICS = (b"II*\x00", b"MM\x00*")
_RAW_MAGICS = (b"FUJIFILMCCD-RAW", b"\x00MRM", b"IIRO", b"IIRS", b"IIU\x00", b"FOVb")
_HEIC_BRANDS = (b"heic", b"heix", b"hevc", b"hevx", b"heim", b"heis", b"mif1", b"msf1")
_AVIF_BRANDS = (b"avif", b"avis")
RAW_TYPES = {
    ".cr2": "image/x-canon-cr2",
    ".nef": "image/x-nikon-nef",
    ".arw": "image/x-sony-arw",
    ".dng": "image/x-adobe-dng",
    ".raf": "image/x-fuji-raf",
    ".orf": "image/x-olympus-orf",
    ".rw2": "image/x-panasonic-rw2",
    ".mrw": "image/x-minolta-mrw",
    ".x3f": "image/x-sigma-x3f",
}
"""Camera RAW MIME types by extension (the extension only names a RAW the bytes proved to be one)."""
PILLOW_TYPES = {
    "JPEG": ("image/jpeg", "jpg"),
    "MPO": ("image/jpeg", "jpg"),  # JPEG with extra frames (many phone cameras)
    "PNG": ("image/png", "png"),
    "WEBP": ("image/webp", "webp"),
    "GIF": ("image/gif", "gif"),
    "BMP": ("image/bmp", "bmp"),
    "TIFF": ("image/tiff", "tif"),
}

ACCEPTED_FORMATS = (
    "JPG",
    "PNG",
    "WebP",
    "GIF",
    "BMP",
    "TIFF",
    "HEIC",
    "AVIF",
    "RAW (" + ", ".join(ext[1:].upper() for ext in RAW_TYPES) + ")",
)
"""The accepted formats as the seller knows them, in the order the web app lists them
(``GET /api/config``): :data:`PILLOW_TYPES` (MPO is a JPEG), HEIC/HEIF, AVIF and :data:`RAW_TYPES`."""
ACCEPTED_EXTENSIONS = (
    ".jpg",
    ".jpeg",
    ".png",
    ".webp",
    ".gif",
    ".bmp",
    ".tif",
    ".tiff",
    ".heic",
    ".heif",
    ".avif",
    *RAW_TYPES,
)
"""File name extensions of :data:`ACCEPTED_FORMATS`, for the file picker (the bytes still decide)."""


@dataclass(frozen=True)
class ImageInfo:
    """What the bytes are: ``mime`` (e.g. ``image/jpeg``), storage extension ``ext`` and the size in px
    read from the header."""

    mime: str
    ext: str
    width: int
    height: int


_HEIF_READY = False


def _register_heif() -> None:
    global _HEIF_READY
    if not _HEIF_READY:
        import pillow_heif

        pillow_heif.register_heif_opener()
        _HEIF_READY = True


def _kind(head: bytes) -> str | None:
    """``pillow``, ``heif``, ``avif``, ``tiff`` (plain TIFF or TIFF-based RAW), ``raw`` or ``None``."""
    if head.startswith((b"\xff\xd8\xff", b"\x89PNG\r\n\x1a\n", b"GIF87a", b"GIF89a", b"BM")):
        return "pillow"
    if head.startswith(b"RIFF") and head[8:12] == b"WEBP":
        return "pillow"
    if head[4:8] == b"ftyp" and head[8:12] in _HEIC_BRANDS:
        return "heif"
    if head[4:8] == b"ftyp" and head[8:12] in _AVIF_BRANDS:
        return "avif"
    if head.startswith(_TIFF_MAGICS):
        return "tiff"
    if head.startswith(_RAW_MAGICS):
        return "raw"
    return None


def _raw_size(data: bytes) -> tuple[int, int] | None:
    """Output size of a camera RAW from LibRaw's header parse (no ``unpack``); ``None`` if LibRaw does
    not take the file (a plain TIFF)."""
    import rawpy

    try:
        with rawpy.imread(io.BytesIO(data)) as raw:
            sizes = raw.sizes
            return int(sizes.width), int(sizes.height)
    except rawpy.LibRawError:
        return None


def _pillow_header(data: bytes) -> tuple[str, int, int] | None:
    """Pillow's format name and size from the header (``Image.open`` is lazy); ``None`` when unreadable.
    Pillow's own decompression-bomb error is reported as an impossible size, refused by the caller."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            with Image.open(io.BytesIO(data)) as img:
                return str(img.format or ""), int(img.size[0]), int(img.size[1])
    except Image.DecompressionBombError:
        return "BOMB", 1 << 20, 1 << 20
    except Exception:
        return None


def _tifffile_size(data: bytes) -> tuple[int, int] | None:
    """Size of a TIFF Pillow cannot open (16-bit RGBA, planar…), from its first IFD."""
    try:
        import tifffile

        with tifffile.TiffFile(io.BytesIO(data)) as tif:
            page = tif.pages.first
            return int(page.imagewidth), int(page.imagelength)
    except Exception:
        return None


def sniff_image(data: bytes, filename: str = "") -> ImageInfo | None:
    """The image type and header size of ``data``, or ``None`` when it is not an image we process.

    ``filename`` only tells a plain ``.tif`` from a TIFF-based camera RAW (both start like a TIFF) and
    names the MIME type of a RAW whose bytes LibRaw recognised. Never decodes pixels.
    """
    kind = _kind(data[:32])
    if kind is None:
        return None
    suffix = PurePath(filename).suffix.lower()
    plain_tiff = kind == "tiff" and suffix in (".tif", ".tiff") and _pillow_header(data) is not None
    if kind in ("tiff", "raw") and not plain_tiff:
        size = _raw_size(data)
        if size is not None:
            mime = RAW_TYPES.get(suffix, "image/x-dcraw")
            return ImageInfo(mime, suffix.lstrip(".") if suffix in RAW_TYPES else "raw", *size)
        if kind == "raw":
            return None
    if kind in ("heif", "avif"):
        _register_heif()
    header = _pillow_header(data)
    if header is None:
        size = _tifffile_size(data) if kind == "tiff" else None
        return ImageInfo("image/tiff", "tif", *size) if size else None
    fmt, width, height = header
    if fmt == "BOMB":
        return ImageInfo("image/x-unknown", "bin", width, height)
    if kind in ("heif", "avif"):
        return ImageInfo(
            "image/avif" if kind == "avif" else "image/heic",
            kind if kind == "avif" else "heic",
            width,
            height,
        )
    if fmt not in PILLOW_TYPES or (kind == "tiff") != (fmt == "TIFF"):
        return None
    mime, ext = PILLOW_TYPES[fmt]
    return ImageInfo(mime, ext, width, height)


def _size_label(n_bytes: int) -> str:
    """``50 MB`` (MiB, as SPEC §9 writes them), or ``2 KB`` below one MB."""
    return f"{n_bytes / 1048576:.0f} MB" if n_bytes >= 1048576 else f"{n_bytes / 1024:.0f} KB"


def _label(filename: str) -> str:
    name = PurePath(filename or "foto").name
    return name if len(name) <= 80 else name[:77] + "…"


def inspect_image(
    data: bytes,
    filename: str,
    *,
    max_bytes: int,
    max_pixels: int = MAX_PIXELS,
    allowed: frozenset[str] | None = None,
) -> ImageInfo:
    """Check one uploaded file by its content; return its type and size.

    Args:
        data: the file's bytes (the caller reads at most ``max_bytes + 1``).
        filename: the client's file name (only for messages and RAW MIME names).
        max_bytes: per-file limit in bytes (``settings.max_file_bytes``, 50 MB).
        max_pixels: limit in pixels (width × height from the header; 80 MP).
        allowed: accepted MIME types (``None``: every type :func:`sniff_image` knows).

    Raises:
        ApiError: 400 ``unsupported_type`` 'Solo le immagini sono supportate' (title 'Alcuni file
            ignorati') for anything that is not an accepted image; 400 ``empty_file``,
            ``file_too_large`` or ``image_too_large`` ('Impossibile caricare {file}: …', title
            'Errore upload').
    """
    label = _label(filename)
    if not data:
        raise ApiError(400, f"Impossibile caricare {label}: il file è vuoto.", "empty_file", UPLOAD_TITLE)
    if len(data) > max_bytes:
        raise ApiError(
            400,
            f"Impossibile caricare {label}: file troppo grande (massimo {_size_label(max_bytes)}).",
            "file_too_large",
            UPLOAD_TITLE,
        )
    info = sniff_image(data, filename)
    if info is None or (allowed is not None and info.mime not in allowed and info.mime != "image/x-unknown"):
        raise ApiError(400, UNSUPPORTED, "unsupported_type", UNSUPPORTED_TITLE)
    pixels = info.width * info.height
    if info.width <= 0 or info.height <= 0:
        raise ApiError(400, UNSUPPORTED, "unsupported_type", UNSUPPORTED_TITLE)
    if pixels > max_pixels:
        size = f"{pixels / 1e6:.0f} megapixel" if info.mime != "image/x-unknown" else "troppi megapixel"
        raise ApiError(
            400,
            f"Impossibile caricare {label}: immagine troppo grande, {size} "
            f"(massimo {max_pixels // 1_000_000}). Riduci la risoluzione e riprova.",
            "image_too_large",
            UPLOAD_TITLE,
        )
    return info


def check_batch(files: list[UploadFile], role: UserRole) -> None:
    """Server-side batch rules of SPEC §5/§9: at most 10 files / 100 MB (25 / 250 MB for admins). What
    each file is, is checked from its bytes by :func:`inspect_uploads`.

    Raises:
        ApiError: 400 with the SPEC's title and message.
    """
    settings = get_settings()
    if not files:
        raise ApiError(400, "Seleziona almeno una foto da caricare.", "no_files", "Errore upload")
    admin = role is UserRole.admin
    max_files = settings.max_batch_files_admin if admin else settings.max_batch_files_standard
    max_bytes = settings.max_batch_bytes_admin if admin else settings.max_batch_bytes_standard
    if len(files) > max_files:
        label = "(Limite admin)" if admin else "(Limite standard)"
        raise ApiError(
            400,
            f"Puoi caricare al massimo {max_files} foto alla volta {label}",
            "too_many_files",
            f"Troppi file {label}",
        )
    total = sum(f.size or 0 for f in files)
    if total > max_bytes:
        raise ApiError(
            400,
            f"La dimensione totale non può superare {max_bytes // (1024 * 1024)}MB",
            "batch_too_large",
            "Batch troppo grande",
        )


def upload_names(files: list[UploadFile]) -> list[str]:
    """The names the files are stored under (:func:`api.text_rules.safe_filename`: last path segment,
    at most 150 characters with the extension kept), in upload order.

    Raises:
        ApiError: 400 ``invalid_filename`` when a name holds NUL or another control character (the
            batch is refused before any byte is stored).
    """
    names = []
    for upload in files:
        name = safe_filename(upload.filename or "")
        if name is None:
            raise ApiError(
                400,
                INVALID_FILENAME,
                "invalid_filename",
                UPLOAD_TITLE,
            )
        names.append(name)
    return names


async def inspect_each(files: list[UploadFile]) -> list[ImageInfo | ApiError]:
    """Check every file by its content (:func:`api.uploads.inspect_image`: type sniffed from the bytes,
    size from the header, per-file limit ``settings.max_file_bytes`` and 80 MP) before anything is
    stored or charged; each file is read once, at most ``max_file_bytes + 1`` bytes, and rewound.

    Returns:
        Per file, in order: what it is, or the 400 :class:`ApiError` that refuses it (its own Italian
        reason: 'Solo le immagini sono supportate', 'Impossibile caricare {file}: …').
    """
    max_bytes = get_settings().max_file_bytes
    results: list[ImageInfo | ApiError] = []
    for upload in files:
        data = await upload.read(max_bytes + 1)
        try:
            results.append(
                await run_in_threadpool(inspect_image, data, upload.filename or "", max_bytes=max_bytes)
            )
        except ApiError as exc:
            results.append(exc)
        await upload.seek(0)
    return results


async def inspect_uploads(files: list[UploadFile]) -> list[ImageInfo]:
    """:func:`inspect_each`, all or nothing.

    Raises:
        ApiError: 400 for the first file that is not an accepted image or is over a limit.
    """
    infos = []
    for result in await inspect_each(files):
        if isinstance(result, ApiError):
            raise result
        infos.append(result)
    return infos
