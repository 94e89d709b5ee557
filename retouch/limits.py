"""Input limits shared by the decoder (:mod:`retouch.decode`) and the API's upload check
(``api/uploads.py``). Standard library only: the API imports it without loading numpy."""

from __future__ import annotations

__all__ = ["DEFAULT_MAX_INPUT_BYTES", "MAX_PIXELS"]

MAX_PIXELS = 80_000_000
"""Largest accepted image, in pixels (width x height). 80 MP covers every current camera sensor (Sony
A7R V: 61 MP, Fujifilm GFX100: 102 MP would be refused) and keeps peak memory of one job well under
1 GB. Pillow's own guard (``Image.MAX_IMAGE_PIXELS`` ~ 89 MP) is kept as a second net."""
DEFAULT_MAX_INPUT_BYTES = 50 * 1024 * 1024
"""Largest input file the decoder accepts, in bytes (50 MB)."""
