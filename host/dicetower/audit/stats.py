"""Fairness statistics for logged dice (issue 5, items 2 and 4). The tests are scipy's and statsmodels';
this module chooses them, feeds them counts, and keeps their results together.

Sources:
* Pearson chi-square and the G-test (likelihood-ratio, Cressie-Read lambda = 0): scipy.stats.chisquare,
  scipy.stats.power_divergence; Sokal & Rohlf, "Biometry", 4th ed., ch. 17.
* Exact binomial test per face: scipy.stats.binomtest; Holm's step-down correction (S. Holm, "A Simple
  Sequentially Rejective Multiple Test Procedure", Scand. J. Statist. 6 (1979) 65-70) through
  statsmodels.stats.multitest.multipletests(method="holm").
* Serial independence and tower effects: contingency tables, scipy.stats.chi2_contingency.
* Power: Cohen's effect size w for goodness of fit (statsmodels GofChisquarePower) and Cohen's h for one
  proportion (statsmodels NormalIndPower with ratio=0, a one-sample test); J. Cohen, "Statistical Power
  Analysis for the Behavioral Sciences", 2nd ed. (1988), ch. 6 and 7.
* Binomial-count mode: W. F. R. Weldon's 26,306 throws of 12 dice (1894), as given in K. Pearson, "On the
  criterion that a given system of deviations ...", Phil. Mag. 50 (1900) 157-175.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.power import GofChisquarePower, NormalIndPower


@dataclass(frozen=True)
class TestResult:
    """A hypothesis test's result, shaped like scipy.stats' results.

    statistic: the test statistic (chi-square, G, ...); pvalue: its p-value; df: degrees of freedom
    (None when the test has none); test: which test ("pearson chi-square", "g-test", ...).
    """

    statistic: float
    pvalue: float
    df: int | None
    test: str

    def to_json(self) -> dict[str, Any]:
        return {"statistic": _num(self.statistic), "pvalue": _num(self.pvalue), "df": self.df, "test": self.test}


@dataclass(frozen=True)
class FaceTest:
    """Exact two-sided binomial test of one face: count of n against probability p0.

    pvalue: the unadjusted p-value; pvalue_holm: Holm-adjusted over the die's faces; biased: pvalue_holm < alpha.
    """

    face: int
    count: int
    expected: float
    pvalue: float
    pvalue_holm: float
    biased: bool


@dataclass(frozen=True)
class Power:
    """What `n` rolls of a `sides`-sided die can and cannot show, at alpha and power.

    min_w:           smallest Cohen's w the chi-square test detects
    min_face_p_gof:  that w as one face's probability (the other faces equally less likely)
    min_face_p_binom: smallest probability of one given face the exact-face test would detect
    rolls_needed:    rolls needed for the chi-square test to detect `stated_face_p` on one face
    """

    n: int
    sides: int
    alpha: float
    power: float
    min_w: float | None
    min_face_p_gof: float | None
    min_face_p_binom: float | None
    stated_face_p: float
    rolls_needed: int


def _num(x: float | None) -> float | None:
    """JSON-safe float (NaN -> None)."""
    if x is None:
        return None
    x = float(x)
    return None if math.isnan(x) else x


def goodness_of_fit(counts: np.ndarray, expected: np.ndarray | None = None, ddof: int = 0
                    ) -> tuple[TestResult, TestResult]:
    """Pearson chi-square and G-test of observed counts (shape (k,)) against expected counts (shape
    (k,), same total; default: uniform). ddof: parameters estimated from the data (df = k - 1 - ddof).
    Returns (chi-square, G). NaN results when there are no counts."""
    counts = np.asarray(counts, dtype=float)
    df = counts.size - 1 - ddof
    if counts.sum() == 0:
        return TestResult(math.nan, math.nan, df, "pearson chi-square"), TestResult(math.nan, math.nan, df, "g-test")
    chi2 = stats.chisquare(counts, expected, ddof=ddof)
    g = stats.power_divergence(counts, expected, ddof=ddof, lambda_="log-likelihood")
    return (TestResult(float(chi2.statistic), float(chi2.pvalue), df, "pearson chi-square"),
            TestResult(float(g.statistic), float(g.pvalue), df, "g-test"))


def face_tests(counts: np.ndarray, alpha: float = 0.05) -> list[FaceTest]:
    """Exact binomial test of each face of a fair die (p0 = 1/k), Holm-corrected over the k faces.
    counts: shape (k,), face 1 first."""
    counts = np.asarray(counts, dtype=int)
    n, k = int(counts.sum()), counts.size
    if n == 0:
        return []
    p = [stats.binomtest(int(c), n, 1.0 / k).pvalue for c in counts]
    reject, p_holm, _, _ = multipletests(p, alpha=alpha, method="holm")
    return [FaceTest(i + 1, int(c), n / k, float(pv), float(ph), bool(r))
            for i, (c, pv, ph, r) in enumerate(zip(counts, p, p_holm, reject))]


def contingency(table: np.ndarray, test: str) -> TestResult | None:
    """Chi-square test of independence of a contingency table (rows x columns of counts), after dropping
    empty rows and columns; None when fewer than 2 rows or 2 columns remain."""
    table = np.asarray(table)
    table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
    if table.shape[0] < 2 or table.shape[1] < 2:
        return None
    res = stats.chi2_contingency(table, correction=False)
    return TestResult(float(res.statistic), float(res.pvalue), int(res.dof), test)


def transitions(faces: np.ndarray, sides: int) -> np.ndarray:
    """Lag-1 transition table, shape (sides, sides): [i, j] = times face j+1 followed face i+1.
    faces: shape (n,), ints 1..sides in roll order."""
    faces = np.asarray(faces, dtype=np.int64) - 1
    if faces.size < 2:
        return np.zeros((sides, sides), dtype=np.int64)
    return np.bincount(faces[:-1] * sides + faces[1:], minlength=sides * sides).reshape(sides, sides)


def face_p_from_w(w: float, sides: int) -> float:
    """One face at p = 1/k + d and the other k-1 at 1/k - d/(k-1) have Cohen's w = d k / sqrt(k-1):
    return that face's p for a given w."""
    return 1.0 / sides + w * math.sqrt(sides - 1) / sides


