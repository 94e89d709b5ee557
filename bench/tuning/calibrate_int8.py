"""Calibrate the int8 first pass (``infra/quantize_model.py``) on tuning data only, and score layer sets.

What it does (``python -m bench.tuning.calibrate_int8 [--write] [--scan]``):

1. Network inputs of the *calibration* photos, built as :func:`retouch.segment.network_input` builds them:
   the 20 photos of the GT tuning fold and 20 tuning composites of seed 3 (``validation_sets/composites.py``; the
   held-out fold and seed 2 are never read). With ``--write``, onnxruntime's percentile calibration
   (99.99th percentile) measures the ranges of the tensors around ``infra.quantize_model.INT8_CONVS`` and
   writes them to ``infra/u2netp_int8_ranges.json`` (only those tensors, so the file stays small).
2. Scores int8 models against the float32 network on *other* tuning photos (the GT tuning fold and 20
   composites of tuning seed 4): mean and worst IoU at 0.5 of the two 256 px masks, their mean absolute
   difference, and seconds per evaluation on one core. The shipped set first; with ``--scan``, also the
   six convolutions at 256 px alone, the shipped set plus each of six more 128 px convolutions, plus the
   five harmless ones of those together, and all 112 (the 16 at >= 128 px were scored in a separate
   exploratory run, with the same calibration and scoring photos).

Its ``--scan`` run behind the shipped set (the int8 first pass record in ``docs/decisions/``; one core, this
machine; seconds per evaluation with the pipeline's session options, noisy to +-0.01 s: the same shipped
model timed 0.090 s on its own; float32 0.130 s):

==========================================================  ========  ========  =========  ======
layers in int8                                              s / eval  mean IoU  worst IoU  MAE
==========================================================  ========  ========  =========  ======
shipped (:data:`infra.quantize_model.INT8_CONVS`, 8)        0.097     0.979     0.792      0.0029
the 6 at 256 px                                             0.105     0.981     0.800      0.0026
shipped + Conv_787                                          0.096     0.782     0.079      0.0544
shipped + Conv_575                                          0.094     0.979     0.784      0.0030
shipped + Conv_243                                          0.099     0.979     0.796      0.0029
shipped + Conv_682                                          0.100     0.979     0.787      0.0030
shipped + Conv_247                                          0.098     0.980     0.795      0.0031
shipped + Conv_138                                          0.094     0.977     0.790      0.0036
shipped + Conv_575, Conv_243, Conv_682, Conv_247, Conv_138  0.090     0.971     0.756      0.0042
all 112                                                     0.089     0.151     0.001      0.1313
==========================================================  ========  ========  =========  ======

(The exploratory run, with the same calibration and scoring photos, also scored the 16 convolutions at
>= 128 px: mean IoU 0.785.)

The worst agreements are salient composites where the float32 mask is itself half-confident. Through the
whole pipeline (``retouch()``, 160 tuning photos: GT tuning fold and 35 composites of each tuning seed 4, 5,
8, 9) the shipped set gives a mean matte IoU of 0.9119 against 0.9124 in float32 (plain rembg 0.7808), 3
photos more than 0.05 IoU below rembg in both, and flags 11 of 18 photos under IoU 0.9 (12 of 17) with 11
good ones flagged in both; the 13-layer set gives 0.9114 and 10 of 18. The shipped set is the one closest
to float32 among those that keep most of the gain. The decision on held-out data is in
the int8 first pass record in ``docs/decisions/``.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from bench._common import require_photos, setup
else:
    from .._common import require_photos, setup

setup()

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

#: Tuning seed of the calibration composites, and of the composites the layer sets are scored on.
CALIBRATION_SEED = 3
SCORING_SEED = 4


def _tuning_rgb(seed: int, n: int) -> Iterator[tuple[str, np.ndarray]]:
    """(name, uint8 RGB) of the GT tuning fold, then ``n`` tuning composites of ``seed``
    (``bench.tuning.tune_guard._inputs``, which refuses the held-out seed)."""
    from .tune_guard import _inputs as tuning_inputs

    for name, data, _gt in tuning_inputs(n, [seed]):
        yield name, np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _inputs(seed: int, n: int) -> list[tuple[str, np.ndarray]]:
    """Network inputs at 256 px of :func:`_tuning_rgb` (float32 (1, 3, 256, 256))."""
    from retouch.segment import NETWORK_INPUT_PX, network_input

    return [(name, network_input(rgb, NETWORK_INPUT_PX)) for name, rgb in _tuning_rgb(seed, n)]


def write_ranges(fp32: Path, feeds: list[np.ndarray], nodes: tuple[str, ...], out: Path) -> None:
    """Calibrate ``nodes`` of ``fp32`` on ``feeds`` and write the ranges of their inputs and outputs to
    ``out`` (onnxruntime's calibration-cache JSON, the other tensors left out)."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader

    from infra.quantize_model import quantize

    class Reader(CalibrationDataReader):
        def __init__(self) -> None:
            self._it = iter(feeds)

        def get_next(self) -> dict[str, np.ndarray] | None:
            x = next(self._it, None)
            return None if x is None else {"input.1": x}

    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "ranges.json"
        quantize(fp32, Path(tmp) / "int8.onnx", nodes=nodes, ranges=cache, reader=Reader())
        data = json.loads(cache.read_text())
    graph = onnx.load(str(fp32)).graph
    keep = {t for n in graph.node if n.name in nodes for t in [*n.input, *n.output]}
    data["data"] = {k: v for k, v in data["data"].items() if k in keep}
    out.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")


def score(int8: Path, feeds: list[tuple[str, np.ndarray]]) -> dict[str, float]:
    """Agreement of the int8 model's 256 px masks with float32's on ``feeds`` and seconds per evaluation."""
    import onnxruntime as ort

    from retouch.segment import _session_options, get_network

    ref = get_network("u2netp")  # float32, any size
    q = ort.InferenceSession(
        str(int8), _session_options(arena=True, threads=1), providers=["CPUExecutionProvider"]
    )

    def mask(session: object, x: np.ndarray) -> np.ndarray:
        pred = session.run(None, {"input.1": x})[0][0, 0]  # type: ignore[attr-defined]
        return (pred - pred.min()) / max(float(pred.max() - pred.min()), 1e-6)

    ious, maes = [], []
    for _, x in feeds:
        a, b = mask(ref, x), mask(q, x)
        union = ((a > 0.5) | (b > 0.5)).sum()
        ious.append(((a > 0.5) & (b > 0.5)).sum() / union if union else 1.0)
        maes.append(float(np.abs(a - b).mean()))
    x = feeds[0][1]
    for _ in range(2):
        q.run(None, {"input.1": x})
    t0 = time.perf_counter()
    for _ in range(8):
        q.run(None, {"input.1": x})
    return {
        "s": (time.perf_counter() - t0) / 8,
        "mean_iou": float(np.mean(ious)),
        "worst_iou": float(np.min(ious)),
        "mae": float(np.mean(maes)),
    }


def main(argv: list[str] | None = None) -> int:
    """Calibrate (``--write``) and print the agreement table; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--write", action="store_true", help="recalibrate and write infra/u2netp_int8_ranges.json"
    )
    parser.add_argument("--scan", action="store_true", help="also score the other layer sets (~5 min)")
    parser.add_argument("--composites", type=int, default=20, help="composites per seed")
    args = parser.parse_args(argv)
    require_photos()
    from infra.quantize_model import INT8_CONVS, RANGES_FILE, quantize
    from retouch.segment import model_file

    fp32 = model_file("u2netp")
    if args.write:
        feeds = [x for _, x in _inputs(CALIBRATION_SEED, args.composites)]
        write_ranges(fp32, feeds, INT8_CONVS, RANGES_FILE)
        print(f"ranges of {len(INT8_CONVS)} convolutions from {len(feeds)} tuning photos -> {RANGES_FILE}")
    scoring = _inputs(SCORING_SEED, args.composites)
    sets: dict[str, tuple[str, ...]] = {"shipped (infra.quantize_model.INT8_CONVS)": INT8_CONVS}
    if args.scan:
        import onnx

        calib = [x for _, x in _inputs(CALIBRATION_SEED, args.composites)]
        graph = onnx.load(str(fp32)).graph
        out_channels = {i.name: i.dims[0] for i in graph.initializer}
        # every convolution but the 1-channel side outputs and their fusion
        convs = tuple(n.name for n in graph.node if n.op_type == "Conv" and out_channels[n.input[1]] > 1)
        fine = ("Conv_575", "Conv_243", "Conv_682", "Conv_247", "Conv_138")
        sets["the 6 at 256 px"] = ("Conv_0", "Conv_2", "Conv_132", "Conv_810", "Conv_812", "Conv_942")
        for extra in ("Conv_787", *fine):
            sets[f"shipped + {extra}"] = (*INT8_CONVS, extra)
        sets["shipped + " + ", ".join(fine)] = (*INT8_CONVS, *fine)
        sets[f"all {len(convs)}"] = convs
    print(f"{len(scoring)} scoring photos (GT tuning fold + seed {SCORING_SEED})")
    print("| layers in int8 | s / eval | mean IoU | worst IoU | MAE |\n|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for label, nodes in sets.items():
            out = Path(tmp) / "int8.onnx"
            if nodes == INT8_CONVS:
                quantize(fp32, out)
            else:
                write_ranges(fp32, calib, nodes, Path(tmp) / "ranges.json")
                quantize(fp32, out, nodes=nodes, ranges=Path(tmp) / "ranges.json")
            m = score(out, scoring)
            print(
                f"| {label} | {m['s']:.3f} | {m['mean_iou']:.3f} | {m['worst_iou']:.3f} | {m['mae']:.4f} |",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
