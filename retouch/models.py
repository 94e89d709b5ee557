"""Where the segmentation models are, and which copy of u2netp runs the 256 px passes.

The model directory is passed in (:class:`NetworkConfig`), never read from or written to
``os.environ`` here: the worker and the CLI pass ``FOTOPRONTA_U2NET_HOME``
(:attr:`fotopronta.settings.Settings.u2net_home`); a process that passes nothing uses
:attr:`retouch.runtime.RetouchRuntime.models_dir` (``U2NET_HOME``, read once), else the repository's
``.data/models``. The layout is rembg's: ``{dir}/{name}.onnx`` or ``{dir}/models/{name}/{name}.onnx``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .runtime import RUNTIME, int8_setting

__all__ = [
    "DEFAULT_NETWORK",
    "INT8_DOT_PRODUCT_FLAGS",
    "INT8_MODEL_FILE",
    "NetworkConfig",
    "has_int8_dot_product",
    "int8_enabled",
    "int8_path",
    "model_file",
    "network_path",
]

#: The int8 first-pass copy of ``u2netp`` (fixed 256 x 256 input), next to ``u2netp.onnx`` in the model
#: directory; built by ``infra/quantize_model.py``.
INT8_MODEL_FILE = "u2netp-int8-256.onnx"

#: The repository's own model directory, used when nothing else is configured.
REPO_MODELS = Path(__file__).resolve().parent.parent / ".data" / "models"


@dataclass(frozen=True)
class NetworkConfig:
    """Which network files the segmentation runs.

    Attributes:
        models_dir: directory of the ``.onnx`` files; ``None`` = :attr:`RetouchRuntime.models_dir
            <retouch.runtime.RetouchRuntime.models_dir>` (``U2NET_HOME``), else the repository's
            ``.data/models``.
        int8: ``"auto"``, ``"0"`` or ``"1"``: whether the 256 px u2netp evaluations use
            :data:`INT8_MODEL_FILE` (:func:`int8_enabled`); ``None`` = the process's
            ``RETOUCH_NETWORK_INT8`` (:attr:`retouch.runtime.RetouchRuntime.network_int8`).

    Raises:
        ValueError: (on creation) ``int8`` is not ``None``, ``"auto"``, ``"0"`` or ``"1"``.
    """

    models_dir: Path | None = None
    int8: str | None = None

    def __post_init__(self) -> None:
        if self.int8 is not None:
            object.__setattr__(self, "int8", int8_setting(self.int8))

    def directory(self) -> Path:
        """The model directory this configuration reads (see :attr:`models_dir`)."""
        if self.models_dir is not None:
            return Path(self.models_dir).expanduser()
        if RUNTIME.models_dir:
            return Path(RUNTIME.models_dir).expanduser()
        return REPO_MODELS

    def int8_setting(self) -> str:
        """:attr:`int8`, or the process's ``RETOUCH_NETWORK_INT8`` when it is ``None``."""
        return self.int8 if self.int8 is not None else RUNTIME.network_int8


DEFAULT_NETWORK = NetworkConfig()
"""The process's own configuration (model directory and int8 choice from :mod:`retouch.runtime`)."""


def model_file(model_name: str, network: NetworkConfig = DEFAULT_NETWORK) -> Path:
    """The local ``.onnx`` file of ``model_name`` in ``network``'s model directory.

    Looked up as rembg looks it up (``{dir}/models/{name}/{name}.onnx``, then ``{dir}/{name}.onnx``),
    without importing rembg for the U^2-Net family (its import pulls pymatting and numba, ~150 MB of RSS
    the U^2-Net path never uses).

    Raises:
        ValueError: unknown model name.
        FileNotFoundError: the model file is not present locally (nothing is downloaded).
    """
    from .segment import U2NET_FAMILY

    if model_name not in U2NET_FAMILY:
        from rembg.sessions import sessions_class

        if not any(c.name() == model_name for c in sessions_class):
            raise ValueError(f"Modello di segmentazione sconosciuto: {model_name}")
    root = network.directory()
    for candidate in (root / "models" / model_name / f"{model_name}.onnx", root / f"{model_name}.onnx"):
        if candidate.exists():
            return candidate
    raise FileNotFoundError(f"Modello {model_name!r} non trovato in {str(root)!r}")


