"""The numeral net's training data (train_numerals): deterministic for a seed, every class drawn."""

from __future__ import annotations

import numpy as np

from dicetower.vision import train_numerals as tn


def test_data_generator_is_deterministic_for_a_seed():
    a, ya = tn.make_dataset(8, seed=11, workers=1)
    b, yb = tn.make_dataset(8, seed=11, workers=1)
    c, _ = tn.make_dataset(8, seed=12, workers=1)
    assert a.shape == (8, tn.PATCH, tn.PATCH) and a.dtype == np.uint8
    assert np.array_equal(a, b) and np.array_equal(ya, yb)
    assert not np.array_equal(a, c)
    assert list(ya) == list(range(8))  # classes drawn in turn


def test_every_class_renders_a_crop():
    rng = np.random.default_rng(0)
    for cls in tn.CLASSES:
        crop = tn.render_sample(cls, rng)
        assert crop.ndim == 3 and crop.shape[2] == 3 and min(crop.shape[:2]) >= 30, cls