def w_from_face_p(face_p: float, sides: int) -> float:
    """Cohen's w of one face at face_p, the other faces equally likely (inverse of face_p_from_w)."""
    return abs(face_p - 1.0 / sides) * sides / math.sqrt(sides - 1)


def power(n: int, sides: int, alpha: float = 0.05, power_: float = 0.8, stated_relative_bias: float = 0.2) -> Power:
    """What n rolls can and cannot rule out (Cohen's w / h through statsmodels), and how many rolls the
    chi-square test needs to see one face at (1 + stated_relative_bias)/k (0.2: a d20 face at 6 %)."""
    p0 = 1.0 / sides
    stated = p0 * (1.0 + stated_relative_bias)
    min_w = min_face_gof = min_face_binom = None
    if n >= 2:
        min_w = float(GofChisquarePower().solve_power(effect_size=None, nobs=n, alpha=alpha, power=power_, n_bins=sides))
        min_face_gof = face_p_from_w(min_w, sides)
        h = float(NormalIndPower().solve_power(effect_size=None, nobs1=n, alpha=alpha, power=power_, ratio=0))
        min_face_binom = min(1.0, math.sin(min(math.pi / 2, math.asin(math.sqrt(p0)) + h / 2)) ** 2)
    needed = GofChisquarePower().solve_power(effect_size=w_from_face_p(stated, sides), nobs=None, alpha=alpha,
                                             power=power_, n_bins=sides)
    return Power(n, sides, alpha, power_, min_w, min_face_gof, min_face_binom, stated, int(math.ceil(float(needed))))


@dataclass
class DieAudit:
    """Everything the report says about one die (or one dice set).

    die_id: the die's identity (None: unidentified dice of that type pooled); die_type: "d20", ...;
    kind: "die" or "set"; n: readings counted; counts: shape (sides,), face 1 first;
    chi2, g: goodness of fit to a fair die; faces: per-face exact tests (Holm);
    serial: lag-1 independence (None with too few rolls); transition: (sides, sides) table;
    power: what n rolls can rule out; effects: tower effects {"previous_face" | "drop_position" |
    "time_of_day": TestResult}; uncounted: readings not counted (no number read, or unsure and never
    confirmed by a person); corrected: readings counted with the face a person corrected them to (a
    reader's error put right, or a player's thumb on the scale: the report says how many); not_dice: of the
    uncounted, those a person said are no die (a side face or shadow read as a die, or a real die left out).
    """

    die_id: str | None
    die_type: str
    kind: str
    n: int
    counts: np.ndarray
    chi2: TestResult
    g: TestResult
    faces: list[FaceTest]
    serial: TestResult | None
    transition: np.ndarray
    power: Power
    effects: dict[str, TestResult] = field(default_factory=dict)
    uncounted: int = 0
    label: str = ""
    corrected: int = 0
    not_dice: int = 0

    @property
    def small_sample(self) -> bool:
        """True when a fair die's expected count per face is below 5: the chi-square and G-tests'
        asymptotic p-values are then rough (Cochran's rule), and only the exact per-face tests hold."""
        return self.n < 5 * self.counts.size

    def to_json(self) -> dict[str, Any]:
        """Stable JSON form (issue 5, item 6): die_id, die_type, n, counts, chi2, p_chi2, g, p_g, then
        df, per-face tests, serial test, power figures, tower effects, the readings not counted (uncounted), those
        counted as a person corrected them (corrected) and those a person said are no die (not_dice)."""
        return {
            "die_id": self.die_id, "die_type": self.die_type, "n": self.n,
            "counts": [int(c) for c in self.counts],
            "chi2": _num(self.chi2.statistic), "p_chi2": _num(self.chi2.pvalue),
            "g": _num(self.g.statistic), "p_g": _num(self.g.pvalue), "df": self.chi2.df,
            "kind": self.kind, "small_sample": self.small_sample,
            "faces": [{"face": f.face, "count": f.count, "p": f.pvalue, "p_holm": f.pvalue_holm, "biased": f.biased}
                      for f in self.faces],
            "serial": self.serial.to_json() if self.serial else None,
            "power": {k: _num(v) if isinstance(v, float) else v for k, v in asdict(self.power).items()},
            "effects": {name: res.to_json() for name, res in self.effects.items()},
            "uncounted": self.uncounted, "corrected": self.corrected, "not_dice": self.not_dice,
        }


