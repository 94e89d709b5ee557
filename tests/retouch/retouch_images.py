"""Synthetic test images made in the tests themselves (no binary fixtures needed)."""

from __future__ import annotations

import io
import struct
import zlib

import numpy as np
from PIL import Image


def product_photo(
    w: int = 480, h: int = 360, colour: tuple[int, int, int] = (200, 30, 40)
) -> tuple[bytes, np.ndarray]:
    """A coloured ellipse ("product") on a light grey, slightly graded backdrop.

    Returns:
        (JPEG bytes, uint8 (h, w) true mask, 255 = product).
    """
    yy, xx = np.mgrid[0:h, 0:w]
    bg = 205 + 20 * (yy / h)
    img = np.dstack([bg, bg, bg - 6]).astype(np.float32)
    inside = ((xx - w / 2) / (w * 0.22)) ** 2 + ((yy - h / 2) / (h * 0.3)) ** 2 <= 1
    img[inside] = colour
    buf = io.BytesIO()
    Image.fromarray(img.clip(0, 255).astype(np.uint8)).save(buf, "JPEG", quality=95)
    return buf.getvalue(), (inside * 255).astype(np.uint8)


def _icc_tag_xyz(x: float, y: float, z: float) -> bytes:
    def s15(v: float) -> int:
        return int(round(v * 65536)) & 0xFFFFFFFF

    return b"XYZ " + b"\0" * 4 + struct.pack(">III", s15(x), s15(y), s15(z))


def linear_srgb_icc() -> bytes:
    """A minimal ICC v2 RGB display profile: sRGB primaries (D50-adapted) with a *linear* (gamma 1) TRC.

    Pixels tagged with it are linear light, so converting mid-grey 128 to sRGB must give about 188.
    Built by hand (ICC.1:2001-04 layout: 128-byte header, tag table, desc/wtpt/rXYZ/gXYZ/bXYZ/TRC).
    """
    desc_text = b"Linear sRGB test\0"
    desc = b"desc" + b"\0" * 4 + struct.pack(">I", len(desc_text)) + desc_text + b"\0" * (4 + 4 + 2 + 1 + 67)
    curv = b"curv" + b"\0" * 4 + struct.pack(">I", 0)  # count 0 = identity (gamma 1.0)
    tags = [
        (b"desc", desc),
        (b"wtpt", _icc_tag_xyz(0.9642, 1.0, 0.8249)),
        (b"rXYZ", _icc_tag_xyz(0.4361, 0.2225, 0.0139)),
        (b"gXYZ", _icc_tag_xyz(0.3851, 0.7169, 0.0971)),
        (b"bXYZ", _icc_tag_xyz(0.1431, 0.0606, 0.7141)),
        (b"rTRC", curv),
        (b"gTRC", curv),
        (b"bTRC", curv),
        (b"cprt", b"text" + b"\0" * 4 + b"none\0"),
    ]
    offset = 128 + 4 + 12 * len(tags)
    table = struct.pack(">I", len(tags))
    body = b""
    for sig, data in tags:
        while (offset + len(body)) % 4:
            body += b"\0"
        table += sig + struct.pack(">II", offset + len(body), len(data))
        body += data
    size = offset + len(body)
    header = struct.pack(">I", size) + b"lcms" + bytes([2, 0x10, 0, 0]) + b"mntr" + b"RGB " + b"XYZ "
    header += b"\0" * 12 + b"acsp" + b"APPL" + b"\0" * 4 + b"\0" * 8 + b"\0" * 8 + b"\0" * 4
    header += _icc_tag_xyz(0.9642, 1.0, 0.8249)[8:] + b"lcms" + b"\0" * 44
    assert len(header) == 128, len(header)
    return header + table + body


def png_bomb(width: int = 40_000, height: int = 40_000) -> bytes:
    """A tiny PNG whose header claims ``width`` x ``height`` pixels (a decompression bomb)."""
    buf = io.BytesIO()
    Image.new("1", (8, 8)).save(buf, "PNG")
    data = bytearray(buf.getvalue())
    ihdr = 8  # after the signature: length(4) type(4) data(13) crc(4)
    data[ihdr + 8 : ihdr + 16] = struct.pack(">II", width, height)
    crc = zlib.crc32(bytes(data[ihdr + 4 : ihdr + 8 + 13])) & 0xFFFFFFFF
    data[ihdr + 21 : ihdr + 25] = struct.pack(">I", crc)
    return bytes(data)


def tiny_dng(w: int = 64, h: int = 48) -> bytes:
    """A minimal valid DNG (12-bit RGGB Bayer CFA, uncompressed): left half red, right half blue.

    Written with tifffile and the DNG 1.4 tags LibRaw needs (DNGVersion, CFA pattern, black/white
    level, ColorMatrix1, AsShotNeutral).
    """
    import tifffile

    scene = np.zeros((h, w, 3), np.float32)
    scene[:, : w // 2] = (0.8, 0.2, 0.1)
    scene[:, w // 2 :] = (0.1, 0.3, 0.8)
    cfa = np.zeros((h, w), np.uint16)
    cfa[0::2, 0::2] = scene[0::2, 0::2, 0] * 4000
    cfa[0::2, 1::2] = scene[0::2, 1::2, 1] * 4000
    cfa[1::2, 0::2] = scene[1::2, 0::2, 1] * 4000
    cfa[1::2, 1::2] = scene[1::2, 1::2, 2] * 4000
    extratags = [
        (50706, "B", 4, (1, 4, 0, 0), True),  # DNGVersion
        (50708, "s", 0, "FotoPronta Test", True),  # UniqueCameraModel
        (33421, "H", 2, (2, 2), True),  # CFARepeatPatternDim
        (33422, "B", 4, (0, 1, 1, 2), True),  # CFAPattern RGGB
        (50714, "H", 1, (0,), True),  # BlackLevel
        (50717, "H", 1, (4095,), True),  # WhiteLevel
        (50721, "2i", 9, [1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1], True),  # ColorMatrix1
        (50778, "H", 1, (21,), True),  # CalibrationIlluminant1 = D65
        (50728, "2I", 3, (1, 1, 1, 1, 1, 1), True),  # AsShotNeutral
        (271, "s", 0, "FotoPronta", True),  # Make
        (272, "s", 0, "Test", True),  # Model
    ]
    buf = io.BytesIO()
    tifffile.imwrite(buf, cfa, photometric=32803, compression=None, extratags=extratags, subfiletype=0)
    return buf.getvalue()
