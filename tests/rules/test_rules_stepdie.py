"""Step-die TN system (seed 003): the rules over every die, face and TN, readings, odds, screens."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dicetower.rules import RulesError, get, stepdie
from dicetower.rules.screen import check_screen

DICE = {"d6": 6, "d8": 8, "d10": 10, "d12": 12, "d20": 20}


@pytest.mark.parametrize("die,sides", DICE.items())
@pytest.mark.parametrize("tn", [4, 6, 8, 12])
def test_every_face_of_every_die_against_every_tn(die, sides, tn):
    """seed 003, 3.4 and SD-D01/D10: 1 fails with complication even at TN 4; the maximum is
    exceptional even under TN 12; in between success iff face >= TN."""
    for face in range(1, sides + 1):
        out = stepdie.test({"die": die, "tn": tn, "face": face})
        assert out["complication"] is (face == 1)
        if face == 1:
            assert out["outcome"] == "failure"
        elif face == sides:
            assert out["outcome"] == "exceptional_success" and out["success"] is True
        else:
            assert out["outcome"] == ("success" if face >= tn else "failure")


@pytest.mark.parametrize("die,sides", DICE.items())
@pytest.mark.parametrize("tn", [4, 6, 8, 12])
def test_test_odds_count_the_faces(die, sides, tn):
    odds = get("stepdie.test").odds({"die": die, "tn": tn})
    by = {o["outcome"]: Fraction(o["fraction"]) for o in odds["outcomes"]}
    assert sum(by.values()) == 1
    assert by["complication"] == by["exceptional_success"] == Fraction(1, sides)
    plain = sum(1 for f in range(2, sides) if f >= tn)
    assert by.get("success", Fraction(0)) == Fraction(plain, sides)
    assert Fraction(odds["success"]["fraction"]) == Fraction(plain + 1, sides)


def test_ladder_shifts_from_every_rung():
    ladder = [4, 6, 8, 12]
    for i, tn in enumerate(ladder):
        for shift in range(-3, 4):
            out = stepdie.adjust_tn({"tn": tn, "shift_degrees": shift})
            j = i + shift
            if j < 0:
                assert out == {"status": "auto_success", "roll_required": False}
            elif j > 3:
                assert out == {"status": "near_impossible", "roll_required": False}
            else:
                assert out["tn"] == ladder[j] and out["roll_required"] is True


def test_a_hand_set_tn_is_kept_but_cannot_move_by_degrees():
    assert stepdie.test({"die": "d12", "tn": 10, "face": 10})["outcome"] == "success"
    with pytest.raises(RulesError, match="tn_override"):
        stepdie.adjust_tn({"tn": 10, "shift_degrees": 1})


def test_gm_toggles_for_range_and_enemies_in_contact_are_off_by_default():
    assert stepdie.adjust_tn({"tn": 6, "shift_degrees": 0})["tn"] == 6
    assert stepdie.adjust_tn({"tn": 6, "shift_degrees": 0, "beyond_10_squares": True,
                              "enemies_in_contact_tn": True})["tn"] == 12


def test_no_roll_when_the_tn_leaves_the_ladder_and_odds_are_certain():
    out = stepdie.test({"die": "d10", "tn": 4, "shift_degrees": -1})
    assert out["outcome"] == "success" and out["roll_required"] is False and "face" not in out
    odds = get("stepdie.test").odds({"die": "d10", "tn": 12, "shift_degrees": 1})
    assert odds["outcomes"] == [{"outcome": "not_attempted", "fraction": "1/1", "percent": 100.0}]


def test_the_die_read_must_be_the_size_after_help():
    ok = stepdie.test({"base_die": "d10", "helpers": 3, "tn": 6, "face": [{"die_type": "d12", "value": 12}]})
    assert (ok["die_rolled"], ok["helpers_counted"], ok["outcome"]) == ("d12", 1, "exceptional_success")
    with pytest.raises(RulesError, match="needs d12"):
        stepdie.test({"base_die": "d10", "helpers": 1, "tn": 6, "face": {"die_type": "d10", "value": 9}})
    with pytest.raises(RulesError, match="exactly 1"):
        stepdie.test({"die": "d8", "tn": 6, "face": [{"die_type": "d8", "value": 3}, {"die_type": "d8", "value": 5}]})
    with pytest.raises(RulesError, match="impossible on a d8"):
        stepdie.test({"die": "d8", "tn": 6, "face": 9})


def test_d10_zero_face_reads_ten():
    """GEN-D02: a d10's "0" is 10, the maximum, so exceptional."""
    out = stepdie.test({"die": "d10", "tn": 12, "face": {"die_type": "d10", "value": 0}})
    assert out["face"] == 10 and out["outcome"] == "exceptional_success"


