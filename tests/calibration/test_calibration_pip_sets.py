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

from dicetower.paths import shared_dir
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.calibrate import calibrate, read_labels
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


def _train_labels(tmp_path: Path, per_value: int = 4, last: bool = False) -> Path:
    """labels.csv of the first Train photos (in name order; last: the last ones) until every value has
    per_value photos."""
    count: dict[str, int] = {}
    chosen = []
    for image, rows in sorted(_rows().items(), reverse=last):
        values = {r["value"] for r in rows}
        if "/Train/" in image and any(count.get(v, 0) < per_value for v in values):
            chosen.append(image)
            for v in values:
                count[v] = count.get(v, 0) + 1
    path = tmp_path / "labels.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["image", "die_type", "value", "x", "y", "w", "h", "colour"])
        writer.writeheader()
        for image in chosen:
            writer.writerows(_rows()[image])
    return path


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
