"""The seeded validation sets that benchmarks and tests measure the cutout on.

- :mod:`validation_sets.photos`: where the shared real photos are (``../shared/photos``, or
  ``FOTOPRONTA_PHOTOS``), their hand-made masks, and a folder of photos paired with its masks;
- :mod:`validation_sets.composites`: the GT photos' tuning and held-out folds and the seeded composites
  (a GT product on a new background);
- :mod:`validation_sets.see_through`: seeded products with an opening the background shows through;
- :mod:`validation_sets.carvana_views`: real studio car photos, never tuned on, extracted from a public
  repository (``python -m validation_sets.carvana_views GIT_DIR``).

The metrics measured on them (IoU, boundary F, halo …) are :mod:`retouch.metrics`, which the shipped
pipeline also uses. Nothing here is shipped in the image; the photos are read at run time and never
copied into the repository.
"""
