"""Research collector: candidate review-flag signals of the final matte, recorded with ``tune_pick --out``.

Runs :func:`bench.tuning.tune_pick.main` with an ``observe`` hook of :func:`retouch.retouch` so that every
tuning photo's ``segmentation.signals`` also carries ``fs_*`` candidates measured on the final matte (working
resolution), each family with its wall-clock cost in ms (``fs_ms_*``, noisy):

* ``fs_ib*``: :func:`bench.tuning.inside_background.background_inside` (background seen inside the product, local
  backdrop model) with its defaults (``fs_ib``, ``fs_ib_max``, ``fs_ib_all``) and variants: colour tolerance 8
  / 18 (``fs_ib_t8``, ``fs_ib_t18``), enclosed up to 35 % of the boundary on the outline (``fs_ib_e35``);
* ``fs_sides``: :func:`retouch.pick.signals.frame_sides`;
* ``fs_neck``: the matte opened by a disc of radius 8 % of the square root of its area: the share of the matte
  outside its largest part (an object joined by a narrow neck), ``fs_neck_parts`` its parts over 10 % of the
  largest;
* ``fs_so``: :func:`retouch.pick.second.second_opinion` on every photo (not only small products).

The local backdrop review record's recording was made with the first form of ``background_inside`` (colour within
twice the ring's spread, uncapped, regions more than 2 px inside the outline); the defaults it has now were chosen
offline from the saved mattes, so ``fs_ib*`` recorded today read those defaults and their variants.

With ``FLAG_SIGNALS_DUMP=DIR`` set, every photo's working-resolution image and final matte are also saved to
``DIR/NNNN.npz`` (``small`` uint8, ``alpha`` uint8 0..255, in the order of the recording's rows), so candidates
of the matte alone can be measured again offline.

Usage: ``python -m bench.tuning.flag_signals TUNE_PICK_ARGS...`` (tuning seeds only: tune_pick refuses the
others). Not product code; the local backdrop review record in ``docs/decisions/`` says which candidate was kept.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from scipy import ndimage as ndi  # noqa: E402

from bench.tuning.inside_background import background_inside  # noqa: E402
from retouch.models import DEFAULT_NETWORK  # noqa: E402
from retouch.pick import SHIPPED_PICK  # noqa: E402
from retouch.pick.second import second_opinion  # noqa: E402
from retouch.pick.signals import frame_sides  # noqa: E402


def candidates(small: np.ndarray, alpha: np.ndarray, model_name: str) -> dict[str, float]:
    """The ``fs_*`` signals of one photo (see the module docstring)."""
    out: dict[str, float] = {}
    t = time.perf_counter()
    r = background_inside(small, alpha)
    out["fs_ms_ib"] = 1000 * (time.perf_counter() - t)
    out.update({"fs_ib": r["inside_bg"], "fs_ib_max": r["inside_bg_max"], "fs_ib_all": r["inside_bg_all"]})
    out["fs_ib_t8"] = background_inside(small, alpha, colour_tol=8.0)["inside_bg"]
    out["fs_ib_t18"] = background_inside(small, alpha, colour_tol=18.0)["inside_bg"]
    out["fs_ib_e35"] = background_inside(small, alpha, enclosed_edge=0.35)["inside_bg"]
    out["fs_sides"] = frame_sides(alpha, config=SHIPPED_PICK)
    b = alpha >= 0.5
    area = int(b.sum())
    if area:
        rad = max(1, round(0.08 * area**0.5))
        disc = np.hypot(*np.mgrid[-rad : rad + 1, -rad : rad + 1]) <= rad
        opened = ndi.binary_opening(b, structure=disc)
        lab, n = ndi.label(opened)
        sizes = np.sort(np.bincount(lab.ravel(), minlength=n + 1)[1:])[::-1]
        if sizes.size:
            out["fs_neck"] = float(sizes[1:].sum()) / area
            out["fs_neck_parts"] = float((sizes >= 0.1 * sizes[0]).sum())
    t = time.perf_counter()
    out["fs_so"] = second_opinion(small, alpha, model_name, config=SHIPPED_PICK, network=DEFAULT_NETWORK)
    out["fs_ms_so"] = 1000 * (time.perf_counter() - t)
    return out


def main(argv: list[str]) -> int:
    """Run ``tune_pick`` with ``argv``, recording the ``fs_*`` candidates through ``retouch``'s ``observe`` hook."""
    dump = os.environ.get("FLAG_SIGNALS_DUMP")

    def observe(small: np.ndarray, alpha: np.ndarray, pick: Any) -> None:
        pick.signals.update(candidates(small, alpha, "u2netp"))
        if dump:
            Path(dump).mkdir(parents=True, exist_ok=True)
            n = len(list(Path(dump).glob("*.npz")))
            a8 = np.clip(alpha * 255 + 0.5, 0, 255).astype(np.uint8)
            np.savez_compressed(Path(dump) / f"{n:04d}.npz", small=small, alpha=a8)

    from bench.tuning import tune_pick

    return tune_pick.main(argv, observe=observe)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
