"""Derive the int8 first-pass network ``u2netp-int8-256.onnx`` from the provisioned ``u2netp.onnx``.

Why. Every photo pays for one u2netp evaluation at 256 x 256 px (:data:`retouch.segment.NETWORK_INPUT_PX`),
about 55 % of the pipeline's CPU time on ``make bench-speed``'s photos (0.13 s of 0.33 s on one core;
the int8 first pass record in ``docs/decisions/``). 81 % of that network's 25.3 GFLOP sit in eight 3 x 3
convolutions at 256 and 128 px (:data:`INT8_CONVS`; ``Conv_810`` alone, 128 -> 64 channels at 256 x 256,
is 38 %). Those eight run in int8 (static quantisation, QDQ format: per-channel symmetric int8 weights,
asymmetric uint8 activations;
onnxruntime fuses each DequantizeLinear -> Conv -> QuantizeLinear into one integer convolution, which
VNNI cores run ~3x faster); every other node stays float32. One evaluation takes 0.090 s instead of
0.130 s on one core (this machine, AMD EPYC with AVX-512 VNNI); splitting the six side-output convolutions
(:func:`split_side_convs`, exact to float32 rounding) takes it to ~0.086 s.

Which layers. Chosen on tuning data only (``bench/tuning/calibrate_int8.py``): quantising all 112 convolutions
(0.077 s) or the 16 at >= 128 px destroys the mask (the int8 mask's IoU with the float32 one falls to
0.15 and 0.78 on the tuning photos); one 128 px convolution, ``Conv_787``, does it alone (0.78). The eight
of :data:`INT8_CONVS` keep a mean IoU of 0.979 with the float32 mask at 0.5 (mean absolute difference
0.003); five more (0.083 s) lower it to 0.970. Through the whole pipeline on 160 tuning photos (GT tuning
fold and 35 composites of each tuning seed 4, 5, 8, 9) the matte's mean IoU with the hand masks is 0.9119
against 0.9124 in float32, with 3 photos more than 0.05 below plain rembg in both.

Activation ranges. The ranges of the activations around those eight convolutions were measured once by
``bench/tuning/calibrate_int8.py`` on tuning data (the 20 photos of the GT tuning fold and 20 tuning composites of
seed 3, through the same pre-processing as :func:`retouch.segment.network_input`), with onnxruntime's
percentile calibration (99.99th percentile of each tensor's absolute values), and are committed in
:data:`RANGES_FILE`. Building the model here reads that file, so provisioning needs no photos, and the
result is the same file on every machine with the pinned ``onnx`` / ``onnxruntime`` (checked by its md5,
:data:`INT8_MD5`).

``python -m infra.provision`` (``make model``, ``make dev``, the Dockerfile) builds it after
provisioning ``u2netp.onnx`` (``infra/provision_model.py``); the two scripts share
:mod:`infra.model_files` and neither imports the other.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from infra.model_files import U2NETP_FILE, ensure_model_file
from retouch.segment import INT8_MODEL_FILE, NETWORK_INPUT_PX

__all__ = [
    "INT8_CONVS",
    "INT8_MD5",
    "RANGES_FILE",
    "build_u2netp_int8",
    "fixed_size_model",
    "quantize",
    "split_side_convs",
]

#: The u2netp convolutions that run in int8 (node names of the md5-pinned ``u2netp.onnx``), largest
#: first: GFLOP at 256 px 9.66, 2.42, 2.42, 2.42, 1.21, 1.21, 1.21, 0.23 of the network's 25.29.
INT8_CONVS = (
    "Conv_810",
    "Conv_942",
    "Conv_680",
    "Conv_132",
    "Conv_812",
    "Conv_2",
    "Conv_136",
    "Conv_0",
)

#: onnxruntime calibration cache (``onnxruntime.quantization.calibrate.save_tensors_data`` format) with
#: the ranges of the tensors around :data:`INT8_CONVS`, measured by ``bench/tuning/calibrate_int8.py``.
RANGES_FILE = Path(__file__).with_name("u2netp_int8_ranges.json")

#: md5 of the model :func:`build_u2netp_int8` writes with the pinned onnx 1.23.2 / onnxruntime 1.31.1.
INT8_MD5 = "4b54fe4a214f2691915ec2c0aaa515f0"


def fixed_size_model(fp32_path: Path, out_path: Path, size: int = NETWORK_INPUT_PX) -> Path:
    """Write ``fp32_path``'s model with its input and output pinned to ``size`` x ``size`` and its opset
    raised from 11 to 13 (per-channel QuantizeLinear / DequantizeLinear need opset 13); return ``out_path``.

    Raises:
        onnx.checker.ValidationError: the converted model is invalid.
    """
    import onnx
    from onnx import version_converter

    proto = onnx.load(str(fp32_path))
    for value in [*proto.graph.input, *proto.graph.output]:
        dims = value.type.tensor_type.shape.dim
        if len(dims) == 4:
            dims[2].dim_value, dims[3].dim_value = size, size
    del proto.graph.value_info[:]  # inferred again for the new size
    proto = version_converter.convert_version(proto, 13)
    onnx.save(proto, str(out_path))
    return out_path


def quantize(
    fp32_path: Path,
    out_path: Path,
    *,
    nodes: tuple[str, ...] = INT8_CONVS,
    ranges: Path | None = RANGES_FILE,
    reader: Any = None,
) -> Path:
    """Quantise ``nodes`` of the u2netp file ``fp32_path`` (QDQ, int8 per-channel weights, uint8
    activations, percentile ranges) into ``out_path`` at :data:`NETWORK_INPUT_PX` px.

    Args:
        fp32_path: the provisioned ``u2netp.onnx``.
        out_path: where to write the int8 model.
        nodes: names of the convolutions to quantise.
        ranges: calibration cache to read (``reader`` is ``None``) or to write (``reader`` given).
        reader: an ``onnxruntime.quantization.CalibrationDataReader`` over network inputs (float32
            (1, 3, 256, 256)); only ``bench/tuning/calibrate_int8.py`` passes one.

    Raises:
        ValueError: neither ``reader`` nor an existing ``ranges`` file.
    """
    from onnxruntime.quantization import CalibrationMethod, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    with tempfile.TemporaryDirectory(prefix="u2netp-int8-") as tmp:
        fixed = fixed_size_model(fp32_path, Path(tmp) / "fixed.onnx")
        prepared = Path(tmp) / "prepared.onnx"
        quant_pre_process(str(fixed), str(prepared), skip_symbolic_shape=True)
        cache = ranges
        if reader is None and ranges is not None:
            # quantize_static may rewrite its cache file: hand it a copy of the committed one
            cache = Path(tmp) / "ranges.json"
            shutil.copyfile(ranges, cache)
        partial = out_path.with_suffix(".onnx.part")
        quantize_static(
            str(prepared),
            str(partial),
            reader,
            quant_format=QuantFormat.QDQ,
            op_types_to_quantize=["Conv"],
            nodes_to_quantize=list(nodes),
            per_channel=True,
            activation_type=QuantType.QUInt8,
            weight_type=QuantType.QInt8,
            calibrate_method=CalibrationMethod.Percentile,
            extra_options={"CalibPercentile": 99.99},
            calibration_cache_path=cache,
        )
        import onnx

        proto = onnx.load(str(partial))
        split_side_convs(proto)
        onnx.save(proto, str(partial))
        partial.replace(out_path)
    return out_path


def split_side_convs(proto: Any) -> list[str]:
    """Rewrite, in place, every float 3 x 3 convolution with one output channel (u2netp's six side outputs
    ``side1`` ... ``side6``, 64 -> 1 channels) as a 1 x 1 convolution to its 9 taps followed by a 3 x 3
    convolution that adds them up; return the rewritten nodes' names.

    Why. onnxruntime's NCHWc layout (``nchwc_transformer.cc``, the CPU provider's fast float convolutions)
    rounds a convolution's output channels up to its block size (16 with AVX-512), so ``side1`` at 256 x 256
    computes 16 channels to keep 1: 6.5 ms of the int8 network's 100 ms on one core (onnxruntime's profiler;
    the exact speedups record in ``docs/decisions/``). Split, it costs 2.0 + 1.0 ms. The result is the same
    sum of products in another order:
    ``y(p) = b + sum_k sum_c W[c, k] x[c, p + k] = b + sum_k t_k(p + k)`` with ``t_k = sum_c W[c, k] x[c]``;
    zero padding of ``x`` is zero padding of ``t_k``, so the borders agree too (float32 rounding only).

    Args:
        proto: an ``onnx.ModelProto`` of the u2netp family.

    Raises:
        ValueError: such a convolution is strided, dilated or grouped (not u2netp's side outputs).
    """
    import numpy as np
    from onnx import helper, numpy_helper

    weights = {init.name: init for init in proto.graph.initializer}
    rewritten: list[str] = []
    nodes = []
    for node in proto.graph.node:
        w = weights.get(node.input[1]) if node.op_type == "Conv" and len(node.input) > 1 else None
        if w is None or w.dims[0] != 1 or list(w.dims[2:]) != [3, 3]:
            nodes.append(node)
            continue
        attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
        if (
            attrs.get("strides", [1, 1]) != [1, 1]
            or attrs.get("dilations", [1, 1]) != [1, 1]
            or attrs.get("group", 1) != 1
        ):
            raise ValueError(f"{node.name}: convoluzione con stride, dilatazione o gruppi: non riscrivibile")
        kernel = numpy_helper.to_array(w)[0]  # (C, 3, 3)
        taps = np.ascontiguousarray(kernel.reshape(kernel.shape[0], 9).T[:, :, None, None], dtype=np.float32)
        adder = np.zeros((1, 9, 3, 3), np.float32)
        adder[0, np.arange(9), np.arange(9) // 3, np.arange(9) % 3] = 1.0
        taps_name, adder_name, mid = (
            f"{node.name}_taps.weight",
            f"{node.name}_sum.weight",
            f"{node.output[0]}_taps",
        )
        proto.graph.initializer.extend(
            [numpy_helper.from_array(taps, taps_name), numpy_helper.from_array(adder, adder_name)]
        )
        nodes.append(
            helper.make_node(
                "Conv", [node.input[0], taps_name], [mid], name=f"{node.name}_taps", kernel_shape=[1, 1]
            )
        )
        nodes.append(
            helper.make_node(
                "Conv",
                [mid, adder_name, *node.input[2:]],
                list(node.output),
                name=f"{node.name}_sum",
                kernel_shape=[3, 3],
                pads=attrs.get("pads", [0, 0, 0, 0]),
            )
        )
        rewritten.append(node.name)
    del proto.graph.node[:]
    proto.graph.node.extend(nodes)
    used = {name for node in proto.graph.node for name in node.input}
    kept = [init for init in proto.graph.initializer if init.name in used]
    del proto.graph.initializer[:]
    proto.graph.initializer.extend(kept)
    return rewritten


def build_u2netp_int8(model_dir: Path) -> Path:
    """Make sure ``model_dir/`` :data:`retouch.segment.INT8_MODEL_FILE` exists with :data:`INT8_MD5`;
    build it from ``model_dir/u2netp.onnx`` and :data:`RANGES_FILE` when it does not. Returns its path.

    Raises:
        FileNotFoundError: ``u2netp.onnx`` is not in ``model_dir`` (run ``infra.provision_model`` first).
        infra.model_files.ModelChecksumError: the built model's md5 differs from :data:`INT8_MD5`
            (another onnx / onnxruntime version than the pinned ones?); nothing is kept.
    """
    fp32 = model_dir / U2NETP_FILE

    def build(partial: Path) -> None:
        if not fp32.exists():
            raise FileNotFoundError(f"{fp32} assente: eseguire prima python -m infra.provision_model")
        quantize(fp32, partial)

    return ensure_model_file(model_dir / INT8_MODEL_FILE, INT8_MD5, build)
