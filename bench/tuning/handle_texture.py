"""Research tool (not product code): does the see-through recipe's flat handle decide the review flag's misses?

The see-through generator (:mod:`validation_sets.see_through`) draws a handle as a C-shaped band of one product
colour with a vertical shading; six of the 18 tuning failures the review flag misses are such a handle left out of
the matte (the network-views record in ``docs/decisions/``). A real handle is of the product's own material. This
tool builds every handle photo of the given tuning see-through seeds twice, identical but for the band: once as the
recipe draws it, once with the band's pixels taken from the product's own texture (a square around its deepest
point, mirrored and tiled over the band, under the recipe's shading); no generator draw changes, so backdrop, size,
place, noise and JPEG are the same. Each goes through the product's matte (:func:`retouch.pipeline.product_matte`
at the working resolution) and review flag (:func:`retouch.pick.confidence.confidence`).

Printed per recipe: photos, mean IoU against the generator's ground truth (at the working size, 128 and up counted
as product), the failures (IoU under :data:`~bench.tuning.backdrop_through.BAD`) and how many are flagged, the good
results (IoU at least :data:`~bench.tuning.backdrop_through.GOOD`) and how many are flagged; then the photos whose
failure or flag differs between the recipes.

Usage: ``python -m bench.tuning.handle_texture --seeds 21 23 25`` (tuning seeds of :mod:`validation_sets.seeds`
only). Evidence for the recipe's owner, not a shipped choice: the record in ``docs/decisions/`` on the handle's
texture says what it found.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

import validation_sets.see_through as see_through  # noqa: E402
from bench.tuning.backdrop_through import BAD, GOOD  # noqa: E402

__all__ = ["product_texture", "textured_handle", "main"]

RECIPES = ("flat", "textured")


def product_texture(prgb: np.ndarray, solid: np.ndarray, shape: tuple[int, int]) -> np.ndarray:
    """The product's own texture over an area: the largest square inside the product around its deepest point,
    mirrored and tiled.

    Args:
        prgb: uint8 (h, w, 3) product photo.
        solid: bool (h, w) product mask.
        shape: ``(H, W)`` in px of the area to cover.

    Returns:
        float32 (H, W, 3) sRGB levels.

    Raises:
        ValueError: ``solid`` is empty.
    """
    if not solid.any():
        raise ValueError("the product mask is empty")
    dt = ndi.distance_transform_edt(solid)
    cy, cx = np.unravel_index(int(np.argmax(dt)), dt.shape)
    r = max(1, int(dt.max() / np.sqrt(2.0)))  # half the side of a square inside the inscribed circle
    patch = prgb[max(0, cy - r) : cy + r, max(0, cx - r) : cx + r].astype(np.float32)
    tile = np.concatenate([patch, patch[:, ::-1]], axis=1)
    tile = np.concatenate([tile, tile[::-1]], axis=0)
    reps = (-(-shape[0] // tile.shape[0]), -(-shape[1] // tile.shape[1]), 1)
    return np.tile(tile, reps)[: shape[0], : shape[1]]


def textured_handle(
    rgb: np.ndarray, gt: np.ndarray, offset: tuple[int, int], prgb: np.ndarray, solid: np.ndarray
) -> np.ndarray:
    """A handle cut-out of :func:`validation_sets.see_through._cut` with its band in the product's texture.

    The band is the cut-out's GT product (255) outside the product itself; its shading is the recipe's (each band
    pixel's mean level over the band's brightest), applied to :func:`product_texture`.

    Args:
        rgb: float32 (H, W, 3) the cut-out as the recipe drew it.
        gt: uint8 (H, W) its GT mask.
        offset: ``(x, y)`` of the product inside the cut-out, px.
        prgb: uint8 (h, w, 3) the product.
        solid: bool (h, w) its mask.

    Returns:
        float32 (H, W, 3): ``rgb`` with the band re-drawn; the product's own pixels unchanged.
    """
    x0, y0 = offset
    h, w = solid.shape
    placed = np.zeros(gt.shape, bool)
    placed[y0 : y0 + h, x0 : x0 + w] = solid
    band = (gt == 255) & ~placed
    if not band.any():
        return rgb
    level = rgb[band].mean(axis=1)
    shade = level / max(float(level.max()), 1.0)
    out = rgb.copy()
    out[band] = product_texture(prgb, solid, gt.shape)[band] * shade[:, None]
    return out


@contextmanager
def _textured_recipe() -> Iterator[None]:
    """While active, :func:`validation_sets.see_through.make_see_through` draws handles with
    :func:`textured_handle` (no generator draw added or removed)."""
    original = see_through._cut

    def cut(
        rng: np.random.Generator, kind: str, prgb: np.ndarray, solid: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, tuple[int, int]]:
        rgb, alpha, gt, opening, offset = original(rng, kind, prgb, solid)
        if kind == "handle":
            rgb = textured_handle(rgb, gt, offset, prgb, solid)
        return rgb, alpha, gt, opening, offset

    see_through._cut = cut
    try:
        yield
    finally:
        see_through._cut = original


def _measure(data: bytes, gt: np.ndarray) -> tuple[float, bool]:
    """IoU and review flag of the product's matte of one photo (JPEG bytes; GT uint8 (H, W))."""
    from bench.tuning.recordings import working_matte
    from retouch.pick.confidence import confidence
    from retouch.pick.signals import iou

    small, alpha, pick = working_matte(data)
    size = (small.shape[1], small.shape[0])
    truth = np.asarray(Image.fromarray(gt).resize(size, Image.Resampling.BILINEAR)) >= 128
    return iou(alpha >= 0.5, truth), confidence(pick.signals)[1]