def test_attack_default_tns_and_hit_effects_by_opponent():
    elite = stepdie.attack({"die": "d8", "target": "élite", "face": 7})
    assert elite["final_tn"] == 8 and elite["outcome"] == "failure"  # SD-D09: elite TN 8
    minion = stepdie.attack({"die": "d6", "target": "Pachołek", "face": 6})
    assert minion["final_tn"] == 6 and minion["target_state"] == "dead_or_removed"
    boss = stepdie.attack({"die": "d20", "target": "boss", "face": 13})
    assert boss["boss_hearts_lost"] == 1 and boss["boss_hearts_after"] == 2  # SD-D09: boss 3 Hearts


def test_attack_miss_armour_cover_and_death_at_zero_hearts():
    armoured = stepdie.attack({"die": "d10", "target": "pion", "face": 3, "attacker_hearts": 2, "armour_tokens": 1})
    assert armoured["vengeance"] is True and armoured["attacker_hearts_after"] == 2
    assert armoured["armour_tokens_after"] == 0
    covered = stepdie.attack({"die": "d10", "target": "pion", "face": 3, "melee": False, "full_cover": True})
    assert covered["vengeance"] is False and covered["attacker_hearts_after"] == 5
    down = stepdie.attack({"die": "d10", "target": "boss", "face": 1, "attacker_hearts": 0})
    assert down["attacker_state"] == "dead" and down["extra_complication_flag"] is True  # SD-D13


def test_attack_kind_gives_the_characteristic():
    assert stepdie.attack({"attack_kind": "ranged", "die": "d8", "target": "pion", "face": 6})["characteristic"] == "A"
    assert stepdie.characteristic("Z") == "A" and stepdie.characteristic("S") == "F"
    with pytest.raises(RulesError, match="unknown target"):
        stepdie.attack({"die": "d8", "target": "dragon", "face": 6})


def test_miss_vengeance_max_below_tn_is_no_miss():
    """SD-D01: a d10's 10 against TN 12 is an exceptional success, so the opponent does not answer."""
    out = stepdie.miss_vengeance({"attack_face": 10, "tn": 12, "die": "d10", "attacker_hearts": 3})
    assert out["missed"] is False and out["hearts_after"] == 3


def test_magic_levels_exceptional_refund_and_short_mana():
    trick = stepdie.magic({"effect_level": "Astuce", "mana_before": 0, "die": "d6", "face": 4})
    assert trick["allowed"] is True and trick["mana_after"] == 0 and trick["outcome"] == "success"
    refund = stepdie.magic({"effect_level": "fort", "mana_before": 3, "die": "d8", "face": 8,
                            "exceptional_option": "reduce_cost"})
    assert refund["mana_after"] == 2 and refund["choices"]["exceptional_option"]["chosen_by"] == "player"
    default = stepdie.magic({"effect_level": "fort", "mana_before": 3, "die": "d8", "face": 8})
    assert default["mana_after"] == 1 and default["choices"]["exceptional_option"]["chosen_by"] == "default"
    short = get("stepdie.magic").odds({"effect_level": "grande puissance", "mana_before": 2, "die": "d10"})
    assert short["outcomes"][0]["outcome"] == "not_allowed"


