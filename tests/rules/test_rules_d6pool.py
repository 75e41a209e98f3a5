"""d6 success pool (seed 004): behaviour beyond the shared vectors, odds checked by brute force."""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import pytest

from dicetower.readings import DieReading
from dicetower.rules import RulesError, d6pool, get
from dicetower.rules.screen import check_screen


def brute(n: int) -> Counter:
    """Successes of every one of the 6**n equally likely throws, by the seed's rule read directly."""
    return Counter(sum({5: 1, 6: 2}.get(f, 0) for f in faces) for faces in itertools.product(range(1, 7), repeat=n))


def as_fractions(odds: dict) -> dict:
    return {o["outcome"]: Fraction(o["fraction"]) for o in odds["outcomes"]}


@pytest.mark.parametrize("n", [1, 2, 4])
def test_count_successes_odds_equal_brute_force(n):
    odds = get("d6pool.count_successes").odds({"dice": n})
    assert as_fractions(odds) == {k: Fraction(v, 6 ** n) for k, v in brute(n).items()}
    assert Fraction(odds["mean"]) == Fraction(n, 2)  # seed 004, 5: half a success per die


def test_count_successes_odds_of_reaching_a_threshold():
    odds = get("d6pool.count_successes").odds({"dice": 3, "required_successes": 2})
    counts = brute(3)
    assert Fraction(odds["success"]["fraction"]) == Fraction(sum(v for k, v in counts.items() if k >= 2), 216)


def test_count_successes_agrees_with_brute_force_on_every_three_dice_throw():
    for faces in itertools.product(range(1, 7), repeat=3):
        expected = sum(1 for f in faces if f == 5) + 2 * sum(1 for f in faces if f == 6)
        assert d6pool.count_successes({"faces": list(faces)})["successes"] == expected


def test_count_successes_takes_die_reading_objects_and_dicts():
    readings = [DieReading("d6", 6, (0, 0, 10, 10), 0.99), {"die_type": "d6", "value": 5, "colour": "red"}, 2]
    out = d6pool.count_successes({"faces": readings})
    assert out["successes"] == 3 and out["faces"] == [6, 5, 2] and out["per_die"] == [2, 1, 0]


@pytest.mark.parametrize("bad,fragment", [
    ({"die_type": "d8", "value": 5}, "d8"),
    ({"die_type": "d6", "value": 7}, "7"),
    ({"die_type": "d6", "value": 4, "cocked": True}, "cocked"),
    ({"die_type": "d6", "value": None}, "no face value"),
    ("six", "not a die reading"),
])
def test_wrong_dice_are_refused_with_the_reason(bad, fragment):
    with pytest.raises(RulesError, match=fragment):
        d6pool.count_successes({"faces": [5, bad]})


def test_pool_size_must_match_the_dice_read():
    with pytest.raises(RulesError, match="take out the extra dice"):
        d6pool.count_successes({"faces": [5, 6, 1], "dice": 2})
    with pytest.raises(RulesError, match="missing dice"):
        d6pool.count_successes({"faces": [5], "dice": 2})


def test_batches_are_summed_and_counted_against_the_pool():
    out = d6pool.count_successes({"batches": [[6, 6, 1, 2, 3, 4], [5, 5, 1, 1, 1]], "dice": 11})
    assert out["successes"] == 6 and out["dice"] == 11
    with pytest.raises(RulesError, match="pool is 12"):
        d6pool.count_successes({"batches": [[6], [5]], "dice": 12})


def test_count_screen_shows_score_and_all_dice_or_how_many_more():
    few = d6pool.count_successes_screen(d6pool.count_successes({"faces": [6, 5, 1]}))
    assert few[1] == "Successes: 3" and few[2] == "6 5 1"
    many = d6pool.count_successes_screen(d6pool.count_successes({"faces": [6] * 60}))
    check_screen(many)
    assert "Successes: 120" in many and many[-1] == "6 6 6 6 6 6 +14"  # 5 rows of 8, then 6 and "+14"


def test_dice_count_stone_used_on_a_cons_attack_gives_its_full_bonus():
    """D6P-D06: the permanent -1 is on DEXT, so a CONS attack with the stone gets +7."""
    stone = {"name": "très grosse pierre", "use_bonus": 7, "permanent": {"DEX": -1}}
    cons = d6pool.dice_count({"characteristic": "force", "characteristic_value": 3, "equipment": stone})
    dext = d6pool.dice_count({"characteristic": "DEXT", "characteristic_value": 3, "equipment": stone})
    assert (cons["dice"], cons["net_dice_modifier_vs_no_equipment"]) == (10, 7)
    assert (dext["dice"], dext["net_dice_modifier_vs_no_equipment"]) == (9, 6)


