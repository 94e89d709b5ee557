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
``RETOUCH_BLAS_THREADS``        :attr:`blas_threads`         1 (BLAS / LAPACK threads of numpy and
                                                             SciPy, :func:`limit_blas_threads`)
``RETOUCH_NETWORK_INT8``        :attr:`network_int8`         ``auto`` (int8 first pass where the CPU
                                                             has VNNI; ``0`` = float32, ``1`` = int8)
``U2NET_HOME``                  :attr:`models_dir`           unset (the worker and the CLI pass
                                                             ``FOTOPRONTA_U2NET_HOME``; else the
                                                             repository's ``.data/models``)
=============================== ============================ =====================================

The process's memory policy lives here too: the full-resolution pixel budget (:data:`FULL_RES_BUDGET`),
the periodic heap trim (:func:`release_free_heap`) and glibc's allocator settings (:func:`tune_malloc`).
The measurements behind the defaults are documented where each knob is used: :data:`FULL_RES_BUDGET`,
:func:`release_free_heap` and :data:`retouch.segment.NETWORK_SLOTS`.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = [
    "FULL_RES_BUDGET",
    "HEAP_TRIM_EVERY",
    "RUNTIME",
    "PixelBudget",
    "RetouchRuntime",
    "fix_malloc_thresholds",
    "glibc_function",
    "int8_setting",
    "limit_blas_threads",
    "limit_malloc_arenas",
    "release_free_heap",
    "tune_malloc",
]


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    """``int(env[name])`` clamped to at least 1, or ``default`` when unset or empty."""
    value = env.get(name)
    return max(1, int(value)) if value else default


def int8_setting(value: str | None) -> str:
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
            (:class:`PixelBudget`); ``RETOUCH_FULL_RES_BUDGET_MP`` × 1 000 000.
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
        blas_threads: threads of the BLAS / LAPACK libraries numpy and SciPy load (:func:`limit_blas_threads`).
        models_dir: the segmentation models' directory from ``U2NET_HOME`` (rembg's own variable), or
            ``None`` (:class:`retouch.models.NetworkConfig` then uses the one it is given, else the
            repository's ``.data/models``).
    """

    full_res_budget_px: int = 16_000_000
    heap_trim_every: int = 8
    network_slots: int = 1
    ort_threads: int = 1
    malloc_arenas: int = 2
    network_int8: str = "auto"
    malloc_mmap_mb: int = 32
    malloc_trim_mb: int = 1024
    models_dir: str | None = None
    blas_threads: int = 1

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
            network_int8=int8_setting(env.get("RETOUCH_NETWORK_INT8")),
            malloc_mmap_mb=max(0, int(env.get("RETOUCH_MALLOC_MMAP_MB") or "32")),
            malloc_trim_mb=max(0, int(env.get("RETOUCH_MALLOC_TRIM_MB") or "1024")),
            models_dir=env.get("U2NET_HOME") or None,
            blas_threads=_positive_int(env, "RETOUCH_BLAS_THREADS", 1),
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
    arenas and RSS creeps even with :func:`release_free_heap`: ``fotopronta retouch`` on
    the 450 photos of ``bench-load``'s mix (seed 13) peaked at 684 MB in its first 20 s and 856 MB in its
    last; with 2 arenas (``MALLOC_ARENA_MAX=2``) 660 and 689 MB, peak 739 MB, and the same CPU time per
    photo on ``bench/pipeline/speed.py``'s photos (0.531 s with either setting, 212 photos, 2 at a time). The
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
    and zeroed again for every array: on ``bench/pipeline/speed.py``'s 53 photos (two at a time, one process) 530,000
    minor page faults and 1.1-1.4 s of system time per pass. With the mmap threshold at 32 MB (glibc's own
    ceiling; a 12 MP photo's 48 MB float planes are still mapped and unmapped on their own) and the trim
    threshold at 1 GB, the freed buffers are reused: 290,000 faults, 0.6-0.8 s, the pass 2-4 % shorter
    (``make bench-memory``). The heap is still returned to the OS every :data:`HEAP_TRIM_EVERY`
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


def limit_blas_threads(threads: int) -> int:
    """Cap the threads of every BLAS / LAPACK library loaded in this process (numpy's and SciPy's
    OpenBLAS) at ``threads``, with ``threadpoolctl``; returns how many libraries were capped.

    The pipeline's linear algebra is small (least squares of a hole's backdrop surface, a speck's
    inpainting system, 3 x 3 eigenproblems), and the work runs one photo per thread already
    (:attr:`RetouchRuntime.network_slots`). With OpenBLAS's default of one thread per core its workers
    wake for those small calls and then spin waiting for the next one, on the core the other photo needs:
    over the 53 photos of ``make bench-speed``, one photo at a time, the process's CPU time went from
    ~304 to ~281 ms per photo with 1 thread, with the same JPEG, WebP and matte bytes (the exact
    speed-ups record, third round). Call it after numpy and SciPy are imported (a library loaded later
    keeps its own default; importing :mod:`retouch.pipeline` loads both).
    """
    from threadpoolctl import threadpool_info, threadpool_limits

    threadpool_limits(limits=threads, user_api="blas")
    return sum(1 for lib in threadpool_info() if lib["user_api"] == "blas")


RUNTIME = RetouchRuntime.from_env()
"""This process's knobs, read once at import."""


