"""Coarse segmentation with a rembg model: sessions created once per process and reused.

rembg (danielgatis/rembg) wraps salient-object models (U^2-Net, IS-Net, BiRefNet ...) behind
``new_session(name)``; ``session.predict(pil_image)`` returns a greyscale mask the size of its input.

For the U^2-Net family (``u2netp``, ``u2net``, ``u2net_human_seg``, ``silueta``) we run the same model
file ourselves at a chosen square input size (:data:`NETWORK_INPUT_PX`, 256 px by default) instead of
rembg's fixed 320 px: the network is fully convolutional, the file only pins its input to 320x320, so
we lift that pin in memory when the session is created (the file on disk, and its md5, stay as
provisioned). Why 256 px: U^2-Net was trained on 288x288 random crops of images resized to 320x320
(Qin et al., "U^2-Net: Going deeper with nested U-structure for salient object detection", Pattern
Recognition 2020, section 4.2), so objects at 256-288 px are at the scale the network learnt; on the
shared photos with ground truth the raw u2netp mask's mean IoU is 0.864 at 320 px, 0.912 at 288 px and
0.915 at 256 px, and inference costs 152 ms at 256 px vs 231 ms at 320 px (2 threads, this machine).
A smaller first pass does not pay: at 224 px (23 % fewer network pixels) the full pipeline's mean IoU on
the GT tuning fold fell from 0.9103 to 0.8647 and its boundary F from 0.886 to 0.843, and the tuning
composites got a photo more than 0.05 IoU below rembg (``bench/pipeline/quality.py``, tuning sets only).
Every other model goes through rembg's own ``predict`` at its native size.

**int8 first pass.** The 256 px evaluations of ``u2netp`` (every photo's first pass, the zoom and the
refocus) run a copy of the model whose eight heaviest convolutions are quantised to int8
(:data:`INT8_MODEL_FILE`, derived at provisioning by ``infra/quantize_model.py``, which says how the layers
and their activation ranges were chosen on tuning data): 0.090 s instead of 0.130 s per evaluation on one
core. It is used where the CPU has VNNI dot-product instructions (``avx512_vnni`` / ``avx_vnni`` on x86,
``asimddp`` on ARM: onnxruntime's u8s8 kernels can saturate without them) and the file is there;
``RETOUCH_NETWORK_INT8`` = ``0`` / ``1`` forces float32 / int8 (:mod:`retouch.runtime`), or a
:class:`retouch.models.NetworkConfig` passed in. The 320 px second look, plain rembg's own mask, always
runs in float32. Where the model files are is passed in too (:class:`retouch.models.NetworkConfig`).
"""

from __future__ import annotations

import functools
import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from .models import (
    DEFAULT_NETWORK,
    INT8_MODEL_FILE,
    NetworkConfig,
    has_int8_dot_product,
    int8_enabled,
    int8_path,
    model_file,
)
from .runtime import RUNTIME

__all__ = [
    "DEFAULT_NETWORK",
    "NetworkConfig",
    "get_session",
    "get_network",
    "model_file",
    "warm_up",
    "predict_mask",
    "DEFAULT_MODEL",
    "NETWORK_INPUT_PX",
    "U2NET_FAMILY",
    "INT8_MODEL_FILE",
    "int8_enabled",
    "has_int8_dot_product",
    "network_input",
]

DEFAULT_MODEL = "u2netp"

#: Square network input (px) for the U^2-Net family; see the module docstring for the measurements.
NETWORK_INPUT_PX = 256

#: rembg models that share U^2-Net's architecture, ImageNet normalisation and output convention
#: (first output = fused saliency map d0), and so can run at any input size that is a multiple of 32.
U2NET_FAMILY = frozenset({"u2netp", "u2net", "u2net_human_seg", "silueta"})

#: ImageNet mean and standard deviation per RGB channel, as rembg's U^2-Net sessions normalise.
_MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
_STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)

#: Sessions and networks of this process, by (model directory, model name); the int8 copy under
#: :data:`_INT8_KEY`.
_SESSIONS: dict[tuple[Path, str], Any] = {}
_NETWORKS: dict[tuple[Path, str], Any] = {}
_INT8_KEY = "u2netp:int8"
_LOCK = threading.Lock()


