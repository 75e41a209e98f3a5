"""Dice inside a container (a dice dome's floor, a tray cut by the frame's border) are found as the
hull of one coloured body, whatever the die's colour; a smooth patch of floor is no die; and glints
(light specks the pip reader takes for pips it is unsure of, with no die body around them) are no
dice, while real dice showing 1 are kept. Drawn scenes, and real photos from ../shared/datasets (skipped when absent)."""

import csv

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.boxes import iou
from dicetower.vision.camera import load_image
from dicetower.vision.detect import find_die_bodies
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels, match

DATASETS = paths.shared_dir() / "datasets"


def dome_scene(die_bgr: tuple[int, int, int], seed: int = 0) -> tuple[np.ndarray, tuple[int, int, int, int]]:
    """A 640x480 frame of a dice dome on a white bench: a dark base cut by the frame's bottom edge
    (a container), a grey floor in it with a smooth green patch, and one d20-like die (a hexagon of
    die_bgr with a shaded lower half and a white numeral) lying on the floor. Returns the frame and
    the die's box (x, y, w, h px)."""
    rng = np.random.default_rng(seed)
    img = np.full((480, 640, 3), (225, 228, 230), np.uint8)
    img[380:, :40] = (120, 160, 200)  # a corner of a wooden table
    cv2.ellipse(img, (320, 420), (160, 110), 0, 0, 360, (30, 30, 30), -1)
    cv2.ellipse(img, (320, 410), (125, 80), 0, 0, 360, (130, 130, 130), -1)
    cv2.ellipse(img, (370, 415), (30, 24), 0, 0, 360, (80, 170, 70), -1)
    x, y, s = 230, 370, 44
    outline = np.array([[x + s // 2, y], [x + s, y + s // 4], [x + s, y + 3 * s // 4], [x + s // 2, y + s],
                        [x, y + 3 * s // 4], [x, y + s // 4]])
    cv2.fillConvexPoly(img, outline, die_bgr)
    lower = np.array([[x + s // 2, y + s // 2], [x + s, y + 3 * s // 4], [x + s // 2, y + s], [x, y + 3 * s // 4]])
    cv2.fillConvexPoly(img, lower, tuple(int(c * 0.7) for c in die_bgr))
    cv2.putText(img, "17", (x + 8, y + 29), cv2.FONT_HERSHEY_SIMPLEX, 0.6, (245, 245, 245), 2)
    img = np.clip(img.astype(np.int16) + rng.integers(-4, 5, img.shape), 0, 255).astype(np.uint8)
    return cv2.GaussianBlur(img, (3, 3), 0), (x, y, s, s)


@pytest.mark.parametrize("die_bgr", [(200, 110, 40), (40, 40, 200), (60, 180, 230), (90, 60, 40)],
                         ids=["blue", "red", "yellow", "dark-blue"])
def test_a_die_in_a_dome_gets_a_tight_box_and_the_floor_patch_none(die_bgr):
    """Before the colour segmentation, the red and yellow dice were lost in the container (the whole
    dome came back as one body) and the blue one got a box cut at its numeral."""
    frame, die = dome_scene(die_bgr)
    bodies = [b for b in find_die_bodies(frame) if not b.cut]
    assert len(bodies) == 1, [b.box for b in bodies]  # the die; the green floor patch is no body
    assert iou(bodies[0].box, die) >= 0.8, (bodies[0].box, die)


def realdice_rows(step: int) -> list[dict[str, str]]:
    folder = DATASETS / "realdice_d20"
    if not folder.is_dir():
        pytest.skip(f"shared datasets not found at {folder}")
    with open(folder / "labels.csv", newline="") as fh:
        return list(csv.DictReader(fh))[::step]


def test_glints_on_a_dice_dome_and_the_d20s_numerals_are_no_pip_dice():
    """realdice_d20 holds one blue d20 per photo and no pip die: the dome's glints (read as unsure
    light pips, alone or in pairs) must not be reported, nor the d20's numerals read as pips in place of the d20."""
    reader = DiceReader()
    if not reader.reads_numbered:
        pytest.skip("numbered dice need the shipped models (`make models`)")
    rows = realdice_rows(8)
    ones = blue_pip_faces = 0
    for row in rows:
        dice = reader.read(load_image(DATASETS / "realdice_d20" / row["image"]))
        ones += sum(d.die_type == "d6" and d.value == 1 for d in dice)
        blue_pip_faces += sum(d.die_type == "d6" and d.colour == row["colour"] for d in dice)
    # measured before these changes: 1 glint read as a 1 and 2 numerals read as pip faces over these
    # 20 photos (2026-11-21); after: none of either
    assert ones == 0, f"{ones} glints read as dice showing 1 over {len(rows)} photos"
    assert blue_pip_faces == 0, f"the d20's numerals read as a pip die in {blue_pip_faces} of {len(rows)} photos"


def test_real_dice_showing_1_are_kept():
    """matteop65 (white d6, black pips, on light wood): every labelled 1 in the Train photos of mixed
    faces (dice_*.jpg) is still found and read 1."""
    folder = DATASETS / "matteop65_table_d6"
    if not folder.is_dir():
        pytest.skip(f"shared datasets not found at {folder}")
    reader = DiceReader()
    labels = {k: v for k, v in load_labels(folder).items() if "/dice_" in k and any(l["value"] == "1" for l in v)}
    n = read_one = 0
    for image, labs in sorted(labels.items()):
        dice = [r.to_json() for r in reader.read(load_image(folder / image))]
        for lab, die in match(labs, dice):
            if lab["value"] == "1":
                n += 1
                read_one += die is not None and die["value"] == 1
    # measured 150 of 152 before and after the glint rule (2026-11-21; a lone dark pip is no glint)
    assert n == 152 and read_one >= 150, f"{read_one} of {n} labelled 1s read as 1"


def test_drawn_pip_dice_stay_pip_dice_through_the_reader():
    """Pip d6 drawn dark-on-light and light-on-dark (synth.render_scene), sharp and motion-blurred:
    a die body found around a pip face the pip reader is unsure of must not take it over (a
    numbered-die reading) unless the face spans less of it than a d6's pips do, nor may a real die
    be dropped as a glint more than rarely."""
    from dicetower.vision import synth

    reader = DiceReader()
    if not reader.reads_numbered:
        pytest.skip("numbered dice need the shipped models (`make models`)")
    n = right = numbered = 0
    for blur in (False, True):
        for seed in range(20):
            rng = np.random.default_rng(seed)
            dice = [(synth.standard_spec("d6", rng, pips=True), int(rng.integers(1, 7)))
                    for _ in range(int(rng.integers(1, 6)))]
            frame, truths = synth.render_scene(dice, rng, die_px=(60, 90))
            if blur:
                kernel = np.zeros((9, 9), np.float32)
                kernel[4, :] = 1 / 9
                frame = cv2.filter2D(frame, -1, kernel)
            reads = reader.read(frame)
            for (_, value), truth in zip(dice, truths):
                x, y, w, h = truth["box"]
                n += 1
                hit = [r for r in reads
                       if x <= r.box[0] + r.box[2] / 2 <= x + w and y <= r.box[1] + r.box[3] / 2 <= y + h]
                if hit:
                    right += hit[0].die_type == "d6" and hit[0].value == value
                    numbered += hit[0].die_type != "d6"
    # measured 92 of 152 read right and 19 read as numbered dice before the container and glint
    # changes; 90 and 21 after (2026-11-21). Over 30 seeds, an unsure face giving way to a body at
    # any size read 107 of 216 right and 41 as numbered dice, against 122 and 33 before. At 039f22a:
    # 97 right, 17 numbered without the chromaticity body pass, 99 and 16 with it (2026-11-21). The
    # dice read as numbered are ones the pip reader finds no face on at all (sharp 2s; yellow, red or
    # blue pips of little grey contrast with their body), read unsure by the face classifier.
    assert n == 152 and right >= 97 and numbered <= 17, (n, right, numbered)
