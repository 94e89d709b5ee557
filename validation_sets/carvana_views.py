"""A folder of real studio car photos with hand-made masks that no parameter was chosen on.

The shared GT photos hold 16 Carvana listing photos (8 cars, views 03 and 11), split between the tuning
and the held-out fold (``validation_sets/composites.gt_folds``). Their source, the public repository
``koos-burgoyne/uNet`` (commit :data:`COMMIT`, Kaggle "Carvana Image Masking Challenge" 2017 data, see
``../shared/photos/sources/carvana.SOURCES.md`` for the terms), holds 1,208 photos of 76 cars, 16 views
each (1918 x 1280 JPEG, binary GIF masks). This script takes :data:`VIEWS_PER_CAR` views, drawn with
:data:`SELECTION_SEED`, of every car that is *not* among the shared photos (neither fold), writes them as
``OUT/images/NAME.jpg`` (the bytes as published) and ``OUT/masks/NAME.png`` (255 = car), and
``python -m bench.pipeline.quality --gt-dir OUT`` measures them beside plain rembg. Nothing here is committed or
shipped: the photos stay in the output folder (``.data/`` is git-ignored).

With ``--tuning`` it writes instead the *tuning* car views (:func:`tuning_views`): every other view of the
cars of the GT tuning fold, for tuning scripts (``bench/pipeline/quality.py --gt-dir``); it shares no car with the
default folder and no photo with either fold.

Usage: ``python -m validation_sets.carvana_views GIT_DIR [--tuning] [--out DIR]`` (default ``DIR``: ``.data/carvana-views``,
with ``--tuning`` ``.data/carvana-tune``), ``GIT_DIR`` being a clone of ``https://github.com/koos-burgoyne/uNet``
(a bare one is fine) that contains :data:`COMMIT`.
"""

from __future__ import annotations

import argparse
import io
import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
from PIL import Image

from .photos import GT, PHOTOS, REPO, list_images

#: The commit of ``koos-burgoyne/uNet`` that the shared Carvana photos were taken from.
COMMIT = "0758fc5b79cecf4fd2717dd5e1eac54bbba413a1"
#: Folders of that commit holding photos (``*_images``) beside their masks (``*_masks``, ``NAME_mask.gif``).
IMAGE_DIRS = ("data/train_images", "data/val_images", "data1k/train_images", "data1k/val_images")
VIEWS_PER_CAR = 2
#: Seed of the view draw (``random.Random``); unrelated to the composites' seeds.
SELECTION_SEED = 15


def _git(git_dir: Path, *args: str) -> bytes:
    """stdout of ``git -C git_dir args``. Raises ``subprocess.CalledProcessError`` on failure."""
    return subprocess.run(["git", "-C", str(git_dir), *args], capture_output=True, check=True).stdout


def _by_name(paths: list[str]) -> dict[str, str]:
    """Photo name (``CAR_VIEW``) -> its repository path; the first path in sorted order wins when a photo
    appears in more than one folder."""
    by_name: dict[str, str] = {}
    for path in sorted(paths):
        by_name.setdefault(Path(path).stem, path)
    return by_name


def select_views(paths: list[str], excluded_cars: set[str]) -> list[str]:
    """The photo paths to extract: :data:`VIEWS_PER_CAR` per car, drawn with :data:`SELECTION_SEED`.

    Args:
        paths: repository paths of ``*.jpg`` photos named ``CAR_VIEW.jpg``.
        excluded_cars: car ids to leave out (those among the shared photos).

    Returns:
        repository paths, sorted by car then as drawn (the first path of a name wins when a photo
        appears in more than one folder).
    """
    by_name = _by_name(paths)
    cars: dict[str, list[str]] = defaultdict(list)
    for name in sorted(by_name):
        car = name.split("_")[0]
        if car not in excluded_cars:
            cars[car].append(name)
    rng = random.Random(SELECTION_SEED)
    chosen: list[str] = []
    for car in sorted(cars):
        chosen += [by_name[n] for n in rng.sample(cars[car], min(VIEWS_PER_CAR, len(cars[car])))]
    return chosen


def tuning_views(paths: list[str], tuning_cars: set[str], shared_names: set[str]) -> list[str]:
    """Every view of the cars in ``tuning_cars`` except the photos in ``shared_names`` (already in a fold).

    Args:
        paths: repository paths of ``*.jpg`` photos named ``CAR_VIEW.jpg``.
        tuning_cars: car ids of the GT tuning fold.
        shared_names: photo names (``CAR_VIEW``) among the shared GT photos.

    Returns:
        sorted repository paths, one per name (the first path of a name wins).
    """
    by_name = _by_name(paths)
    return [by_name[n] for n in sorted(by_name) if n.split("_")[0] in tuning_cars and n not in shared_names]


def shared_cars() -> set[str]:
    """Car ids of the Carvana photos among the shared GT photos (both folds)."""
    return {p.stem.split("_")[0] for p in list_images(GT / "images") if "_" in p.stem}


def main(argv: list[str] | None = None) -> int:
    """Extract the views; returns 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("git_dir", type=Path, help="a clone of koos-burgoyne/uNet containing COMMIT")
    parser.add_argument("--tuning", action="store_true", help="the tuning fold's cars' other views instead")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    if args.out is None:
        args.out = REPO / ".data" / ("carvana-tune" if args.tuning else "carvana-views")
    if not (GT / "images").is_dir():
        parser.error(f"shared photos absent ({PHOTOS}): the cars to leave out are unknown")
    try:
        listing = _git(args.git_dir, "ls-tree", "-r", "--name-only", COMMIT, *IMAGE_DIRS).decode().split()
    except (subprocess.CalledProcessError, FileNotFoundError) as exc:
        parser.error(f"{args.git_dir}: not a clone of koos-burgoyne/uNet containing {COMMIT} ({exc})")
    photos = [p for p in listing if p.endswith(".jpg")]
    excluded = shared_cars()
    if args.tuning:
        from .composites import gt_folds

        tuning_cars = {n.split("_")[0] for n in gt_folds()["tune"] if "_" in n}
        shared_names = {p.stem for p in list_images(GT / "images")}
        chosen = tuning_views(photos, tuning_cars, shared_names)
    else:
        chosen = select_views(photos, excluded)
    (args.out / "images").mkdir(parents=True, exist_ok=True)
    (args.out / "masks").mkdir(parents=True, exist_ok=True)
    for path in chosen:
        name = Path(path).stem
        mask_path = path.replace("_images/", "_masks/").removesuffix(".jpg") + "_mask.gif"
        photo = _git(args.git_dir, "show", f"{COMMIT}:{path}")
        mask = Image.open(io.BytesIO(_git(args.git_dir, "show", f"{COMMIT}:{mask_path}"))).convert("L")
        if Image.open(io.BytesIO(photo)).size != mask.size:
            print(f"{name}: mask size differs, skipped", file=sys.stderr)
            continue
        (args.out / "images" / f"{name}.jpg").write_bytes(photo)
        Image.fromarray(((np.asarray(mask) >= 128) * 255).astype(np.uint8)).save(
            args.out / "masks" / f"{name}.png"
        )
    cars = len({Path(p).stem.split("_")[0] for p in chosen})
    if args.tuning:
        print(
            f"{len(chosen)} views of the {cars} cars of the GT tuning fold (their shared views left out) -> {args.out}"
        )
    else:
        print(
            f"{len(chosen)} views of {cars} cars (left out: {len(excluded)} cars of the shared photos) -> {args.out}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
