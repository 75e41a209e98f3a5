"""The pip reader (dicetower.vision.pips.read_faces) on pips that a motion blur drew out into streaks:
a streaked pip's ring of surround_snr runs along the streak into the die's blurred edge (and the next
pip of its column), so it is measured beside the streak (streak_snr) and read as a faint pip, kept
only on a face its d6 layout vouches for; 2 or 3 pips smeared alike on a face that the blur roughened
are a die in motion, kept but flagged unsure. Real photos from ../shared (skipped when absent) and
faces drawn with OpenCV. Floors sit at the figures measured when this file was written."""

import cv2
import pytest

from dicetower import paths
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.detect import KERNEL_PX
from dicetower.vision.pips import pip_response, read_faces, streak_snr, surround_snr

from test_pips_drawn_faces import draw_face, readings

MATTEO = paths.shared_dir() / "datasets" / "matteop65_table_d6"
needs_shared = pytest.mark.skipif(not MATTEO.is_dir(), reason=f"labelled photos not found at {MATTEO}")


def _faces_near(image: str, centre: tuple[float, float], reach: float = 20.0):
    gray = cv2.cvtColor(cv2.imread(str(MATTEO / image)), cv2.COLOR_BGR2GRAY)
    return [f for f in read_faces(gray, "dark", KERNEL_PX)
            if abs(f.centre[0] - centre[0]) < reach and abs(f.centre[1] - centre[1]) < reach]


@needs_shared
@pytest.mark.parametrize("centre", [
    (258, 104),  # each column's two pips smeared into one bar: the upper piece's ring reaches the table
    (200, 179),  # four separate streaks, the upper left one's ring reaching the die's blurred edge
])
def test_fours_whose_pips_are_streaks_are_read_four(centre):
    """Train/four_50: two of its five 4s were not found at all before streak_snr (each had two pips
    whose surround_snr, 1.0..2.0, fell under FAINT_SNR while streak_snr measured 8 and more)."""
    assert [f.value for f in _faces_near("images/Train/four_50.jpg", centre)] == [4]


@needs_shared
def test_a_streaked_three_on_a_rough_face_is_kept_unsure():
    """Train/three_29: a 3 in heavy motion (pips 2x as long as wide, one direction); the blur spreads the
    die's edge over the face (face_roughness 0.44, over NO_FACE). It was dropped as no die; it is
    kept, read 3 and flagged unsure."""
    faces = _faces_near("images/Train/three_29.jpg", (292, 172))
    assert [(f.value, f.confidence < UNSURE_BELOW) for f in faces] == [(3, True)]


def test_streak_snr_sees_the_plain_face_beside_a_streaked_pip():
    """A die's 1 drawn out along x to about its face's width: the ring of surround_snr takes in the
    die's blurred edges and the table along the streak, the band beside the streak only the face."""
    gray = draw_face(1, side=40, spin=0, pip=0.25, blur=24, blur_deg=0)
    response = pip_response(gray, "dark", KERNEL_PX)
    _, mask = cv2.threshold(response, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_NONE)
    ellipse = cv2.fitEllipse(max(contours, key=cv2.contourArea))
    (x, y), axes, _ = ellipse
    assert min(axes) < 0.5 * max(axes)  # a streak
    assert streak_snr(gray, ellipse) > 2 * surround_snr(gray, x, y, max(axes) / 2)


@pytest.mark.parametrize("side, blur, crop", [(60, 10, 130), (90, 10, 150), (90, 16, 140)])
def test_a_blurred_two_at_the_frame_edge_is_read_without_error(side, blur, crop):
    """A 2 in motion near the frame's edge: its line continued past a pip (where a 3's third pip would
    be) lies off the frame. This raised ValueError (an empty window) before; it reads as a sure 2."""
    gray = draw_face(2, side=side, spin=0, blur=blur, blur_deg=45)[:crop, :crop].copy()
    assert readings(gray) == [(2, True)]
