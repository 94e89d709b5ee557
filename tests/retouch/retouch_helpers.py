"""Helpers shared by the image-pipeline tests (unique module name: tests/retouch has no __init__.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PHOTOS = Path(os.environ.get("FOTOPRONTA_PHOTOS", REPO.parent / "shared" / "photos"))
GT_IMAGES = PHOTOS / "gt" / "images"
GT_MASKS = PHOTOS / "gt" / "masks"

if not os.environ.get("U2NET_HOME") and (REPO / ".data" / "models").is_dir():
    os.environ["U2NET_HOME"] = str(REPO / ".data" / "models")


def model_available(name: str = "u2netp") -> bool:
    """Whether the rembg model file is present locally."""
    home = os.environ.get("U2NET_HOME", "")
    return bool(home) and (Path(home) / f"{name}.onnx").is_file()


needs_model = pytest.mark.skipif(not model_available(), reason="modello u2netp assente (U2NET_HOME)")
