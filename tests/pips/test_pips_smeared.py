"""The pip reader (dicetower.vision.pips.read_faces) on smeared pips: d6 faces drawn with OpenCV and
motion-blurred along their columns, so that a column's pips merge into a bar, and rendered tray scenes
(dicetower.vision.synth, dice of any body and ink colour) motion-blurred with a line kernel. A smeared
face is read by its pips split out of the bars and by its layout, which vouches for pips whose own
surround the blur has filled; a bar that may hide a pip (a 6's column read as a 4's) is never sure.
Floors sit under the figures measured when this file was written, above those of the reader before
smeared pips were read (noted per test)."""

import cv2
import numpy as np
import pytest

from test_pips_drawn_faces import draw_face, readings
from test_pips_synth_scenes import score_scenes

PITCH = 0.27  # draw_face's pip pitch, a fraction of the die side


def _smeared(value: int, side: int, spin: float, pitches: float) -> np.ndarray:
    """draw_face blurred along the face's columns (spin + 90 degrees) over `pitches` pip pitches."""
    return draw_face(value, side=side, spin=spin, blur=pitches * PITCH * side, blur_deg=spin + 90)


def test_fours_and_fives_smeared_into_bars_read_sure_and_right():
    """Blur of 0.8 pitch along the columns: a 4's and a 5's column pips merge into one bar. Measured 18
    of 18 read right and sure (10 before bars were split, 17 before streaked pips were measured beside
    their streak)."""
    right = sum(readings(_smeared(value, side, spin, 0.8)) == [(value, True)]
                for value in (4, 5) for side in (40, 60, 90) for spin in (0, 20, 35))
    assert right >= 17


@pytest.mark.parametrize("value", range(1, 7))
def test_faces_smeared_along_their_columns_are_never_wrong_and_sure(value):
    """Up to 1.2 pitches of blur: a 6 whose columns become bars, their middle pips lost in them, must
    not be a sure 4, nor any face a sure wrong value."""
    for pitches in (0.6, 0.8, 1.0, 1.2):
        for side in (40, 60, 90):
            for spin in (0, 20, 35):
                wrong = [v for v, sure in readings(_smeared(value, side, spin, pitches)) if sure and v != value]
                assert wrong == [], f"blur {pitches} pitch, side {side}, spin {spin}: read {wrong}"


def _motion_blurred(frame: np.ndarray, length: int, angle: float) -> np.ndarray:
    """frame (HxWx3 uint8) blurred along a straight line of length px at angle degrees."""
    kernel = np.zeros((length, length), np.float32)
    kernel[length // 2, :] = 1.0
    turn = cv2.getRotationMatrix2D((length / 2 - 0.5, length / 2 - 0.5), angle, 1.0)
    kernel = cv2.warpAffine(kernel, turn, (length, length))
    return cv2.filter2D(frame, -1, kernel / kernel.sum())


@pytest.mark.parametrize("die_px, blur_px, floors", [
    (60, 8, {"dark": 30, "light": 53}),  # measured 31 of 46 and 54 of 62 (before streak_snr: 28 and 53)
    (90, 12, {"dark": 30, "light": 54}),  # measured 31 of 46 and 55 of 62 (before streak_snr: 29 and 54)
])
def test_motion_blurred_rendered_dice_of_any_colour(die_px, blur_px, floors):
    """Rendered scenes (seeds 0..29) blurred over blur_px/2..blur_px px in a random direction; each
    die looked for with the polarity of its ink. A wrong reading given as sure fails at once."""
    def blur(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return _motion_blurred(frame, int(rng.integers(blur_px // 2, blur_px + 1)), float(rng.uniform(0, 180)))

    out = score_scenes(die_px, range(30), blur)
    for pol, floor in floors.items():
        assert out[pol]["wrong_sure"] == 0, (pol, out[pol])
        assert out[pol]["right"] >= floor, (pol, out[pol])


@pytest.mark.parametrize("die_px, blur_px, seed", [
    (45, 8, 15), (45, 14, 26), (60, 6, 2), (60, 6, 3), (60, 10, 7), (60, 14, 8), (90, 14, 12), (90, 20, 4)])
def test_a_blurred_face_whose_pips_were_smeared_faint_is_unsure_not_wrong(die_px, blur_px, seed):
    """The scenes of the blur grid (die_px 45/60/90, blur up to 6..20 px, seeds 0..29) where a face read
    sure and wrong before: 3s read as 1 or 2 (their other pips smeared faint and left out, or where a
    3's third pip lies past a 2), a 2 read as 1 (its other pip taken for its side face). Now each is
    read unsure (or right); the grid has no sure-wrong reading left (8 before)."""
    def blur(frame: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        return _motion_blurred(frame, int(rng.integers(blur_px // 2, blur_px + 1)), float(rng.uniform(0, 180)))

    out = score_scenes(die_px, range(seed, seed + 1), blur)
    assert out["dark"]["wrong_sure"] + out["light"]["wrong_sure"] == 0, out
