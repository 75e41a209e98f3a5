"""shape.trimmed_to_die keeps the detector's mask when cutting it back by colour would cut into the die
itself: a die of two colours, one of them nearly the tray's (a swirled die's grey part), loses that
part all round its silhouette, whereas a lamp casts a shadow to one side and the tray the detector
catches at the die's edges is a thin rim. And trimmed_to_die and segment find what stands out of the
tray by one colour rule (shape._stands_out)."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.shape import LOOKALIKES, SIDE, model_path, trimmed_to_die

DATA = paths.shared_dir() / "datasets"
TRAY = (200, 202, 206)  # BGR: a pale grey tray


def _hexagon(radius: float, centre: tuple[float, float] = (64.0, 64.0)) -> np.ndarray:
    """The filled mask (SIDE x SIDE uint8 0/255) of a regular hexagon of that radius (px)."""
    a = np.deg2rad(np.arange(0, 360, 60) + 15)
    pts = np.stack([centre[0] + radius * np.cos(a), centre[1] + radius * np.sin(a)], 1)
    mask = np.zeros((SIDE, SIDE), np.uint8)
    cv2.fillConvexPoly(mask, np.round(pts).astype(np.int32), 255)
    return mask


def test_a_two_colour_die_is_not_cut_to_its_coloured_part():
    """A copper core filling 53 % of the die, and a grey rim darker than the tray (its lightness loss,
    counted at half weight as a shadow's, leaves it within TRAY_COLOUR_DIST of the tray), all round:
    the trim used to cut the die to its copper core (it keeps that when at least TRIM_KEEP is left)."""
    view = np.full((SIDE, SIDE, 3), TRAY, np.uint8)
    die = _hexagon(44)
    view[die > 0] = (150, 150, 152)  # steel grey
    view[_hexagon(32) > 0] = (60, 120, 200)  # copper
    assert np.array_equal(trimmed_to_die(view, die), die)


def test_a_shadow_to_one_side_is_still_cut_off():
    """The same die lit from the upper left: its shadow (the tray darkened to 60 %) falls to the lower
    right, in the detector's mask; the trim cuts it off (what it cuts lies beside the die)."""
    view = np.full((SIDE, SIDE, 3), TRAY, np.uint8)
    die = _hexagon(34, (58, 58))
    shadow = _hexagon(34, (70, 70))
    view[shadow > 0] = (np.array(TRAY) * 0.6).astype(np.uint8)
    view[die > 0] = (60, 120, 200)
    detected = cv2.bitwise_or(die, shadow)
    trimmed = trimmed_to_die(view, detected)
    assert (trimmed[die > 0] > 0).mean() > 0.95
    assert (trimmed[(shadow > 0) & (die == 0)] > 0).mean() < 0.2


def test_a_thin_rim_of_tray_all_round_is_still_cut_off():
    """The detector's mask a few px wider than the die all round (the tray caught at its edges, no
    wider than the margin the tray is measured beyond): trimmed back to the die."""
    view = np.full((SIDE, SIDE, 3), TRAY, np.uint8)
    die = _hexagon(36)
    view[die > 0] = (60, 120, 200)
    detected = _hexagon(39)
    trimmed = trimmed_to_die(view, detected)
    assert (trimmed[die > 0] > 0).mean() > 0.95
    assert (trimmed > 0).sum() < 0.95 * (detected > 0).sum()


def _colour_at_distance(low: float, high: float) -> tuple[int, int, int]:
    """A BGR colour whose Lab distance from TRAY (lightness gains at full weight, as _tray_distance
    counts them) lies in (low, high)."""
    tray_lab = cv2.cvtColor(np.uint8([[TRAY]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
    for g in range(256):
        for b in range(TRAY[0], 256):
            lab = cv2.cvtColor(np.uint8([[[b, g, TRAY[2]]]]), cv2.COLOR_BGR2LAB)[0, 0].astype(float)
            d = lab - tray_lab
            dl = (0.5 if d[0] < 0 else 1.0) * d[0] * 100 / 255
            if low < np.sqrt(dl**2 + d[1] ** 2 + d[2] ** 2) < high:
                return b, g, TRAY[2]
    raise AssertionError("no such colour")


def test_trim_and_segment_draw_the_line_between_die_and_tray_alike():
    """A die whose colour lies within one quantisation step (a quarter of a Lab unit) above
    TRAY_COLOUR_DIST (15), in a detector's mask 2 px wider all round: by segment's rule it does not
    stand out of the tray (its colour mask is empty: the textured one takes its outline), and the trim
    used to cut the mask back to it (it thresholded the unquantised distance). Now the trim finds
    nothing by colour either and keeps the detector's mask; a die 0.4 Lab units farther is trimmed."""
    detected = np.zeros((SIDE, SIDE), np.uint8)
    cv2.circle(detected, (64, 64), 36, 255, -1)
    for (low, high), trimmed in (((15.03, 15.22), False), ((15.6, 15.9), True)):
        view = np.full((SIDE, SIDE, 3), TRAY, np.uint8)
        cv2.circle(view, (64, 64), 34, _colour_at_distance(low, high), -1)
        assert np.array_equal(trimmed_to_die(view, detected), detected) != trimmed, (low, high)


@pytest.mark.skipif(not DATA.is_dir(), reason=f"shared datasets absent ({DATA})")
@pytest.mark.skipif(not model_path().is_file(), reason="shape model not built (`make models`)")
def test_fickett_swirled_lookalikes_read_by_the_reader():
    """fickett_poly_tiles (evaluation only; Chessex Gemini copper-steel dice, the steel of nearly the
    tray's colour) read through the reader, whose detector's mask is the die's: every 10th d8 and d20
    tile. Measured: d8 25/28, d20 63/68 typed right with the speckled renders (shape.speckled); 22 and 65
    before them, 19 and 62 when the trim cut the steel off."""
    from dicetower.readings import UNSURE_BELOW
    from dicetower.vision.reader import DiceReader

    from test_shape_real_photos import fickett_sample

    reader = DiceReader()
    right = n = sure_wrong = 0
    for t in ("d8", "d20"):
        assert t in LOOKALIKES
        for tile in fickett_sample(t, 10):
            readings = reader.read(tile)
            n += 1
            right += any(r.die_type == t for r in readings)
            sure_wrong += sum(r.die_type != t and r.confidence >= UNSURE_BELOW for r in readings)
    assert n == 96
    assert right >= 86, f"{right}/{n}"
    assert sure_wrong == 0
