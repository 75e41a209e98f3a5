"""The numeral net's training data (train_numerals): deterministic for a seed, every class drawn."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from dicetower.vision import train_numerals as tn


def test_data_generator_is_deterministic_for_a_seed():
    a, ya = tn.make_dataset(8, seed=11, workers=1)
    b, yb = tn.make_dataset(8, seed=11, workers=1)
    c, _ = tn.make_dataset(8, seed=12, workers=1)
    assert a.shape == (8, tn.PATCH, tn.PATCH) and a.dtype == np.uint8
    assert np.array_equal(a, b) and np.array_equal(ya, yb)
    assert not np.array_equal(a, c)
    assert list(ya) == list(tn.SCHEDULE[:8])  # classes drawn in turn


def test_render_workers_draw_what_one_process_draws():
    """make_dataset's worker pool (spawned processes, as `make models` runs it after the shape model's
    build) renders the same patches and classes as one process."""
    a, ya = tn.make_dataset(6, seed=11, workers=2)
    b, yb = tn.make_dataset(6, seed=11, workers=1)
    assert np.array_equal(a, b) and np.array_equal(ya, yb)


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


def _digit_patch(text: str = "17") -> np.ndarray:
    """A sharp white numeral on a dark face, PATCH x PATCH uint8, as a clean render shows it."""
    import cv2

    p = np.full((tn.PATCH, tn.PATCH), 40, np.uint8)
    cv2.putText(p, text, (8, 32), cv2.FONT_HERSHEY_SIMPLEX, 0.8, 230, 2, cv2.LINE_AA)
    return p


def test_degrade_patch_blurs_and_flattens_a_patch_as_photos_do():
    """degrade_patch is not a no-op: over many draws the patches lose sharpness (Laplacian variance)
    and contrast (grey-level spread) on average, keep their shape and type, and some draws shrink the
    patch's detail below what a sharp render has; the same rng state gives the same patch."""
    import cv2

    p = _digit_patch()
    rng = np.random.default_rng(5)
    out = [tn.degrade_patch(p, rng) for _ in range(200)]
    assert all(q.shape == p.shape and q.dtype == np.uint8 for q in out)
    assert sum(not np.array_equal(q, p) for q in out) == len(out)  # every draw degrades something
    sharp = lambda q: float(cv2.Laplacian(q.astype(np.float32), cv2.CV_32F).var())  # noqa: E731
    assert np.mean([sharp(q) for q in out]) < 0.6 * sharp(p)
    assert np.mean([q.std() for q in out]) < 0.95 * p.std()
    assert np.array_equal(tn.degrade_patch(p, np.random.default_rng(9)), tn.degrade_patch(p, np.random.default_rng(9)))


def test_jitter_zoom_enlarges_the_numeral():
    """_jitter's zoom (finetune's D20_ZOOM for the d20-only classes) scales the patch about its centre:
    the numeral's ink covers more of the patch at zoom 1.5 than at 1."""
    p = np.stack([_digit_patch()] * 8)
    plain = tn._jitter(p, np.random.default_rng(2))
    zoomed = tn._jitter(p, np.random.default_rng(2), np.full(8, 1.5))
    assert (zoomed > 128).sum() > 1.8 * (plain > 128).sum()


