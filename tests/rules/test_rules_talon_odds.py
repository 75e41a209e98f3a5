"""Talon odds (issue 3 item 7): the exact enumeration of talon_odds against brute force.

Brute force: every order of a small talon in which the Nameless Arcanum lies among the bottom
`bottom_pile` cards is equally likely; the real test engine (talon.run_test) resolves each order,
revealing cards one by one exactly as it does from the virtual deck. The enumeration must give the
same exact fractions, grade by grade, total by total, and for the cycle end.
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from itertools import permutations
from typing import Any

import pytest

from dicetower.rules import RulesError
from dicetower.rules.talon import run_test
from dicetower.rules.talon_deck import NAMELESS, full_deck
from dicetower.rules.talon_odds import (OrderSource, TalonExhausted, continuation_odds, fumble_odds, odds_of_test,
                                        sampled_odds)


def brute_force(inputs: dict[str, Any], cards: list[str], bottom_pile: int) -> dict[str, Any]:
    grades: dict[str, Fraction] = defaultdict(Fraction)
    totals: dict[int, Fraction] = defaultdict(Fraction)
    cycle = Fraction(0)
    window = min(bottom_pile, len(cards))
    orders = [o for o in permutations(cards)
              if NAMELESS not in o or o.index(NAMELESS) >= len(cards) - window]
    weight = Fraction(1, len(orders))
    for order in orders:
        try:
            out = run_test(inputs, OrderSource(order))
        except TalonExhausted:
            grades["talon_exhausted"] += weight
            continue
        grades[out["grade"]] += weight
        if "total" in out:
            totals[out["total"]] += weight
        if out["cycle_end_after_test"]:
            cycle += weight
    return {"grades": dict(grades), "totals": dict(totals), "cycle_end": cycle}


def as_fractions(odds: dict[str, Any]) -> dict[str, Any]:
    return {"grades": {o["outcome"]: Fraction(o["fraction"]) for o in odds["outcomes"]},
            "totals": {t["total"]: Fraction(t["fraction"]) for t in odds["totals"] if Fraction(t["fraction"])},
            "cycle_end": Fraction(odds["cycle_end"]["fraction"])}


CASES = [
    ("plain", {"skill_value": 6}, ["13C", "12C", "5E", NAMELESS, "ARC3", "1B"], 11),
    ("window", {"skill_value": 6}, ["13C", "4C", "ARC2", "9D", NAMELESS, "1E", "ARC5"], 3),
    ("declared suit", {"skill_value": 2, "declared_suit": "D"}, ["13C", "4D", "11D", "ARC9", NAMELESS, "6E"], 3),
    ("uniforme", {"skill_value": 3, "atouts": ["uniforme_continuite"]},
     ["13B", "ARC4", "6B", "2B", NAMELESS, "7C", "ARC0"], 4),
    ("finir en beaute", {"skill_value": 3, "atouts": ["finir_en_beaute"]},
     ["13B", "ARC4", "6B", NAMELESS, "7C", "12B"], 3),
    ("archetype", {"skill_value": 5, "archetype": "combattant", "skill": "armes_blanches"},
     ["13D", "5E", "3E", "7C", "ARC1", NAMELESS], 2),
    ("ace check", {"skill_value": 4, "player_choice": "reveal_check_card", "atouts": ["demolition_man"]},
     ["1C", "13E", "ARC2", "ARC7", NAMELESS, "9B"], 11),
    ("advantage", {"skill_value": 4, "mode": "advantage"}, ["13C", "1E", "8D", "ARC3", "12C", NAMELESS], 3),
    ("disadvantage", {"skill_value": 4, "mode": "disadvantage", "cheap_chips_spent": 1},
     ["13C", "1E", "8D", "ARC3", "12C", NAMELESS], 11),
    ("cocu", {"skill_value": 1, "atouts": ["une_veine_de_cocu"], "declared_suit": "C"},
     ["11C", "3C", "13C", "ARC8", "9E", NAMELESS], 3),
]


@pytest.mark.parametrize("inputs,cards,bottom", [pytest.param(i, c, b, id=n) for n, i, c, b in CASES])
def test_enumeration_equals_brute_force_over_every_order(inputs, cards, bottom):
    exact = as_fractions(odds_of_test({**inputs, "remaining_cards": cards}, bottom_pile=bottom))
    assert exact == brute_force(inputs, cards, bottom)


def test_full_deck_odds_are_a_distribution_and_match_simple_reasoning():
    """Skill 9 - 5 = effective 4 (seed example, Robert): an honour >= 10 wins, an Ace always fails
    (TAL-D04); a King always wins. The first honour is uniform over the 52."""
    odds = odds_of_test({"skill_value": 9, "modifiers": [-3, -2]})
    fractions = {o["outcome"]: Fraction(o["fraction"]) for o in odds["outcomes"]}
    assert sum(fractions.values()) == 1
    assert fractions["critical_failure"] == Fraction(4, 52)  # Ace, default: accept the critical failure
    assert Fraction(odds["success"]["fraction"]) == Fraction(4 * 4, 52)  # 10, Kn, Q, K of each suit
    assert Fraction(odds["cycle_end"]["fraction"]) == 0  # the Nameless is never within reach of a full deck
    assert odds["cards_left"] == 74 and "exact" in odds["method"]


def test_fumble_check_odds_count_kings_and_high_arcana():
    """Skill 9, check card: 4 Kings + arcana 10..12, 14..21 (11) are critical; the next card is one of
    the 72 cards left other than the Nameless, which lies among the bottom 11 of the 73."""
    odds = fumble_odds({"skill_value": 9, "first_honour": "1C"})
    assert Fraction(odds["critical_failure"]["fraction"]) == Fraction(4 + 11, 72)
    assert odds["cycle_end"]["fraction"] == "0/1"
    demolition = fumble_odds({"skill_value": 9, "first_honour": "1C", "atouts": ["demolition_man"]})
    assert Fraction(demolition["critical_failure"]["fraction"]) == Fraction(4 + 14, 72)  # n + 3 > 9: n >= 7


def test_continuation_odds_with_only_declared_suit_cards_left_report_exhaustion():
    odds = continuation_odds({"skill_value": 1, "cards_revealed": ["13B"], "declared_suit": "C",
                              "remaining_cards": ["2C", "3C"]})
    grades = {o["outcome"]: o["fraction"] for o in odds["outcomes"]}
    assert grades == {"talon_exhausted": "1/1"}


def test_sans_limite_odds_are_sampled_within_their_stated_bound():
    """Sans limite ou presque is sampled: every probability lies within the reported Hoeffding bound
    of the brute-force value (seeded, so the check is repeatable)."""
    inputs = {"skill_value": 1, "atouts": {"sans_limite_ou_presque": 1}}
    cards = ["13B", "4C", "9D", "2C", "ARC3", NAMELESS, "5E"]
    exact = brute_force(inputs, cards, 11)
    sampled = sampled_odds({**inputs, "remaining_cards": cards}, "talon.simple_test", samples=4000, seed=7)
    assert sampled["method"].startswith("sampled") and sampled["error_bound"] > 0
    got = {o["outcome"]: Fraction(o["fraction"]) for o in sampled["outcomes"]}
    for grade in set(exact["grades"]) | set(got):
        assert abs(got.get(grade, 0) - exact["grades"].get(grade, 0)) <= sampled["error_bound"], grade
    assert odds_of_test({"skill_value": 5, "atouts": ["sans_limite_ou_presque:2"]})["method"].startswith("sampled")


def test_odds_refuse_bad_cards():
    with pytest.raises(RulesError, match="twice"):
        odds_of_test({"skill_value": 5, "remaining_cards": ["2C", "2C"]})
    with pytest.raises(RulesError, match="Valet"):
        odds_of_test({"skill_value": 5, "remaining_cards": ["14C"]})


def test_odds_read_the_saved_deck(tmp_path):
    from dicetower.rules.talon_deck import Deck

    deck = Deck(["ana", "bo"])
    deck.cycle_start()
    path = tmp_path / "talon.json"
    deck.save(path)
    odds = odds_of_test({"skill_value": 8, "deck_file": str(path)})
    assert odds["cards_left"] == 72 == len(deck.remaining())
    assert set(deck.remaining()) < set(full_deck())
