"""Wald's SPRT against the issue's oracle, by simulation, and the live watch on simulated dice."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dicetower.audit.sprt import SPRT, FairnessWatch
from dicetower.readings import DieReading


def test_bounds_and_increments_match_the_oracle():
    test = SPRT(p0=0.05, p1=0.06, alpha=0.05, beta=0.2)
    assert test.upper == pytest.approx(2.773, abs=5e-4)
    assert test.lower == pytest.approx(-1.558, abs=5e-4)
    assert test.step_success == pytest.approx(math.log(1.2)) and test.step_success == pytest.approx(0.1823, abs=5e-5)
    assert test.step_failure == pytest.approx(math.log(0.94 / 0.95))
    assert test.step_failure == pytest.approx(-0.01058, abs=5e-6)


def test_average_sample_numbers_match_the_oracle():
    test = SPRT(0.05, 0.06, 0.05, 0.2)
    assert test.asn("H1") == pytest.approx(1922, abs=1)
    assert test.asn("H0") == pytest.approx(1432, abs=1)
    with pytest.raises(ValueError):
        test.asn("H2")


def run_many(p_true: float, runs: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Run `runs` SPRTs on Bernoulli(p_true) draws; return (decisions == H1, sample sizes)."""
    rng = np.random.default_rng(seed)
    h1, sizes = [], []
    for _ in range(runs):
        test = SPRT(0.05, 0.06, 0.05, 0.2)
        draws = rng.random(40_000) < p_true
        for x in draws:
            if test.update(bool(x)):
                break
        assert test.decision is not None
        h1.append(test.decision == "H1")
        sizes.append(test.n)
    return np.array(h1), np.array(sizes)


def test_simulated_error_rates_and_sample_sizes_agree_with_wald():
    h1_under_p1, n_p1 = run_many(0.06, 150, seed=11)
    h1_under_p0, n_p0 = run_many(0.05, 150, seed=12)
    # Wald's bounds keep the true error rates at or below about alpha and beta (binomial noise allowed)
    assert 1 - h1_under_p1.mean() < 0.2 + 0.08
    assert h1_under_p0.mean() < 0.05 + 0.04
    # and the mean sample sizes near the ASN approximations (overshoot makes them a little larger)
    assert 1922 * 0.8 < n_p1.mean() < 1922 * 1.3
    assert 1432 * 0.8 < n_p0.mean() < 1432 * 1.3


def test_update_after_stop_and_bad_parameters_raise():
    test = SPRT(0.05, 0.06)
    for _ in range(16):
        test.update(True)
    assert test.decision == "H1" and test.n == 16  # 16 * ln 1.2 = 2.917 > 2.773 (15 gives 2.735)
    with pytest.raises(RuntimeError, match="reset"):
        test.update(False)
    test.reset()
    assert test.llr == 0 and test.decision is None
    with pytest.raises(ValueError):
        SPRT(0.05, 0.05)
    with pytest.raises(ValueError):
        SPRT(0.0, 0.06)


def test_trace_restarts_after_h0_and_stops_at_h1():
    test = SPRT(0.05, 0.06)
    misses = np.zeros(400, dtype=bool)
    path = test.trace(misses)
    assert path.size == 400 and path.min() > test.lower - 0.02 and path.max() <= 0  # restarted, never alarmed
    hits = np.ones(100, dtype=bool)
    assert test.trace(hits).size == 16


def d20(value: int, die_id: str = "blue") -> DieReading:
    return DieReading("d20", value, (0, 0, 10, 10), 0.99, die_id=die_id)


def test_watch_alarms_on_a_loaded_d20_and_names_the_face():
    rng = np.random.default_rng(5)
    p = np.full(20, 0.8 / 19)
    p[19] = 0.2  # face 20 four times as likely as fair
    watch = FairnessWatch()
    alarm = None
    for value in rng.choice(20, size=3000, p=p) + 1:
        alarm = watch.feed(d20(int(value), "loaded"))
        if alarm:
            break
    assert alarm is not None and alarm.face == 20 and alarm.die == "loaded"
    assert alarm.llr >= alarm.bound and all(len(line) <= 16 for line in alarm.screen())
    assert "face 20" in alarm.message


def test_watch_stays_quiet_on_most_fair_dice():
    rng = np.random.default_rng(6)
    alarmed = 0
    for die in range(20):
        watch = FairnessWatch()
        alarms = [watch.feed(d20(int(v), f"fair{die}")) for v in rng.integers(1, 21, size=2000)]
        alarmed += any(alarms)
    assert alarmed <= 4  # family alpha 0.05 per test cycle; restarts add some, never most dice


def test_watch_keeps_dice_apart_and_skips_unread_faces():
    watch = FairnessWatch()
    assert watch.feed(DieReading("stone", None, (0, 0, 1, 1), 0.9, die_id="s1")) is None
    for _ in range(40):  # 40 ln 1.2 = 7.3 > ln(0.8 / (0.05 / 20)) = 5.77
        watch.feed_roll([d20(20, "hot"), d20(1, "cold")])
    assert sorted((a.die, a.face) for a in watch.alarms) == [("cold", 1), ("hot", 20)]
    assert watch.rolls == {"hot": 40, "cold": 40}
