"""A bold numeral read again with thinner strokes (numerals.thinned, read_patches): the net, trained on
renders with thinner strokes than heavy real typefaces, reads the trained centre's patches once more
thinned; the thinned patch keeps the ink's polarity and place, read_patches adds it exactly for the
trained centre's cuts, and it never makes a reading surer than the trained patch alone."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower.vision import numerals
from dicetower.vision.numerals import PATCH, STROKE_GAMMA, WORK, face_patch, face_patches, read_patches, thinned


def _bold_die(text: str = "8") -> tuple[np.ndarray, np.ndarray]:
    """A WORK x WORK grey die (a disc of radius 40 px; the ground as dark as the die, the mask tells
    them apart) with one light numeral in a heavy stroke (5 px), and its mask."""
    img = np.full((WORK, WORK, 3), 70, np.uint8)
    cv2.putText(img, text, (36, 62), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (235, 235, 235), 5, cv2.LINE_AA)
    mask = np.zeros((WORK, WORK), np.uint8)
    cv2.circle(mask, (WORK // 2, WORK // 2), 40, 255, -1)
    return img, mask


def _ink(patch: np.ndarray) -> tuple[int, tuple[int, int, int, int], tuple[float, float]]:
    """(ink px above mid-grey, its bounding box x0, x1, y0, y1, its centroid x, y) of a patch."""
    ys, xs = np.nonzero(patch > 127)
    return len(xs), (xs.min(), xs.max(), ys.min(), ys.max()), (xs.mean(), ys.mean())


def test_a_bold_stroke_gets_thinner_in_place_with_its_ink_still_bright():
    """On the face patch of a bold 8, thinned leaves at most 90 % of the ink above mid-grey, the ink's
    bounding box within 1 px and its centroid within 0.5 px of where they were: the strokes narrow
    from their edges, nothing moves. The stroke's core stays bright (>= 200 where it was >= 250) and
    the ground dark (0 stays 0): the ink's polarity is kept."""
    patch = face_patch(*_bold_die())
    thin = thinned(patch)
    assert thin.shape == (PATCH, PATCH) and thin.dtype == np.uint8
    (n0, box0, c0), (n1, box1, c1) = _ink(patch), _ink(thin)
    assert n1 <= 0.9 * n0, (n0, n1)
    assert max(abs(a - b) for a, b in zip(box0, box1)) <= 1, (box0, box1)
    assert np.hypot(c1[0] - c0[0], c1[1] - c0[1]) <= 0.5, (c0, c1)
    assert thin[patch >= 250].min() >= 200 and thin[patch == 0].max() == 0
    assert (thin <= patch).all()  # only ever darker: thinner ink, a darker halo


def test_thinned_maps_levels_by_the_stroke_gamma_keeping_their_order():
    """Every grey level v goes to round(255 (v / 255) ** STROKE_GAMMA): 0 and 255 stay, the order of
    levels is kept (an edge stays where the ink falls off), a soft edge's mid-grey darkens."""
    levels = np.arange(256, dtype=np.uint8)
    patch = np.resize(levels, (PATCH, PATCH)).astype(np.uint8)
    out = thinned(patch)
    want = np.rint(255 * (patch / 255.0) ** STROKE_GAMMA)
    assert np.abs(out.astype(int) - want).max() <= 1
    mapped = out.ravel()[:256]
    assert mapped[0] == 0 and mapped[255] == 255 and (np.diff(mapped.astype(int)) >= 0).all()
    assert mapped[128] < 100


def test_read_patches_adds_the_thinned_cuts_of_the_trained_centre_only():
    """read_patches: face_patches over MARK_PULLS at the type's zooms, then the trained patch thinned
    (one size: 3 + 1) and, for a d20, its closer cut thinned too (4 + 2: the closer cut is the 4th);
    with no numeral found, one centre: 1 + 1, and 2 + 2 for a d20."""
    img, mask = _bold_die()
    plain = face_patches(img, mask)
    got = read_patches(img, mask)
    assert len(got) == 4 and all(np.array_equal(a, b) for a, b in zip(got, plain))
    assert np.array_equal(got[3], thinned(plain[0]))
    plain20 = face_patches(img, mask, zooms=numerals.READ_ZOOMS["d20"])
    got20 = read_patches(img, mask, die_type="d20")
    assert len(got20) == 6 and all(np.array_equal(a, b) for a, b in zip(got20, plain20))
    assert np.array_equal(got20[4], thinned(plain20[0])) and np.array_equal(got20[5], thinned(plain20[3]))
    blank, _ = _bold_die("")
    assert len(read_patches(blank, mask)) == 2 and len(read_patches(blank, mask, die_type="d20")) == 4


def test_the_thinned_patches_never_make_a_reading_surer_than_the_trained_patch():
    """read_up_face's mean averages every read_patches patch; its trained reading is face_patch's
    alone (never a thinned one), and read_value's confidence is at most that reading's."""
    img, mask = _bold_die()
    for die_type in ("d8", "d20"):
        mean, trained = numerals.read_up_face(img, mask, die_type=die_type)
        every = numerals.numeral_proba(read_patches(img, mask, die_type=die_type))
        np.testing.assert_allclose(mean, every.mean(axis=0), atol=1e-6)
        np.testing.assert_allclose(trained, numerals.numeral_proba([face_patch(img, mask)])[0], atol=1e-6)
        value, confidence = numerals.read_value(img, die_type, mask)
        assert confidence <= numerals.values_from_proba(trained, die_type)[value] + 1e-6


@pytest.mark.parametrize("bad", [np.zeros((PATCH, PATCH), np.float32), np.zeros((PATCH, PATCH - 1), np.uint8),
                                 np.zeros((PATCH, PATCH, 3), np.uint8), "patch"])
def test_a_bad_patch_is_refused(bad):
    with pytest.raises(ValueError, match="face patch must be"):
        thinned(bad)
