"""The pip search's shortcuts (dicetower.vision.pips) give what the plain computation gives, on real
photos in ../shared (skipped when absent): lurig's numbered dice on wood (the grain and numerals the
search splits most) and matteop65's pip dice. pip_response's closing and opening by the rectangles of
the ellipse are OpenCV's elliptical black-hat and top-hat pixel for pixel; find_pips' min_diameter
(the close-up scales: pips the finer scale spans are not split for) drops only pips under it;
_level_and_spread's histograms give np.median's median and median absolute deviation of grey levels
(surround_snr's rings: any size, odd and even)."""

import csv

import cv2
import numpy as np
import pytest

from dicetower import paths
from dicetower.vision.detect import ANALYSIS_SCALES, KERNEL_PX, analysis_scale
from dicetower.vision.pips import SPANNED_BY_FINER, _level_and_spread, find_pips, pip_response

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
