"""synth.standard_spec: draws only the commercial numbered dice (STANDARD_TYPES) and refuses any other
type with a message naming them, instead of a die no renderer can draw faithfully."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower.vision import synth


def test_an_unknown_die_type_is_refused_naming_the_types_and_what_to_use():
    rng = np.random.default_rng(3)
    before = rng.bit_generator.state
    for bad in ("d100", "stone", "d7", "D6"):
        with pytest.raises(ValueError, match=r"d4, d6, d8, d10, d12, d20, not " + repr(bad)):
            synth.standard_spec(bad, rng)
    assert rng.bit_generator.state == before  # nothing drawn: the caller's renders stay as they were


def test_every_standard_type_is_drawn_and_rendered():
    rng = np.random.default_rng(4)
    for t in synth.STANDARD_TYPES:
        spec = synth.standard_spec(t, rng)
        crop, truth = synth.render_crop(spec, synth.FACES[t], rng, 64)
        assert spec.die_type == t and truth["die_type"] == t
        assert crop.shape == (64, 64, 3) and crop.dtype == np.uint8 and crop.std() > 5
