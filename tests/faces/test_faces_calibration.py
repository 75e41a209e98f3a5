"""Calibration round trips on synthetic photos with ground truth (synth.py): a d6 whose 6 is a
logo and Alkemy's white/yellow/red dice (seed 001), a Throwing Stones stone (seed 000, TS-D01),
offline from labels.csv through `dicetower calibrate`, and guided with a replay camera (keyboard
answers; the panel-guided calibration is in tests/calibration)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from dicetower.vision import synth
from dicetower.vision.calibrate import CalibrationError, calibrate, guided_calibration, parse_face, read_labels
from dicetower.vision.camera import ReplayCamera
from dicetower.vision.calibrate_cli import calibrate as calibrate_cmd
from dicetower.vision.faces import FaceClass, classify_crop, load_die_set


def write_labelled_photos(root: Path, dice: list[tuple[synth.DieSpec, list[int]]], photos: int,
                          seed: int) -> Path:
    """Render `photos` crops of every listed face of every die into root/images and write
    root/labels.csv in the shared-datasets form (empty box: one die per image). Returns the csv."""
    rng = np.random.default_rng(seed)
    (root / "images").mkdir(parents=True, exist_ok=True)
    rows = []
    for d, (spec, values) in enumerate(dice):
        for v in values:
            for k in range(photos):
                crop, truth = synth.render_crop(spec, v, rng, size=int(rng.integers(80, 121)))
                name = f"images/die{d}_face{v}_{k}.png"
                cv2.imwrite(str(root / name), crop)
                value = " ".join([str(truth["value"])] + truth["symbols"])
                rows.append([name, truth["die_type"], value, "", "", "", "", truth["face_colour"] or ""])
    path = root / "labels.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["image", "die_type", "value", "x", "y", "w", "h", "colour"])
        w.writerows(rows)
    return path


def _read_back(spec, values, die_set, seed, n=4):
    """Fraction of fresh renders (another seed) read right: value, symbols and face colour."""
    rng = np.random.default_rng(seed)
    right = total = 0
    unsure = 0
    for v in values:
        for _ in range(n):
            crop, truth = synth.render_crop(spec, v, rng, size=int(rng.integers(80, 121)))
            r = classify_crop(crop, die_set)
            total += 1
            unsure += r.unsure
            right += (r.die_type, r.value, r.symbols, r.face_colour) == (
                truth["die_type"], truth["value"], truth["symbols"], truth["face_colour"])
    return right / total, unsure / total


def test_logo_d6_from_four_labelled_photos_per_face_via_cli(tmp_path, user_data):
    spec = synth.alkemy_spec("yellow", logo_six=True)
    labels = write_labelled_photos(tmp_path / "photos", [(spec, [1, 2, 3, 4, 5, 6])], photos=4, seed=11)
    png = tmp_path / "cm.png"
    result = CliRunner().invoke(calibrate_cmd, ["--from-labels", str(labels), "--die-set", "logo_d6",
                                                "--confusion", str(png)])
    assert result.exit_code == 0, result.output
    assert "cross-validated accuracy" in result.output and "d6:6|axe@yellow" in result.output
    assert png.stat().st_size > 1000 and cv2.imread(str(png)) is not None
    ds = load_die_set("logo_d6")
    assert ds.path == user_data / "die_sets" / "logo_d6"
    assert {c.key for c in ds.classes} == {f"d6:{v}@yellow" for v in range(1, 6)} | {"d6:6|axe@yellow"}
    acc, _ = _read_back(spec, [1, 2, 3, 4, 5, 6], "logo_d6", seed=99)
    assert acc >= 0.5  # measured 0.62 on 24 fresh renders (0.42 with the polar templates): short of the goal


def test_alkemy_colours_are_told_apart(tmp_path):
    dice = [(synth.alkemy_spec(c), [1, 2, 3]) for c in ("white", "yellow", "red")]
    samples = read_labels(write_labelled_photos(tmp_path, dice, photos=3, seed=5), tmp_path)
    ds, report = calibrate(samples, "alkemy_test", out_dir=tmp_path / "set")
    assert report.confusion.sum() == len(samples) == 27
    assert report.accuracy >= 0.5  # cross-validated; measured 0.67 (chance 0.11)
    rng = np.random.default_rng(8)
    colours_right = 0
    for c in ("white", "yellow", "red"):
        for v in (1, 2, 3):
            crop, _ = synth.render_crop(synth.alkemy_spec(c), v, rng, 100)
            r = ds.classify(crop)
            colours_right += r.face_colour == c
    assert colours_right >= 8  # of 9; measured 9


def test_throwing_stones_stone_faces_symbols_and_colours(tmp_path):
    stone = synth.demo_stone()
    samples = read_labels(write_labelled_photos(tmp_path, [(stone, list(range(1, 7)))], photos=4, seed=21),
                          tmp_path)
    assert {s.face.face_colour for s in samples} == {"ruby", "gold", "silver", "rainbow"}
    ds, report = calibrate(samples, "stone_test", out_dir=tmp_path / "set")
    assert report.accuracy >= 0.75  # cross-validated; measured 0.92
    rng = np.random.default_rng(4)
    right = 0
    for face in range(1, 7):
        crop, truth = synth.render_crop(stone, face, rng, 100)
        r = ds.classify(crop)
        right += (r.value, r.symbols, r.face_colour) == (face, truth["symbols"], truth["face_colour"])
    assert right >= 5  # of 6; measured 6


def test_guided_calibration_with_a_replay_camera(tmp_path):
    rng = np.random.default_rng(3)
    spec = synth.alkemy_spec("red", logo_six=True)
    faces = [FaceClass("d6", v, (), "red") for v in range(1, 6)] + [FaceClass("d6", 6, ("axe",), "red")]
    files = []
    for f in faces:
        for k in range(2):
            frame, truth = synth.render_scene([(spec, f.value)], rng, size=(320, 240), die_px=(70, 90))
            path = tmp_path / f"frame_{f.value}_{k}.png"
            cv2.imwrite(str(path), frame)
            files.append(path)
    prompts, said = [], []
    ds, report = guided_calibration(ReplayCamera(files, loop=False), faces, "guided_test", shots_per_face=2,
                                    ask=prompts.append, say=said.append, out_dir=tmp_path / "set")
    assert len(prompts) == 12 and "showing 6|axe" in prompts[-1]
    assert said[0].startswith("[1/12]") and any(s.startswith("[12/12]") for s in said)
    assert (tmp_path / "set" / "set.json").is_file()
    assert json.loads((tmp_path / "set" / "set.json").read_text())["meta"]["calibrated_from"] == 12
    assert report.n == 12


def test_bad_labels_are_named(tmp_path):
    (tmp_path / "labels.csv").write_text("image,die_type,value,x,y,w,h,colour\nmissing.png,d6,3,,,,,\n")
    with pytest.raises(CalibrationError, match=r"labels.csv:2: cannot read image"):
        read_labels(tmp_path / "labels.csv", tmp_path)
    with pytest.raises(CalibrationError, match="empty value"):
        parse_face("d6", "", "", "row 3")
    assert parse_face("stone", "2 charisme plus plus", "Gold", "r") == FaceClass("stone", 2, ("charisme", "plus", "plus"), "gold")
    assert parse_face("d20", "17", "copper/steel swirl, white numerals", "r").face_colour is None


def test_one_photo_per_face_is_refused(tmp_path):
    labels = write_labelled_photos(tmp_path, [(synth.alkemy_spec("white"), [1, 2])], photos=1, seed=1)
    with pytest.raises(CalibrationError, match="fewer than 2 labelled photos"):
        calibrate(read_labels(labels, tmp_path), "x", out_dir=tmp_path / "set")


@pytest.mark.parametrize("answer", ["r", ""], ids=["retaken", "kept"])
def test_guided_calibration_names_a_die_set_showing_another_face(tmp_path, answer):
    """Guided calibration of a red Alkemy d6's 1, 2 and 3, two shots each; the first frame shot for
    the 2 shows a 3. The tower names what it reads ("the die reads 3 ..., not 2") and asks: "r" retakes
    the shot (the next frame, a 2), Enter learns the frame as a 2 all the same (the reader may be the
    one wrong). Before, the 3 was learned as a 2 with nothing said."""
    rng = np.random.default_rng(5)
    spec = synth.alkemy_spec("red")
    shown = [1, 1, 3, 2, 2, 3, 3] if answer == "r" else [1, 1, 3, 2, 3, 3]
    files = []
    for k, v in enumerate(shown):
        frame, _ = synth.render_scene([(spec, v)], rng, size=(320, 240), die_px=(70, 90))
        files.append(tmp_path / f"frame_{k}_{v}.png")
        cv2.imwrite(str(files[-1]), frame)
    faces = [FaceClass("d6", v, (), "red") for v in (1, 2, 3)]
    prompts, said = [], []

    def ask(prompt):
        prompts.append(prompt)
        return answer if prompt.startswith("the die reads") else ""

    ds, report = guided_calibration(ReplayCamera(files, loop=False), faces, "guided_misplaced", shots_per_face=2,
                                    ask=ask, say=said.append, out_dir=tmp_path / "set")
    warned = [p for p in prompts if p.startswith("the die reads")]
    assert len(warned) == 1 and warned[0].startswith(f"the die reads 3 in {files[2]}, not 2"), prompts
    learned = [s.rsplit(" from ", 1)[1] for s in said if s.startswith("[")]
    assert learned == [str(f) for f in files if answer == "" or f != files[2]]
    assert report.n == 6
