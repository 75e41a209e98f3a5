"""Every die in the scene is reported, and nothing else: the reader on real photos of numbered dice
(a d20 in a dice dome, one die on coloured paper or wood), the keyboard and cables beside matteop65's
pip dice, touching dice, and the reporting policy (is this a die? apart from which face it shows)."""

import csv

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.boxes import iou
from dicetower.vision.camera import load_image
from dicetower.vision.detect import DieBody, find_die_bodies
from dicetower.vision.faces import FaceResult
from dicetower.vision.reader import GROUND_SHARE_MAX, DiceReader, is_die_like

DATASETS = paths.shared_dir() / "datasets"
DEMO = paths.repo_root() / "demo" / "matteop65"


@pytest.fixture(scope="module")
def reader():
    r = DiceReader()
    if not r.reads_numbered:
        pytest.skip("numbered dice need the shipped models (`make models`)")
    return r


def sample(source: str, step: int) -> list[dict[str, str]]:
    folder = DATASETS / source
    if not folder.is_dir():
        pytest.skip(f"shared datasets not found at {folder}")
    with open(folder / "labels.csv", newline="") as fh:
        return list(csv.DictReader(fh))[::step]


def test_the_d20_in_a_dice_dome_is_reported_with_a_tight_box(reader):
    """realdice_d20: one blue d20 about 30 px wide in a clear dome over a green and grey floor, seen
    obliquely. The die must be reported, its box tight (under 0.15 of the frame, of the labelled body
    colour: a box mostly of floor would be green or grey), with few other readings."""
    rows = sample("realdice_d20", 8)
    found = others = 0
    for row in rows:
        image = load_image(DATASETS / "realdice_d20" / row["image"])
        dice = reader.read(image)
        tight = [d for d in dice if d.colour == row["colour"] and max(d.box[2:]) < 0.15 * image.shape[1]]
        found += bool(tight)
        others += len(dice) - min(1, len(tight))
    # measured 17 of 20 reported tight, 3 other readings over 20 photos (2026-11-21; 1 of 20 before);
    # 20 of 20 and no other reading with colour segmentation in the dome and glints no dice
    assert found >= 19, f"the d20 reported with a tight box in {found} of {len(rows)} photos"
    assert others <= 2, f"{others} readings that are not the d20 over {len(rows)} one-die photos"


def test_a_die_on_coloured_paper_or_wood_is_reported_even_when_its_face_is_unsure(reader):
    """lurig_dietype (CC0): one die the photographer centred, d4..d20, on paper or wood. The die is
    reported whether or not the face classifier is sure of it (flagged unsure when not)."""
    rows = sample("lurig_dietype", 5)
    found = others = 0
    for row in rows:
        image = load_image(DATASETS / "lurig_dietype" / row["image"])
        h, w = image.shape[:2]
        dice = reader.read(image)
        centred = [d for d in dice if d.box[0] < w / 2 < d.box[0] + d.box[2] and d.box[1] < h / 2 < d.box[1] + d.box[3]]
        found += bool(centred)
        others += len(dice) - min(1, len(centred))
        for d in centred:
            assert d.unsure == (d.confidence < 0.8 or d.cocked)
    # measured 16 of 20 reported, 4 other readings (2026-11-21; 2 of 20 before the reporting policy)
    assert found >= 13, f"the centred die reported in {found} of {len(rows)} photos"
    assert others <= 10, f"{others} readings that are not the centred die over {len(rows)} photos"


@pytest.mark.parametrize("name", ["five_36", "two_7", "four_9", "dice_45", "four_15", "six_21", "five_26"])
def test_keyboard_keys_cables_and_labels_beside_pip_dice_are_not_dice(reader, name):
    """matteop65 Train photos with a laptop keyboard, a USB hub, cables and a cable label in view:
    keys are compact, die-sized and carry glyphs, but lie on the laptop, not on the table the pip
    dice lie on; the only dice in these photos are pip d6, so no numbered die may be read."""
    folder = DATASETS / "matteop65_table_d6"
    if not folder.is_dir():
        pytest.skip(f"shared datasets not found at {folder}")
    dice = reader.read(load_image(folder / "images" / "Train" / f"{name}.jpg"))
    assert [d for d in dice if d.die_type != "d6"] == []


def test_touching_dice_are_split_into_one_body_each():
    """matteop65 Train/three_36: two of its four dice touch, side to side (one blob of table
    distance with a waist); each labelled die must lie in its own body."""
    folder = DATASETS / "matteop65_table_d6"
    if not folder.is_dir():
        pytest.skip(f"shared datasets not found at {folder}")
    image = load_image(folder / "images" / "Train" / "three_36.jpg")
    with open(folder / "labels.csv", newline="") as fh:
        labels = [r for r in csv.DictReader(fh) if r["image"] == "images/Train/three_36.jpg"]
    centres = [(float(r["x"]) + float(r["w"]) / 2, float(r["y"]) + float(r["h"]) / 2) for r in labels]
    boxes = [b.box for b in find_die_bodies(image)]
    holding = [sum(x <= cx <= x + w and y <= cy <= y + h for cx, cy in centres) for x, y, w, h in boxes]
    assert len(centres) == 4 and max(holding) == 1, f"bodies {boxes} hold {holding} labelled dice"
    assert sum(holding) == 4


