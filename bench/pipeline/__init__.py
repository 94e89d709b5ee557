"""Benchmarks of the cutout pipeline alone, against plain rembg on the same photos in the same run:
``python -m bench.pipeline.quality`` (matte quality on held-out data), ``bench.pipeline.speed``
(photos per second) and ``bench.pipeline.memory`` (RSS over hundreds of photos)."""
