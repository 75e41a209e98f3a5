"""`dicetower calibrate --from-labels` then `dicetower read --die-set NAME --json`, as the project is
scored: tray photos with boxes in labels.csv (the form of ../shared/datasets), the set stored in the
user's data directory, the confusion matrix PNG written, fresh photos read back with the stored set;
and bad labels.csv rows named in the error."""

from __future__ import annotations

import csv
import json

import cv2
import numpy as np
import pytest
from click.testing import CliRunner

from dicetower.vision import synth
from dicetower.vision.calibrate import (CalibrationError, LabelledCrop, calibrate, learnable_colours, parse_face,
                                        read_labels)
from dicetower.vision.calibrate_cli import calibrate as calibrate_cmd
from dicetower.vision.faces import forget_die_set, load_die_set

HEADER = ["image", "die_type", "value", "x", "y", "w", "h", "colour"]


def _scenes(root, spec, values, photos, rng):
    """Tray photos of two dice each, written as PNG; labels.csv rows with their boxes."""
    rows = []
    faces = [v for v in values for _ in range(photos)]
    rng.shuffle(faces)
    for i in range(0, len(faces), 2):
        frame, truths = synth.render_scene([(spec, v) for v in faces[i:i + 2]], rng, size=(400, 300), die_px=(90, 110))
        name = f"tray_{i // 2:02d}.png"
        cv2.imwrite(str(root / name), frame)
        for t in truths:
            rows.append([name, t["die_type"], " ".join([str(t["value"])] + t["symbols"]), *t["box"],
                         t["face_colour"] or ""])
    return rows


def test_calibrate_from_labels_then_read_with_the_stored_set(tmp_path, user_data, read_back):
    spec = synth.alkemy_spec("white", logo_six=True)
    rng = np.random.default_rng(17)
    photos = tmp_path / "photos"
    photos.mkdir()
    with (photos / "labels.csv").open("w", newline="") as f:
        csv.writer(f).writerows([HEADER] + _scenes(photos, spec, [1, 2, 3, 4, 5, 6], 4, rng))
    result = CliRunner().invoke(calibrate_cmd, ["--from-labels", str(photos / "labels.csv"), "--images-root",
                                                str(photos), "--die-set", "logo_white"])
    assert result.exit_code == 0, result.output
    assert "cross-validated accuracy" in result.output and "a reading is sure when" in result.output
    stored = user_data / "die_sets" / "logo_white"
    png = cv2.imread(str(stored / "confusion.png"))
    assert png is not None and png.shape[0] > 100
    meta = json.loads((stored / "set.json").read_text())
    assert meta["model"] == "fewshot" and 0.5 <= meta["meta"]["threshold"] <= 1.0
    forget_die_set("logo_white")
    assert {c.key for c in load_die_set("logo_white").classes} == {f"d6:{v}@white" for v in range(1, 6)} | {"d6:6|axe@white"}
    # fresh photos (another seed), read by `dicetower read --die-set`
    right, sure_wrong, lines = read_back(spec, "logo_white", [6, 2, 5, 3, 1, 4, 6, 2], 99)
    assert right >= 6, lines  # of 8
    assert sure_wrong == 0, lines


@pytest.mark.parametrize("row, message", [
    (["a.png", "d6", "3", "5", "5", "", "", ""], r"labels.csv:2: give all of x,y,w,h or none"),
    (["a.png", "d6", "3", "50", "50", "100", "100", ""], r"labels.csv:2: box 50,50,100,100 is not inside the 64x64"),
    (["a.png", "d6", "3", "5", "5", "4", "6", ""], r"labels.csv:2: box 5,5,4,6 is under 8 px across and no die"),
    (["a.png", "", "3", "", "", "", "", ""], r"labels.csv:2: empty die_type"),
    (["a.png", "d6", "", "", "", "", "", ""], r"labels.csv:2: empty value"),
    (["a.png", "d6", "3 4", "", "", "", "", ""], r"labels.csv:2: value '3 4' holds several numbers"),
    (["a.png", "d6", "3", "x", "1", "2", "3", ""], r"labels.csv:2: box .* is not a number"),
])
def test_bad_rows_name_the_row(tmp_path, row, message):
    cv2.imwrite(str(tmp_path / "a.png"), np.full((64, 64, 3), 128, np.uint8))
    with (tmp_path / "labels.csv").open("w", newline="") as f:
        csv.writer(f).writerows([HEADER, row])
    with pytest.raises(CalibrationError, match=message):
        read_labels(tmp_path / "labels.csv", tmp_path)
    result = CliRunner().invoke(calibrate_cmd, ["--from-labels", str(tmp_path / "labels.csv"), "--die-set", "bad"])
    assert result.exit_code != 0 and "labels.csv:2" in result.output and "Traceback" not in result.output