def audit_faces(die_id: str | None, die_type: str, sides: int, faces: np.ndarray, *, kind: str = "die",
                alpha: float = 0.05, stated_relative_bias: float = 0.2, uncounted: int = 0,
                effects: dict[str, TestResult] | None = None, label: str = "",
                serial_test: str = "lag-1 serial independence", corrected: int = 0, not_dice: int = 0) -> DieAudit:
    """Audit one die (or dice set) from its faces in roll order (shape (n,), ints 1..sides); uncounted,
    corrected and not_dice: DieAudit's, told by the caller."""
    faces = np.asarray(faces, dtype=np.int64)
    counts = np.bincount(faces - 1, minlength=sides)[:sides] if faces.size else np.zeros(sides, dtype=np.int64)
    chi2, g = goodness_of_fit(counts)
    trans = transitions(faces, sides)
    return DieAudit(die_id, die_type, kind, int(faces.size), counts, chi2, g, face_tests(counts, alpha),
                    contingency(trans, serial_test), trans,
                    power(int(faces.size), sides, alpha, 0.8, stated_relative_bias), effects or {}, uncounted, label,
                    corrected, not_dice)


def binned_effect(faces: np.ndarray, groups: np.ndarray, sides: int, test: str) -> TestResult | None:
    """Does the face depend on a grouping (drop position bin, time-of-day bin, face before)?
    faces: shape (n,) 1..sides; groups: shape (n,) small non-negative ints. Chi-square of the table."""
    faces = np.asarray(faces, dtype=np.int64) - 1
    groups = np.asarray(groups, dtype=np.int64)
    if faces.size < 2:
        return None
    n_groups = int(groups.max()) + 1
    table = np.bincount(groups * sides + faces, minlength=n_groups * sides).reshape(n_groups, sides)
    return contingency(table, test)


@dataclass(frozen=True)
class BinomialCountResult:
    """Binomial-count goodness of fit (e.g. Weldon's dice: how many of 12 dice showed 5 or 6).

    observed/expected: the cells after pooling, shape (cells,); p: the success probability used;
    estimated: whether p was estimated from the data (then df = cells - 2); chi2, g: TestResults;
    labels: each cell's count of successes ("10+" for the pooled tail).
    """

    n_dice: int
    throws: int
    p: float
    estimated: bool
    labels: list[str]
    observed: np.ndarray
    expected: np.ndarray
    chi2: TestResult
    g: TestResult


def binomial_counts(counts: list[int], n_dice: int, p: float | None, pool_from: int | None = None
                    ) -> BinomialCountResult:
    """Test throws of n_dice dice, counts[k] = throws with k successes (k = 0..n_dice), against
    binomial(n_dice, p). p None: estimated as sum(k counts[k]) / (n_dice * throws), one df less.
    pool_from: cells k >= pool_from are pooled into one (their expected count is the binomial tail).
    Raises ValueError: counts not n_dice + 1 long, negative counts, p outside (0, 1), pool_from out of range."""
    obs = np.asarray(counts, dtype=float)
    if obs.size != n_dice + 1:
        raise ValueError(f"{obs.size} counts given for {n_dice} dice: give one count for each of 0..{n_dice} successes")
    if (obs < 0).any():
        raise ValueError("counts must not be negative")
    throws = int(obs.sum())
    if throws == 0:
        raise ValueError("all counts are zero: nothing to test")
    k = np.arange(n_dice + 1)
    estimated = p is None
    if p is None:
        p = float((k * obs).sum() / (n_dice * throws))
    if not 0.0 < p < 1.0:
        raise ValueError(f"p must lie strictly between 0 and 1, not {p}")
    cut = n_dice + 1 if pool_from is None else pool_from
    if not 1 <= cut <= n_dice + 1:
        raise ValueError(f"--pool-from must be between 1 and {n_dice}, not {pool_from}")
    exp = throws * stats.binom.pmf(k[:cut], n_dice, p)
    o = obs[:cut]
    labels = [str(i) for i in range(cut)]
    if cut <= n_dice:
        exp = np.append(exp, throws * stats.binom.sf(cut - 1, n_dice, p))
        o = np.append(o, obs[cut:].sum())
        labels.append(f"{cut}+")
    chi2, g = goodness_of_fit(o, exp, ddof=1 if estimated else 0)
    return BinomialCountResult(n_dice, throws, p, estimated, labels, o, exp, chi2, g)
