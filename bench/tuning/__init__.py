"""Tuning tools: scripts that choose a parameter the pipeline ships (pick signals, guard thresholds,
int8 calibration), run on tuning data only (the tuning fold and tuning seeds of :mod:`validation_sets`),
never on the held-out data the benchmarks report. The decisions they led to are recorded in
``docs/decisions/``."""
