"""The retouch pipeline's runtime knobs, read once from the environment (issue 14 item 6).

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
=============================== ============================ =====================================

The measurements behind the defaults are documented where each knob is used:
:data:`retouch.pipeline.FULL_RES_BUDGET`, :func:`retouch.pipeline.release_free_heap` and
:data:`retouch.segment.NETWORK_SLOTS`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["RUNTIME", "RetouchRuntime"]


def _positive_int(env: Mapping[str, str], name: str, default: int) -> int:
    """``int(env[name])`` clamped to at least 1, or ``default`` when unset or empty."""
    value = env.get(name)
    return max(1, int(value)) if value else default


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
    """

    full_res_budget_px: int = 16_000_000
    heap_trim_every: int = 8
    network_slots: int = 1
    ort_threads: int = 1

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
        )


RUNTIME = RetouchRuntime.from_env()
"""This process's knobs, read once at import."""
