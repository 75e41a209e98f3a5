"""The pip search's shortcuts (dicetower.vision.pips) give what the plain computation gives, on real photos in
../shared (skipped when absent): lurig's numbered dice on wood (the grain and numerals the search splits most)
and matteop65's pip dice. pip_response's closing and opening by the rectangles of the ellipse are OpenCV's
elliptical black-hat and top-hat pixel for pixel; find_pips' min_diameter (the close-up scales: pips the finer
scale spans are not split for) drops only pips under it; _level_and_spread's histograms give np.median's
median and median absolute deviation of grey levels (surround_snr's rings: any size, odd and even);
_quantile's partial sort gives np.percentile's quantiles (pip_marks' and face_roughness's 90th percentile) to
float32 rounding. The pairwise tests of read_faces on a frame of small dice read at twice the scale (hundreds
of pips): _segments_clear (every segment at once, each tested only against the pips that may reach it) and
_segment_clear with the frame's pip discs made once, _face_reaches with every point solved at once (to 1e-12:
LAPACK rounds a many-column solve in another order), stray_marks over the frame's PipTable, and
_within_side_reach's culling answer as the plain per-pair computation does. _layout_map's maps kept for the
centres asked before are the ones fitted, and face_confidence's answers kept during a read_faces call give the
faces computed afresh; a pip's covariance, made once, is its ellipse's."""

import csv

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision import pips as pips_module
from dicetower.vision.detect import ANALYSIS_SCALES, KERNEL_PX, analysis_scale
from dicetower.vision.pips import (FACE_MARGIN, SEAM_FRACTION, SPANNED_BY_FINER, Pip, PipTable, _face_reaches,
                                   _fit_layout_map, _layout_map, _level_and_spread, _pip_discs, _quantile,
                                   _segment_clear, _segments_clear, _side_face_by_shape, _within_side_reach, find_pips,
                                   group_faces, pip_response, read_faces, stray_marks)

DATASETS = paths.shared_dir() / "datasets"
LURIG, MATTEO = DATASETS / "lurig_dietype", DATASETS / "matteop65_table_d6"
needs_shared = pytest.mark.skipif(not (LURIG.is_dir() and MATTEO.is_dir()),
                                  reason=f"labelled photos not found under {DATASETS}")


def _photos(folder, step: int, count: int) -> list[np.ndarray]:
    """count grey photos of a labelled folder, every step-th of its sorted images."""
    with open(folder / "labels.csv", newline="") as fh:
        images = sorted({row["image"] for row in csv.DictReader(fh)})[::step][:count]
    return [cv2.cvtColor(cv2.imread(str(folder / image)), cv2.COLOR_BGR2GRAY) for image in images]


@needs_shared
@pytest.mark.parametrize("kernel_px", [5, 11, KERNEL_PX, 31])
def test_pip_response_is_the_elliptical_black_hat_and_top_hat(kernel_px):
    ellipse = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (kernel_px, kernel_px))
    for gray in _photos(LURIG, 23, 3) + _photos(MATTEO, 61, 3):
        assert np.array_equal(pip_response(gray, "dark", kernel_px), cv2.morphologyEx(gray, cv2.MORPH_BLACKHAT, ellipse))
        assert np.array_equal(pip_response(gray, "light", kernel_px), cv2.morphologyEx(gray, cv2.MORPH_TOPHAT, ellipse))


def _key(pips) -> list[tuple[float, ...]]:
    return [(p.x, p.y, p.area, p.roundness, p.contrast, p.snr, p.blob) for p in pips]


