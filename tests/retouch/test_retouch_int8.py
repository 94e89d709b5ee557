"""The int8 first pass (``infra/quantize_model.py``, :func:`retouch.segment.int8_enabled`): built from the
committed activation ranges, the same file everywhere, close to float32, and switchable."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from PIL import Image
from retouch_helpers import GT_IMAGES, needs_model

from retouch import segment
from retouch.runtime import RetouchRuntime


def _mask(network: object, x: np.ndarray) -> np.ndarray:
    pred = network.run(None, {"input.1": x})[0][0, 0]  # type: ignore[attr-defined]
    return (pred - pred.min()) / max(float(pred.max() - pred.min()), 1e-6)


@needs_model
def test_the_int8_model_is_built_from_the_committed_ranges(tmp_path: Path) -> None:
    """Provisioning derives the int8 copy from ``u2netp.onnx`` and ``infra/u2netp_int8_ranges.json`` alone
    (no photos, no network) and gets the same bytes as on the machine the md5 was recorded on."""
    from infra.model_files import md5_of
    from infra.quantize_model import INT8_CONVS, INT8_MD5, build_u2netp_int8

    shutil.copyfile(segment.model_file("u2netp"), tmp_path / "u2netp.onnx")
    built = build_u2netp_int8(tmp_path)
    assert built.name == segment.INT8_MODEL_FILE
    assert md5_of(built) == INT8_MD5
    import onnx

    graph = onnx.load(str(built)).graph
    quantised = {n.name for n in graph.node if n.op_type == "Conv" and "quant" in n.input[1].lower()}
    assert len(quantised) == len(INT8_CONVS) and all(c in " ".join(quantised) for c in INT8_CONVS)
    assert quantised == set(INT8_CONVS)  # exactly those, by name
    # every other convolution stays float32; the six side outputs are split in two (split_side_convs)
    assert sum(n.op_type == "Conv" for n in graph.node) == 119 + 6
    assert {n.name for n in graph.node if n.name.startswith("Conv_") and n.name.endswith("_sum")} == {
        f"Conv_{i}_sum" for i in (945, 946, 966, 986, 1006, 1026)
    }


def test_the_split_side_convolution_computes_the_same_map() -> None:
    """:func:`infra.quantize_model.split_side_convs` on a one-node model: a 3 x 3, 8 -> 1 convolution with
    bias and zero padding gives the same map (to float32 rounding) as its 1 x 1 + 3 x 3 rewrite, borders
    included."""
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    from infra.quantize_model import split_side_convs

    rng = np.random.default_rng(0)
    w = rng.normal(size=(1, 8, 3, 3)).astype(np.float32)
    b = np.array([0.25], np.float32)
    graph = helper.make_graph(
        [
            helper.make_node(
                "Conv", ["x", "w", "b"], ["y"], name="side", kernel_shape=[3, 3], pads=[1, 1, 1, 1]
            )
        ],
        "side",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 20, 24])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 20, 24])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    x = rng.normal(size=(1, 8, 20, 24)).astype(np.float32)

    def run(proto: onnx.ModelProto) -> np.ndarray:
        session = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
        return np.asarray(session.run(None, {"x": x})[0])

    before = run(model)
    assert split_side_convs(model) == ["side"]
    assert [n.op_type for n in model.graph.node] == ["Conv", "Conv"]
    onnx.checker.check_model(model)
    after = run(model)
    assert after.shape == before.shape == (1, 1, 20, 24)
    np.testing.assert_allclose(after, before, rtol=0, atol=1e-5)


@needs_model
def test_the_int8_first_pass_draws_the_float32_mask(photos_dir: Path) -> None:
    """On a real photo (GT ``stone1``, tuning fold) the int8 256 px mask matches the float32 one: IoU at
    0.5 >= 0.98 and a mean absolute difference under 0.01 (tuning photos: mean IoU 0.979, MAE 0.003)."""
    if not (Path(segment.model_file("u2netp")).with_name(segment.INT8_MODEL_FILE)).exists():
        pytest.skip("copia int8 non ancora creata: make model")
    rgb = np.asarray(Image.open(next(p for p in GT_IMAGES.iterdir() if p.stem == "stone1")).convert("RGB"))
    x = segment.network_input(rgb, segment.NETWORK_INPUT_PX)
    a = _mask(segment.get_network("u2netp"), x)  # float32, any size
    b = _mask(segment._int8_network(segment.DEFAULT_NETWORK), x)
    union = ((a > 0.5) | (b > 0.5)).sum()
    iou = ((a > 0.5) & (b > 0.5)).sum() / union
    assert iou >= 0.98, f"IoU int8 / float32 {iou:.3f}"
    assert float(np.abs(a - b).mean()) < 0.01


@needs_model
def test_the_setting_picks_the_network() -> None:
    """``int8="0"`` (``RETOUCH_NETWORK_INT8=0``) keeps every evaluation in float32; ``"1"`` sends the
    256 px ones to the int8 copy and never the 320 px second look."""
    if not (Path(segment.model_file("u2netp")).with_name(segment.INT8_MODEL_FILE)).exists():
        pytest.skip("copia int8 non ancora creata: make model")
    float32, int8 = segment.NetworkConfig(int8="0"), segment.NetworkConfig(int8="1")
    fp32 = segment.get_network("u2netp")
    assert segment.get_network("u2netp", 256, float32) is fp32
    assert segment.get_network("u2netp", 256, int8) is segment._int8_network(int8) is not fp32
    assert segment.get_network("u2netp", 320, int8) is fp32
    with pytest.raises(ValueError, match="RETOUCH_NETWORK_INT8"):
        segment.NetworkConfig(int8="yes")


def test_the_model_directory_is_passed_in(tmp_path: Path) -> None:
    """The model directory comes from the :class:`~retouch.models.NetworkConfig` passed in, in rembg's two
    layouts; a directory without the file says so (nothing is downloaded, nothing written to the
    environment)."""
    import os

    before = dict(os.environ)
    flat, nested = tmp_path / "flat", tmp_path / "nested" / "models" / "u2netp"
    flat.mkdir()
    nested.mkdir(parents=True)
    (flat / "u2netp.onnx").write_bytes(b"x")
    (nested / "u2netp.onnx").write_bytes(b"x")
    assert segment.model_file("u2netp", segment.NetworkConfig(models_dir=flat)) == flat / "u2netp.onnx"
    assert segment.model_file("u2netp", segment.NetworkConfig(models_dir=tmp_path / "nested")) == (
        nested / "u2netp.onnx"
    )
    with pytest.raises(FileNotFoundError, match="u2netp"):
        segment.model_file("u2netp", segment.NetworkConfig(models_dir=tmp_path / "empty"))
    with pytest.raises(ValueError, match="sconosciuto"):
        segment.model_file("no-such-model", segment.NetworkConfig(models_dir=flat))
    assert dict(os.environ) == before


def test_the_setting_is_read_from_the_environment() -> None:
    assert RetouchRuntime.from_env({}).network_int8 == "auto"
    assert RetouchRuntime.from_env({"RETOUCH_NETWORK_INT8": " 0 "}).network_int8 == "0"
    assert RetouchRuntime.from_env({"RETOUCH_NETWORK_INT8": "1"}).network_int8 == "1"
    with pytest.raises(ValueError, match="RETOUCH_NETWORK_INT8"):
        RetouchRuntime.from_env({"RETOUCH_NETWORK_INT8": "yes"})


def test_int8_is_automatic_only_with_a_dot_product_instruction() -> None:
    """onnxruntime's u8s8 kernels can saturate without VNNI (its quantisation guide), so ``auto`` keeps
    float32 there."""
    assert segment.has_int8_dot_product("processor : 0\nflags : fpu avx2 avx512f avx512_vnni\n")
    assert segment.has_int8_dot_product("flags\t\t: sse4_2 avx2 avx_vnni\n")
    assert segment.has_int8_dot_product("Features\t: fp asimd asimddp\n")
    assert not segment.has_int8_dot_product("flags : fpu sse4_2 avx2 fma avx512f\n")
    assert not segment.has_int8_dot_product("")


def test_network_input_is_rembgs_tensor() -> None:
    """:func:`retouch.segment.network_input`: (1, 3, px, px) float32, the image scaled by its maximum and
    ImageNet-normalised (a uniform grey of 128 becomes (1 - mean) / std per channel)."""
    x = segment.network_input(np.full((50, 80, 3), 128, np.uint8), 64)
    assert x.shape == (1, 3, 64, 64) and x.dtype == np.float32 and x.flags.c_contiguous
    expected = (1.0 - np.array([0.485, 0.456, 0.406])) / np.array([0.229, 0.224, 0.225])
    assert np.allclose(x[0, :, 10, 10], expected, atol=1e-5)
