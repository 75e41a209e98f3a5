"""shape.speckled: the top-down model's training renders speckled as real dice are (speckles, flecks),
which gives a render the fine edges inside its outline that real dice show (the edges_r features)."""

from __future__ import annotations

import cv2
import numpy as np

from dicetower.vision import synth
from dicetower.vision.shape import SPECKLE_DENSITY, render_training_set, speckled


def _render(seed: int, die_type: str = "d20") -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    crop, mask, _ = synth.render_shape_crop(synth.standard_spec(die_type, rng), rng, 128, tilt_deg=10.0)
    return crop, mask


def _edge_share(crop: np.ndarray, inside: np.ndarray) -> float:
    return float((cv2.Canny(cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY), 40, 120)[inside] > 0).mean())


def test_speckles_add_edges_inside_the_die_and_touch_nothing_outside():
    raised = 0
    for seed in range(8):
        crop, mask = _render(seed, ("d6", "d8", "d10", "d12", "d20", "d4")[seed % 6])
        out = speckled(crop, mask, np.random.default_rng(100 + seed))
        die = mask > 0
        assert out.shape == crop.shape and out.dtype == np.uint8
        # the blur spreads a speckle at most a couple of px: beyond the die grown by 3 px nothing changes
        grown = cv2.dilate(mask, np.ones((7, 7), np.uint8)) > 0
        assert np.array_equal(out[~grown], crop[~grown]), seed
        changed = np.any(out != crop, axis=2)[die].mean()
        assert changed > SPECKLE_DENSITY[0], (seed, changed)
        inner = cv2.erode(mask, np.ones((7, 7), np.uint8)) > 0  # the outline's own edges left out
        raised += _edge_share(out, inner) > _edge_share(crop, inner)
    assert raised >= 6, raised  # measured: 8 of 8 (a light speckle on a pale die may add few edges)


def test_speckles_are_drawn_from_the_generator_given():
    crop, mask = _render(3)
    a = speckled(crop, mask, np.random.default_rng(7))
    b = speckled(crop, mask, np.random.default_rng(7))
    c = speckled(crop, mask, np.random.default_rng(8))
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_a_die_without_pixels_is_left_as_it_is():
    crop, _ = _render(4)
    assert speckled(crop, np.zeros(crop.shape[:2], np.uint8), np.random.default_rng(0)) is crop


def test_speckling_changes_only_the_renders_it_speckles():
    """The speckles have a generator of their own: the renders, and the plain set the oblique model
    learns (speckle_share 0), are the same as without them."""
    x_plain, y_plain = render_training_set(2, 11, speckle_share=0.0)
    x_all, y_all = render_training_set(2, 11, speckle_share=1.0)
    x_again, _ = render_training_set(2, 11, speckle_share=0.0)
    assert np.array_equal(y_plain, y_all) and np.array_equal(x_plain, x_again)
    assert not np.allclose(x_plain, x_all)
