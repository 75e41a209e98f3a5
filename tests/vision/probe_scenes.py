"""The render probes' scenes, for tests that pin one of their dice: a seed of the probe drawn again."""

import numpy as np

from dicetower.vision import synth


def any_type_scene(seed: int, die_px: tuple[int, int]) -> tuple[np.ndarray, list[dict]]:
    """A render of 2-6 dice of any standard type in random colours (the render probe's seed, die_px least and most px
    a die): the frame (HxWx3 uint8 BGR) and its truths (synth.render_scene's)."""
    rng = np.random.default_rng([9371, seed])
    dice = []
    for _ in range(int(rng.integers(2, 7))):
        kind = synth.STANDARD_TYPES[int(rng.integers(0, 6))]
        dice.append((synth.standard_spec(kind, rng), int(rng.integers(1, synth.FACES[kind] + 1))))
    return synth.render_scene(dice, rng, die_px=die_px)


def pip_scene(seed: int, die_px: tuple[int, int], glint: float = 0.0) -> tuple[np.ndarray, list[dict]]:
    """A render of 2-6 pip d6 in random colours (the pip render probe's seed, die_px least and most px a die; glint:
    each die's chance of the lamp's glint on its up face, synth.render_scene's): the frame (HxWx3 uint8 BGR) and its
    truths."""
    rng = np.random.default_rng([9371, seed])
    count = int(rng.integers(2, 7))
    dice = [(synth.standard_spec("d6", rng, pips=True), int(rng.integers(1, 7))) for _ in range(count)]
    return synth.render_scene(dice, rng, die_px=die_px, glint=glint)


def crowd_scene(seed: int, die_px: tuple[int, int]) -> tuple[np.ndarray, list[dict]]:
    """A render of 12-21 pip d6 in random colours (the render probe's crowds: its seed, die_px least and most px a die):
    the frame (HxWx3 uint8 BGR) and its truths."""
    rng = np.random.default_rng([9371, seed])
    count = int(rng.integers(12, 22))
    dice = [(synth.standard_spec("d6", rng, pips=True), int(rng.integers(1, 7))) for _ in range(count)]
    return synth.render_scene(dice, rng, die_px=die_px)
