"""Benchmarks of the whole system, each on a stack of its own on free ports (:mod:`bench.system.stack`):
``python -m bench.system.load`` (a seller's day with readers), ``bench.system.faults`` (PostgreSQL,
Temporal and the retouch worker stopped under load), ``bench.system.reads`` (read throughput against a
running stack); :mod:`bench.system.costs` is the per-photo cost that ``load`` prints."""
