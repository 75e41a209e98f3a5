"""Exact odds of a procedure's outcomes, in the one JSON form `dicetower odds` prints.

Every system computes its distribution with icepool (exact rational arithmetic over dice) and hands
it to these helpers, so all procedures answer in the same shape (rules_common.md, "Odds"):

    {"procedure": "d6pool.count_successes", "method": "exact (icepool)",
     "outcomes": [{"outcome": 0, "fraction": "64/216"...}],   # fractions in lowest terms
     "success": {"fraction": "5/12", "percent": 41.67}, ...}   # named summaries

Fractions are strings "p/q" in lowest terms ("1" and "0" for certainty and impossibility are
written "1/1" and "0/1"); percents are floats rounded to 2 decimals.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Iterable, Mapping

import icepool

EXACT = "exact (icepool)"


def fraction_str(p: Fraction | int) -> str:
    """A probability as "p/q" in lowest terms, e.g. Fraction(10, 60) -> "1/6", 1 -> "1/1"."""
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator}"


def percent(p: Fraction | int) -> float:
    """A probability as a percentage rounded to 2 decimals: Fraction(1, 6) -> 16.67."""
    return round(float(Fraction(p)) * 100, 2)


def probability_json(p: Fraction | int) -> dict[str, Any]:
    """{"fraction": "p/q", "percent": x.xx} for one probability (0 <= p <= 1)."""
    return {"fraction": fraction_str(p), "percent": percent(p)}


def die_probabilities(die: icepool.Die) -> dict[Any, Fraction]:
    """outcome -> exact probability of an icepool die, in the die's outcome order."""
    total = die.denominator()
    return {outcome: Fraction(quantity, total) for outcome, quantity in die.items()}


def distribution_to_json(dist: icepool.Die | Mapping[Any, Fraction]) -> list[dict[str, Any]]:
    """[{"outcome": o, "fraction": "p/q", "percent": x}, ...] for an icepool die (outcomes in the
    die's order) or a mapping label -> Fraction (in the mapping's order). Outcomes of probability 0
    are left out. Raises ValueError when the probabilities do not sum to 1."""
    probs = die_probabilities(dist) if isinstance(dist, icepool.Die) else {k: Fraction(v) for k, v in dist.items()}
    if sum(probs.values(), Fraction(0)) != 1:
        raise ValueError(f"probabilities sum to {sum(probs.values(), Fraction(0))}, not 1")
    return [{"outcome": outcome, **probability_json(p)} for outcome, p in probs.items() if p]


def probability_where(dist: icepool.Die, predicate: Callable[[Any], bool]) -> Fraction:
    """Exact probability that the die's outcome satisfies `predicate`."""
    return sum((p for o, p in die_probabilities(dist).items() if predicate(o)), Fraction(0))


def label_distribution(dist: icepool.Die, label: Callable[[Any], str],
                       order: Iterable[str] = ()) -> dict[str, Fraction]:
    """Group a die's outcomes under labels (e.g. face -> "success"/"failure"): label -> Fraction.
    Labels listed in `order` come first, in that order (those never reached are left out)."""
    grouped: dict[str, Fraction] = {}
    for outcome, p in die_probabilities(dist).items():
        key = label(outcome)
        grouped[key] = grouped.get(key, Fraction(0)) + p
    ordered = {k: grouped[k] for k in order if k in grouped}
    ordered.update({k: v for k, v in grouped.items() if k not in ordered})
    return ordered


def odds_result(procedure_id: str, dist: icepool.Die | Mapping[Any, Fraction], *,
                method: str = EXACT, **summaries: Any) -> dict[str, Any]:
    """The odds JSON of one procedure: {"procedure", "method", "outcomes": distribution_to_json(dist)}
    plus named summaries. A summary given as a Fraction (a probability) becomes {"fraction", "percent"};
    an icepool die becomes a distribution list; anything else (an int, a mean as "p/q", a note) is
    kept as given."""
    out: dict[str, Any] = {"procedure": procedure_id, "method": method, "outcomes": distribution_to_json(dist)}
    for name, value in summaries.items():
        if isinstance(value, Fraction):
            out[name] = probability_json(value)
        elif isinstance(value, icepool.Die):
            out[name] = distribution_to_json(value)
        else:
            out[name] = value
    return out


#: Summaries shown on the idle screen, first present wins, with their 16-column label.
IDLE_SUMMARIES = (("success", "Success"), ("hit", "Hit"), ("win", "Win"))


def idle_line(odds: Mapping[str, Any]) -> str:
    """One OLED line (<= 16 ASCII columns) with the odds of the roll about to be made (issue 3, item 7):
    the first named summary among success/hit/win ("Success 41.67%"), else the mean
    ("Mean 1.50") or the most likely outcome ("Top 3 31.2%"). Raises ValueError on an odds JSON with
    no outcomes."""
    for key, label in IDLE_SUMMARIES:
        if isinstance(odds.get(key), Mapping) and "percent" in odds[key]:
            return f"{label} {odds[key]['percent']:.1f}%"[:16]
    if "mean" in odds:
        return f"Mean {float(Fraction(odds['mean'])):.2f}"[:16]
    if not odds.get("outcomes"):
        raise ValueError("odds hold no outcomes")
    top = max(odds["outcomes"], key=lambda o: o["percent"])
    return f"Top {top['outcome']} {top['percent']:.1f}%"[:16]


def idle_line_for(procedure_id: str, inputs: Mapping[str, Any]) -> str | None:
    """The idle screen's odds line for the roll the tower is about to make (issue 3, item 7): the
    procedure's odds on the plan's fixed inputs (e.g. {"dice": 7} for d6pool.count_successes,
    {"die": "d10", "tn": 8} for stepdie.test), folded by idle_line. None when the procedure rolls no
    dice or the inputs do not fix the roll yet (its odds raise RulesError); the caller then shows its
    usual idle text. Raises RulesError for an unknown procedure id."""
    from dicetower import rules

    proc = rules.get(procedure_id)
    if proc.odds is None:
        return None
    try:
        return idle_line(proc.odds(dict(inputs)))
    except rules.RulesError:
        return None