#: U^2-Net evaluations that may run at once in this process (``RETOUCH_NETWORK_SLOTS``, default: one
#: per core). Each runs on ``RETOUCH_ORT_THREADS`` intra-op threads (default: cores / slots, so 1):
#: two photos each on one core keep both cores busy, while one photo on two cores leaves a core idle
#: whenever the rest of the pipeline (partly holding the GIL) runs. Measured on 53 shared photos with
#: two retouch threads: 0.27 s per photo with 2 slots x 1 thread vs 0.32 s with 1 slot x 1 thread and
#: 0.34 s with 1 slot x 2 threads. Each evaluation in flight holds ~140 MB of activations at 256 px.
#: Both are read once by :mod:`retouch.runtime`.
NETWORK_SLOTS = RUNTIME.network_slots
ORT_THREADS = RUNTIME.ort_threads
_NETWORK_SLOTS = threading.BoundedSemaphore(NETWORK_SLOTS)
#: rembg's own sessions (other models: IS-Net and BiRefNet run at 1024 px and need ~1-2 GB per run) go
#: one at a time, each on every core.
_REMBG_LOCK = threading.Lock()


def get_session(model_name: str = DEFAULT_MODEL, network: NetworkConfig = DEFAULT_NETWORK) -> Any:
    """Return the rembg session for ``model_name``, creating it on first use (one per process and model
    directory).

    Args:
        model_name: any rembg model name (``u2netp``, ``isnet-general-use``, ``birefnet-general`` ...);
            its ``.onnx`` file must already be in ``network``'s model directory (:func:`model_file`;
            nothing is downloaded).
        network: where the model files are.

    The session is rembg's own class for the model, built on that explicit file (rembg would look it up
    through ``U2NET_HOME`` and download it when absent). The onnxruntime session is created without the
    CPU memory arena (rembg's input sizes differ per model, up to 1024 px: one run's activations are not
    kept for the life of the process), with the options of :func:`_session_options`; with
    ``OMP_NUM_THREADS`` set, its intra- and inter-op threads follow it, as rembg's ``new_session`` does.

    Returns:
        The cached ``rembg.sessions.base.BaseSession``; thread-safe to share between calls
        (onnxruntime's ``InferenceSession.run`` is thread-safe).

    Raises:
        ValueError: unknown model name.
        FileNotFoundError: the model file is not present locally.
    """
    key = (network.directory(), model_name)
    with _LOCK:
        session = _SESSIONS.get(key)
        if session is not None:
            return session
        path = model_file(model_name, network)  # refuse before anything is downloaded
        from rembg.sessions import sessions_class

        rembg_class = next(c for c in sessions_class if c.name() == model_name)

        class _LocalFile(rembg_class):  # type: ignore[misc, valid-type]
            """rembg's session for the model, reading the file already found."""

            @classmethod
            def download_models(cls, *_args: Any, **_kwargs: Any) -> str:
                return str(path)

        opts = _session_options(arena=False, threads=None)
        omp = os.environ.get("OMP_NUM_THREADS")
        if omp:
            opts.inter_op_num_threads = opts.intra_op_num_threads = int(omp)
        session = _LocalFile(model_name, opts)
        _SESSIONS[key] = session
        return session


def _session_options(*, arena: bool, threads: int | None) -> Any:
    """onnxruntime options shared by our sessions.

    Denormal floats are flushed to zero: on some photos U^2-Net's activations underflow into denormals,
    which x86 handles ~100x slower (measured 0.57 s -> 0.32 s per inference on such a photo, no visible
    change in the mask).

    Args:
        arena: keep the CPU memory arena (activations reused between runs).
        threads: intra-op threads; ``None`` = onnxruntime's default (one per core).
    """
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.enable_cpu_mem_arena = arena
    if arena:
        _shared_arena()
        opts.add_session_config_entry("session.use_env_allocators", "1")
        # no per-run memory pattern (one block sized for the plan's peak): the tensors come from the
        # shared arena one by one, which two concurrent runs share more tightly (see _shared_arena)
        opts.enable_mem_pattern = False
    opts.add_session_config_entry("session.set_denormal_as_zero", "1")
    if threads is not None:
        opts.intra_op_num_threads = threads
    return opts


@functools.cache
def _shared_arena() -> None:
    """Register one CPU arena allocator in onnxruntime's environment, for every session made with
    ``arena=True`` (``session.use_env_allocators``): the float32 network and its int8 copy.

    With an arena each, the float32 session (then serving only the rare 320 px second looks) and the int8
    one (every 256 px run) each kept their largest activations: with two photos at a time ``make
    bench-speed``'s peak RSS went from 634 to 985 MB, and a loop of 256 px runs with a 320 px run every
    fifth from 280 to 750 MB steady (without an arena for the float32 one: 792 MB, glibc keeping the
    freed buffers). Sharing one arena, the 320 px runs reuse the 256 px runs' chunks and shrink it
    afterwards (:func:`_shrink_after_run`): 323 MB steady in that loop.
    """
    import onnxruntime as ort

    info = ort.OrtMemoryInfo("Cpu", ort.OrtAllocatorType.ORT_ARENA_ALLOCATOR, 0, ort.OrtMemType.DEFAULT)
    ort.create_and_register_allocator(info, None)