def test_a_spreadsheets_labels_csv_is_read_as_written(tmp_path):
    # a byte-order mark, header names in other case and with blanks, no colour column, columns in another order,
    # "3.0" for 3 and "D6" for d6, as spreadsheets save them
    rng = np.random.default_rng(4)
    frame, truths = synth.render_scene([(synth.alkemy_spec("white"), 3)], rng, size=(400, 300), die_px=(90, 110))
    cv2.imwrite(str(tmp_path / "tray.png"), frame)
    x, y, w, h = truths[0]["box"]
    (tmp_path / "labels.csv").write_text(f"\ufeff Image ,Value,Die_Type,X,Y,W,H\r\ntray.png,3.0,D6,{x},{y},{w},{h}\r\n",
                                         encoding="utf-8")
    crops = read_labels(tmp_path / "labels.csv", tmp_path)
    assert [(c.face.die_type, c.face.value, c.face.symbols, c.face.face_colour) for c in crops] == [("d6", 3, (), None)]
    assert crops[0].crop.shape[0] >= h - 2


def test_a_box_run_past_the_border_is_its_part_inside(tmp_path):
    # a die at the image's right edge, its box rounded out 3 px past the border (and one at the top, from y -2),
    # as labelling tools and YOLO-to-pixel conversions give them: the crop is the box's part inside the image
    rng = np.random.default_rng(4)
    frame, truths = synth.render_scene([(synth.alkemy_spec("white"), 3)], rng, size=(400, 300), die_px=(90, 110))
    x, y, w, h = truths[0]["box"]
    frame = np.ascontiguousarray(frame[y - 2:, :x + w])  # the die touches the top and the right border
    cv2.imwrite(str(tmp_path / "edge.png"), frame)
    H, W = frame.shape[:2]
    with (tmp_path / "labels.csv").open("w", newline="") as f:
        csv.writer(f).writerows([HEADER, ["edge.png", "d6", "3", x - 2, -2, w + 5, h + 4, ""]])
    crops = read_labels(tmp_path / "labels.csv", tmp_path)
    assert [(c.face.die_type, c.face.value) for c in crops] == [("d6", 3)]
    assert h - 2 <= crops[0].crop.shape[0] <= H and w - 2 <= crops[0].crop.shape[1] <= W - (x - 2) + 1


def test_missing_header_is_refused(tmp_path):
    (tmp_path / "labels.csv").write_text("file,value\na.png,3\n")
    with pytest.raises(CalibrationError, match="must have a header image,die_type,value,x,y,w,h,colour"):
        read_labels(tmp_path / "labels.csv", tmp_path)


def test_a_set_from_an_older_version_asks_to_recalibrate(user_data):
    from dicetower.vision.faces import DieSetError

    old = user_data / "die_sets" / "old_templates"
    old.mkdir(parents=True)
    (old / "set.json").write_text(json.dumps({"format": 1, "name": "old_templates", "classes": [
        {"die_type": "d6", "value": 1}, {"die_type": "d6", "value": 2}], "meta": {}}))
    (old / "model.npz").write_bytes(b"")
    forget_die_set("old_templates")
    with pytest.raises(DieSetError, match="older version of `dicetower calibrate`.*calibrate it again"):
        load_die_set("old_templates")


