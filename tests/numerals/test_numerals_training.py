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
    assert list(ya) == list(tn.SCHEDULE[:8])  # classes drawn in turn


def test_schedule_draws_numerals_more_often_than_symbols():
    counts = np.bincount(tn.SCHEDULE, minlength=len(tn.CLASSES))
    assert set(counts) >= {1, 3} and counts.min() >= 1  # every class, numerals thrice
    assert all(counts[tn.CLASSES.index(c)] > counts[tn.CLASSES.index("sym:star")] for c in tn.NUMERALS)
    # the numerals real dice mix up (1/7, 6/9, 8/9) more often than the others
    assert all(counts[tn.CLASSES.index(c)] > counts[tn.CLASSES.index("12")] for c in tn.HARD_PAIRS)


def test_random_dice_mark_every_6_and_9_and_some_flag_their_1():
    """An unmarked 6 turned over is a 9 (its label would be noise under the training's quarter
    turns): every random die marks 6 and 9; some TrueType dice draw Chessex's flagged 1."""
    rng = np.random.default_rng(1)
    specs = [tn.random_spec(t, rng) for t in ("d6", "d8", "d10", "d12", "d20") for _ in range(60)]
    assert {s.six_nine for s in specs} == {"dot", "bar"}
    flagged = [s for s in specs if s.one_flag > 0]
    assert flagged and all(s.ttf for s in flagged)
    assert 0.1 < len(flagged) / len(specs) < 0.5


def test_illegible_renders_are_drawn_again(monkeypatch):
    """Ink of the body's own grey is measured as illegible, and render_sample draws such a die again:
    of the dice drawn for one render, all but the last fail the legibility test and the last passes."""
    from dicetower.vision import synth

    rng = np.random.default_rng(5)
    spec = tn.random_spec("d20", rng)
    spec.ink, spec.swirl = spec.body, None
    info: dict = {}
    synth._render_die_patch(spec, 7, rng, 80, info=info)
    assert info["mark_contrast"] < tn.MIN_MARK_CONTRAST and info["mark_px"] > 0

    real = synth._render_die_patch
    calls: list[tuple[dict, float]] = []

    def spy(*args, **kwargs):
        patch, alpha = real(*args, **kwargs)
        calls.append((kwargs["info"], float(alpha.sum())))
        return patch, alpha

    monkeypatch.setattr(synth, "_render_die_patch", spy)
    redrawn = 0
    for seed in range(40):
        calls.clear()
        tn.render_sample("17", np.random.default_rng(seed))
        legible = [c["mark_contrast"] >= tn.MIN_MARK_CONTRAST and c["mark_px"] >= tn.MIN_MARK_AREA * area
                   for c, area in calls]
        assert legible[-1] and not any(legible[:-1]), legible
        redrawn += len(calls) > 1
    assert redrawn >= 1  # some dice of these 40 were illegible and drawn again


def test_every_class_renders_a_crop():
    rng = np.random.default_rng(0)
    for cls in tn.CLASSES:
        crop = tn.render_sample(cls, rng)
        assert crop.ndim == 3 and crop.shape[2] == 3 and min(crop.shape[:2]) >= 30, cls


def test_cautious_temperature_keeps_sure_readings_right():
    """Held-out logits where the net is as sure of its wrong readings as of its right ones: the
    likelihood temperature leaves many wrong readings sure, the cautious one raises the temperature
    until the sure readings are right SURE_TARGET of the time (or none is sure)."""
    rng = np.random.default_rng(0)
    n, k = 2000, 10
    y = rng.integers(0, k, n)
    pred = np.where(rng.random(n) < 0.9, y, (y + 1) % k)
    margin = np.where(pred == y, rng.uniform(2, 9, n), rng.uniform(2, 5, n))
    logits = np.zeros((n, 4, k))
    logits[np.arange(n), :, pred] = margin[:, None]
    t0 = tn.fit_temperature(logits, y)
    t = tn.cautious_temperature(logits, y, t0)
    for temp, want in ((t0, False), (t, True)):
        p = tn.tta_proba(logits, temp)
        sure = p.max(1) >= tn.UNSURE_BELOW
        right_when_sure = (p.argmax(1) == y)[sure].mean() if sure.any() else 1.0
        assert (right_when_sure >= tn.SURE_TARGET) == want, (temp, right_when_sure, sure.mean())
    assert t > t0
    assert (tn.tta_proba(logits, t).max(1) >= tn.UNSURE_BELOW).mean() > 0.1  # not everything made unsure


