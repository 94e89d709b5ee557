"""Benchmarks: what each one answers, its command and its last figure are in ``bench/README.md``.

- :mod:`bench.pipeline`: the cutout pipeline alone (quality, speed, memory);
- :mod:`bench.system`: the whole system on a stack of its own (load, faults, reads, costs);
- :mod:`bench.tuning`: tools that choose a shipped parameter, on tuning data only.

The validation sets they measure on are :mod:`validation_sets`.
"""
