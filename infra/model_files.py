"""File helpers shared by the model provisioning scripts (``infra/provision_model.py`` downloads
``u2netp.onnx``, ``infra/quantize_model.py`` derives its int8 copy): both check a model file by its md5.

Standard library only, so either script can import it without importing the other.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

U2NETP_FILE = "u2netp.onnx"
"""File name of the float32 u2netp network in the model directory (``U2NET_HOME``), as rembg reads it."""


def md5_of(path: Path) -> str:
    """Return the hex md5 of the file at ``path`` (read in 1 MiB chunks).

    Raises:
        OSError: the file cannot be read (e.g. ``FileNotFoundError``).
    """
    digest = hashlib.md5()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
