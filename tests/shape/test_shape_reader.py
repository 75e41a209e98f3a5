"""die_type_by_shape (vision/shape.py) on synthetic renders it was not built from, and its errors."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from dicetower.vision import synth
from dicetower.readings import UNSURE_BELOW
from dicetower.vision.shape import (DIE_TYPES, LOOKALIKE_RATIO, LOOKALIKES, ShapeModelError, ShapeResult,
                                    die_type_by_shape, die_view, load_model, model_path, temper_lookalikes)

pytestmark = pytest.mark.skipif(not model_path().is_file(), reason="shape model not built (`make models`)")


def test_every_type_is_mostly_told_apart_on_unseen_renders():
    rng = np.random.default_rng(777)  # not a seed the model was built from
    right = {t: 0 for t in DIE_TYPES}
    sure_right = sure = 0
    per_type = 5
    for _ in range(per_type):
        for t in DIE_TYPES:
            crop, _, _ = synth.render_shape_crop(synth.standard_spec(t, rng), rng, 120, tilt_deg=10.0)
            r = die_type_by_shape(crop)
            assert isinstance(r, ShapeResult) and set(r.proba) == set(DIE_TYPES)
            assert abs(sum(r.proba.values()) - 1) < 1e-5
            # confidence is the reported type's probability, or 0 when no die stood out of the tray
            assert r.confidence == 0.0 or r.proba[r.die_type] == pytest.approx(r.confidence)
            right[t] += r.die_type == t
            sure += not r.unsure
            sure_right += (not r.unsure) and r.die_type == t
    assert sum(right.values()) >= 0.7 * per_type * len(DIE_TYPES), right
    assert min(right.values()) >= per_type // 2, right  # no type left behind
    assert sure_right >= 0.9 * sure


def test_the_detector_mask_is_used_when_given():
    rng = np.random.default_rng(778)
    crop, mask, _ = synth.render_shape_crop(synth.standard_spec("d4", rng), rng, 120, tilt_deg=5.0)
    view, m = die_view(crop, mask)
    assert view.shape[:2] == m.shape and m.any()
    # a mask of a square region instead of the die: the silhouette read is the mask's, not the die's
    square = np.zeros_like(mask)
    square[30:90, 30:90] = 255
    r_true = die_type_by_shape(crop, mask)
    r_square = die_type_by_shape(crop, square)
    assert r_true.proba != r_square.proba


def test_a_blank_crop_is_unsure_not_guessed():
    r = die_type_by_shape(np.full((100, 100, 3), 128, np.uint8))
    assert r.unsure and r.confidence == 0.0


def test_a_tiny_crop_is_unsure():
    rng = np.random.default_rng(779)
    crop, _, _ = synth.render_shape_crop(synth.standard_spec("d6", rng), rng, 10, tilt_deg=5.0)
    assert die_type_by_shape(crop).confidence == 0.0


@pytest.mark.parametrize("bad", [np.zeros((40, 40), np.uint8), np.zeros((40, 40, 3), np.float32),
                                 np.zeros((0, 40, 3), np.uint8), "photo.jpg"])
def test_bad_crops_raise_a_clear_error(bad):
    with pytest.raises(ValueError, match="HxWx3 uint8"):
        die_type_by_shape(bad)


def test_a_mask_of_the_wrong_size_raises():
    with pytest.raises(ValueError, match="mask"):
        die_type_by_shape(np.zeros((40, 40, 3), np.uint8), np.zeros((30, 40), np.uint8))


def test_a_missing_model_says_how_to_build_it(tmp_path):
    with pytest.raises(ShapeModelError, match="make models"):
        load_model(tmp_path / "shape.npz")


def test_look_alikes_are_never_sure_by_shape_alone():
    rng = np.random.default_rng(11)
    look = [DIE_TYPES.index(t) for t in LOOKALIKES]
    for _ in range(50):
        p = rng.dirichlet(np.full(len(DIE_TYPES), 0.2), size=1)
        q = temper_lookalikes(p)
        assert q.sum() == pytest.approx(1.0)
        assert q[0, look].sum() == pytest.approx(p[0, look].sum())  # the group keeps its probability
        others = [k for k in range(len(DIE_TYPES)) if k not in look]
        assert np.allclose(q[0, others], p[0, others])  # d4, d6, d10 untouched
        assert q[0, look].max() <= LOOKALIKE_RATIO * q[0, look].min() + 1e-9
        assert q[0, look].max() < UNSURE_BELOW
    # a render of a d20 seen from above: its type by shape alone is unsure
    crop, _, _ = synth.render_shape_crop(synth.standard_spec("d20", rng), rng, 120, tilt_deg=5.0)
    r = die_type_by_shape(crop)
    assert r.unsure and r.proba["d20"] <= 0.6 + 1e-6


def test_the_outline_has_half_the_say_of_the_inside():
    # the inside-only expert (face edges, numerals) ignores the outline: changing only the outline
    # features moves the logits by half of what the all-feature expert alone would move them
    from dicetower.vision.shape import FEATURE_NAMES, INSIDE_FEATURES, OUTLINE_NAMES

    model = load_model().top_down
    rng = np.random.default_rng(12)
    x = model.mean + model.scale * rng.normal(size=len(FEATURE_NAMES)).astype(np.float32)
    outline = [i for i, n in enumerate(FEATURE_NAMES) if n in OUTLINE_NAMES]
    assert outline and not set(outline) & set(INSIDE_FEATURES.tolist())
    assert len(outline) + len(INSIDE_FEATURES) == len(FEATURE_NAMES)
    moved = x.copy()
    moved[outline] += 3 * model.scale[outline]
    dz = (moved - x) / model.scale
    assert np.allclose(model.logits(moved) - model.logits(x), 0.5 * dz @ model.weights, atol=1e-4)
    # and changing the inside features moves both experts
    inside = x.copy()
    inside[INSIDE_FEATURES] += model.scale[INSIDE_FEATURES]
    dz = (inside - x) / model.scale
    expected = 0.5 * (dz @ model.weights + dz[INSIDE_FEATURES] @ model.inside_weights)
    assert np.allclose(model.logits(inside) - model.logits(x), expected, atol=1e-4)


def test_fit_logistic_needs_one_column_per_feature():
    from dicetower.vision.shape import fit_logistic

    with pytest.raises(ValueError, match="FEATURE_NAMES"):
        fit_logistic(np.zeros((6, 5)), np.arange(6))
    with pytest.raises(ValueError, match="finite"):
        fit_logistic(np.full((6, 5), np.nan), np.arange(6))


def test_grabcut_growth_to_the_frame_is_dropped():
    # GrabCut's refinement may add to the die's silhouette, but not blocks that run out to the
    # crop's frame (a tray of the die's colour there, as on fickett's tiles)
    from dicetower.vision.shape import _without_frame_growth

    rough = np.zeros((128, 128), np.uint8)
    cv2.circle(rough, (64, 64), 50, 255, -1)
    refined = rough.copy()
    refined[0:40, 0:30] = 255  # a block from the frame into the die
    cv2.circle(refined, (64, 112), 8, 255, -1)  # a bump that stays inside the frame
    refined[60:70, 60:70] = 0  # refinement may also remove pixels
    out = _without_frame_growth(refined, rough)
    assert not out[0:5, 0:5].any()  # the block is gone
    assert out[119, 64] and not out[65, 65]  # the bump and the removal stay
    assert (out[rough > 0] > 0).mean() > 0.9  # the die itself is kept
    assert np.array_equal(_without_frame_growth(rough, rough), rough)


def test_a_tight_detector_box_is_framed_with_a_margin():
    # the detector's box is tight round the die; with its mask the die is framed as the renders
    # were (its bounding square about 80 % of the view), not left touching the view's frame
    rng = np.random.default_rng(780)
    crop, mask, _ = synth.render_shape_crop(synth.standard_spec("d8", rng), rng, 120, tilt_deg=5.0)
    x, y, w, h = cv2.boundingRect(cv2.findNonZero(mask))
    view, m = die_view(crop[y:y + h, x:x + w], mask[y:y + h, x:x + w])
    border = np.concatenate([m[0], m[-1], m[:, 0], m[:, -1]])
    assert not border.any()
    bx, by, bw, bh = cv2.boundingRect(cv2.findNonZero(m))
    assert 0.7 * m.shape[0] <= max(bw, bh) <= 0.9 * m.shape[0]