def test_d6_variant_help_opponent_and_clamping():
    helped = stepdie.d6_variant_test({"level": "Novice", "helpers": 2, "face": 4})
    assert helped["threshold"] == 4 and helped["outcome"] == "success"  # SD-D14: one helper, -1
    boss = stepdie.d6_variant_test({"level": "entraîné", "opponent": "boss", "face": 5})
    assert boss["threshold"] == 6 and boss["outcome"] == "failure"
    odds = get("stepdie.d6_variant_test").odds({"level": "maitre", "difficulty_shift": -5})
    assert odds["threshold"] == 2 and Fraction(odds["success"]["fraction"]) == Fraction(5, 6)


def test_d6_variant_development_up_the_levels_and_not_past_maitre():
    assert stepdie.d6_variant_development({"level_before": "entraine"}) == {"level_after": "maitre", "threshold_after": 3}
    assert stepdie.d6_variant_development({"threshold_before": 6})["level_after"] == "novice"
    assert stepdie.d6_variant_development({"choice": "heart", "hearts": 5}) == {"max_hearts_after": 6}
    with pytest.raises(RulesError, match="highest"):
        stepdie.d6_variant_development({"level_before": "maître"})


def test_hearts_clock_rest_and_zero_hearts():
    assert stepdie.hearts({"hearts": 1, "change": -1})["state"] == "down"
    assert stepdie.hearts({"hearts": 0, "change": -1})["state"] == "dead"
    assert stepdie.hearts({"hearts": 4, "change": 3})["hearts_after"] == 5
    clock = stepdie.time_pressure_clock({"clock_steps": 3, "failures": [1, 0, 1]})
    assert clock == {"clock_after": 2, "consequence_triggered": False, "steps_left": 1}
    assert stepdie.rest({"hearts": 2, "mana": 0, "safe_rest": False})["hearts_after"] == 2
    with pytest.raises(RulesError, match="0 Hearts"):
        stepdie.hearts_zero({"hearts": 2, "event": "takes_damage"})
    assert stepdie.hearts_zero({"hearts": 0})["state"] == "down"


def test_armour_token_can_be_kept():
    kept = stepdie.armour_token({"hearts": 3, "armour_tokens": 1, "use_armour": False})
    assert kept["hearts_after"] == 2 and kept["armour_tokens_after"] == 1


@pytest.mark.parametrize("proc,inputs", [
    ("stepdie.test", {"die": "d20", "tn": 12, "face": 1}),
    ("stepdie.attack", {"die": "d10", "target": "boss", "face": 1, "attacker_hearts": 1}),
    ("stepdie.magic", {"effect_level": "grande_puissance", "mana_before": 1, "die": "d10"}),
    ("stepdie.d6_variant_test", {"level": "novice", "face": 1}),
])
def test_screens_fit_and_say_the_outcome(proc, inputs):
    p = get(proc)
    lines = p.screen(p.resolve(inputs))
    check_screen(lines)
    text = " ".join(lines)
    assert "FAILURE" in text or "NO CAST" in text


def test_character_dice_map_tn_ladder_names_and_heart_counts():
    out = stepdie.test({"dice": {"S": "d8", "Z": "d6", "M": "d10"}, "characteristic": "F", "helpers": 1,
                        "tn": 8, "face": {"die_type": "d10", "value": 9}})
    assert out["die_rolled"] == "d10" and out["outcome"] == "success"  # S = F (SD-D04), helped d8 -> d10
    with pytest.raises(RulesError, match="no die for A"):
        stepdie.test({"dice": {"F": "d8"}, "characteristic": "A", "tn": 6, "face": 3})
    assert stepdie.tn_ladder({"difficulty": "Difficile"})["tn"] == 8
    assert stepdie.tn_ladder({"tn": 4})["label"] == "facile"
    assert stepdie.hearts({"lose": 2})["hearts_after"] == 3
