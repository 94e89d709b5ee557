"""Fixtures for the image-pipeline tests.

Real photos come from ``../shared/photos`` (never copied into the repository); tests that need them skip
with a message when the folder is absent. Failing images are written under ``retouch-failures/`` in
pytest's temporary directory so a person can look at them (the path is printed in the failure).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from retouch_helpers import GT_IMAGES, PHOTOS


@pytest.fixture(scope="session")
def photos_dir() -> Path:
    """The shared real-photo folder; skips the test when it is absent."""
    if not GT_IMAGES.is_dir():
        pytest.skip(f"cartella foto condivisa assente: {PHOTOS}")
    return PHOTOS


@pytest.fixture
def save_failure(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Callable[..., Path]:
    """Return ``save(name, data)`` writing bytes or a uint8 array to a folder a person can inspect."""
    from PIL import Image

    folder = tmp_path_factory.getbasetemp() / "retouch-failures" / request.node.name

    def save(name: str, data: bytes | np.ndarray) -> Path:
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / name
        if isinstance(data, bytes):
            path.write_bytes(data)
        else:
            path = path.with_suffix(".png")
            Image.fromarray(data).save(path)
        return path

    return save
