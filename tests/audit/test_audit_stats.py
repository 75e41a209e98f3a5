"""The audit's statistics: Weldon's dice reproduced, goodness of fit, per-face tests, serial
independence and power, each checked against an independent computation or a published figure."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps
from statsmodels.stats.power import NormalIndPower
from statsmodels.stats.proportion import proportion_effectsize

from dicetower.audit.stats import (audit_faces, binomial_counts, face_p_from_w, face_tests, goodness_of_fit,
                                   power, transitions, w_from_face_p)

WELDON = [185, 1149, 3265, 5475, 6114, 5194, 3067, 1331, 403, 105, 14, 4, 0]


def test_weldon_against_binomial_one_third_pooled_from_ten():
    res = binomial_counts(WELDON, 12, 1 / 3, pool_from=10)
    assert res.throws == 26306 and len(res.observed) == 11 and res.chi2.df == 10
    assert res.chi2.statistic == pytest.approx(35.494, abs=5e-4)
    assert res.chi2.pvalue == pytest.approx(1.03e-4, abs=5e-7)
    assert res.g.statistic == pytest.approx(35.103, abs=5e-4)
    assert res.labels[-1] == "10+" and res.observed[-1] == 18


def test_weldon_with_p_estimated():
    res = binomial_counts(WELDON, 12, None, pool_from=10)
    assert res.estimated and res.p == pytest.approx(0.337699, abs=5e-7)
    assert res.chi2.df == 9
    assert res.chi2.statistic == pytest.approx(8.180, abs=5e-4)
    assert res.chi2.pvalue == pytest.approx(0.516, abs=5e-4)


def test_binomial_counts_rejects_bad_input():
    with pytest.raises(ValueError, match="13 counts given for 11 dice"):
        binomial_counts(WELDON, 11, 1 / 3)
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        binomial_counts(WELDON, 12, 1.5)
    with pytest.raises(ValueError, match="pool-from"):
        binomial_counts(WELDON, 12, 1 / 3, pool_from=20)


def test_goodness_of_fit_matches_the_formulas():
    counts = np.array([20, 15, 25, 10, 18, 32])
    chi2, g = goodness_of_fit(counts)
    e = counts.sum() / 6
    assert chi2.statistic == pytest.approx(((counts - e) ** 2 / e).sum())
    assert g.statistic == pytest.approx(2 * (counts * np.log(counts / e)).sum())
    assert chi2.pvalue == pytest.approx(sps.chi2.sf(chi2.statistic, 5)) and chi2.df == 5


def test_face_tests_flag_only_the_loaded_face_after_holm():
    counts = np.array([100, 100, 100, 100, 100, 170])
    tests = face_tests(counts)
    assert [t.face for t in tests if t.biased] == [6]
    raw = sorted(t.pvalue for t in tests)
    assert min(t.pvalue_holm for t in tests) == pytest.approx(raw[0] * 6)  # Holm: smallest p times k


def test_serial_independence_catches_alternation_and_passes_random_rolls():
    alternating = np.tile([1, 2, 3, 4, 5, 6], 100)
    a = audit_faces("x", "d6", 6, alternating)
    assert a.serial is not None and a.serial.pvalue < 1e-10
    assert a.chi2.pvalue == pytest.approx(1.0)  # perfectly balanced counts
    rng = np.random.default_rng(3)
    r = audit_faces("y", "d6", 6, rng.integers(1, 7, size=3000))
    assert r.serial is not None and r.serial.pvalue > 0.001
    table = transitions(np.array([1, 2, 2, 1]), 2)
    assert table.tolist() == [[0, 1], [1, 1]]


def test_power_figures_are_consistent():
    assert face_p_from_w(w_from_face_p(0.06, 20), 20) == pytest.approx(0.06)
    pw = power(2397, 20)
    assert pw.stated_face_p == pytest.approx(0.06)
    # with the rolls needed, the smallest detectable face probability is the stated one
    at_needed = power(pw.rolls_needed, 20)
    assert at_needed.min_face_p_gof == pytest.approx(0.06, abs=2e-4)
    assert pw.min_face_p_gof > 0.06 and pw.rolls_needed > 2397
    # more rolls, smaller detectable bias
    assert power(20_000, 20).min_face_p_gof < pw.min_face_p_gof
    # the exact-face figure is Cohen's h back to a probability: h(min_face_p_binom, 1/20) gives power 0.8
    h = proportion_effectsize(pw.min_face_p_binom, 0.05)
    assert NormalIndPower().power(effect_size=h, nobs1=2397, alpha=0.05, ratio=0) == pytest.approx(0.8, abs=1e-3)
    # Cohen's w: one face at p, others equal, summed over cells
    p1 = np.full(20, (1 - 0.06) / 19)
    p1[0] = 0.06
    assert w_from_face_p(0.06, 20) == pytest.approx(math.sqrt(((p1 - 0.05) ** 2 / 0.05).sum()))


def test_audit_json_has_the_stable_keys():
    a = audit_faces("blue", "d20", 20, np.arange(1, 21).repeat(5))
    j = a.to_json()
    assert list(j)[:8] == ["die_id", "die_type", "n", "counts", "chi2", "p_chi2", "g", "p_g"]
    assert j["n"] == 100 and j["counts"] == [5] * 20 and j["chi2"] == 0 and j["p_chi2"] == pytest.approx(1.0)
