"""A die whose shadow or the wood grain around it joins it into one blob, or whose shadow reaches the
frame's border, is still found as one whole body (detect: the chromaticity pass, a shadow is the table's
colour darker); and a body cut by the frame's border is read unsure, never a sure value from part
of a face (reader.CUT_CONFIDENCE_MAX). Drawn scenes, and real photos from ../shared/datasets (skipped when absent)."""

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.boxes import iou
from dicetower.vision.camera import load_image
from dicetower.vision.detect import find_die_bodies
from dicetower.vision.faces import FaceResult
from dicetower.vision.reader import CUT_CONFIDENCE_MAX, DiceReader, is_die_like
from dicetower.vision.scoring import load_labels, match

DATASETS = paths.shared_dir() / "datasets"


def wood(rng: np.random.Generator, size: int = 480) -> np.ndarray:
    """A size x size light wood table (BGR) with darker grain streaks across it."""
    img = np.full((size, size, 3), (150, 178, 205), np.uint8)
    for _ in range(120):
        y = int(rng.integers(0, size))
        shade = float(rng.uniform(0.7, 0.9))
        cv2.line(img, (0, y), (size, y + int(rng.integers(-40, 40))),
                 tuple(int(c * shade) for c in (150, 178, 205)), int(rng.integers(1, 4)))
    return img


def die_with_shadow(seed: int) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A 480x480 frame: a speckled orange die (a hexagon with dark spots and a black numeral) on wood
    grain, lit from above so that its shadow runs down to the frame's bottom edge. Returns the frame
    and the die's box (x, y, w, h px)."""
    rng = np.random.default_rng(seed)
    img = wood(rng)
    x, y, s = 170 + int(rng.integers(-30, 30)), 230, 120
    shadow = np.array([[x + 10, y + s // 2], [x + s + 10, y + s // 2], [x + s + 60, 480], [x - 20, 480]])
    dark = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(dark, shadow, 255)
    img[dark > 0] = (img[dark > 0] * 0.55).astype(np.uint8)
    outline = np.array([[x + s // 2, y], [x + s, y + s // 4], [x + s, y + 3 * s // 4], [x + s // 2, y + s],
                        [x, y + 3 * s // 4], [x, y + s // 4]])
    cv2.fillConvexPoly(img, outline, (40, 110, 230))
    inside = np.zeros(img.shape[:2], np.uint8)
    cv2.fillConvexPoly(inside, outline, 255)
    for _ in range(60):
        px, py = int(rng.integers(x, x + s)), int(rng.integers(y, y + s))
        if inside[py, px]:
            cv2.circle(img, (px, py), int(rng.integers(1, 4)), (20, 60, 170), -1)
    cv2.putText(img, "7", (x + 48, y + 72), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (20, 20, 20), 2)
    img = np.clip(img.astype(np.int16) + rng.integers(-5, 6, img.shape), 0, 255).astype(np.uint8)
    return cv2.GaussianBlur(img, (3, 3), 0), (x, y, s, s)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_a_die_whose_shadow_reaches_the_border_is_one_whole_body(seed):
    """Before the chromaticity pass the die and its shadow were one blob cut by the frame's bottom edge
    (no die: is_die_like refuses cut bodies), as lurig d10_wood0711's speckled d10."""
    frame, die = die_with_shadow(seed)
    whole = [b for b in find_die_bodies(frame) if is_die_like(frame, b)]
    assert len(whole) == 1, [b.box for b in whole]
    assert iou(whole[0].box, die) >= 0.7, (whole[0].box, die)


class SureClassifier:
    """Stands in for faces.classify_crop with a classifier sure of every crop (a calibrated set that
    reads part of a face as a whole one)."""

    def __call__(self, crop, die_set=None, mask=None, **scene):
        return FaceResult("d6", 6, 0.99)


def test_a_body_cut_by_the_frame_edge_is_read_unsure_and_a_whole_one_stays_sure(monkeypatch):
    """With a reference frame (the empty tray), every body is read, cut or not: the die cut by the
    left border is flagged unsure, the whole die beside it keeps the classifier's confidence."""
    import dicetower.vision.reader as reader_module

    monkeypatch.setattr(reader_module, "find_pip_faces",
                        lambda image, close_ups=True, elsewhere=None, set_aside=None: [])
    tray = wood(np.random.default_rng(3), 480)[:, :, :]
    frame = tray.copy()
    cv2.rectangle(frame, (0, 200), (45, 270), (40, 40, 200), -1)  # a red die half out of the frame
    cv2.rectangle(frame, (250, 200), (320, 270), (40, 40, 200), -1)  # a whole one
    reader = DiceReader(reference=tray, second_process=False)  # its parts are replaced: all in this process
    reader.classify = SureClassifier()
    dice = {d.box[0] == 0: d for d in reader.read(frame)}
    assert set(dice) == {True, False}, dice
    assert dice[True].unsure and dice[True].confidence <= CUT_CONFIDENCE_MAX < UNSURE_BELOW
    assert not dice[False].unsure and dice[False].confidence == pytest.approx(0.99)


@pytest.mark.skipif(not (DATASETS / "lurig_dietype").is_dir(), reason="shared datasets absent (../shared)")
def test_lurig_dice_on_wood_grain_and_with_shadows_are_found():
    """All 100 lurig_dietype photos (CC0, numbered dice on paper and wood, no box: a photo's die counts
    found when any die is read, as make bench counts it)."""
    reader = DiceReader()
    if not reader.reads_numbered:
        pytest.skip("numbered dice need the shipped models (`make models`)")
    folder = DATASETS / "lurig_dietype"
    labelled = found = read = 0
    for image, labels in sorted(load_labels(folder).items()):
        dice = [r.to_json() for r in reader.read(load_image(folder / image))]
        read += len(dice)
        for _, die in match(labels, dice):
            labelled += 1
            found += die is not None
    # measured 90 of 100 found, 91 dice read before the chromaticity pass; 97 of 100, 98 read after
    # (2026-11-21). Still missed: two dice on dark wood whose shadow shares their tint, a pink d8 on
    # pinkish wood.
    assert labelled == 100 and found >= 96, found
    assert read - found <= 2, f"{read - found} readings that are no labelled die"


@pytest.mark.skipif(not (DATASETS / "matteop65_table_d6").is_dir(), reason="shared datasets absent (../shared)")
def test_labelled_dice_cut_by_the_frame_edge_stay_read():
    """matteop65 labels a few dice at or over the frame's border (their pip boxes within 0.3 of their
    size of it: Train dice_37, four_40, two_47, Valid/valid_24): they are read by their pips, right,
    not dropped or flagged as cut bodies."""
    folder = DATASETS / "matteop65_table_d6"
    reader = DiceReader()
    n = kept = 0
    for image, labels in sorted(load_labels(folder).items()):
        frame = load_image(folder / image)
        H, W = frame.shape[:2]
        boxes = [(lab, *(int(lab[k]) for k in ("x", "y", "w", "h"))) for lab in labels]
        edge = [lab for lab, x, y, w, h in boxes
                if x <= 0.3 * w or y <= 0.3 * h or x + w >= W - 0.3 * w or y + h >= H - 0.3 * h]
        if not edge:
            continue
        dice = [r.to_json() for r in reader.read(frame)]
        for lab, die in match(labels, dice):
            if lab in edge:
                n += 1
                kept += die is not None and str(die["value"]) == lab["value"]
    # measured 4 of 4 (two_47's die over the bottom edge is read 2 but unsure by its pips)
    assert n == 4 and kept == n, (kept, n)
