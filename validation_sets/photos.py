"""Where the shared real photos live, and a folder of photos paired with its hand-made masks.

Layout of the shared photos (``../shared/photos`` beside the repository, or ``FOTOPRONTA_PHOTOS``):
``gt/images/NAME.*`` with ``gt/masks/NAME.png`` (uint8, 255 = product, 128 = unlabelled edge band), and
``nomask/`` (photos without a mask).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # numpy and Pillow load with the first photo: the paths above stay stdlib-only
    import numpy as np

REPO = Path(__file__).resolve().parent.parent
PHOTOS = Path(os.environ.get("FOTOPRONTA_PHOTOS", REPO.parent / "shared" / "photos"))
GT = PHOTOS / "gt"
IMAGE_EXTS = {".jpg", ".jpeg", ".png", ".webp", ".tif", ".tiff", ".heic", ".dng", ".cr2", ".nef", ".arw"}

#: Loads one validation photo: (file bytes, uint8 (H, W) GT mask with 255 = product, bool (H, W) mask
#: of the background seen through a see-through photo's opening or ``None``).
Loader = Callable[[], "tuple[bytes, np.ndarray, np.ndarray | None]"]


def list_images(folder: Path) -> list[Path]:
    """Image files in ``folder`` (not recursive), sorted by name."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_EXTS and p.is_file())


def folder_items(root: Path) -> list[tuple[str, Loader]]:
    """(name, loader) pairs of a folder of photos with masks: ``root/images/NAME.*`` whose
    ``root/masks/NAME.png`` exists (photos without a mask are skipped), sorted by name; the loader's
    opening mask is ``None``."""
    items: list[tuple[str, Loader]] = []
    for p in list_images(root / "images"):
        mask = root / "masks" / f"{p.stem}.png"
        if mask.is_file():

            def load(p: Path = p, mask: Path = mask) -> tuple[bytes, np.ndarray, np.ndarray | None]:
                import numpy as np
                from PIL import Image

                return p.read_bytes(), np.asarray(Image.open(mask).convert("L")), None

            items.append((p.stem, load))
    return items