def get_network(
    model_name: str = DEFAULT_MODEL, input_px: int | None = None, network: NetworkConfig = DEFAULT_NETWORK
) -> Any:
    """onnxruntime session of a U^2-Net family model that accepts any input size (one per process and
    model directory).

    With ``input_px`` = :data:`NETWORK_INPUT_PX`, ``model_name`` = ``u2netp`` and :func:`int8_enabled`,
    the int8 copy (:data:`retouch.models.INT8_MODEL_FILE`, fixed 256 px input) is returned instead.
    ``network`` says where the files are and whether the int8 copy may run (:func:`int8_enabled`).

    The model file is the one rembg uses (``{models_dir}/{model_name}.onnx``, checked by
    :func:`model_file`); its input and output are declared 1x3x320x320 in the file, so the
    spatial dimensions are made symbolic in memory before the session is created.

    The CPU memory arena is on: the input sizes are fixed (:data:`NETWORK_INPUT_PX`, and 320 px for the
    second look of :func:`retouch.pick.pick_product` on doubtful photos), so once a 320 px run has been
    seen the arena holds the largest run's activations and stays flat; without it every run pays for
    fresh page-faulted buffers (measured 180 ms vs 152 ms per run at 256 px). The arena is the process's
    one shared arena (:func:`_shared_arena`), also used by the int8 copy.

    Raises:
        ValueError: ``model_name`` is not in :data:`U2NET_FAMILY`, or unknown to rembg.
        FileNotFoundError: the model file is not present locally.
    """
    if model_name not in U2NET_FAMILY:
        raise ValueError(f"Il modello {model_name!r} non accetta una dimensione di input libera")
    if input_px == NETWORK_INPUT_PX and model_name == DEFAULT_MODEL and int8_enabled(network):
        return _int8_network(network)
    key = (network.directory(), model_name)
    with _LOCK:
        session = _NETWORKS.get(key)
        if session is not None:
            return session
    path = model_file(model_name, network)
    import onnx
    import onnxruntime as ort

    proto = onnx.load(str(path))
    for value in [*proto.graph.input, *proto.graph.output]:
        dims = value.type.tensor_type.shape.dim
        if len(dims) == 4:
            dims[2].dim_param, dims[3].dim_param = "height", "width"
    del proto.graph.value_info[:]  # shapes inferred for 320 px inside the graph
    session = ort.InferenceSession(
        proto.SerializeToString(),
        _session_options(arena=True, threads=ORT_THREADS),
        providers=["CPUExecutionProvider"],
    )
    with _LOCK:
        return _NETWORKS.setdefault(key, session)


def _int8_network(network: NetworkConfig) -> Any:
    """onnxruntime session of :data:`retouch.models.INT8_MODEL_FILE` (one per process and model directory),
    with the options of :func:`_session_options` and its CPU arena on (one input size)."""
    key = (network.directory(), _INT8_KEY)
    with _LOCK:
        session = _NETWORKS.get(key)
        if session is not None:
            return session
    import onnxruntime as ort

    session = ort.InferenceSession(
        str(int8_path(network)),
        _session_options(arena=True, threads=ORT_THREADS),
        providers=["CPUExecutionProvider"],
    )
    with _LOCK:
        return _NETWORKS.setdefault(key, session)


@functools.cache
def _shrink_after_run() -> Any:
    """onnxruntime ``RunOptions`` that give the arena's free chunks back to the OS at the end of the run.

    Used for every size but :data:`NETWORK_INPUT_PX` (the 320 px second look on doubtful photos, ~6 % of
    them): the arena keeps the largest activations it has ever held, so two 320 px runs at once would
    leave ~300 MB in the retouch worker for the rest of its life (measured: 582 -> 875 MB RSS, and the
    ``bench-load`` worker peaked at 1071 MB over 2700 photos). After a shrink, the next 256 px runs pay
    for fresh pages once (~0.05 s each, measured 0.33 vs 0.28 s) and the arena regrows to the 256 px
    runs' size only. ``memory.enable_memory_arena_shrinkage`` is onnxruntime's run-level option for it
    (``onnxruntime/core/framework/run_options`` config keys).
    """
    import onnxruntime as ort

    options = ort.RunOptions()
    options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
    return options


def warm_up(
    model_name: str = DEFAULT_MODEL,
    input_px: int | None = NETWORK_INPUT_PX,
    network: NetworkConfig = DEFAULT_NETWORK,
) -> None:
    """Create the session :func:`predict_mask` will use for these arguments (model load, ~0.5 s).

    Raises:
        ValueError, FileNotFoundError: as :func:`get_session` / :func:`get_network`.
    """
    if input_px is not None and model_name in U2NET_FAMILY:
        get_network(model_name, input_px, network)
    else:
        get_session(model_name, network)