class PixelBudget:
    """Limits how many full-resolution pixels are being processed at once in this process.

    The full-resolution steps (matte upsampling, edge tightening, framing, decontamination, shadow,
    blend, encoding) hold ~17 bytes per input pixel at their peak in numpy arrays (~210 MB for a 12 MP
    photo, measured with ``tracemalloc``) plus Pillow's buffers (4 bytes per pixel per image), so two
    phone-size photos at once would take the process past 1 GB. A photo
    waits here until its pixels fit in the budget; one larger than the whole budget runs alone. The
    low-resolution steps (decode aside: the network, the matte refinement) never wait, so the network
    of one photo still overlaps the full-resolution steps of another.
    """

    def __init__(self, capacity_pixels: int) -> None:
        self.capacity = max(1, capacity_pixels)
        self._in_use = 0
        self._cond = threading.Condition()

    @contextmanager
    def hold(self, pixels: int) -> Iterator[None]:
        """Block until ``pixels`` fit (or nothing else is held), hold them for the ``with`` block."""
        need = min(max(1, pixels), self.capacity)
        with self._cond:
            self._cond.wait_for(lambda: self._in_use + need <= self.capacity)
            self._in_use += need
        try:
            yield
        finally:
            with self._cond:
                self._in_use -= need
                self._cond.notify_all()


#: Full-resolution pixels in flight per process (``RETOUCH_FULL_RES_BUDGET_MP``, default 16 MP: two
#: photos of up to 8 MP, or one 12 MP photo beside small ones; read by :class:`RetouchRuntime`).
FULL_RES_BUDGET = PixelBudget(RUNTIME.full_res_budget_px)


#: glibc's ``int malloc_trim(size_t pad)``, or ``None`` off glibc (musl, macOS).
_MALLOC_TRIM = glibc_function("malloc_trim", [ctypes.c_size_t], ctypes.c_int)

#: Every how many photos (per process) :func:`release_free_heap` trims the heap
#: (``RETOUCH_HEAP_TRIM_EVERY``; 0 = never). See
#: :func:`release_free_heap` for the measurements.
HEAP_TRIM_EVERY = RUNTIME.heap_trim_every


class _PhotoCounter:
    """Photos finished since the last heap trim (thread-safe)."""

    def __init__(self) -> None:
        self.count = 0
        self.lock = threading.Lock()


_SINCE_TRIM = _PhotoCounter()


def release_free_heap(*, force: bool = False) -> bool:
    """Every :data:`HEAP_TRIM_EVERY` photos, return the freed heap pages to the OS (glibc ``malloc_trim(0)``).

    A photo allocates and frees hundreds of MB of numpy and Pillow buffers from two or more threads;
    glibc keeps freed pages in its per-thread arenas, so a long-running worker's RSS creeps up as the
    arenas fragment. Measured with two photos at a time over 636-1060 shared photos:
    without trimming the per-pass peak RSS rose from ~748 to ~773 MB and the RSS between photos from
    659 to ~680 MB; trimming after every photo kept them at ~695 MB and ~540 MB but cost 3% of
    throughput at the shared photos' size and 11% on 12 MP photos (the ~300 MB of pages are faulted in
    again for the next photo). Trimming every 8th photo keeps the per-pass peak flat at 712-739 MB over
    636 photos for ~2% of throughput on 12 MP photos.

    Args:
        force: trim now, whatever the count.

    Returns:
        whether the heap was trimmed (never off glibc). Safe to call from any thread (glibc locks each
        arena it trims).
    """
    if _MALLOC_TRIM is None or (HEAP_TRIM_EVERY == 0 and not force):
        return False
    with _SINCE_TRIM.lock:
        _SINCE_TRIM.count += 1
        if not force and _SINCE_TRIM.count < HEAP_TRIM_EVERY:
            return False
        _SINCE_TRIM.count = 0
    _MALLOC_TRIM(0)
    return True
