"""The camera's view elevation (vision/view.py): from a round floor's ellipse on synthetic oblique
scenes whose elevation is known, top-down for scenes with no floor, crops and frames without dice;
on real photos: realdice_d20 (a dome roller shot from the side) is oblique, the top-down sources are
not. Real photos are evaluation only: nothing here is fitted to them."""

from __future__ import annotations

import csv

import cv2
import numpy as np
import pytest

from dicetower.paths import shared_dir
from dicetower.vision import synth
from dicetower.vision.view import (TOP_DOWN, TOP_DOWN_FROM, ViewEstimate, _supports, elevation_of_ratio,
                                   view_of_scene)


def _oblique_scene(elevation: float, seed: int):
    rng = np.random.default_rng(seed)
    dice = [(synth.standard_spec(str(rng.choice(["d8", "d12", "d20"])), rng, pips=False), 1)
            for _ in range(int(rng.integers(1, 4)))]
    frame, truths, floor = synth.render_oblique_scene(dice, rng, elevation)
    return frame, [tuple(t["box"]) for t in truths], floor


@pytest.mark.parametrize("elevation", [25.0, 35.0, 45.0, 55.0, 65.0])
def test_a_round_floor_seen_obliquely_gives_its_elevation(elevation):
    """The floor's ellipse (minor/major = sin(elevation)) gives the elevation within 4 degrees on
    three scenes each (measured within 0.6 degrees), sure."""
    for seed in range(3):
        frame, boxes, _ = _oblique_scene(elevation, 100 * seed + int(elevation))
        view = view_of_scene(frame, boxes)
        assert view.oblique and view.sure, (seed, view)
        assert abs(view.elevation - elevation) <= 4.0, (seed, view.elevation)
        (cx, cy), (major, minor), _ = view.ellipse
        assert major >= minor > 0


def test_a_floor_seen_from_above_and_a_tray_without_one_are_top_down():
    frame, boxes, _ = _oblique_scene(88.0, 7)
    assert view_of_scene(frame, boxes).elevation == TOP_DOWN
    rng = np.random.default_rng(8)
    frame, truths = synth.render_scene([(synth.standard_spec("d20", rng, pips=False), 3),
                                        (synth.standard_spec("d6", rng), 5)], rng)
    view = view_of_scene(frame, [tuple(t["box"]) for t in truths])
    assert view == ViewEstimate(TOP_DOWN) and not view.oblique


def test_no_dice_or_a_crop_of_one_die_is_top_down():
    frame, boxes, _ = _oblique_scene(40.0, 9)
    assert view_of_scene(frame, []).elevation == TOP_DOWN  # nothing to read: nothing to say
    x, y, w, h = boxes[0]
    crop = frame[max(0, y - 20):y + h + 20, max(0, x - 20):x + w + 20]
    assert view_of_scene(crop, [(20, 20, w, h)]).elevation == TOP_DOWN


def test_a_floor_that_does_not_hold_the_dice_is_no_floor():
    frame, boxes, floor = _oblique_scene(40.0, 10)
    (cx, cy), (major, minor), _ = floor
    far = (int(cx + major), int(cy), 30, 30)  # a "die" well outside the floor
    assert view_of_scene(frame, [far]).elevation == TOP_DOWN


def test_ellipse_supports_in_one_pass():
    """_supports over a batch of ellipses (K x 5 rows cx, cy, w, h, angle): one drawn whole on the
    edge map is supported all round (1.0), one drawn half way round about half, one running off the
    frame is NaN (not whole), one not drawn only where it crosses the others; each row is what it is
    alone (one numpy pass, the ellipses do not mix), and no ellipse gives no support."""
    edges = np.zeros((240, 320), np.uint8)
    cv2.ellipse(edges, (160, 120), (90, 50), 30, 0, 360, 255, 1)
    cv2.ellipse(edges, (160, 120), (40, 20), 0, 0, 180, 255, 1)
    far = cv2.distanceTransform(255 - edges, cv2.DIST_L2, 3)
    rows = np.array([(160, 120, 180, 100, 30), (160, 120, 80, 40, 0), (300, 120, 180, 100, 30),
                     (160, 120, 120, 60, 90)], np.float64)
    s = _supports(far, rows)
    assert s.shape == (4,) and s[0] == 1.0 and 0.45 <= s[1] <= 0.55 and np.isnan(s[2]) and s[3] < 0.2
    assert all(np.array_equal(_supports(far, rows[k:k + 1]), s[k:k + 1], equal_nan=True) for k in range(4))
    assert _supports(far, rows[:0]).shape == (0,)


def test_bad_input_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        view_of_scene(np.zeros((480, 640), np.uint8), [(0, 0, 10, 10)])
    with pytest.raises(ValueError, match=r"\(0, 1\]"):
        elevation_of_ratio(0.0)
    assert elevation_of_ratio(1.0) == 90.0 and abs(elevation_of_ratio(0.5) - 30.0) < 1e-9


def _real(name: str):
    data = shared_dir() / "datasets" / name
    if not (data / "labels.csv").is_file():
        pytest.skip(f"{data} not found (../shared/datasets is needed for real-photo checks)")
    return data


def test_realdice_photos_are_seen_obliquely():
    """realdice_d20: a dome roller shot from the side and above. Every 4th photo, the die boxed by its
    colour (faces_eval.realdice_die): measured 40 of 40 oblique, 38 sure, median 59 degrees (the
    dome's floor rings; the die itself reads best at 55 to 65 degrees)."""
    from dicetower.vision.faces_eval import realdice_die

    data = _real("realdice_d20")
    views = []
    for r in list(csv.DictReader((data / "labels.csv").open()))[::4]:
        img = cv2.imread(str(data / r["image"]))
        die = realdice_die(img)
        if die is not None:
            views.append(view_of_scene(img, [die[0]]))
    elevations = [v.elevation for v in views]
    assert len(views) >= 38
    assert np.mean([v.oblique for v in views]) >= 0.95, elevations
    assert np.mean([v.sure for v in views]) >= 0.75
    assert 45 <= np.median(elevations) <= 65, elevations


def test_top_down_real_photos_stay_top_down():
    """fickett tiles (a roller photographed from above, crops) and matteop65 (a webcam over a table,
    its labelled boxes as the dice): none is read as oblique (measured 0 of 248 tiles, 0 of 118
    photos through the reader)."""
    from dicetower.vision.faces_eval import fickett_tiles

    fickett = _real("fickett_poly_tiles")
    for t in fickett_tiles(fickett, "d20", step=10):
        h, w = t.crop.shape[:2]
        assert not view_of_scene(t.crop, [(w // 6, h // 6, 2 * w // 3, 2 * h // 3)]).oblique, t.group
    m65 = _real("matteop65_table_d6")
    by_image: dict[str, list] = {}
    for r in csv.DictReader((m65 / "labels.csv").open()):
        if r["x"]:
            by_image.setdefault(r["image"], []).append(tuple(int(float(r[k])) for k in "xywh"))
    for image in sorted(by_image)[::8]:
        view = view_of_scene(cv2.imread(str(m65 / image)), by_image[image])
        assert view.elevation >= TOP_DOWN_FROM, (image, view)