def predict_mask(
    rgb: np.ndarray,
    model_name: str = DEFAULT_MODEL,
    input_px: int | None = NETWORK_INPUT_PX,
    *,
    lanczos: bool = False,
    network: NetworkConfig = DEFAULT_NETWORK,
) -> np.ndarray:
    """Run the segmentation network on an RGB image.

    Args:
        rgb: uint8 array (H, W, 3), sRGB; pass it already at the working resolution.
        model_name: rembg model name (see :func:`get_session`).
        input_px: square network input in px (multiple of 32) for :data:`U2NET_FAMILY` models;
            ``None`` (and any other model) = rembg's own ``predict`` at the model's native size.
        lanczos: shrink the photo to the network input with Lanczos, as rembg's own ``predict`` does
            (with ``input_px=320`` this is plain rembg's mask, the "safe" mask of
            :func:`retouch.pick.pick_product`); default bilinear (see :func:`_predict_u2net`).
        network: where the model files are, and whether the 256 px u2netp pass runs its int8 copy.

    Returns:
        float32 array (H, W) in [0, 1], 1 = foreground (the network's min-max normalised saliency).

    Thread-safe; at most :data:`NETWORK_SLOTS` U^2-Net evaluations run at once, rembg's own
    ``predict`` one at a time.
    """
    if input_px is not None and model_name in U2NET_FAMILY:
        return _predict_u2net(rgb, model_name, input_px, lanczos=lanczos, network=network)
    session = get_session(model_name, network)
    with _REMBG_LOCK:
        masks = session.predict(Image.fromarray(rgb, "RGB"))
    mask = np.asarray(masks[0].convert("L"), dtype=np.float32) / 255.0
    if mask.shape != rgb.shape[:2]:
        mask = (
            np.asarray(
                Image.fromarray((mask * 255).astype(np.uint8)).resize(
                    (rgb.shape[1], rgb.shape[0]), Image.Resampling.BILINEAR
                ),
                dtype=np.float32,
            )
            / 255.0
        )
    return mask


def network_input(rgb: np.ndarray, input_px: int, *, lanczos: bool = False) -> np.ndarray:
    """The U^2-Net input tensor of an RGB image, as rembg's ``U2netpSession.predict`` builds it: the image
    shrunk to ``input_px`` x ``input_px`` (bilinear with Pillow's ``reducing_gap`` 2, or Lanczos when
    ``lanczos``), scaled by its maximum, ImageNet-normalised.

    Args:
        rgb: uint8 (H, W, 3) sRGB.
        input_px: square side in px.

    Returns:
        float32 (1, 3, input_px, input_px), C-contiguous.
    """
    image = Image.fromarray(rgb, "RGB")
    if lanczos:
        small = image.resize((input_px, input_px), Image.Resampling.LANCZOS)
    else:
        small = image.resize((input_px, input_px), Image.Resampling.BILINEAR, reducing_gap=2.0)
    x = np.asarray(small, dtype=np.float32)
    x *= 1.0 / max(float(x.max()), 1e-6)
    x -= _MEAN
    x /= _STD
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])


def _predict_u2net(
    rgb: np.ndarray,
    model_name: str,
    input_px: int,
    *,
    lanczos: bool = False,
    network: NetworkConfig = DEFAULT_NETWORK,
) -> np.ndarray:
    """U^2-Net saliency at ``input_px`` x ``input_px``, returned at the size of ``rgb`` (float32 [0, 1]).

    Same pre- and post-processing as rembg's ``U2netpSession.predict`` (image scaled by its maximum,
    ImageNet normalisation, min-max of the fused map d0), with bilinear instead of Lanczos resampling
    unless ``lanczos``: the mask is refined at the working resolution afterwards. The kernel that shrinks
    the *input* does matter to the network: on the GT tuning fold the 256 px mask's mean IoU is 0.906 with
    bilinear and 0.895 with Lanczos, while the 320 px mask is 0.826 / 0.832, so the first pass
    stays bilinear and the 320 px "safe" mask is computed as rembg computes it (``lanczos=True``).
    """
    if input_px % 32:
        raise ValueError(f"input_px deve essere un multiplo di 32, non {input_px}")
    session = get_network(model_name, input_px, network)
    h, w = rgb.shape[:2]
    feed = {session.get_inputs()[0].name: network_input(rgb, input_px, lanczos=lanczos)}
    run_options = None if input_px == NETWORK_INPUT_PX else _shrink_after_run()
    with _NETWORK_SLOTS:
        pred = session.run([session.get_outputs()[0].name], feed, run_options)[0][0, 0]
    lo, hi = float(pred.min()), float(pred.max())
    pred = (pred - lo) / max(hi - lo, 1e-6)
    if (w, h) == (input_px, input_px):
        return pred.astype(np.float32)
    return np.asarray(Image.fromarray(pred.astype(np.float32), "F").resize((w, h), Image.Resampling.BILINEAR))
