"""Benchmarks of the image pipeline (``python -m bench.quality``, ``python -m bench.speed``)."""
