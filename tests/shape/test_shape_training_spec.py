"""shape.training_spec: the dice the top-down shape model is trained on look like real dice in part
(swirled bodies, darker ridges between faces, as dice makers make them), the pip d6s stay as they are."""

from __future__ import annotations

import numpy as np
import pytest

from dicetower.vision.shape import DIE_TYPES, REAL_LOOK_SHARE, training_spec


def test_a_share_of_numbered_dice_is_drawn_as_dice_makers_make_them():
    rng = np.random.default_rng(11)
    specs = [training_spec(t, rng) for _ in range(120) for t in DIE_TYPES]
    numbered = [s for s in specs if not s.pips]
    made = [s for s in numbered if s.edge_shade > 0 or s.swirl is not None or s.ttf is not None]
    # standard_spec draws neither ridges, swirls nor TrueType numerals: only training_spec's dice have them
    assert abs(len(made) / len(numbered) - REAL_LOOK_SHARE) < 0.08, (len(made), len(numbered))
    assert any(s.swirl is not None for s in made) and any(s.edge_shade > 0 for s in made)
    assert {s.die_type for s in made} == set(DIE_TYPES)


def test_pip_d6s_are_kept_and_every_spec_is_of_the_asked_type():
    rng = np.random.default_rng(12)
    d6 = [training_spec("d6", rng) for _ in range(200)]
    pips = [s for s in d6 if s.pips]
    assert 0.3 < len(pips) / len(d6) < 0.6  # standard_spec's pip d6s (half), none replaced
    assert all(s.edge_shade == 0 and s.swirl is None for s in pips)
    assert all(training_spec(t, rng).die_type == t for t in DIE_TYPES)


def test_an_unknown_die_type_is_refused_naming_the_types_and_drawing_nothing():
    rng = np.random.default_rng(13)
    before = rng.bit_generator.state
    for bad in ("d100", "stone", "D20", ""):
        with pytest.raises(ValueError, match=r"d4, d6, d8, d10, d12, d20.*" + repr(bad)):
            training_spec(bad, rng)
    assert rng.bit_generator.state == before  # a refused call leaves the caller's stream as it was
