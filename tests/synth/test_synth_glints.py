"""synth's glints: the lamp's reflection on a glossy die's up face (render_scene's glint), for the reader's
glint test (vision.glints)."""

import numpy as np

from dicetower.vision import synth


def test_a_glint_brightens_part_of_the_dies_up_face_to_past_the_ceiling_and_nothing_else():
    spec = synth.standard_spec("d6", np.random.default_rng(7), pips=True)
    plain, alpha = synth._render_die_patch(spec, 5, np.random.default_rng(3), 96)
    glinted, same_alpha = synth._render_die_patch(spec, 5, np.random.default_rng(3), 96, glint=1.0)
    assert np.array_equal(alpha, same_alpha)  # the same die, drawn alike
    changed = np.abs(glinted - plain).max(axis=2) > 1.0
    assert 0 < changed.sum() < (alpha > 0.5).sum() / 2  # part of the die, not all of it
    assert (alpha[changed] > 0).all()  # on the die alone
    assert (glinted[changed] >= plain[changed]).all()  # brighter only
    assert glinted.max() > 255  # its core past the camera's ceiling: _finish clips it to white

