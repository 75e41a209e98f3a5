"""Wald's sequential probability ratio test (SPRT) and the live fairness watch (issue 5, item 3).

SPRT is in neither scipy nor statsmodels, so this short implementation is ours. Source: A. Wald,
"Sequential Tests of Statistical Hypotheses", Ann. Math. Statist. 16 (1945) 117-186; bounds and average
sample numbers (ASN) are Wald's approximations (section 3 and 4 of that paper; also NIST/SEMATECH
e-Handbook of Statistical Methods, 6.2.3.1 "Sequential sampling").

For a Bernoulli event (one face of a die coming up) with H0: p = p0 against H1: p = p1 > p0, after each
roll the log-likelihood ratio (LLR) grows by ln(p1/p0) if the face came up, else by ln((1-p1)/(1-p0)).
The test stops at the first roll where

    LLR >= A = ln((1 - beta) / alpha)   -> accept H1 (the face comes up too often: alarm)
    LLR <= B = ln(beta / (1 - alpha))   -> accept H0 (no bias of that size)

and needs on average E[N] = (P(accept H1) * A + P(accept H0) * B) / E[step] rolls.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dicetower.readings import DieReading

from .rolllog import die_sides

ACCEPT_H1 = "H1"
ACCEPT_H0 = "H0"


@dataclass
class SPRT:
    """Wald's SPRT for a Bernoulli proportion, H0: p = p0 against H1: p = p1 (p0 != p1, both in (0, 1)).

    alpha: type I error (deciding H1 when H0 is true); beta: type II error (deciding H0 under H1).
    Attributes after updates: llr (current log-likelihood ratio), n (observations), decision
    (None while the test continues, "H1" or "H0" once it has stopped).
    Raises ValueError for probabilities outside (0, 1) or p0 == p1.
    """

    p0: float
    p1: float
    alpha: float = 0.05
    beta: float = 0.2
    llr: float = 0.0
    n: int = 0
    decision: str | None = None

    def __post_init__(self) -> None:
        for name in ("p0", "p1", "alpha", "beta"):
            value = getattr(self, name)
            if not 0.0 < value < 1.0:
                raise ValueError(f"{name} must lie strictly between 0 and 1, not {value}")
        if self.p0 == self.p1:
            raise ValueError("p0 and p1 must differ")

    @property
    def upper(self) -> float:
        """A = ln((1 - beta) / alpha): crossing it accepts H1."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        """B = ln(beta / (1 - alpha)): crossing it accepts H0."""
        return math.log(self.beta / (1.0 - self.alpha))

    @property
    def step_success(self) -> float:
        """LLR increment when the event happens: ln(p1 / p0)."""
        return math.log(self.p1 / self.p0)

    @property
    def step_failure(self) -> float:
        """LLR increment when it does not: ln((1 - p1) / (1 - p0))."""
        return math.log((1.0 - self.p1) / (1.0 - self.p0))

    def update(self, success: bool) -> str | None:
        """Add one observation; return the decision ("H1", "H0") when this one stops the test, else None.
        Raises RuntimeError when called after the test has stopped (use reset())."""
        if self.decision is not None:
            raise RuntimeError(f"the SPRT already stopped with {self.decision}; reset() it to test again")
        self.n += 1
        self.llr += self.step_success if success else self.step_failure
        if self.llr >= self.upper:
            self.decision = ACCEPT_H1
        elif self.llr <= self.lower:
            self.decision = ACCEPT_H0
        return self.decision

    def reset(self) -> None:
        """Start a new test with the same hypotheses (LLR 0, no observations)."""
        self.llr, self.n, self.decision = 0.0, 0, None

    def expected_step(self, p: float) -> float:
        """E[LLR increment] when the true probability is p."""
        return p * self.step_success + (1.0 - p) * self.step_failure

    def asn(self, under: str) -> float:
        """Wald's approximate average sample number under "H0" (p = p0) or "H1" (p = p1), in observations:
        E1[N] = ((1-beta) A + beta B) / E1[step];  E0[N] = (alpha A + (1-alpha) B) / E0[step]."""
        if under == ACCEPT_H1:
            return ((1 - self.beta) * self.upper + self.beta * self.lower) / self.expected_step(self.p1)
        if under == ACCEPT_H0:
            return (self.alpha * self.upper + (1 - self.alpha) * self.lower) / self.expected_step(self.p0)
        raise ValueError(f"under must be 'H0' or 'H1', not {under!r}")

    def trace(self, successes: np.ndarray) -> np.ndarray:
        """Run the test as the live watch does over a sequence of observations (bool, shape (n,)):
        restart after each H0 decision, stop at H1. Returns the LLR after each observation, shape (m,),
        m <= n (m < n when H1 was reached). Leaves this SPRT reset."""
        self.reset()
        out = []
        for success in np.asarray(successes, dtype=bool):
            decision = self.update(bool(success))
            out.append(self.llr)
            if decision == ACCEPT_H1:
                break
            if decision == ACCEPT_H0:
                self.reset()
        self.reset()
        return np.asarray(out)


@dataclass(frozen=True)
class Alarm:
    """A die whose face came up more often than a fair die's, by the watch's SPRT.

    die: the die's name (die_id, or "d20 (no id)"); die_type: "d20", ...; face: the face (1..sides);
    n: readings of that die so far; llr: the face's LLR when it crossed; bound: the upper bound A;
    p0/p1: the fair and the alarm probability of that face.
    """

    die: str
    die_type: str
    face: int
    n: int
    llr: float
    bound: float
    p0: float
    p1: float

    @property
    def message(self) -> str:
        """One line for the CLI."""
        return (f"ALARM {self.die} ({self.die_type}): face {self.face} comes up too often: SPRT LLR "
                f"{self.llr:+.3f} >= {self.bound:+.3f} (p0 {self.p0:.4f} vs p1 {self.p1:.4f}) after {self.n} rolls")

    def screen(self) -> list[str]:
        """OLED lines (at most 16 characters each) for the tower's display."""
        return ["DIE ALARM", self.die[:16], f"{self.die_type} face {self.face}"[:16], "too often", f"n={self.n}"[:16]]


