"""A d20's up face is read at two sizes (numerals.READ_ZOOMS): face_patches cuts the trained centre
again closer in, the numeral drawn larger on the same spot; read_up_face averages the net over it for a
d20 only, and the confidence stays capped by the one trained patch."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower.vision import numerals
from dicetower.vision.numerals import MARK_PULLS, PATCH, WORK, face_patch, face_patches


def _die_with(text: str, org: tuple[int, int], scale: float) -> tuple[np.ndarray, np.ndarray]:
    """A WORK x WORK grey die (a disc of radius 40 px, the ground as dark as the die: the mask tells
    them apart) with one light numeral, and its mask."""
    img = np.full((WORK, WORK, 3), 70, np.uint8)
    cv2.putText(img, text, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (235, 235, 235), 2, cv2.LINE_AA)
    mask = np.zeros((WORK, WORK), np.uint8)
    cv2.circle(mask, (WORK // 2, WORK // 2), 40, 255, -1)
    return img, mask


def _ink_box(patch: np.ndarray) -> tuple[float, float, float, float]:
    """(centre x, centre y, width, height) px of a patch's bright ink."""
    ys, xs = np.nonzero(patch > 200)
    return (xs.min() + xs.max()) / 2, (ys.min() + ys.max()) / 2, xs.max() - xs.min() + 1, ys.max() - ys.min() + 1


def test_a_closer_zoom_cuts_the_trained_centre_again_with_the_numeral_larger():
    """face_patches(zooms=(1, z)): every pull at the trained size, then the first pull's centre at
    z x the size: the numeral is 1/z as large (within 2 px) about the same point (within 1.5 px of
    where the trained patch has it, scaled about the patch centre)."""
    img, mask = _die_with("7", (40, 58), 0.7)
    patches = face_patches(img, mask, zooms=(1.0, 0.8))
    assert len(patches) == len(MARK_PULLS) + 1
    assert np.array_equal(patches[0], face_patch(img, mask))
    assert all(np.array_equal(a, b) for a, b in zip(patches[:3], face_patches(img, mask)))
    x1, y1, w1, h1 = _ink_box(patches[0])
    xz, yz, wz, hz = _ink_box(patches[-1])
    assert abs(wz - w1 / 0.8) <= 2 and abs(hz - h1 / 0.8) <= 2, ((w1, h1), (wz, hz))
    c = PATCH / 2 - 0.5
    assert np.hypot(xz - (c + (x1 - c) / 0.8), yz - (c + (y1 - c) / 0.8)) <= 1.5


def test_a_die_without_a_mark_gives_one_patch_per_zoom_and_bad_zooms_are_refused():
    img, mask = _die_with("", (0, 0), 0.1)
    assert len(face_patches(img, mask, zooms=(1.0, 0.8))) == 2
    for zooms in ((), (1.0, 0.0), (1.0, 2.5)):
        with pytest.raises(ValueError, match="zooms in"):
            face_patches(img, mask, zooms=zooms)


def test_only_a_d20_is_read_closer_in_and_the_cap_is_the_trained_patch():
    """read_up_face(die_type="d20") averages the net over the three up-face centres, the closer
    cut (READ_ZOOMS) and the trained centre's two cuts thinned (read_patches); another type, or none
    given, over the three centres and the trained patch thinned. The trained patch's reading (the cap)
    is the same either way, so a d20 read at two sizes is never surer than on the trained patch."""
    img, mask = _die_with("13", (30, 60), 0.75)
    assert numerals.READ_ZOOMS == {"d20": (1.0, 0.8)}
    all_four = face_patches(img, mask, zooms=numerals.READ_ZOOMS["d20"])
    mean20, trained20 = numerals.read_up_face(img, mask, die_type="d20")
    mean, trained = numerals.read_up_face(img, mask)
    mean12, _ = numerals.read_up_face(img, mask, die_type="d12")
    thin = [numerals.thinned(p) for p in (all_four[0], all_four[3])]
    np.testing.assert_allclose(mean20, numerals.numeral_proba(all_four + thin).mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(mean, numerals.numeral_proba(all_four[:3] + thin[:1]).mean(axis=0), atol=1e-6)
    np.testing.assert_allclose(mean12, mean, atol=1e-6)
    assert not np.allclose(mean20, mean, atol=1e-4)  # the closer cut changes the d20's average
    np.testing.assert_allclose(trained20, trained, atol=1e-6)
    value, confidence = numerals.read_value(img, "d20", mask)
    assert confidence <= numerals.values_from_proba(trained, "d20")[value] + 1e-6


def test_a_closer_cut_keeps_the_tone_told_on_the_trained_patch():
    """A light mark that fills most of the closer cut's central disc (an 18 px square: a quarter of
    the trained patch's disc, three quarters of the disc at 0.6 x the size) stays bright there: the
    marks' tone is told on the trained patch, where they are the minority, not again on the closer
    cut, where the test would take the body for the marks and turn the patch."""
    img = np.full((WORK, WORK, 3), 70, np.uint8)
    cv2.rectangle(img, (39, 39), (56, 56), (235, 235, 235), -1)
    _, mask = _die_with("", (0, 0), 0.1)
    trained, closer = face_patches(img, mask, zooms=(1.0, 0.6))
    for patch in (trained, closer):
        assert patch[PATCH // 2, PATCH // 2] > 200 and patch[2, 2] < 50
