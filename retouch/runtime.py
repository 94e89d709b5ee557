"""The retouch pipeline's runtime knobs, read once from the environment.

Every ``RETOUCH_*`` environment variable the pipeline honours is read here and nowhere else, when the
module is first imported (a worker process reads its environment once; set the variables before the
worker starts). Standard library only, so the worker can size its thread pool without loading numpy.

=============================== ============================ =====================================
Variable                        Field                        Default
=============================== ============================ =====================================
``RETOUCH_FULL_RES_BUDGET_MP``  :attr:`full_res_budget_px`   16 MP (two 8 MP photos, or one 12 MP
                                                             beside small ones)
``RETOUCH_HEAP_TRIM_EVERY``     :attr:`heap_trim_every`      8 photos (0 = never trim)
``RETOUCH_NETWORK_SLOTS``       :attr:`network_slots`        one per core
``RETOUCH_ORT_THREADS``         :attr:`ort_threads`          cores / slots (at least 1)
``RETOUCH_MALLOC_ARENAS``       :attr:`malloc_arenas`        2 (0 = glibc's default, 8 per core)
``RETOUCH_MALLOC_MMAP_MB``      :attr:`malloc_mmap_mb`       32 (0 = glibc's sliding threshold)
``RETOUCH_MALLOC_TRIM_MB``      :attr:`malloc_trim_mb`       1024 (0 = glibc's sliding threshold)
``RETOUCH_NETWORK_INT8``        :attr:`network_int8`         ``auto`` (int8 first pass where the CPU
                                                             has VNNI; ``0`` = float32, ``1`` = int8)
=============================== ============================ =====================================

The measurements behind the defaults are documented where each knob is used:
:data:`retouch.pipeline.FULL_RES_BUDGET`, :func:`retouch.pipeline.release_free_heap` and
:data:`retouch.segment.NETWORK_SLOTS`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "RUNTIME",
    "RetouchRuntime",
    "fix_malloc_thresholds",
    "glibc_function",
    "limit_malloc_arenas",
    "tune_malloc",
]


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    """``int(env[name])`` clamped to at least 1, or ``default`` when unset or empty."""
    value = env.get(name)
    return max(1, int(value)) if value else default


def _int8_setting(value: str | None) -> str:
    """``RETOUCH_NETWORK_INT8`` as ``"auto"``, ``"0"`` or ``"1"`` (unset or empty = ``"auto"``).

    Raises:
        ValueError: any other value.
    """
    value = (value or "auto").strip().lower()
    if value not in ("auto", "0", "1"):
        raise ValueError(f"RETOUCH_NETWORK_INT8 deve essere auto, 0 o 1, non {value!r}")
    return value


@dataclass(frozen=True)
class RetouchRuntime:
    """How much one retouch process may do at once.

    Attributes:
        full_res_budget_px: full-resolution pixels in flight per process
            (:class:`retouch.pipeline.PixelBudget`); ``RETOUCH_FULL_RES_BUDGET_MP`` × 1 000 000.
        heap_trim_every: every how many photos the heap is trimmed (glibc ``malloc_trim``); 0 = never.
        network_slots: U^2-Net evaluations that may run at once; also the retouch worker's activity
            threads (``workflows/worker.py``) and the CLI's.
        ort_threads: onnxruntime intra-op threads per evaluation.
        malloc_arenas: most glibc malloc arenas in the process (:func:`limit_malloc_arenas`); 0 = glibc's
            default.
        network_int8: ``"auto"``, ``"0"`` or ``"1"``: whether the 256 px u2netp evaluations use the int8
            model (:func:`retouch.segment.int8_enabled`).
        malloc_mmap_mb: glibc's mmap threshold in MB (:func:`fix_malloc_thresholds`); 0 = glibc's sliding one.
        malloc_trim_mb: glibc's trim threshold in MB (idem); 0 = glibc's sliding one.
    """

    full_res_budget_px: int = 16_000_000
    heap_trim_every: int = 8
    network_slots: int = 1
    ort_threads: int = 1
    malloc_arenas: int = 2
    network_int8: str = "auto"
    malloc_mmap_mb: int = 32
    malloc_trim_mb: int = 1024

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None, cpu_count: int | None = None) -> RetouchRuntime:
        """The knobs from ``env`` (default ``os.environ``) on a machine with ``cpu_count`` cores
        (default ``os.cpu_count()``); see the module docstring for names and defaults."""
        env = os.environ if env is None else env
        cores = cpu_count or os.cpu_count() or 1
        slots = _positive_int(env, "RETOUCH_NETWORK_SLOTS", cores)
        return cls(
            full_res_budget_px=int(float(env.get("RETOUCH_FULL_RES_BUDGET_MP") or "16") * 1_000_000),
            heap_trim_every=max(0, int(env.get("RETOUCH_HEAP_TRIM_EVERY") or "8")),
            network_slots=slots,
            ort_threads=_positive_int(env, "RETOUCH_ORT_THREADS", max(1, cores // slots)),
            malloc_arenas=max(0, int(env.get("RETOUCH_MALLOC_ARENAS") or "2")),
            network_int8=_int8_setting(env.get("RETOUCH_NETWORK_INT8")),
            malloc_mmap_mb=max(0, int(env.get("RETOUCH_MALLOC_MMAP_MB") or "32")),
            malloc_trim_mb=max(0, int(env.get("RETOUCH_MALLOC_TRIM_MB") or "1024")),
        )


#: glibc's ``mallopt`` parameter numbers (``malloc.h``).
_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
_M_ARENA_MAX = -8


def glibc_function(name: str, argtypes: list[Any], restype: Any) -> Any:
    """The C function ``name`` of the process's libc with its ctypes signature, or ``None`` off glibc (musl,
    macOS: ``mallopt`` and ``malloc_trim`` are glibc's)."""
    try:
        function = getattr(ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6"), name)
    except (OSError, AttributeError):
        return None
    function.argtypes = argtypes
    function.restype = restype
    return function


def _mallopt() -> Any:
    """glibc's ``int mallopt(int param, int value)``, or ``None`` off glibc."""
    return glibc_function("mallopt", [ctypes.c_int, ctypes.c_int], ctypes.c_int)


def limit_malloc_arenas(arenas: int) -> bool:
    """Cap glibc's malloc arenas at ``arenas`` (``mallopt(M_ARENA_MAX, arenas)``; 0 or less: leave glibc's
    default). Call it before the threads that will allocate start; arenas that exist stay.

    glibc gives threads their own arenas (up to 8 per core) and freed memory stays in the arena of the
    thread that freed it. The retouch threads (two activity threads, a JPEG/WebP encoder thread per photo,
    onnxruntime's) each free hundreds of MB per photo, so a long run spreads reusable memory over many
    arenas and RSS creeps even with :func:`retouch.pipeline.release_free_heap`: ``fotopronta retouch`` on
    the 450 photos of ``bench-load``'s mix (seed 13) peaked at 684 MB in its first 20 s and 856 MB in its
    last; with 2 arenas (``MALLOC_ARENA_MAX=2``) 660 and 689 MB, peak 739 MB, and the same CPU time per
    photo on ``bench/speed.py``'s photos (0.531 s with either setting, 212 photos, 2 at a time). The
    full 900-photo ``bench-load`` run's retouch worker, with the default arenas, peaked at 949-1,075 MB.

    Returns:
        whether the cap was set (``False`` off glibc or for ``arenas`` <= 0).
    """
    mallopt = _mallopt() if arenas > 0 else None
    return mallopt is not None and bool(mallopt(_M_ARENA_MAX, arenas))


def fix_malloc_thresholds(mmap_mb: int, trim_mb: int) -> bool:
    """Fix glibc's mmap threshold at ``mmap_mb`` MB and its trim threshold at ``trim_mb`` MB
    (``mallopt(M_MMAP_THRESHOLD / M_TRIM_THRESHOLD)``); 0 leaves that one sliding, as glibc does by default.

    By default glibc serves every block above a sliding threshold (128 KB at start, at most 32 MB) with its
    own ``mmap`` and returns the heap's free top to the OS as soon as it exceeds twice that. A photo allocates
    and frees hundreds of MB of numpy and Pillow buffers of a few MB each, so their pages were faulted in
    and zeroed again for every array: on ``bench/speed.py``'s 53 photos (two at a time, one process) 530,000
    minor page faults and 1.1-1.4 s of system time per pass. With the mmap threshold at 32 MB (glibc's own
    ceiling; a 12 MP photo's 48 MB float planes are still mapped and unmapped on their own) and the trim
    threshold at 1 GB, the freed buffers are reused: 290,000 faults, 0.6-0.8 s, the pass 2-4 % shorter
    (``make bench-memory``). The heap is still returned to the OS every :data:`retouch.pipeline.HEAP_TRIM_EVERY`
    photos (``malloc_trim``), so the peak RSS stays bounded (``make bench-memory``).

    Returns:
        whether both values that were asked for were accepted (``False`` off glibc, or when both are 0).
    """
    mallopt = _mallopt() if mmap_mb > 0 or trim_mb > 0 else None
    if mallopt is None:
        return False
    ok = True
    if mmap_mb > 0:
        ok = bool(mallopt(_M_MMAP_THRESHOLD, mmap_mb << 20)) and ok
    if trim_mb > 0:
        ok = bool(mallopt(_M_TRIM_THRESHOLD, min(trim_mb, 2047) << 20)) and ok
    return ok


def tune_malloc(runtime: RetouchRuntime) -> None:
    """Apply ``runtime``'s allocator settings to this process (:func:`limit_malloc_arenas`,
    :func:`fix_malloc_thresholds`). Call it before the threads that will allocate start."""
    limit_malloc_arenas(runtime.malloc_arenas)
    fix_malloc_thresholds(runtime.malloc_mmap_mb, runtime.malloc_trim_mb)


RUNTIME = RetouchRuntime.from_env()
"""This process's knobs, read once at import."""