@needs_shared
def test_min_diameter_drops_only_pips_under_it_at_the_close_up_scales():
    compared = 0
    for gray in _photos(LURIG, 9, 8) + _photos(MATTEO, 61, 3):
        scales = [analysis_scale(gray.shape, long_side) for long_side in ANALYSIS_SCALES]
        for finer_s, s in zip(scales, scales[1:]):  # each close-up scale and the finer one read before it
            small = cv2.resize(gray, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
            smallest = SPANNED_BY_FINER * KERNEL_PX / (finer_s / s)
            for polarity in ("dark", "light"):
                response = pip_response(small, polarity, KERNEL_PX)
                every, thr = find_pips(response, small, KERNEL_PX)
                wanted, thr_wanted = find_pips(response, small, KERNEL_PX, min_diameter=smallest)
                assert thr_wanted == thr
                assert _key(wanted) == _key([p for p in every if p.diameter >= smallest])
                compared += len(wanted)
    assert compared > 0  # the photos hold pips (and numerals' pieces) of that size


def _plain_level_and_spread(values: np.ndarray) -> tuple[float, float]:
    """The median of grey levels and 1.4826 x their median absolute deviation, by np.median on float32."""
    levels = values.astype(np.float32)
    med = float(np.median(levels))
    return med, 1.4826 * float(np.median(np.abs(levels - med)))


def test_level_and_spread_from_histograms_is_the_plain_median_and_deviation():
    rng = np.random.default_rng(7)
    rings = [rng.integers(lo, hi, n, dtype=np.uint8) for n in (1, 2, 8, 9, 100, 101, 2000, 2001)
             for lo, hi in ((0, 256), (120, 124), (0, 2), (255, 256))]
    rings += [rng.normal(m, s, n).clip(0, 255).astype(np.uint8)
              for n in (30, 283, 5000) for m, s in ((40, 3), (200, 30))]
    for values in rings:
        assert _level_and_spread(values) == _plain_level_and_spread(values), values.size



@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_quantile_by_partial_sort_is_np_percentile(dtype):
    rng = np.random.default_rng(11)
    for n in list(range(1, 40)) + [99, 100, 1001]:
        for scale in (1.0, 60.0, 255.0):
            values = (rng.random(n) * scale).astype(dtype)
            values[rng.random(n) < 0.3] = values[0]  # ties, as grey levels have
            for q in (0.0, 0.1, 0.5, 0.9, 1.0):
                assert _quantile(values, q) == pytest.approx(float(np.percentile(values, 100 * q)), rel=1e-6, abs=1e-9)

def _plain_segment_clear(a, b, response, thr, pips) -> bool:
    """_segment_clear as written before its shortcuts: np.linspace, the pips' arrays made per segment."""
    n = max(int(np.hypot(b.x - a.x, b.y - a.y)), 2)
    xs, ys = np.linspace(a.x, b.x, n), np.linspace(a.y, b.y, n)
    px, py = np.array([p.x for p in pips])[:, None], np.array([p.y for p in pips])[:, None]
    reach = np.array([0.75 * p.diameter + 1.0 for p in pips])[:, None]
    keep = ~(np.hypot(xs - px, ys - py) < reach).any(axis=0)
    if keep.sum() < 2:
        return True
    h, w = response.shape
    vals = response[np.clip(ys[keep].round().astype(int), 0, h - 1), np.clip(xs[keep].round().astype(int), 0, w - 1)]
    return float((vals > SEAM_FRACTION * thr).mean()) <= 0.12


def _plain_stray_marks(group, pips) -> list:
    """stray_marks one pip at a time: each pip not in group whose edge nearest the group's centre lies within
    1 + FACE_MARGIN pitches of its layout (a lone pip's: 1.5 diameters a pitch)."""
    cx, cy = np.mean([p.x for p in group]), np.mean([p.y for p in group])
    marks = []
    for q in pips:
        if any(q is p for p in group):
            continue
        d = np.hypot(q.x - cx, q.y - cy)
        step = min(q.diameter / 2.0, d) / max(d, 1e-9)
        edge = (q.x + (cx - q.x) * step, q.y + (cy - q.y) * step)
        if len(group) == 1:
            reach = np.hypot(edge[0] - group[0].x, edge[1] - group[0].y) / (1.5 * group[0].diameter)
        else:
            reach = _plain_face_reaches(group, [edge])[0]
        marks += [q] if reach <= 1.0 + FACE_MARGIN else []
    return marks


def _plain_face_reaches(part, points) -> list[float]:
    """_face_reaches of a part of 2..6 pips, one np.linalg.solve per point."""
    _, m = _layout_map(np.array([[q.x, q.y] for q in part]))
    return [float(np.abs(np.linalg.solve(m[:2, :].T, np.array(pt) - m[2])).max()) for pt in points]


@needs_shared
def test_pairwise_shortcuts_answer_as_the_plain_tests_on_small_dice_read_finer():
    segments = clear = reaches = strays = culled = 0
    for gray in _photos(MATTEO, 47, 3):
        half = cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        frame = np.tile(half, (2, 2))  # four photos at half size to a frame (bench's small dice)
        finer = cv2.resize(frame, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC)  # as _finer_faces reads it
        for polarity in ("dark", "light"):
            response = pip_response(finer, polarity, KERNEL_PX)
            pips, thr = find_pips(response, finer, KERNEL_PX)
            discs = _pip_discs(pips)
            pairs = [(a, b) for i, a in enumerate(pips) for b in pips[i + 1:]
                     if np.hypot(a.x - b.x, a.y - b.y) <= 6 * (a.diameter + b.diameter)]
            plain = [_plain_segment_clear(a, b, response, thr, pips) for a, b in pairs]
            ends = np.array([[a.x, a.y, b.x, b.y] for a, b in pairs])
            assert _segments_clear(ends, response, thr, discs).tolist() == plain  # every segment at once
            assert [_segment_clear(a, b, response, thr, discs) for a, b in pairs] == plain  # one at a time
            segments += len(pairs)
            clear += sum(plain)
            groups = group_faces(pips, response, thr)
            points = [(p.x, p.y) for p in pips]
            table = PipTable(pips)
            for part in groups:
                if 2 <= len(part) <= 6:
                    # LAPACK solves many columns at once in another order: equal to the last bits or so
                    np.testing.assert_allclose(_face_reaches(part, np.array(points)), _plain_face_reaches(part, points),
                                               rtol=1e-12, atol=0)
                    reaches += 1
                marks = stray_marks(part, table)
                assert [id(q) for q in marks] == [id(q) for q in _plain_stray_marks(part, pips)]
                strays += len(marks)
            beside = _within_side_reach(groups, groups)
            for i, g in enumerate(groups):
                for j, h in enumerate(groups):
                    if not beside[i, j]:
                        assert _side_face_by_shape(g, h) is False
                        culled += 1
    assert segments > 500 and reaches > 30 and culled > 2000  # the frames hold many pips and faces (739, 60, 3564)
    assert 0 < clear < segments  # segments of both answers are compared
    assert strays > 0  # faces with marks on them are compared


def test_layout_map_kept_for_the_same_centres_is_the_fitted_one():
    rng = np.random.default_rng(11)
    for n in (2, 3, 4, 5, 6):
        for _ in range(20):
            pts = rng.integers(0, 200, (n, 2))  # whole px: the same centres as integers and as floats
            fitted = _fit_layout_map(pts.astype(np.float64))
            for asked in (pts.astype(np.float64), pts, pts.astype(np.float64)):  # again: the kept map
                err, m = _layout_map(asked)
                assert err == fitted[0] and np.array_equal(m, fitted[1])
                with pytest.raises(ValueError):
                    m[0, 0] = 0.0  # a kept map is read-only: no caller changes another's


@needs_shared
def test_confidences_kept_during_a_read_give_the_faces_computed_afresh(monkeypatch):
    halves = [cv2.resize(gray, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA) for gray in _photos(MATTEO, 19, 8)]
    small = [np.block([[a, b], [c, d]]) for a, b, c, d in (halves[:4], halves[4:])]  # small dice, four photos a frame
    finer = [cv2.resize(frame, None, fx=2.0, fy=2.0, interpolation=cv2.INTER_CUBIC) for frame in small]
    frames = [(gray, False) for gray in _photos(MATTEO, 61, 3) + _photos(LURIG, 23, 2)] + [(g, True) for g in finer]

    def faces(gray, enlarged):
        return [(f.value, f.confidence, f.box, [(p.x, p.y) for p in f.pips])
                for polarity in ("dark", "light") for f in read_faces(gray, polarity, KERNEL_PX, enlarged=enlarged)]

    kept = [faces(*frame) for frame in frames]
    assert pips_module._confidences is None and pips_module._grid_spread == 0.0  # nothing held once the reads are done
    monkeypatch.setattr(pips_module, "face_confidence", pips_module._face_confidence)
    assert [faces(*frame) for frame in frames] == kept
    assert sum(len(k) for k in kept) > 20  # the frames hold faces


@pytest.mark.parametrize("roundness, angle", [(1.0, 0.0), (0.5, 0.0), (0.5, 90.0), (0.7, 30.0), (0.3, 135.0)])
def test_pip_cov_made_once_is_its_ellipses_covariance(roundness, angle):
    major = 200.0
    canvas = np.zeros((300, 300), np.uint8)
    cv2.ellipse(canvas, ((150.0, 150.0), (major, roundness * major), angle), 255, -1)
    m = cv2.moments(canvas, binaryImage=True)
    drawn = np.array([[m["mu20"], m["mu11"]], [m["mu11"], m["mu02"]]]) / m["m00"]  # the filled ellipse's moments
    pip = Pip(150.0, 150.0, np.pi / 4 * major * major * roundness, roundness, angle, 50.0)
    np.testing.assert_allclose(pip.cov, drawn, atol=0.02 * major * major / 16)  # the drawn outline's pixels: ~1 %
    assert pip.cov is pip.cov  # made once
    with pytest.raises(ValueError):
        pip.cov[0, 0] = 0.0  # read-only: every face the pip is tried in reads the same