def body(box=(100, 100, 40, 40), ground_share=0.2, cut=False) -> DieBody:
    return DieBody(box, np.full((box[3], box[2]), 255, np.uint8), ground_share, cut)


def test_die_likeness_is_judged_from_the_body_and_its_neighbours():
    frame = load_image(DEMO / "valid_28.jpg")
    assert is_die_like(frame, body())
    assert not is_die_like(frame, body(cut=True)), "a body cut by the frame's border"
    assert not is_die_like(frame, body(ground_share=GROUND_SHARE_MAX * 2)), "the ground's own colour"
    table = np.median(cv2.cvtColor(frame[300:480, 0:200], cv2.COLOR_BGR2LAB).reshape(-1, 3), axis=0)
    on_table = body(box=(40, 330, 60, 60), ground_share=0.1)
    assert is_die_like(frame, on_table, beside=(50.0, table))
    assert not is_die_like(frame, on_table, beside=(15.0, table)), "four times the size of the pip dice"
    assert not is_die_like(frame, on_table, beside=(50.0, table + 60)), "not on the pip dice's ground"


class UnsureClassifier:
    """Stands in for faces.classify_crop with a classifier that is never sure (calls recorded)."""

    def __init__(self):
        self.crops: list[np.ndarray] = []

    def __call__(self, crop, die_set=None, mask=None):
        self.crops.append(crop)
        return FaceResult("d20", 7, 0.3)


def test_a_die_the_classifier_is_unsure_of_is_reported_unsure_and_a_bare_table_gives_nothing(monkeypatch):
    """A real die (valid_28.jpg's right-hand die) on a real empty table, read with a classifier that
    is never sure; the pip reader is switched off so that only the body policy is under test."""
    import dicetower.vision.reader as reader_module

    monkeypatch.setattr(reader_module, "find_pip_faces",
                        lambda image, close_ups=True, elsewhere=None, set_aside=None: [])
    photo = load_image(DEMO / "valid_28.jpg")
    table = cv2.resize(photo[300:480, 0:240], (640, 480), interpolation=cv2.INTER_LINEAR)
    die = photo[110:200, 395:480]
    frame = table.copy()
    frame[200:200 + die.shape[0], 300:300 + die.shape[1]] = die
    reader = DiceReader(second_process=False)  # its parts are replaced here: all in this process
    reader.classify = UnsureClassifier()
    dice = reader.read(frame)
    assert len(dice) == 1 and dice[0].unsure and dice[0].die_type == "d20"
    x, y, w, h = dice[0].box
    cx, cy = 300 + die.shape[1] / 2, 200 + die.shape[0] / 2
    assert x < cx < x + w and y < cy < y + h and max(w, h) < 1.5 * max(die.shape[:2]), "a tight box"
    assert reader.read(table) == []


def test_many_numbered_dice_on_a_rendered_tray_are_found_one_body_each():
    """Up to 25 dice: synth.render_scene draws d4..d20 with numerals (no pips), 21 to 35 px across,
    on a random tray (wood, felt, white, dark), with their true boxes."""
    from dicetower.vision import synth

    found = total = spurious = 0
    for seed in range(3):
        rng = np.random.default_rng(2500 + seed)
        specs = [synth.standard_spec(str(rng.choice(["d4", "d6", "d8", "d10", "d12", "d20"])), rng, pips=False)
                 for _ in range(25)]
        frame, truths = synth.render_scene([(spec, 1) for spec in specs], rng, die_px=(30, 45))
        boxes = [b.box for b in find_die_bodies(frame) if is_die_like(frame, b)]
        total += len(truths)
        found += sum(any(iou(b, t["box"]) >= 0.5 for b in boxes) for t in truths)
        spurious += sum(all(iou(b, t["box"]) < 0.3 for t in truths) for b in boxes)
    # measured 59 of 75 found (29 of 75 when dice under 4% of the frame's side were dropped), none spurious
    assert found >= 0.7 * total, f"{found} of {total} dice found"
    assert spurious <= 3


def test_a_numbered_die_filling_the_frame_is_found_and_a_bare_table_close_up_is_not():
    """Close-ups: lurig photos (CC0) cut to the middle 60 % of the frame, so that the centred die
    touches the border and no table is left around it, except in the corners."""
    from dicetower.vision.detect import find_close_up

    rows = sample("lurig_dietype", 5)
    found = 0
    for row in rows:
        image = load_image(DATASETS / "lurig_dietype" / row["image"])
        h, w = image.shape[:2]
        crop = cv2.resize(image[int(0.2 * h):int(0.8 * h), int(0.2 * w):int(0.8 * w)], (w, h))
        die = find_close_up(crop)
        found += die is not None and die.box[0] < w / 2 < die.box[0] + die.box[2] and max(die.box[2:]) >= 0.5 * h
    # measured 12 of 20 (2026-11-21)
    assert found >= 9, f"the close-up die found in {found} of {len(rows)} crops"
    photo = load_image(DEMO / "valid_28.jpg")
    assert find_close_up(cv2.resize(photo[300:480, 0:200], (640, 480))) is None, "a light gradient on bare wood"
