"""The validation sets (``validation_sets/``): the Carvana view draw, a folder of photos with masks (what
``bench/pipeline/quality.py --gt-dir`` measures), the see-through products."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image


def test_carvana_views_draw_two_views_of_every_car_left_in_and_none_of_the_excluded() -> None:
    from validation_sets.carvana_views import VIEWS_PER_CAR, select_views

    paths = [f"data/train_images/{car}_{v:02d}.jpg" for car in ("aaa", "bbb", "ccc") for v in range(1, 17)]
    paths += ["data1k/train_images/aaa_01.jpg"]  # the same photo in a second folder counts once
    chosen = select_views(paths, excluded_cars={"bbb"})
    cars = [Path(p).stem.split("_")[0] for p in chosen]
    assert sorted(set(cars)) == ["aaa", "ccc"]
    assert all(cars.count(c) == VIEWS_PER_CAR for c in set(cars))
    assert len({Path(p).stem for p in chosen}) == len(chosen)
    assert chosen == select_views(list(reversed(paths)), excluded_cars={"bbb"})  # seeded, order-free


def test_folder_set_pairs_photos_with_their_masks_and_skips_the_rest(tmp_path: Path) -> None:
    from validation_sets.photos import folder_items

    (tmp_path / "images").mkdir()
    (tmp_path / "masks").mkdir()
    rgb = np.full((8, 12, 3), 200, np.uint8)
    Image.fromarray(rgb).save(tmp_path / "images" / "car_01.jpg")
    Image.fromarray(rgb).save(tmp_path / "images" / "no-mask.jpg")
    mask = np.zeros((8, 12), np.uint8)
    mask[2:6, 3:9] = 255
    Image.fromarray(mask).save(tmp_path / "masks" / "car_01.png")

    items = folder_items(tmp_path)
    assert [name for name, _ in items] == ["car_01"]
    data, gt, opening = items[0][1]()
    assert data == (tmp_path / "images" / "car_01.jpg").read_bytes()
    assert np.array_equal(gt, mask)
    assert opening is None


def test_see_through_sets_are_seeded_disjoint_and_their_openings_are_background() -> None:
    from retouch_helpers import GT_IMAGES

    if not GT_IMAGES.is_dir():
        pytest.skip("cartella foto condivisa assente")
    from validation_sets.composites import gt_folds
    from validation_sets.see_through import HOLDOUT_SEED, TUNE_SEED, make_see_through, see_through_set

    tune, hold = see_through_set("tune", 8), see_through_set("holdout", 8)
    folds = gt_folds()
    assert {s for s, _ in tune} <= set(folds["tune"]) and {s for s, _ in hold} <= set(folds["holdout"])
    assert TUNE_SEED != HOLDOUT_SEED
    kinds = set()
    for stem, i in tune[:4]:
        a, b = make_see_through(stem, TUNE_SEED, i), make_see_through(stem, TUNE_SEED, i)
        assert a.data == b.data and np.array_equal(a.gt, b.gt)  # deterministic
        assert a.opening.any() and not (a.gt[a.opening] == 255).any()  # the opening is background
        assert (a.gt == 255).any()
        kinds.add(a.name.split("-")[2])
    assert len(kinds) >= 3  # rings, frames, wheels, handles in turn


def test_carvana_tuning_views_are_the_tuning_cars_other_views_only() -> None:
    from validation_sets.carvana_views import tuning_views

    paths = [f"data/train_images/{car}_{v:02d}.jpg" for car in ("aaa", "bbb") for v in range(1, 5)]
    paths += ["data1k/train_images/aaa_02.jpg"]  # the same photo in a second folder counts once
    chosen = tuning_views(paths, tuning_cars={"aaa"}, shared_names={"aaa_03"})
    assert chosen == [
        "data/train_images/aaa_01.jpg",
        "data/train_images/aaa_02.jpg",
        "data/train_images/aaa_04.jpg",
    ]


def test_cross_recipe_photos_are_seeded_cut_from_real_masks_and_their_openings_are_background() -> None:
    from retouch_helpers import GT_IMAGES

    if not GT_IMAGES.is_dir():
        pytest.skip("cartella foto condivisa assente")
    from validation_sets.composites import gt_folds
    from validation_sets.cross_recipes import CUT_HOLDOUT_SEED, cross_set, make_cut_through, make_staged

    draws = cross_set("holdout", 2, CUT_HOLDOUT_SEED)
    assert {s for s, _ in draws} <= set(gt_folds()["holdout"])
    kinds = set()
    for stem, i in draws:
        a, b = make_cut_through(stem, CUT_HOLDOUT_SEED, i), make_cut_through(stem, CUT_HOLDOUT_SEED, i)
        assert a.data == b.data and np.array_equal(a.gt, b.gt)  # deterministic
        assert a.opening is not None and a.opening.any()
        assert not (a.gt[a.opening] == 255).any()  # what shows through is background
        product = a.gt == 255
        assert product.any()
        # every opening lies inside the product's outline: a band of product surrounds it
        filled = ndi_fill(product | a.opening | (a.gt == 128))
        assert filled[a.opening].all()
        kinds.add(a.name.split("-")[2])
        staged = make_staged(stem, CUT_HOLDOUT_SEED, i)
        assert staged.opening is None and (staged.gt == 255).any() and (staged.gt == 0).any()
    assert kinds == {"silhouette", "lattice"}


def ndi_fill(mask: np.ndarray) -> np.ndarray:
    from scipy import ndimage

    return np.asarray(ndimage.binary_fill_holes(mask))


def test_cross_recipes_share_no_drawing_code_with_the_tuned_on_generators() -> None:
    import ast

    import validation_sets.cross_recipes as cross

    tree = ast.parse(Path(cross.__file__).read_text(encoding="utf-8"))
    imported = {
        node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    # the fold split (gt_folds) is the only thing read from the composites module, and only inside cross_set
    top_level = {n.module for n in tree.body if isinstance(n, ast.ImportFrom)}
    assert "composites" not in top_level and "see_through" not in top_level
    assert imported <= {"__future__", "dataclasses", "PIL", "scipy", "photos", "composites"}
    source = Path(cross.__file__).read_text(encoding="utf-8")
    assert "from .composites import gt_folds\n" in source
    assert "from .see_through" not in source and "import see_through" not in source