def test_dice_count_player_may_choose_a_weaker_item_and_the_choice_is_recorded():
    out = d6pool.dice_count({"characteristic_value": 3, "equipment_candidates": [{"bonus": 2}, {"bonus": 4}],
                             "equipment_choice": 0})
    assert out["dice"] == 5 and out["choices"]["equipment_choice"] == {"value": 0, "chosen_by": "player"}
    with pytest.raises(RulesError, match="not allowed"):
        d6pool.dice_count({"characteristic_value": 3, "equipment_candidates": [{"bonus": 2}], "equipment_choice": 3})


def test_dice_count_refuses_two_items_and_empty_inputs():
    with pytest.raises(RulesError, match="only one equipment"):
        d6pool.dice_count({"characteristic_value": 3, "equipment": [{"bonus": 1}, {"bonus": 2}]})
    with pytest.raises(RulesError, match="characteristic_value"):
        d6pool.dice_count({})


def test_simple_action_asks_the_gm_unless_a_threshold_or_answer_is_given():
    asked = d6pool.simple_action({"faces": [5, 6, 1]})
    assert asked["successes"] == 3 and asked["outcome"]["gm_judgement"] is True
    assert asked["outcome"]["choices"] == ["success", "failure"]
    assert d6pool.simple_action({"successes": 3, "required_successes": 3})["outcome"] == "success"
    assert d6pool.simple_action({"successes": 2, "required_successes": 3})["outcome"] == "failure"
    with pytest.raises(RulesError, match="gm_judgement"):
        d6pool.simple_action({"successes": 2, "gm_judgement": "maybe"})


def test_opposed_and_combat_odds_equal_brute_force():
    a, b = brute(2), brute(1)
    wins = sum(ca * cb for sa, ca in a.items() for sb, cb in b.items() if sa > sb)
    ties = sum(ca * cb for sa, ca in a.items() for sb, cb in b.items() if sa == sb)
    opposed = get("d6pool.opposed_action").odds({"a_dice": 2, "b_dice": 1})
    assert Fraction(opposed["success"]["fraction"]) == Fraction(wins, 216)
    assert Fraction(opposed["tie"]["fraction"]) == Fraction(ties, 216)
    combat = get("d6pool.combat").odds({"attacker_dice": 2, "defender_dice": 1})
    damage = Counter()
    for sa, ca in a.items():
        for sb, cb in b.items():
            damage[max(sa - sb, 0)] += ca * cb
    assert as_fractions(combat) == {k: Fraction(v, 216) for k, v in damage.items()}
    assert Fraction(combat["hit"]["fraction"]) == Fraction(wins, 216)


def test_combat_from_faces_and_psychological_damage():
    out = d6pool.combat({"attacker_faces": [6, 6], "defender_faces": [5], "psychological": True})
    assert (out["hit"], out["damage"], out["damage_kind"]) == (True, 3, "psychological")


def test_choose_characteristic_one_candidate_is_the_rules_several_go_to_the_gm():
    solo = d6pool.choose_characteristic({"action": "solve the riddle of the door"})
    assert solo == {"allowed_characteristics": ["INTE"], "chosen_by": "rule", "characteristic": "INTE"}
    picked = d6pool.choose_characteristic({"action": "grimper au mur", "gm_choice": "agilité"})
    assert picked["characteristic"] == "DEXT"
    with pytest.raises(RulesError, match="not one of the candidates"):
        d6pool.choose_characteristic({"action": "climb", "gm_choice": "INTE"})


def test_health_death_is_checked_before_madness_and_the_healthy_states_are_named():
    assert d6pool.health({"HP": 5, "physical_damage": 5, "mental_health": 2, "mental_damage": 9})["state"] == "dead"
    assert d6pool.health({"HP": 5, "physical_damage": 4})["state"] == "alive"
    assert d6pool.health({"HP": 5, "physical_damage": 1, "mental_health": 2, "mental_damage": 3})["dice_penalty"] == 4


def test_advancement_cost_of_an_item_adds_its_bonuses_and_steps_cost_n_minus_1():
    assert d6pool.advancement_cost({"bonuses": [4, 2]}) == {"total_cost": 6 + 1}
    assert d6pool.advancement_cost({"level": 5, "from_level": 3})["total_cost"] == 10 - 3
    with pytest.raises(RulesError, match="above"):
        d6pool.advancement_cost({"level": 1, "from_level": 2})


def test_choose_characteristic_matches_whole_words_not_fragments():
    """"white" holds "hit" and "discharge" holds "charge": neither calls on CONS."""
    out = d6pool.choose_characteristic({"action": "read the white discharge papers"})
    assert out["allowed_characteristics"] == ["CONS", "DEXT", "INTE", "CHAR"]
    assert out["characteristic"]["gm_judgement"] is True
    assert d6pool.choose_characteristic({"action": "Frapper le garde"})["characteristic"] == "CONS"
