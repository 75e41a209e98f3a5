"""Alkemy rules (seed 001; RULES.md 2): dice checks (GEN-D04, ALK-D08), keep choices (ALK-D03/D04,
GEN-D05), opposed ties (ALK-D06), exact odds checked against a brute-force enumeration, OLED forms.
The shared vectors run in test_rules_vectors.py; these tests cover what the vectors do not."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from dicetower import rules
from dicetower.readings import DieReading
from dicetower.rules.screen import check_screen


def dice(colour: str, *values: int, **extra) -> list[dict]:
    return [{"colour": colour, "value": v, **extra} for v in values]


def reading(colour: str, value: int, symbols=()) -> dict:
    """A die as the vision hands it to the service (DieReading.to_json, minus box/confidence)."""
    r = DieReading("d6", value, (0, 0, 10, 10), 0.97, colour=colour, symbols=list(symbols)).to_json()
    return {k: v for k, v in r.items() if k not in ("box", "confidence", "unsure")}


def test_red_die_when_health_calls_for_yellow_is_refused_with_what_to_do():
    with pytest.raises(rules.RulesError) as err:
        rules.resolve("alkemy.characteristic_test", {
            "health_colour": "yellow", "characteristic": 4, "difficulty": 10,
            "dice": [reading("yellow", 3), reading("red", 5)]})
    msg = str(err.value)
    assert "red" in msg and "yellow" in msg and "#2" in msg and "again" in msg


def test_five_dice_are_never_ignored():
    with pytest.raises(rules.RulesError, match="more than 4"):
        rules.resolve("alkemy.keep_selection", {"bonus_dice": 3, "malus_dice": 0, "dice": dice("white", 1, 2, 3, 4, 5)})


@pytest.mark.parametrize("bonus,malus,n", [(0, 0, 3), (1, 0, 2), (0, 2, 3)])
def test_throw_of_the_wrong_size_is_refused(bonus, malus, n):
    with pytest.raises(rules.RulesError, match="exactly"):
        rules.resolve("alkemy.keep_selection", {"bonus_dice": bonus, "malus_dice": malus, "dice": dice("white", *range(1, n + 1))})


def test_a_d8_or_a_cocked_die_is_refused():
    d8 = {"die_type": "d8", "colour": "white", "value": 7}
    with pytest.raises(rules.RulesError, match="d8"):
        rules.resolve("alkemy.keep_selection", {"dice": [d8, reading("white", 2)]})
    with pytest.raises(rules.RulesError, match="cocked"):
        rules.resolve("alkemy.keep_selection", {"dice": [{**reading("white", 2), "cocked": True}, reading("white", 2)]})


def test_mixed_colours_are_refused_even_without_health_colour():
    with pytest.raises(rules.RulesError, match="white"):
        rules.resolve("alkemy.opposed_test", {"side_a": {"characteristic": 2, "dice": dice("white", 1, 2)},
                                              "side_b": {"characteristic": 2, "dice": [*dice("red", 3), *dice("white", 4)]}})


def test_readings_from_the_vision_resolve_like_vector_dice():
    out = rules.resolve("alkemy.characteristic_test", {
        "health_colour": "red", "characteristic": 3, "difficulty": 9, "bonus_dice": 1,
        "dice": [reading("red", 2), reading("red", 6, ["axe"]), reading("red", 1)]})
    assert out["kept"] == [6, 2] and out["total"] == 11 and out["success"] is True and out["margin"] == 2
    assert out["kept_symbols"] == [["axe"], []]


def test_bonus_tie_prefers_the_die_with_wanted_symbols_then_first_read():
    throw = [*dice("white", 5), *dice("white", 3), {"colour": "white", "value": 3, "symbols": ["axe"]}]
    plain = rules.resolve("alkemy.keep_selection", {"bonus_dice": 1, "dice": throw})
    wanted = rules.resolve("alkemy.keep_selection", {"bonus_dice": 1, "dice": throw, "wanted_symbols": ["axe"]})
    assert plain["kept_positions"] == [0, 1]
    assert wanted["kept_positions"] == [0, 2] and wanted["kept_symbols"] == [[], ["axe"]]
    assert plain["choices"]["keep"]["by"] == "default"


def test_player_may_keep_any_two_with_a_bonus_and_the_choice_is_recorded():
    out = rules.resolve("alkemy.keep_selection", {"bonus_dice": 1, "keep": [0, 2],
                                                  "dice": [{"colour": "white", "value": 4, "symbols": ["axe"]},
                                                           *dice("white", 5), {"colour": "white", "value": 1, "symbols": ["axe"]}]})
    assert out["keep"] == [4, 1] and out["sum"] == 5 and out["default_sum"] == 9
    assert out["choices"]["keep"] == {"by": "player", "positions": [0, 2]}


def test_malus_forces_the_two_lowest_but_lets_the_player_pick_among_equal_dice():
    throw = [*dice("white", 2), {"colour": "white", "value": 1, "symbols": ["axe"]}, *dice("white", 2), *dice("white", 6)]
    with pytest.raises(rules.RulesError, match="two lowest"):
        rules.resolve("alkemy.keep_selection", {"malus_dice": 2, "dice": throw, "keep": [0, 3]})
    default = rules.resolve("alkemy.keep_selection", {"malus_dice": 2, "dice": throw})
    other = rules.resolve("alkemy.keep_selection", {"malus_dice": 2, "dice": throw, "keep": [1, 2]})
    assert default["keep"] == [1, 2] and default["kept_positions"] == [1, 0]
    assert other["sum"] == default["sum"] == 3 and other["kept_positions"] == [1, 2]


def test_opposed_higher_total_wins_and_ties_go_to_the_higher_characteristic():
    win = rules.resolve("alkemy.opposed_test", {"side_a": {"characteristic": 1, "dice": dice("yellow", 6, 6)},
                                                "side_b": {"characteristic": 5, "dice": dice("yellow", 1, 2)}})
    assert (win["winner"], win["reason"], win["tie"], win["action"]) == ("side_a", "higher_total", False, None)
    again = rules.resolve("alkemy.opposed_test", {"side_a": {"characteristic": 3, "dice": dice("white", 1, 2)},
                                                  "side_b": {"characteristic": 3, "dice": dice("white", 2, 1)}})
    assert again["winner"] is None and again["rethrow"] == {"side_a": 2, "side_b": 2}


def brute_force_success(char: int, difficulty: int, bonus: int, malus: int, faces=range(1, 7)) -> Fraction:
    net = bonus - malus
    n = 2 + min(abs(net), 2)
    hits = total = 0
    for throw in itertools.product(faces, repeat=n):
        s = sorted(throw)
        kept = s[-2:] if net > 0 else s[:2]
        hits += sum(kept) + char >= difficulty
        total += 1
    return Fraction(hits, total)


@pytest.mark.parametrize("char,difficulty,bonus,malus", [(8, 15, 0, 0), (3, 12, 2, 0), (5, 10, 0, 1), (2, 11, 1, 4)])
def test_characteristic_test_odds_are_exact(char, difficulty, bonus, malus):
    odds = rules.get("alkemy.characteristic_test").odds(
        {"characteristic": char, "difficulty": difficulty, "bonus_dice": bonus, "malus_dice": malus, "health_colour": "white"})
    assert Fraction(odds["success"]["fraction"]) == brute_force_success(char, difficulty, bonus, malus)
    assert sum(Fraction(o["fraction"]) for o in odds["outcomes"]) == 1


def test_odds_use_the_printed_faces_when_given():
    faces = [0, 1, 1, 2, 2, 3]
    odds = rules.get("alkemy.characteristic_test").odds(
        {"characteristic": 1, "difficulty": 5, "bonus_dice": 1, "die_faces": faces})
    assert Fraction(odds["success"]["fraction"]) == brute_force_success(1, 5, 1, 0, faces)


def test_opposed_odds_match_enumeration():
    odds = rules.get("alkemy.opposed_test").odds({"side_a": {"characteristic": 4, "bonus_dice": 1},
                                                  "side_b": {"characteristic": 4}})
    a = b = tie = 0
    for x in itertools.product(range(1, 7), repeat=3):
        for y in itertools.product(range(1, 7), repeat=2):
            ta, tb = sum(sorted(x)[-2:]), sum(y)
            a, b, tie = a + (ta > tb), b + (tb > ta), tie + (ta == tb)
    n = 6 ** 5
    assert Fraction(odds["side_a"]["fraction"]) == Fraction(a, n)
    assert Fraction(odds["rethrow"]["fraction"]) == Fraction(tie, n)


def test_pool_procedures_and_net_modifier_refuse_negative_counts():
    assert rules.resolve("alkemy.dice_pool", {"bonus_dice": 0, "malus_dice": 1})["dice_rolled"] == 3
    with pytest.raises(rules.RulesError, match="bonus_dice"):
        rules.resolve("alkemy.net_modifier", {"bonus_dice": -1, "malus_dice": 0})


@pytest.mark.parametrize("proc,inputs", [
    ("alkemy.characteristic_test", {"health_colour": "white", "characteristic": 8, "difficulty": 15, "dice": dice("white", 3, 4)}),
    ("alkemy.keep_selection", {"bonus_dice": 1, "dice": [*dice("white", 4, symbols=["axe"]), *dice("white", 5), *dice("white", 1, symbols=["axe"])]}),
    ("alkemy.opposed_test", {"side_a": {"name": "a very long recruit name", "characteristic": 2, "dice": dice("white", 4, 4)},
                             "side_b": {"characteristic": 5, "dice": dice("white", 1, 4)}}),
])
def test_display_forms_fit_the_oled(proc, inputs):
    p = rules.get(proc)
    check_screen(p.screen(p.resolve(inputs)))


def test_a_value_no_face_prints_is_refused_when_the_faces_are_known():
    faces = [0, 1, 1, 2, 2, 3]
    ok = rules.resolve("alkemy.keep_selection", {"dice": dice("white", 0, 3), "die_faces": faces})
    assert ok["sum"] == 3
    with pytest.raises(rules.RulesError, match="no face of these dice prints"):
        rules.resolve("alkemy.keep_selection", {"dice": dice("white", 5, 3), "die_faces": faces})
