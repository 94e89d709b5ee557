"""File helpers shared by the two model scripts: ``infra/provision_model.py`` downloads ``u2netp.onnx``,
``infra/quantize_model.py`` derives its int8 copy. Both pin their file by md5 and write it the same way
(:func:`ensure_model_file`); ``infra/provision.py`` runs one after the other.

Standard library only, so either script imports it without importing the other.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path

U2NETP_FILE = "u2netp.onnx"
"""File name of the float32 u2netp network in the model directory (``U2NET_HOME``), as rembg reads it."""


class ModelChecksumError(RuntimeError):
    """A model file's md5 differs from the one pinned for it (a corrupt download, or an int8 copy
    built with other onnx / onnxruntime versions than the pinned ones)."""


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


def ensure_model_file(target: Path, md5: str, produce: Callable[[Path], None]) -> Path:
    """Make sure ``target`` exists with the hex md5 ``md5``; return ``target``.

    A file already there with that md5 is kept (nothing is produced). Otherwise ``produce(partial)``
    writes the file at ``partial`` (``target`` with ``.part`` appended, in the same directory), which
    is checked and then renamed onto ``target`` in one step, so a reader never sees half a model.

    Raises:
        ModelChecksumError: the produced file's md5 differs from ``md5`` (the partial file is removed,
            ``target`` is left as it was).
        Exception: whatever ``produce`` raises (the partial file is removed).
    """
    if target.exists() and md5_of(target) == md5:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        produce(partial)
        digest = md5_of(partial)
        if digest != md5:
            raise ModelChecksumError(f"{target.name}: md5 {digest}, atteso {md5}")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return target
