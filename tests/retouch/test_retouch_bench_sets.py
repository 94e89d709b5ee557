"""The extra validation folder of ``bench/quality.py --gt-dir`` and the Carvana view draw that fills it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from PIL import Image


def test_carvana_views_draw_two_views_of_every_car_left_in_and_none_of_the_excluded() -> None:
    from bench.carvana_views import VIEWS_PER_CAR, select_views

    paths = [f"data/train_images/{car}_{v:02d}.jpg" for car in ("aaa", "bbb", "ccc") for v in range(1, 17)]
    paths += ["data1k/train_images/aaa_01.jpg"]  # the same photo in a second folder counts once
    chosen = select_views(paths, excluded_cars={"bbb"})
    cars = [Path(p).stem.split("_")[0] for p in chosen]
    assert sorted(set(cars)) == ["aaa", "ccc"]
    assert all(cars.count(c) == VIEWS_PER_CAR for c in set(cars))
    assert len({Path(p).stem for p in chosen}) == len(chosen)
    assert chosen == select_views(list(reversed(paths)), excluded_cars={"bbb"})  # seeded, order-free


def test_quality_folder_set_pairs_photos_with_their_masks_and_skips_the_rest(tmp_path: Path) -> None:
    from bench.quality import _inputs

    (tmp_path / "images").mkdir()
    (tmp_path / "masks").mkdir()
    rgb = np.full((8, 12, 3), 200, np.uint8)
    Image.fromarray(rgb).save(tmp_path / "images" / "car_01.jpg")
    Image.fromarray(rgb).save(tmp_path / "images" / "no-mask.jpg")
    mask = np.zeros((8, 12), np.uint8)
    mask[2:6, 3:9] = 255
    Image.fromarray(mask).save(tmp_path / "masks" / "car_01.png")

    items = list(_inputs("folder", 0, None, None, tmp_path))
    assert [name for name, _ in items] == ["car_01"]
    data, gt = items[0][1]()
    assert data == (tmp_path / "images" / "car_01.jpg").read_bytes()
    assert np.array_equal(gt, mask)