def main(argv: Sequence[str] | None = None) -> int:
    """Build, measure and print (module docstring). Returns 2 for a seed that is not a tuning seed."""
    from validation_sets.seeds import TUNING_SEE_THROUGH_SEEDS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", required=True, help="tuning see-through seeds")
    parser.add_argument("--photos", type=int, default=24, help="photos per seed, as bench-quality draws them")
    args = parser.parse_args(argv)
    if not set(args.seeds) <= TUNING_SEE_THROUGH_SEEDS:
        print(f"not tuning seeds: {sorted(set(args.seeds) - TUNING_SEE_THROUGH_SEEDS)}", file=sys.stderr)
        return 2
    results: dict[str, list[tuple[str, float, bool]]] = {r: [] for r in RECIPES}
    for seed in args.seeds:
        for stem, i in see_through.see_through_set("tune", args.photos, seed):
            if see_through.opening_and_backdrop(stem, seed, i)[0] != "handle":
                continue
            name = f"o{seed}-{i:02d}-{stem}"
            for recipe in RECIPES:
                if recipe == "flat":
                    photo = see_through.make_see_through(stem, seed, i)
                else:
                    with _textured_recipe():
                        photo = see_through.make_see_through(stem, seed, i)
                results[recipe].append((name, *_measure(photo.data, photo.gt)))
    print(
        "| recipe | photos | mean IoU | failures | failures flagged | good | good flagged |\n|---|---|---|---|---|---|---|"
    )
    for recipe in RECIPES:
        rows = results[recipe]
        ious = np.array([r[1] for r in rows])
        flags = np.array([r[2] for r in rows], bool)
        fail, good = ious < BAD, ious >= GOOD
        print(
            f"| {recipe} | {len(rows)} | {ious.mean():.4f} | {int(fail.sum())} | {int((fail & flags).sum())} | "
            f"{int(good.sum())} | {int((good & flags).sum())} |"
        )
    print("\nphotos whose failure or flag differs (flat -> textured):")
    for (name, iou_flat, flag_flat), (_, iou_tex, flag_tex) in zip(*results.values(), strict=True):
        if (iou_flat < BAD) != (iou_tex < BAD) or flag_flat != flag_tex:
            print(f"  {name}: IoU {iou_flat:.3f} -> {iou_tex:.3f}, flagged {flag_flat} -> {flag_tex}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