def test_a_d10s_zero_is_learned_as_10_and_a_value_no_die_bears_is_refused(tmp_path):
    # RULES.md GEN-D02: a d10 face printed "0" reads as 10, as the standard reader, the rules and the log count it
    face = parse_face("d10", "0", "", "line 2")
    assert (face.die_type, face.value) == ("d10", 10)
    assert parse_face("D10", "10", "", "line 3").value == 10
    # a label no face bears: the set would read a value the rules cannot resolve and the roll log refuses
    with pytest.raises(CalibrationError, match=r"line 4: value '7' is no face of a d6 \(1\.\.6\): correct the label"):
        parse_face("d6", "7", "", "line 4")
    with pytest.raises(CalibrationError, match="no face of a d10.*percentile dice are not read"):
        parse_face("d10", "00", "", "line 5")
    with pytest.raises(CalibrationError, match="no face of a d20"):
        parse_face("d20", "0", "", "line 6")
    # a custom die type has no such range: its numbers are the set's own
    assert parse_face("rune", "0|blank", "", "line 7").value == 0
    (tmp_path / "labels.csv").write_text("image,die_type,value,x,y,w,h,colour\ntray.png,d8,9,,,,,\n")
    with pytest.raises(CalibrationError, match="no face of a d8"):
        read_labels(tmp_path / "labels.csv", tmp_path)


def _crop(face: str, colour: str, photo: int) -> LabelledCrop:
    return LabelledCrop(np.zeros((8, 8, 3), np.uint8), parse_face("d6", face, colour, "test"), f"p{photo}.png")


def test_colours_too_few_to_learn_are_dropped_and_named_only_when_the_faces_are_enough_without_them():
    # every face in each colour twice: learned as labelled
    both = [_crop(v, c, p) for v in "12" for c in ("red", "white") for p in (1, 2)]
    assert learnable_colours(both) == (both, [])
    # the white 2 on one photo: the faces are learned without colours, and the short class is named
    short = [s for s in both if not (s.face.key == "d6:2@white" and s.group == "p2.png")]
    plain, dropped = learnable_colours(short)
    assert dropped == ["d6:2@white"] and {s.face.key for s in plain} == {"d6:1", "d6:2"}
    assert [s.group for s in plain] == [s.group for s in short]
    # a face on one photo in all its colours: no colour helps, calibrate names it
    lone = [_crop("1", "red", 1), _crop("1", "red", 2), _crop("2", "white", 3)]
    assert learnable_colours(lone) == (lone, [])
    with pytest.raises(CalibrationError, match="fewer than 2 labelled photos: d6:2@white"):
        calibrate(lone, "lone")


def test_a_labels_csv_whose_colours_are_too_few_per_face_is_learned_without_them(tmp_path, user_data):
    # the colour column is free text about the die; here one word per die, so some face and colour are on one photo
    rng = np.random.default_rng(17)
    photos = tmp_path / "photos"
    photos.mkdir()
    rows = _scenes(photos, synth.alkemy_spec("white"), [1, 2, 3], 3, rng)
    for i, row in enumerate(rows):
        row[-1] = ("white", "ivory", "cream")[i % 3]
    with (photos / "labels.csv").open("w", newline="") as f:
        csv.writer(f).writerows([HEADER] + rows)
    result = CliRunner().invoke(calibrate_cmd, ["--from-labels", str(photos / "labels.csv"), "--die-set", "worded"])
    assert result.exit_code == 0, result.output
    assert "learned without their colours" in result.stderr and "cross-validated accuracy" in result.stdout
    forget_die_set("worded")
    assert {c.key for c in load_die_set("worded").classes} == {"d6:1", "d6:2", "d6:3"}


def test_a_calibration_with_no_sure_reading_gives_no_accuracy_when_sure():
    """With every cross-validated reading unsure (the sure threshold above them all, as a few labelled
    photos with a confusion can leave it) there is no accuracy when sure to print: "n/a", not 0.000,
    which would read as every sure reading wrong."""
    from dicetower.vision.calibrate import CalibrationReport
    from dicetower.vision.faces import FaceClass

    classes = [FaceClass("d6", v) for v in (1, 2)]
    report = CalibrationReport(classes, 0.5, np.array([[1, 1], [0, 2]]), 2, 1.0, None, 4, threshold=1.0)
    assert "accuracy when sure n/a (none sure)" in report.text()
    sure = CalibrationReport(classes, 0.75, np.array([[1, 1], [0, 2]]), 2, 0.5, 1.0, 4)
    assert "accuracy when sure 1.000" in sure.text()
