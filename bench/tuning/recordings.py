"""Recorded tuning photos and the out-of-fold choice shared by the review-flag research tools.

A recording is a pair ``ROWS.json:NPZ_DIR[:control]`` written by :mod:`bench.tuning.flag_signals` with
``FLAG_SIGNALS_DUMP``: the JSON's rows (``name``, ``iou``, ``signals``, ...) and, per row ``i``, ``NPZ_DIR/iiii.npz``
holding the working image ``small`` and the final matte ``alpha`` (uint8). ``:control`` marks a recording whose
photos are all false-flag controls (real car views).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from bench.tuning.backdrop_through import BAD, GOOD
from bench.tuning.tune_pick import grouped_folds
from retouch.pick.busy import with_backdrop_busy
from retouch.pick.confidence import confidence
from retouch.pick.config import SHIPPED_PICK, PickConfig
from retouch.pick.cut import clear_backdrop_pieces, with_cut_disagreement
from retouch.pick.joined import with_joined_object
from retouch.pick.signals import Pick
from retouch.pick.through import with_backdrop_through

#: Signals the product recomputes on the matte after the recording (the backdrop-through, another-object, graph cut
#: and busy-backdrop caps).
RECOMPUTED = ("through", "frame_join", "blurred_outline", "cut_backdrop", "backdrop_busy")


def recorded_photos(specs: Sequence[str]) -> Iterator[tuple[dict, bool, np.ndarray, np.ndarray]]:
    """Per recorded photo, in order: its row, whether it is a control, ``small`` uint8 (H, W, 3) and ``alpha``
    float32 (H, W) in [0, 1], from ``ROWS.json:NPZ_DIR[:control]`` pairs.

    Raises:
        FileNotFoundError: a JSON or an npz file is missing.
    """
    for spec in specs:
        parts = spec.split(":")
        rows = json.loads(Path(parts[0]).read_text())
        control = len(parts) > 2 and parts[2] == "control"
        for i, row in enumerate(rows):
            z = np.load(Path(parts[1]) / f"{i:04d}.npz")
            yield row, control, z["small"], z["alpha"].astype(np.float32) / 255.0


def replayed_flag(
    small: np.ndarray, alpha: np.ndarray, signals: dict[str, float], *, config: PickConfig = SHIPPED_PICK
) -> bool:
    """The review flag the product gives a recorded photo: its recorded signals without :data:`RECOMPUTED`, the
    backdrop-through, another-object, graph cut and busy-backdrop caps run on its matte (``small`` uint8 (H, W, 3),
    ``alpha`` float32 (H, W)) in the product's order, then :func:`retouch.pick.confidence.confidence` under
    ``config``."""
    kept = {k: v for k, v in signals.items() if k not in RECOMPUTED}
    pick = Pick(mask=alpha, source="recorded", evaluations=0, signals=kept)
    pick = with_backdrop_through(small, alpha, pick, config=config)
    pick = with_joined_object(small, alpha, pick, config=config)
    pick = with_cut_disagreement(small, alpha, pick, config=config)
    pick = with_backdrop_busy(small, alpha, pick, config=config)
    return bool(confidence(pick.signals, config=config)[1])


def replayed_product(
    small: np.ndarray, alpha: np.ndarray, signals: dict[str, float], *, config: PickConfig = SHIPPED_PICK
) -> tuple[np.ndarray, bool]:
    """The final matte and review flag the product gives a photo recorded without the graph cut's clearing step
    (its recorded matte is the openings step's): the step
    (:func:`retouch.pick.cut.clear_backdrop_pieces`) on the recorded matte, then :func:`replayed_flag` on its result
    with the step's ``cut_cleared`` signal.

    Args:
        small: uint8 (H, W, 3) working image.
        alpha: float32 (H, W) recorded final matte in [0, 1].
        signals: the recorded signals.
        config: the product's thresholds.

    Returns:
        ``(alpha, flag)``: float32 (H, W) matte (the recorded one itself when nothing is cleared) and the flag.
    """
    cleared_alpha, cleared, _ = clear_backdrop_pieces(small, alpha, config=config)
    return cleared_alpha, replayed_flag(
        small, cleared_alpha, {**signals, "cut_cleared": cleared}, config=config
    )


def out_of_fold(
    rows: Sequence[dict], table: np.ndarray, folds: int, choose: Callable[[np.ndarray], int]
) -> tuple[np.ndarray, list[int]]:
    """Each photo's flag under the variant chosen without its product-grouped fold
    (:func:`bench.tuning.tune_pick.grouped_folds`).

    Args:
        rows: the recorded rows (``name`` gives the product).
        table: bool (variants, photos): each variant's flag.
        folds: number of folds.
        choose: the variant index chosen on the photos of a bool (photos,) mask.

    Returns:
        bool (photos,) flags out of fold and the variant chosen for each fold.
    """
    fold = grouped_folds(list(rows), folds)
    flags = np.zeros(len(rows), bool)
    chosen: list[int] = []
    for k in range(folds):
        v = choose(fold != k)
        flags[fold == k] = table[v][fold == k]
        chosen.append(v)
    return flags, chosen


def kind(row: dict) -> str:
    """A recorded row's kind: ``control`` (``row["control"]`` true), ``failure`` (IoU under
    :data:`~bench.tuning.backdrop_through.BAD`), ``good`` (IoU at least :data:`~bench.tuning.backdrop_through.GOOD`)
    or ``""`` (between the bands)."""
    if row["control"]:
        return "control"
    return "failure" if row["iou"] < BAD else "good" if row["iou"] >= GOOD else ""


def working_matte(data: bytes) -> tuple[np.ndarray, np.ndarray, Pick]:
    """A photo through the pipeline's matte as the product runs it: decoded, shrunk (bilinear) to the working size
    and through :func:`retouch.pipeline.product_matte`.

    Args:
        data: the image file's bytes.

    Returns:
        ``small`` uint8 (H, W, 3) at the working resolution, ``alpha`` float32 (H, W) in [0, 1] and the
        :class:`Pick` (its ``signals`` give the review flag through :func:`retouch.pick.confidence.confidence`).

    Raises:
        retouch.errors.ImageDecodeError: ``data`` is not an image.
    """
    from PIL import Image

    from retouch.decode import decode_image
    from retouch.pipeline import _resize, _working_size, product_matte

    rgb = decode_image(data).rgb
    h, w = rgb.shape[:2]
    size = _working_size(w, h)
    small = rgb if size == (w, h) else _resize(rgb, size, Image.Resampling.BILINEAR)
    alpha, _, pick = product_matte(small)
    return small, alpha, pick


def shared_mattes(folders: Sequence[Path]) -> Iterator[tuple[str, np.ndarray, np.ndarray, Pick, str]]:
    """Real photos through the pipeline's matte (:func:`retouch.pipeline.product_matte` at the working resolution),
    per photo of each folder in name order: ``"FOLDER/NAME"``, ``small`` uint8 (H, W, 3), ``alpha`` float32 (H, W),
    the :class:`Pick`, and ``" IoU x.xxx"`` against the hand mask ``masks/STEM.png`` beside the folder (resized
    bilinear to the working size, threshold 128) or ``""`` without one.

    Raises:
        retouch.errors.ImageDecodeError: a file in a folder is not an image.
    """
    from PIL import Image

    from retouch.pick.signals import iou

    for folder in folders:
        for path in sorted(folder.glob("*.*")):
            small, alpha, pick = working_matte(path.read_bytes())
            size = (small.shape[1], small.shape[0])
            mask = folder.parent / "masks" / f"{path.stem}.png"
            score = ""
            if mask.exists():
                gt = np.asarray(Image.open(mask).convert("L").resize(size, Image.Resampling.BILINEAR)) >= 128
                score = f" IoU {iou(alpha >= 0.5, gt):.3f}"
            yield f"{folder.name}/{path.name}", small, alpha, pick, score
