"""The command-line helper (``fotopronta retouch IN... -o OUT``)."""

from __future__ import annotations

import argparse

import numpy as np
from PIL import Image
from retouch_helpers import needs_model
from retouch_images import product_photo

from retouch.cli import add_arguments, run


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_arguments(parser)
    return parser.parse_args(argv)


def test_arguments():
    args = _parse(
        [
            "a.jpg",
            "b.png",
            "-o",
            "out",
            "--preset",
            "amazon",
            "--matte",
            "--cutout",
            "--no-shadow",
            "--background",
            "minimal_studio",
            "--model",
            "u2netp",
        ]
    )
    assert [str(p) for p in args.inputs] == ["a.jpg", "b.png"]
    assert args.preset == "amazon" and args.matte and args.cutout and args.shadow is False
    assert args.background == "minimal_studio" and args.model == "u2netp"
    assert _parse(["x.jpg", "-o", "o"]).shadow is True
    assert _parse(["x.jpg", "-o", "o", "--report", "r.json"]).report.name == "r.json"


@needs_model
def test_run_writes_outputs_and_survives_a_bad_file(tmp_path, capsys):
    data, _ = product_photo(320, 240)
    good = tmp_path / "borsa.jpg"
    good.write_bytes(data)
    bad = tmp_path / "rotto.jpg"
    bad.write_bytes(b"\xff\xd8\xff garbage")
    missing = tmp_path / "manca.jpg"
    out = tmp_path / "out"
    code = run(_parse([str(bad), str(good), str(missing), "-o", str(out), "--matte", "--cutout"]))
    printed = capsys.readouterr().out.splitlines()
    assert code != 0
    assert len(printed) == 3
    assert "Impossibile leggere l'immagine" in printed[0]
    assert printed[1].startswith("OK")
    for name in ("borsa.jpg", "borsa.webp", "borsa.matte.png", "borsa.cutout.png"):
        assert (out / name).is_file(), name
    matte = Image.open(out / "borsa.matte.png")
    assert matte.mode == "L" and matte.size == (320, 240)
    assert np.asarray(matte)[120, 160] == 255
    assert Image.open(out / "borsa.cutout.png").mode == "RGBA"
    assert not (out / "rotto.jpg").exists()


@needs_model
def test_report_lists_outputs_and_confidence_for_every_input(tmp_path, capsys):
    import json

    data, _ = product_photo(320, 240)
    names = []
    for name in ("uno", "due"):
        (tmp_path / f"{name}.jpg").write_bytes(data)
        names.append(str(tmp_path / f"{name}.jpg"))
    bad = tmp_path / "rotto.jpg"
    bad.write_bytes(b"\xff\xd8\xff garbage")
    out, report = tmp_path / "out", tmp_path / "rapporto.json"
    code = run(_parse([*names, str(bad), "-o", str(out), "--matte", "--report", str(report)]))
    assert code == 1  # the broken file
    entries = json.loads(report.read_text(encoding="utf-8"))
    assert [e["input"] for e in entries] == [*names, str(bad)]
    for e in entries[:2]:
        assert e["ok"] is True and e["error"] is None
        stem = e["input"].rsplit("/", 1)[-1][:-4]
        assert e["outputs"] == [f"{stem}.jpg", f"{stem}.webp", f"{stem}.matte.png"]
        assert all((out / f).is_file() for f in e["outputs"])
        details = e["processing_details"]
        assert 0.0 <= details["confidence"] <= 1.0 and isinstance(details["needs_review"], bool)
    assert entries[2]["ok"] is False and entries[2]["processing_details"] is None and entries[2]["error"]
    assert "confidence" in capsys.readouterr().out


@needs_model
def test_run_says_which_network_path_it_runs(tmp_path, capsys):
    """The path is printed on stderr: fp32 when asked, and fp32 from a model folder without the int8 copy
    (as with rembg's ``U2NET_HOME`` set to such a folder), whatever the CPU."""
    import shutil

    from retouch.models import model_file

    data, _ = product_photo(160, 120)
    src = tmp_path / "borsa.jpg"
    src.write_bytes(data)
    assert run(_parse([str(src), "-o", str(tmp_path / "a"), "--network-int8", "0"])) == 0
    assert "rete: fp32 (RETOUCH_NETWORK_INT8=0" in capsys.readouterr().err
    only_fp32 = tmp_path / "models"
    only_fp32.mkdir()
    shutil.copy(model_file("u2netp"), only_fp32 / "u2netp.onnx")
    argv = [str(src), "-o", str(tmp_path / "b"), "--models-dir", str(only_fp32), "--network-int8", "auto"]
    assert run(_parse(argv)) == 0
    err = capsys.readouterr().err
    assert "rete: fp32 (auto:" in err and "u2netp-int8-256.onnx assente" in err
    code = run(
        _parse([str(src), "-o", str(tmp_path / "c"), "--models-dir", str(only_fp32), "--network-int8", "1"])
    )
    assert code == 2 and "Modello non disponibile" in capsys.readouterr().err
