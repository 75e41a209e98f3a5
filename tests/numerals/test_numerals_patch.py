"""Where the numeral net looks (numerals.up_face_mark, face_patch): the patch moves toward the numeral
nearest the die's centre (the up face's), not toward marks far out on the rim, and stays on the die's
centroid when the die shows no mark; synth draws Chessex's flagged 1 and darker ridges for the
training renders."""

from __future__ import annotations

import cv2
import numpy as np

from dicetower.vision import numerals, synth
from dicetower.vision.numerals import MARK_PULL, PATCH, WORK, face_patch, up_face_mark


def _die(marks: list[tuple[str, tuple[int, int], float]], body: int = 70, ink: int = 235) -> np.ndarray:
    """A WORK x WORK grey die (a disc of radius 40 px on a light ground) with text marks
    (text, bottom-left origin, scale) in `ink`."""
    img = np.full((WORK, WORK, 3), 200, np.uint8)
    cv2.circle(img, (WORK // 2, WORK // 2), 40, (body,) * 3, -1, cv2.LINE_AA)
    for text, org, scale in marks:
        cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (ink,) * 3, 2, cv2.LINE_AA)
    return img


def _mask() -> np.ndarray:
    m = np.zeros((WORK, WORK), np.uint8)
    cv2.circle(m, (WORK // 2, WORK // 2), 40, 255, -1)
    return m


def _text_box_centre(text: str, org: tuple[int, int], scale: float) -> tuple[float, float]:
    (w, h), _ = cv2.getTextSize(text, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
    return org[0] + w / 2, org[1] - h / 2


def test_the_numeral_nearest_the_centre_is_found_not_the_rim_marks():
    """An up face's 17 off the centre (as a tilted die shows it) and two neighbours' numerals near
    the rim: up_face_mark gives the 17's centre (both digits, one mark), within 3 px."""
    up = ("17", (46, 50), 0.6)
    img = _die([up, ("5", (18, 80), 0.45), ("12", (62, 28), 0.45)])
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    found = up_face_mark(grey, _mask(), ((WORK - 1) / 2, (WORK - 1) / 2), 40.0)
    assert found is not None
    want = _text_box_centre(*up)
    assert np.hypot(found[0] - want[0], found[1] - want[1]) <= 3.0, (found, want)


def test_dark_ink_on_a_light_die_is_found_too():
    up = ("8", (52, 56), 0.7)
    img = _die([up], body=215, ink=30)
    grey = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY).astype(np.float32)
    found = up_face_mark(grey, _mask(), ((WORK - 1) / 2, (WORK - 1) / 2), 40.0)
    want = _text_box_centre(*up)
    assert found is not None and np.hypot(found[0] - want[0], found[1] - want[1]) <= 3.0, (found, want)


def test_no_mark_near_the_centre_is_none():
    """A blank die, and a die whose only marks are at its rim (beyond MARK_REACH), give no mark."""
    grey = cv2.cvtColor(_die([]), cv2.COLOR_BGR2GRAY).astype(np.float32)
    assert up_face_mark(grey, _mask(), ((WORK - 1) / 2, (WORK - 1) / 2), 40.0) is None
    rim = _die([("3", (14, 58), 0.45)])
    grey = cv2.cvtColor(rim, cv2.COLOR_BGR2GRAY).astype(np.float32)
    assert up_face_mark(grey, _mask(), ((WORK - 1) / 2, (WORK - 1) / 2), 40.0) is None


def test_face_patch_moves_toward_the_up_face_numeral():
    """The same die with its numeral off the centre: the patch follows the numeral by MARK_PULL of
    its offset (measured by where the numeral's ink lands in the patch), with and without a mask."""
    up = ("4", (56, 62), 0.7)
    img = _die([up])
    cx, cy = _text_box_centre(*up)
    for mask in (None, _mask()):
        patch = face_patch(img, mask)
        assert patch.shape == (PATCH, PATCH) and patch.dtype == np.uint8
        ys, xs = np.nonzero(patch > 200)
        ink_x, ink_y = xs.mean(), ys.mean()
        k = PATCH / (2 * numerals.PATCH_HALF * 40.0)
        # where the ink would be if the patch stayed on the die's centroid, and where MARK_PULL puts it
        stay = (PATCH / 2 + k * (cx - WORK / 2), PATCH / 2 + k * (cy - WORK / 2))
        pulled = (stay[0] - MARK_PULL * k * (cx - WORK / 2), stay[1] - MARK_PULL * k * (cy - WORK / 2))
        assert np.hypot(ink_x - pulled[0], ink_y - pulled[1]) < np.hypot(ink_x - stay[0], ink_y - stay[1])
        assert np.hypot(ink_x - pulled[0], ink_y - pulled[1]) <= 3.0


def test_flagged_one_is_a_stem_and_a_flag_without_foot():
    """synth.DieSpec.one_flag draws a 1 unlike the font's own (DejaVu Sans has a foot): its bottom
    rows are one stem wide, its top rows wider by the flag; other digits are unchanged."""
    import matplotlib
    from pathlib import Path

    font = str(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf")
    plain = synth.DieSpec("d20", (0, 0, 0), (255, 255, 255), ttf=font)
    flagged = synth.DieSpec("d20", (0, 0, 0), (255, 255, 255), ttf=font, one_flag=0.8)
    a, b = synth._ttf_ink("1", plain), synth._ttf_ink("1", flagged)
    width = lambda ink, rows: np.count_nonzero(ink[rows] > 128, axis=1).max()  # noqa: E731
    h = b.shape[0]
    foot_plain, foot_flag = width(a, slice(-3, None)), width(b, slice(-3, None))
    assert foot_plain > 1.8 * foot_flag  # the font's foot is gone
    assert width(b, slice(int(0.15 * h), int(0.3 * h))) > 1.5 * foot_flag  # the flag is there
    assert np.array_equal(synth._ttf_ink("7", plain), synth._ttf_ink("7", flagged))
    assert synth._ttf_ink("17", flagged).shape[1] > b.shape[1]


def test_edge_shade_darkens_the_ridges_between_faces_only():
    """synth.DieSpec.edge_shade: the same die (same seed) drawn with darker ridges is darker along
    its face edges and unchanged at its up face's centre."""
    def draw(shade: float) -> np.ndarray:
        spec = synth.DieSpec("d20", (60, 120, 200), (255, 255, 255), marble=0.0, edge_shade=shade,
                             texts={v: "" for v in range(1, 21)})
        img, _ = synth._render_die_patch(spec, 7, np.random.default_rng(3), 96, tilt_deg=0.0)
        return img.mean(axis=2)

    plain, shaded = draw(0.0), draw(0.5)
    darker = plain - shaded
    assert darker.min() >= -1e-3  # nowhere lighter
    assert np.count_nonzero(darker > 10) > 100  # the ridges
    assert abs(darker[44:52, 44:52]).max() < 1e-3  # the up face's centre is untouched


def test_face_patches_cut_the_trained_patch_then_the_centroid_and_the_numeral():
    """face_patches: the first patch is face_patch's (MARK_PULL); the others are centred on the
    die's centroid (pull 0: the numeral's ink lands off the patch centre by its offset) and on the
    numeral itself (pull 1: its ink lands on the patch centre, within 3 px). A die with no mark near
    its centre gives one patch; no pulls is an error."""
    up = ("4", (56, 62), 0.7)
    img = _die([up])
    img[_mask() == 0] = 70  # the ground as dark as the die (the mask tells them apart): no light rim in the patches
    cx, cy = _text_box_centre(*up)
    k = PATCH / (2 * numerals.PATCH_HALF * 40.0)
    patches = numerals.face_patches(img, _mask())
    assert len(patches) == len(numerals.MARK_PULLS) == 3
    assert np.array_equal(patches[0], face_patch(img, _mask()))
    ink = []
    for p in patches:
        ys, xs = np.nonzero(p > 200)
        ink.append((xs.mean(), ys.mean()))
    for (x, y), pull in zip(ink, numerals.MARK_PULLS):
        want = (PATCH / 2 + (1 - pull) * k * (cx - WORK / 2), PATCH / 2 + (1 - pull) * k * (cy - WORK / 2))
        assert np.hypot(x - want[0], y - want[1]) <= 3.0, (pull, (x, y), want)
    assert len(numerals.face_patches(_die([]), _mask())) == 1
    import pytest

    with pytest.raises(ValueError, match="at least one pull"):
        numerals.face_patches(img, _mask(), pulls=())


def test_a_tight_masked_crop_is_framed_like_a_render():
    """numerals.framed: a detector's tight box (the die touching its edges) is set in a square whose
    side the die fills DIE_OF_FRAME of, the added border the ground's colour (the median outside the
    mask) and the mask's border 0. Seen obliquely, the up face's patch reaches past the tight box:
    the tight crop then reads as the same die cut with a margin does (mean difference under 2.5 grey
    levels; replicating the box's edge, as faces.square does, drew a light rim mark up into the patch:
    4.0 and 5.0 at 40 and 30 degrees)."""
    img = _die([("6", (44, 52), 0.6)])
    cv2.rectangle(img, (38, 8), (58, 14), (235, 235, 235), -1)  # a light mark on the rim, at the box's top
    mask = _mask()
    mask[8:15, 38:59] = 255
    tight, tight_mask = img[8:88, 8:88], mask[8:88, 8:88]
    sq, msq = numerals.framed(tight, tight_mask)
    assert sq.shape[:2] == msq.shape == (100, 100)  # 80 px of die in the box / 0.8
    assert np.all(sq[:10] == 200) and np.all(msq[:10] == 0)  # the ground's grey, no streak of the rim mark
    assert np.count_nonzero(msq) == np.count_nonzero(tight_mask)
    for elevation in (90.0, 40.0, 30.0):
        a = face_patch(tight, tight_mask, elevation).astype(float)
        b = face_patch(img, mask, elevation).astype(float)
        assert np.mean(np.abs(a - b)) < 2.5, elevation
