"""The review misses research tool (``bench/tuning/unflagged_failures.py``): a photo's kinds are the ones the
generators drew, the table counts failures, misses and good results per kind, and a miss's overlay darkens only what
the matte leaves out."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from bench._common import GT
from bench.tuning import unflagged_failures as uf

needs_photos = pytest.mark.skipif(not (GT / "images").is_dir(), reason="foto condivise assenti")


@needs_photos
@pytest.mark.parametrize(("stem", "seed", "index"), [("banana2", 64, 7), ("cf89c3220bc4_11", 75, 9)])
def test_the_kinds_are_the_ones_the_generator_drew(stem: str, seed: int, index: int):
    from validation_sets.see_through import make_see_through

    drawn = make_see_through(stem, seed, index).name  # o{seed}-{index}-{opening}-{backdrop}-{stem}
    k = uf.kinds_of(f"o{seed}-{index:02d}-{stem}", control=False)
    assert drawn == f"o{seed}-{index:02d}-{k.opening}-{k.backdrop}-{stem}"
    assert k.group == "see-through"


def test_composites_and_real_photos_take_their_kind_from_the_name():
    assert uf.kinds_of("c1-01-busy-c502287be9f6_11", control=False) == uf.Kinds("composites", "-", "busy")
    assert uf.kinds_of("cf5add31c130_03", control=False) == uf.Kinds("gt", "-", "real")
    assert uf.kinds_of("cf5add31c130_09", control=True).group == "cars"


def test_the_table_counts_misses_and_good_results_per_kind():
    busy = uf.Kinds("composites", "-", "busy")
    studio = uf.Kinds("composites", "-", "studio")
    rows = [
        ({"iou": 0.5}, busy, False),  # a miss
        ({"iou": 0.6}, busy, True),  # a failure flagged
        ({"iou": 0.97}, busy, True),  # a good result flagged
        ({"iou": 0.9}, studio, True),  # between the bands: counted as a photo only
    ]
    t = uf.tally(rows)
    assert dict(t[("composites", "*", "busy")]) == {
        "photos": 3,
        "failures": 2,
        "unflagged": 1,
        "good": 1,
        "good flagged": 1,
    }
    assert t[("composites", "-", "*")]["photos"] == 4
    assert t[("composites", "*", "studio")]["failures"] == 0


def test_the_overlay_darkens_only_what_the_matte_leaves_out():
    small = np.full((4, 6, 3), 200, np.uint8)
    alpha = np.zeros((4, 6), np.float32)
    alpha[:, :3] = 1.0
    out = uf.overlay(small, alpha)
    assert out.shape == (4, 12, 3)
    assert (out[:, :6] == 200).all()  # the image as it is
    assert (out[:, 6:9] == 200).all() and (out[:, 9:] == 50).all()


def test_a_recording_is_read_and_its_misses_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    rows = [
        {"name": "c1-01-busy-c502287be9f6_11", "iou": 0.7, "iou_rembg": 0.7, "confidence": 0.9,
         "needs_review": False, "signals": {}},
        {"name": "c1-02-studio-doll", "iou": 0.99, "iou_rembg": 0.98, "confidence": 0.95,
         "needs_review": False, "signals": {}},
    ]  # fmt: skip
    (tmp_path / "r.json").write_text(json.dumps(rows))
    npz = tmp_path / "npz"
    npz.mkdir()
    for i in range(2):
        np.savez_compressed(
            npz / f"{i:04d}.npz", small=np.zeros((8, 8, 3), np.uint8), alpha=np.zeros((8, 8), np.uint8)
        )
    assert uf.main([f"{tmp_path / 'r.json'}:{npz}", "--overlays", str(tmp_path / "ov")]) == 0
    out = capsys.readouterr().out
    assert "0 of 1 failures flagged, 0 of 1 good results flagged" in out
    assert "c1-01-busy-c502287be9f6_11" in out and "c1-02-studio-doll" not in out
    assert [p.name for p in (tmp_path / "ov").iterdir()] == ["c1-01-busy-c502287be9f6_11.png"]