def int8_path(network: NetworkConfig = DEFAULT_NETWORK) -> Path:
    """Where :data:`INT8_MODEL_FILE` is: next to the provisioned ``u2netp.onnx``.

    Raises:
        FileNotFoundError: ``u2netp.onnx`` is not there.
    """
    return model_file("u2netp", network).with_name(INT8_MODEL_FILE)


#: ``/proc/cpuinfo`` flags of the int8 dot-product instructions onnxruntime's u8s8 kernels rely on
#: (x86 AVX-512 VNNI and AVX-VNNI, ARM's dot product).
INT8_DOT_PRODUCT_FLAGS = frozenset({"avx512_vnni", "avx_vnni", "asimddp"})


def has_int8_dot_product(cpuinfo: str) -> bool:
    """Whether a ``/proc/cpuinfo`` text lists one of :data:`INT8_DOT_PRODUCT_FLAGS` (its ``flags`` lines
    on x86, ``Features`` on ARM)."""
    flags: set[str] = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() in ("flags", "Features"):
            flags.update(value.split())
    return bool(flags & INT8_DOT_PRODUCT_FLAGS)


@functools.cache
def _cpu_has_int8_dot_product() -> bool:
    """:func:`has_int8_dot_product` of this machine; ``False`` where ``/proc/cpuinfo`` cannot be read."""
    try:
        return has_int8_dot_product(Path("/proc/cpuinfo").read_text())
    except OSError:
        return False


def int8_enabled(network: NetworkConfig = DEFAULT_NETWORK) -> bool:
    """Whether the 256 px ``u2netp`` evaluations use the int8 model.

    :meth:`NetworkConfig.int8_setting`: ``"1"`` = yes (the file must exist), ``"0"`` = no, ``"auto"``
    (default) = when :data:`INT8_MODEL_FILE` exists and the CPU has VNNI
    (:func:`_cpu_has_int8_dot_product`).

    Raises:
        FileNotFoundError: the setting is ``"1"`` and the int8 model is not provisioned.
    """
    setting = network.int8_setting()
    if setting == "0":
        return False
    try:
        present = int8_path(network).exists()
    except FileNotFoundError:  # no u2netp.onnx either
        present = False
    if setting == "1":
        if not present:
            raise FileNotFoundError(f"{INT8_MODEL_FILE} assente: eseguire python -m infra.provision")
        return True
    return present and _cpu_has_int8_dot_product()


def network_path(network: NetworkConfig = DEFAULT_NETWORK) -> str:
    """Which copy of u2netp the 256 px passes run, and why, in one line for a person to read.

    ``"int8 (...)"`` or ``"fp32 (...)"`` followed by the reason: the setting (``RETOUCH_NETWORK_INT8`` or
    the :class:`NetworkConfig`), whether the CPU has the int8 dot-product instructions
    (:data:`INT8_DOT_PRODUCT_FLAGS`) and whether :data:`INT8_MODEL_FILE` is in the model directory, which
    is named. The benchmarks and ``fotopronta retouch`` print it, so a figure says which path it is from.

    Raises:
        FileNotFoundError: the setting is ``"1"`` and the int8 model is not provisioned.
    """
    setting = network.int8_setting()
    directory = network.directory()
    try:
        present = int8_path(network).exists()
    except FileNotFoundError:
        present = False
    cpu = "con VNNI" if _cpu_has_int8_dot_product() else "senza VNNI"
    path = "int8" if int8_enabled(network) else "fp32"
    if setting == "auto":
        why = f"auto: CPU {cpu}, {INT8_MODEL_FILE} {'presente' if present else 'assente'}"
    else:
        why = f"RETOUCH_NETWORK_INT8={setting}, CPU {cpu}"
    return f"{path} ({why}; modelli in {directory})"
