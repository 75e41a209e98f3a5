"""The numeral net's view of the die's middle among the shape features (shape.NET_NAMES): what it is, which
net gives it, and that the shipped model was built on these features."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower.paths import models_dir
from dicetower.vision import synth
from dicetower.vision.fewshot import net_embedding
from dicetower.vision.numerals import face_patch
from dicetower.vision.shape import (FEATURE_NAMES, INSIDE_FEATURES, NET_NAMES, OUTLINE_NAMES, die_view, features,
                                    load_model, model_path, render_training_set)

pytestmark = pytest.mark.skipif(not model_path().is_file(), reason="shape model not built (`make models`)")


def _die(die_type: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    crop, _, _ = synth.render_shape_crop(synth.standard_spec(die_type, rng), rng, 120, tilt_deg=10.0)
    return die_view(crop)


def test_the_last_features_are_the_numeral_nets_embedding_of_the_middle():
    view, m = _die("d20", 901)
    x = features(view, m)
    assert len(x) == len(FEATURE_NAMES) and FEATURE_NAMES[-len(NET_NAMES):] == NET_NAMES
    expected = net_embedding([face_patch(view, m)])[0]
    assert len(expected) == len(NET_NAMES)
    assert np.allclose(x[-len(NET_NAMES):], expected, atol=1e-6)
    assert np.linalg.norm(x[-len(NET_NAMES):]) == pytest.approx(1.0, abs=1e-4)  # unit length, as fewshot's
    # a die of another type is seen otherwise by the net
    view8, m8 = _die("d8", 902)
    assert not np.allclose(features(view8, m8)[-len(NET_NAMES):], x[-len(NET_NAMES):], atol=1e-3)


def test_the_nets_view_belongs_to_the_inside_expert():
    net = [FEATURE_NAMES.index(n) for n in NET_NAMES]
    assert set(net) <= set(INSIDE_FEATURES.tolist())
    assert not set(NET_NAMES) & set(OUTLINE_NAMES)


def test_features_read_the_numeral_net_they_are_given(tmp_path):
    view, m = _die("d12", 903)
    same = features(view, m, net_dir=models_dir() / "standard")
    assert np.array_equal(same, features(view, m))
    with pytest.raises(FileNotFoundError, match="make models"):
        features(view, m, net_dir=tmp_path)  # no net there: the model is built on the net just built
    with pytest.raises(FileNotFoundError, match="make models"):
        render_training_set(1, seed=5, net_dir=tmp_path)


def test_the_shipped_models_weigh_every_feature():
    models = load_model()
    for model in (models.top_down, models.oblique):
        assert model.weights.shape[0] == len(FEATURE_NAMES) == len(model.mean)
        assert model.inside_weights.shape[0] == len(INSIDE_FEATURES)
        # the net's view carries weight in both experts (a model built without it would hold zeros there)
        net = [FEATURE_NAMES.index(n) for n in NET_NAMES]
        assert np.abs(model.weights[net]).sum() > 0.1 * np.abs(model.weights).sum()