def test_the_oblique_share_of_renders_is_seen_from_below_top_down():
    """A share of the samples gets a view elevation inside OBLIQUE_ELEVATION, all below the elevation
    face_patch reads as top-down (else their patches would be cut as if seen from above); with no
    share every sample faces the camera, and the top-down samples do not depend on the share."""
    from dicetower.vision.view import TOP_DOWN_FROM

    elevations = [tn.sample_elevation(tn.SEED, i, 0.25) for i in range(2000)]
    oblique = np.array([e for e in elevations if e is not None])
    assert abs(len(oblique) / len(elevations) - 0.25) < 0.03, len(oblique)
    lo, hi = tn.OBLIQUE_ELEVATION
    assert oblique.min() >= lo and oblique.max() < hi <= TOP_DOWN_FROM
    assert oblique.max() - oblique.min() > 0.8 * (hi - lo)  # the whole range, not one elevation
    assert elevations == [tn.sample_elevation(tn.SEED, i, 0.25) for i in range(2000)]  # fixed by (seed, i)
    assert all(tn.sample_elevation(tn.SEED, i, 0.0) is None for i in range(2000))
    with_share, _ = tn.make_dataset(8, seed=11, workers=1, oblique_share=0.5)
    without, _ = tn.make_dataset(8, seed=11, workers=1, oblique_share=0.0)
    flat = [tn.sample_elevation(11, i, 0.5) is None for i in range(8)]
    assert 0 < sum(flat) < 8
    assert all(np.array_equal(a, b) == f for a, b, f in zip(with_share, without, flat))
    import pytest

    with pytest.raises(ValueError, match="oblique_share"):
        tn.make_dataset(2, oblique_share=1.5)


def test_an_oblique_render_is_drawn_at_its_elevation_lying_flat(monkeypatch):
    """render_sample passes the elevation to the renderer with a die lying nearly flat (tilt 8
    degrees, not the 20-40 of dice facing the camera), and elevations outside (0, 90] are refused."""
    import pytest

    from dicetower.vision import synth

    real = synth._render_die_patch
    seen: list[tuple[float | None, float]] = []

    def spy(*args, **kwargs):
        seen.append((kwargs["elevation"], kwargs["tilt_deg"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(synth, "_render_die_patch", spy)
    for seed in range(6):
        crop = tn.render_sample("17", np.random.default_rng(seed), 40.0)
        assert crop.ndim == 3 and crop.shape[2] == 3
    assert seen and all(s == (40.0, 8.0) for s in seen), seen
    seen.clear()
    for seed in range(30):
        tn.render_sample("17", np.random.default_rng(seed))
    assert {e for e, _ in seen} == {None} and max(t for _, t in seen) > 8.0
    for bad in (0.0, 95.0):
        with pytest.raises(ValueError, match=r"\(0, 90\]"):
            tn.render_sample("17", np.random.default_rng(3), bad)


def test_cached_renders_are_used_only_for_the_same_seed_held_out_size_and_share(tmp_path):
    """build_numerals' .npz cache gives back exactly the patches it holds, and nothing (renders drawn
    again) for another seed, held-out size or oblique share, or when the file is missing."""
    x, y = tn.make_dataset(4, seed=11, workers=1)
    hx, hy = tn.make_dataset(3, seed=12, workers=1)
    cache = tmp_path / "renders.npz"
    assert tn._cached_renders(cache, 11, 3, 0.0) is None
    np.savez(cache, x=x, y=y, hx=hx, hy=hy, seed=11, oblique_share=0.0)
    got = tn._cached_renders(cache, 11, 3, 0.0)
    assert got is not None and all(np.array_equal(a, b) for a, b in zip(got, (x, y, hx, hy)))
    assert tn._cached_renders(cache, 12, 3, 0.0) is None
    assert tn._cached_renders(cache, 11, 4, 0.0) is None
    assert tn._cached_renders(cache, 11, 3, 0.25) is None
