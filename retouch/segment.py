"""Coarse segmentation with a rembg model: sessions created once per process and reused.

rembg (danielgatis/rembg) wraps salient-object models (U^2-Net, IS-Net, BiRefNet ...) behind
``new_session(name)``; ``session.predict(pil_image)`` returns a greyscale mask the size of its input.
We always feed it an image already reduced to the working resolution, so its internal resizes
(to the network's 320x320 or 1024x1024 input and back) stay cheap.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

__all__ = ["get_session", "predict_mask", "DEFAULT_MODEL"]

DEFAULT_MODEL = "u2netp"

_SESSIONS: dict[str, Any] = {}
_LOCK = threading.Lock()
#: One network evaluation at a time per process: onnxruntime already uses every core for one run, and
#: each run of U^2-Net holds ~0.4 GB of activations, so concurrent runs only add memory. Other pipeline
#: steps of other photos still run in parallel with it (numpy, scipy and Pillow release the GIL).
_INFER_LOCK = threading.Lock()


def _default_model_home() -> str | None:
    """Return the repository's ``.data/models`` when it holds model files and U2NET_HOME is unset."""
    here = Path(__file__).resolve().parent.parent / ".data" / "models"
    return str(here) if here.is_dir() else None


def get_session(model_name: str = DEFAULT_MODEL) -> Any:
    """Return the rembg session for ``model_name``, creating it on first use (one per process).

    Args:
        model_name: any rembg model name (``u2netp``, ``isnet-general-use``, ``birefnet-general`` ...);
            its ``.onnx`` file must already be present under ``U2NET_HOME`` (nothing is downloaded:
            rembg would try to, so we check first).

    The onnxruntime session is created without the CPU memory arena (bounded, flat memory), with
    denormals flushed to zero (speed), and with
    ``RETOUCH_ORT_THREADS`` intra-op threads when that variable is set (default: one per core).

    Returns:
        The cached ``rembg.sessions.base.BaseSession``; thread-safe to share between calls
        (onnxruntime's ``InferenceSession.run`` is thread-safe).

    Raises:
        ValueError: unknown model name.
        FileNotFoundError: the model file is not present locally.
    """
    with _LOCK:
        session = _SESSIONS.get(model_name)
        if session is not None:
            return session
        if not os.environ.get("U2NET_HOME"):
            home = _default_model_home()
            if home:
                os.environ["U2NET_HOME"] = home
        from rembg.sessions import sessions_class

        cls = next((c for c in sessions_class if c.name() == model_name), None)
        if cls is None:
            raise ValueError(f"Modello di segmentazione sconosciuto: {model_name}")
        if cls.resolve_existing(f"{model_name}.onnx") is None:
            raise FileNotFoundError(
                f"Modello {model_name!r} non trovato in U2NET_HOME={os.environ.get('U2NET_HOME')!r}"
            )
        import onnxruntime as ort
        from rembg import new_session

        opts = ort.SessionOptions()
        # No CPU memory arena: the arena keeps ~0.5 GB of activations per session alive for the life of
        # the process; without it peak RSS stays ~100 MB for u2netp and flat over many photos.
        opts.enable_cpu_mem_arena = False
        # Flush denormal floats to zero: on some photos U^2-Net's activations underflow into denormals,
        # which x86 handles ~100x slower; measured 0.57 s -> 0.32 s per inference on such a photo,
        # with no visible change in the mask (max difference below 1/255).
        opts.add_session_config_entry("session.set_denormal_as_zero", "1")
        threads = os.environ.get("RETOUCH_ORT_THREADS")
        if threads:
            opts.intra_op_num_threads = int(threads)
        session = new_session(model_name, sess_opts=opts)
        _SESSIONS[model_name] = session
        return session


def predict_mask(rgb: np.ndarray, model_name: str = DEFAULT_MODEL) -> np.ndarray:
    """Run the segmentation network on an RGB image.

    Args:
        rgb: uint8 array (H, W, 3), sRGB; pass it already at the working resolution.
        model_name: rembg model name (see :func:`get_session`).

    Returns:
        float32 array (H, W) in [0, 1], 1 = foreground (the network's min-max normalised saliency).

    Thread-safe; evaluations are serialised per process (see ``_INFER_LOCK``).
    """
    session = get_session(model_name)
    with _INFER_LOCK:
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