def test_clutter_patch_puts_a_neighbour_numeral_at_the_border_only():
    """clutter_patch is not a no-op: every draw changes the border band (a neighbour face beyond an edge
    at least CLUTTER_EDGE[0] x PATCH from the centre), the donor's bright numeral shows there on many draws
    (the patch's own border is plain), and the central disc (0.6 x PATCH across) is never touched."""
    import cv2

    p = np.full((tn.PATCH, tn.PATCH), 40, np.uint8)
    cv2.circle(p, (tn.PATCH // 2, tn.PATCH // 2), 8, 220, 3)  # the patch's own numeral, light on dark
    donor = _digit_patch("8")
    yy, xx = np.mgrid[:tn.PATCH, :tn.PATCH]
    c = (tn.PATCH - 1) / 2
    centre = np.hypot(xx - c, yy - c) < tn.CLUTTER_EDGE[0] * tn.PATCH - 1
    rng = np.random.default_rng(4)
    out = [tn.clutter_patch(p, donor, rng) for _ in range(100)]
    assert all(q.shape == p.shape and q.dtype == np.uint8 for q in out)
    assert all((q[centre] == p[centre]).all() for q in out)
    assert all((q != p).any() for q in out)
    assert sum(int(q[~centre].max()) > 120 for q in out) > 30  # the donor's ink, in p's grey levels, shaded


def test_jitter_pad_fills_the_uncovered_rim_with_the_border_grey():
    """_jitter with pad (finetune's SIZE_OUT) fills the rim a scale under 1 uncovers with the median grey
    of the patch's outer ring, where without pad it repeats the edge pixels (a bright edge line smears)."""
    p = np.full((tn.PATCH, tn.PATCH), 60, np.uint8)
    p[:, 0] = 230  # a bright line along one edge: not the border's median grey
    xb = np.stack([p] * 4)
    zoom = np.full(4, 0.7)
    padded = tn._jitter(xb, np.random.default_rng(1), zoom, np.ones(4, bool))
    smeared = tn._jitter(xb, np.random.default_rng(1), zoom)
    assert (padded[:, :, :2] <= 61).mean() > 0.95
    assert (smeared[:, :, :2] > 200).mean() > 0.5


#: torch is in the `train` extra only (`make models` installs it, `make test` does not)
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="torch not installed: the train extra (pip install -e '.[train]', as make models does)")


@needs_torch
def test_folded_net_computes_what_the_batch_norm_net_does():
    """fold_batch_norm leaves no batch norm (the ONNX file's Conv + Relu) and the same logits."""
    import torch

    net = tn.build_net(len(tn.CLASSES))
    with torch.no_grad():  # batch norm statistics that are not the identity
        for m in net.modules():
            if isinstance(m, torch.nn.BatchNorm2d):
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
                m.weight.uniform_(0.5, 1.5)
                m.bias.uniform_(-0.2, 0.2)
    net.eval()
    folded = tn.fold_batch_norm(net)
    assert not any(isinstance(m, torch.nn.BatchNorm2d) for m in folded.modules())
    x = tn._to_input(np.stack([_digit_patch(), _digit_patch("8")]))
    with torch.no_grad():
        assert torch.allclose(net(x), folded(x), atol=1e-4)


@needs_torch
def test_finetune_degrades_and_zooms_only_what_it_is_told(monkeypatch):
    """finetune's control (degrade = d20_zoom = 0) sees the first stage's augmentation only; with
    degrade = 1 every patch passes degrade_patch, with d20_zoom = 1 only the D20_ONLY classes are zoomed."""
    calls: list[int] = []
    zooms: list[np.ndarray] = []
    real_degrade, real_jitter = tn.degrade_patch, tn._jitter
    monkeypatch.setattr(tn, "degrade_patch", lambda p, rng: calls.append(1) or real_degrade(p, rng))
    monkeypatch.setattr(tn, "_jitter",
                        lambda xb, rng, zoom=None, pad=None: zooms.append(zoom) or real_jitter(xb, rng, zoom, pad))
    x = np.stack([_digit_patch()] * 32)
    y = np.array([13, 5] * 16)
    net = tn.build_net(len(tn.CLASSES)).eval()
    tn.finetune(net, x, y, epochs=1, degrade=0.0, d20_zoom=0.0, batch=32, log=lambda s: None)
    assert not calls and all((z == 1.0).all() for z in zooms)
    zooms.clear()
    tuned = tn.finetune(net, x, y, epochs=1, degrade=1.0, d20_zoom=1.0, batch=32, log=lambda s: None)
    assert len(calls) == 32 and not tuned.training
    (z,) = zooms  # one batch: half its patches are class 13 (a d20-only class), half class 5
    assert (z > 1.0).sum() == np.isin(y, tn.D20_ONLY).sum() == 16
    assert z.max() <= tn.D20_ZOOM[1]


@needs_torch
def test_finetune_sizes_and_clutters_only_what_it_is_told(monkeypatch):
    """With size = 1 every patch the d20 zoom leaves is scaled within SIZE_OUT..SIZE_IN (the ones scaled
    out padded), with clutter = 1 every patch gets a neighbour face whose donor is another class's patch;
    with both 0 neither happens (the control)."""
    donors: list[int] = []
    zooms: list[tuple] = []
    real_clutter, real_jitter = tn.clutter_patch, tn._jitter
    monkeypatch.setattr(tn, "clutter_patch", lambda p, d, rng: donors.append(int(d[0, 0])) or real_clutter(p, d, rng))
    monkeypatch.setattr(tn, "_jitter", lambda xb, rng, zoom=None, pad=None: zooms.append((zoom, pad))
                        or real_jitter(xb, rng, zoom, pad))
    x = np.stack([_digit_patch()] * 32)
    y = np.array([13, 5] * 16)
    x[:, 0, 0] = y  # tells the donor's class
    net = tn.build_net(len(tn.CLASSES)).eval()
    tn.finetune(net, x, y, epochs=1, d20_zoom=0.0, clutter=0.0, size=0.0, batch=32, log=lambda s: None)
    assert not donors and all((z == 1.0).all() and p is None for z, p in zooms)
    zooms.clear()
    tn.finetune(net, x, y, epochs=1, d20_zoom=0.0, clutter=1.0, size=1.0, batch=32, log=lambda s: None)
    ((z, pad),) = zooms
    assert (z != 1.0).all() and z.min() >= tn.SIZE_OUT[0] and z.max() <= tn.SIZE_IN[1]
    assert pad.any() and (z[pad] <= tn.SIZE_OUT[1]).all()
    assert len(donors) == 32 and set(donors) == {5, 13}
