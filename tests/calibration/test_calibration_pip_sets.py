"""A calibrated set of pip d6 learned from real labelled photos (issue 4 item 5b, `dicetower calibrate
--from-labels`): matteop65's boxes hold only the pip pattern, so the pip reader (the set's prior) must
read such tight crops, and `dicetower read --die-set` must find the white dice on the light table
where the body search alone misses them (the pip faces mark them). Learned from Train photos, read on
Valid photos (../shared at run time only; skipped without it)."""

from __future__ import annotations

import csv
from pathlib import Path

import cv2
import pytest
from click.testing import CliRunner

from dicetower.paths import shared_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.calibrate import calibrate, read_labels
from dicetower.vision.calibrate_cli import calibrate as calibrate_cmd
from dicetower.vision.fewshot import standard_values
from dicetower.vision.reader import DiceReader

ROOT = shared_dir() / "datasets" / "matteop65_table_d6"
pytestmark = pytest.mark.skipif(not (ROOT / "labels.csv").is_file(), reason=f"{ROOT} not found (../shared)")
#: labelled wrong in the shared copy (SOURCES.md verified boxes, but this one shows a 1 labelled 4)
LABEL_ERRORS = {"images/Valid/valid_56.jpg"}


def _rows() -> dict[str, list[dict[str, str]]]:
    by_image: dict[str, list[dict[str, str]]] = {}
    for row in csv.DictReader((ROOT / "labels.csv").open(newline="")):
        by_image.setdefault(row["image"], []).append(row)
    return by_image


def _write_labels(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["image", "die_type", "value", "x", "y", "w", "h", "colour"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def _train_labels(tmp_path: Path, per_value: int = 4, last: bool = False) -> Path:
    """labels.csv of the first Train photos (in name order; last: the last ones) until every value has
    per_value photos."""
    count: dict[str, int] = {}
    chosen = []
    by_image = _rows()
    for image, rows in sorted(by_image.items(), reverse=last):
        values = {r["value"] for r in rows}
        if "/Train/" in image and any(count.get(v, 0) < per_value for v in values):
            chosen.append(image)
            for v in values:
                count[v] = count.get(v, 0) + 1
    return _write_labels(tmp_path / "labels.csv", [r for image in chosen for r in by_image[image]])


def test_the_pip_prior_reads_crops_boxed_tight_round_the_pips(tmp_path):
    """Measured: 44 of 45 tight crops read as their value (35 before the crop was padded)."""
    samples = read_labels(_train_labels(tmp_path), ROOT)
    read = [max(standard_values(s.crop, "d6", "pips").items(), key=lambda kv: kv[1], default=(None, 0.0))[0]
            for s in samples]
    right = sum(v == s.face.value for v, s in zip(read, samples))
    assert right >= 0.9 * len(samples), (right, len(samples))


@pytest.mark.parametrize("last", [False, True], ids=["first photos", "last photos"])
def test_a_calibrated_pip_set_reads_the_valid_photos(tmp_path, monkeypatch, last):
    """Learned from 20 Train photos (4+ per value), read on the Valid photos but the label error.
    Measured on the first photos: 125 of 125 dice found, every sure reading right; before, the body
    search alone found 50 of them. 3 of 125 unsure (2.4 %; 46 % when the set learned the labelled pip
    boxes as drawn while `read` crops the whole die, before calibrate.as_read, and a sure pip reading
    could not vouch for the few-shot's). The last photos hold a 1 boxed round its pip 7 x 8 px
    (six_61.jpg: read_labels refused it as under 8 px before it framed such boxes first) and make a
    set that mixes the numeral net's description in (net_share > 0): its dice were all unsure, 129 of
    129, while the set's reader (FewShotModel.mark_evidence) dropped the pip reader's reading whenever
    the net described the die; 3 of 129 since, every sure reading right."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # the set is saved and found there
    die_set, _ = calibrate(read_labels(_train_labels(tmp_path, last=last), ROOT), "m65")
    if last:
        assert die_set.model.net_share > 0 and die_set.model.net_bank is not None  # the path this photo set takes
    reader = DiceReader(die_set="m65")
    found: set[tuple[str, int]] = set()
    sure: set[tuple[str, int]] = set()
    labelled = 0
    for image, rows in sorted(_rows().items()):
        if "/Valid/" not in image or image in LABEL_ERRORS:
            continue
        labelled += len(rows)
        readings = reader.read(cv2.imread(str(ROOT / image)))
        for r in readings:
            x, y, w, h = r.box
            truth = [(k, row) for k, row in enumerate(rows) if x <= int(row["x"]) + int(row["w"]) / 2 <= x + w
                     and y <= int(row["y"]) + int(row["h"]) / 2 <= y + h]
            if truth:
                found.add((image, truth[0][0]))
                if r.confidence >= UNSURE_BELOW and not r.cocked:
                    assert r.value == int(truth[0][1]["value"]), (image, r, truth)
                    sure.add((image, truth[0][0]))
    assert len(found) >= 0.95 * labelled, (len(found), labelled)
    assert len(sure) >= 0.9 * labelled, (len(sure), labelled)


def test_calibrate_lists_the_label_both_readers_contradict(tmp_path, user_data):
    """`dicetower calibrate --from-labels` on the Valid photos' labels as shared (129 dice): the one row
    whose label is wrong, valid_56's lone pip of a 1 labelled 4, is listed with its labels.csv line as
    read 1 (the set learned without that photo and the pip reader name the same other face), and no
    other row is. Measured: the same check lists no tile of fickett's d4, d8 and d12 (425, 329 and 408
    tiles, leftover clusters included) and of its d6 (217) only tile #0168, labelled 2, which shows a 3."""
    rows = [r for image, rs in sorted(_rows().items()) if "/Valid/" in image for r in rs]
    labels = _write_labels(tmp_path / "labels.csv", rows)
    result = CliRunner().invoke(calibrate_cmd, ["--from-labels", str(labels), "--images-root", str(ROOT),
                                                "--die-set", "m65_valid"])
    assert result.exit_code == 0, result.output
    listed = [line.strip() for line in result.output.splitlines() if line.startswith("  ") and "labelled" in line]
    line = 2 + next(k for k, r in enumerate(rows) if r["image"] == "images/Valid/valid_56.jpg" and r["x"] == "467")
    assert listed == [f"{labels}:{line} (images/Valid/valid_56.jpg): labelled d6:4@white, read d6:1@white"], \
        result.output
    assert "check these labels: 1 labelled dice" in result.output


def test_a_label_changed_on_purpose_is_listed(tmp_path):
    """20 Train photos' labels with one die's value changed (its 5 labelled 2): calibrate's report lists
    that row alone, as read 5; with the labels as shared it lists none."""
    chosen = _train_labels(tmp_path)
    rows = list(csv.DictReader(chosen.open(newline="")))
    k = next(k for k, r in enumerate(rows) if r["value"] == "5")
    _, report = calibrate(read_labels(chosen, ROOT), "m65_train", out_dir=tmp_path / "as_shared")
    assert report.contradicted == []
    rows[k] = dict(rows[k], value="2")
    changed = _write_labels(tmp_path / "changed.csv", rows)
    _, report = calibrate(read_labels(changed, ROOT), "m65_changed", out_dir=tmp_path / "changed")
    assert report.contradicted == [(f"{changed}:{k + 2} ({rows[k]['image']})", "d6:2@white", "d6:5@white")]