@dataclass
class FairnessWatch:
    """Live watch over a session: one SPRT per die and face, fed one reading at a time.

    For a die with k faces, each face is tested for H0: p = 1/k against H1: p = (1 + relative_bias)/k
    (relative_bias 0.2 on a d20 is the issue's oracle: 0.05 against 0.06). The family error alpha is
    split over the k faces (Bonferroni: alpha/k per face) so a fair die raises a false alarm with
    probability at most about alpha per test cycle. A face whose test accepts H0 starts a new test (the
    watch never stops looking); a face that alarms is reported once and no longer tested.
    Readings with no face value (symbols only) are skipped.
    """

    relative_bias: float = 0.2
    alpha: float = 0.05
    beta: float = 0.2
    tests: dict[tuple[str, int], SPRT] = field(default_factory=dict)
    rolls: dict[str, int] = field(default_factory=dict)
    alarms: list[Alarm] = field(default_factory=list)

    @staticmethod
    def die_name(reading: DieReading) -> str:
        """The watch's key for a die: its die_id, or "<type> (no id)" for unidentified dice."""
        return reading.die_id if reading.die_id else f"{reading.die_type} (no id)"

    def face_test(self, sides: int) -> SPRT:
        """A fresh SPRT for one face of a die with `sides` faces: p0 = 1/sides against
        p1 = (1 + relative_bias)/sides, at alpha/sides and beta."""
        p0 = 1.0 / sides
        return SPRT(p0, min(p0 * (1 + self.relative_bias), 0.999), self.alpha / sides, self.beta)

    def feed(self, reading: DieReading) -> Alarm | None:
        """Add one reading (its value, corrected if a person corrected it); return an Alarm when one of
        the die's faces crosses its upper bound with this reading, else None.
        Raises LogError for an unknown die type."""
        if reading.value is None:
            return None
        sides = die_sides(reading.die_type)
        name = self.die_name(reading)
        self.rolls[name] = self.rolls.get(name, 0) + 1
        alarm = None
        for face in range(1, sides + 1):
            key = (name, face)
            test = self.tests.get(key)
            if test is None:
                test = self.tests[key] = self.face_test(sides)
            if test.decision == ACCEPT_H1:
                continue
            decision = test.update(reading.value == face)
            if decision == ACCEPT_H0:
                test.reset()
            elif decision == ACCEPT_H1:
                alarm = Alarm(name, reading.die_type, face, self.rolls[name], test.llr, test.upper, test.p0, test.p1)
                self.alarms.append(alarm)
        return alarm

    def feed_roll(self, readings: list[DieReading]) -> list[Alarm]:
        """Feed every reading of one roll; return the alarms it raised (usually none)."""
        return [alarm for alarm in map(self.feed, readings) if alarm is not None]
