"""Throwing Stones rules (seed 000; RULES.md 1): the stone catalogue (TS-D01), wrong stones (GEN-D04),
physical rerolls by stone identity (GEN-D03), rainbow faces (TS-D02), armour rerolls, exact odds
checked against brute-force enumeration of the catalogue faces, OLED forms. The shared vectors run
in test_rules_vectors.py."""

from __future__ import annotations

import itertools
import re
from fractions import Fraction

import pytest

from dicetower import rules
from dicetower.paths import shared_dir
from dicetower.readings import DieReading
from dicetower.rules.screen import check_screen

CATALOGUE = {
    "ash": [{"colour": "ruby", "name_face": True, "name": "Ash"}, {"colour": "ruby", "swords": 1},
            {"colour": "silver", "swords": 2}, {"colour": "gold", "talent": "sorcellerie", "pluses": 1},
            {"colour": "silver", "effects": ["chance"]}, {"colour": "rainbow"}],
    "birch": [{"colour": "gold"}, {"colour": "gold", "talent": "charisme", "pluses": 1},
              {"colour": "silver", "effects": ["centrer"]}, {"colour": "ruby", "effects": ["berserk"]},
              {"colour": "ruby", "swords": 1}, {"colour": None, "name_face": True}],
    "cedar": [{"colour": "silver"}, {"colour": "silver", "talent": "dexterite", "pluses": 2},
              {"colour": "ruby", "effects": ["zele"]}, {"colour": "gold", "effects": ["roll"]},
              {"colour": "ruby", "swords": 3}, {"colour": "gold", "name_face": True}],
    "dogwood": [{"colour": "ruby"}, {"colour": "gold", "effects": ["poison"]},
                {"colour": "silver", "talent": "equilibre", "pluses": 1}, {"colour": "silver", "effects": ["ignorer_armure"]},
                {"colour": "ruby", "swords": 1, "effects": ["coup_additionnel"]}, {"colour": "silver", "name_face": True}],
}


def stone(stone_id: str, face: int) -> dict:
    """A stone as the vision reads it (identity + up face), through DieReading.to_json."""
    r = DieReading("stone", face, (0, 0, 20, 20), 0.95, die_id=stone_id).to_json()
    return {k: v for k, v in r.items() if k not in ("box", "confidence", "unsure")}


def base(**extra) -> dict:
    return {"catalogue": CATALOGUE, **extra}


# ---------------------------------------------------------------- catalogue and wrong stones


def test_catalogue_lookup_gives_the_registered_face():
    out = rules.resolve("throwing_stones.save", base(characteristic="F", difficulty=3,
                                                     roll=[stone("ash", 1), stone("birch", 6), stone("cedar", 3)]))
    # ash 1: ruby + name; birch 6: colourless name face (TS-D03); cedar 3: ruby + zele
    assert (out["colour_count"], out["name_faces"], out["zele"], out["result"]) == (2, 2, 1, 5)
    assert out["faces"][0]["stone_id"] == "ash" and out["faces"][0]["face"] == 1


def test_eleven_stones_are_refused():
    roll = [stone("ash", 1)] + [{"colour": "ruby"}] * 10
    with pytest.raises(rules.RulesError, match="at most 10"):
        rules.resolve("throwing_stones.characteristic_test", base(characteristic="F", difficulty=1, roll=roll))


def test_unknown_stone_is_refused_naming_the_catalogue():
    with pytest.raises(rules.RulesError, match="unknown stone 'elm'.*ash"):
        rules.resolve("throwing_stones.characteristic_test", base(characteristic="F", roll=[stone("elm", 2)]))


def test_a_standard_d6_among_the_stones_is_refused():
    d6 = {"die_type": "d6", "value": 4}
    with pytest.raises(rules.RulesError, match="d6, not a stone"):
        rules.resolve("throwing_stones.attack", base(attacker_roll=[stone("ash", 2), d6], defender_roll=[stone("cedar", 1)]))


def test_a_stone_read_twice_or_not_owned_is_refused():
    with pytest.raises(rules.RulesError, match="read twice"):
        rules.resolve("throwing_stones.characteristic_test", base(characteristic="A", roll=[stone("ash", 2), stone("ash", 3)]))
    with pytest.raises(rules.RulesError, match="not one of this character"):
        rules.resolve("throwing_stones.characteristic_test", base(characteristic="A", stones=["ash"], roll=[stone("birch", 1)]))


def test_face_outside_one_to_six_and_catalogue_without_six_faces_are_refused():
    with pytest.raises(rules.RulesError, match="faces 1..6"):
        rules.resolve("throwing_stones.characteristic_test", base(characteristic="A", roll=[{**stone("ash", 1), "value": 7}]))
    with pytest.raises(rules.RulesError, match="exactly 6"):
        rules.resolve("throwing_stones.characteristic_test",
                      {"catalogue": {"x": [{"colour": "ruby"}] * 5}, "characteristic": "F", "roll": [stone("x", 1)]})


def test_direct_reading_of_symbols_is_the_fallback():
    face = {"die_type": "stone", "value": None, "face_colour": "silver", "symbols": ["sword", "sword", "name", "zele"]}
    out = rules.resolve("throwing_stones.attack", {"attacker_roll": [face], "defender_roll": [{"colour": "silver"}]})
    assert out["attack_score"] == 1 + 2 + 1 and out["hit"] is True
    with pytest.raises(rules.RulesError, match="unknown stone symbol"):
        rules.resolve("throwing_stones.attack", {"attacker_roll": [{**face, "symbols": ["teapot"]}], "defender_roll": []})


# ---------------------------------------------------------------- rerolls by identity (GEN-D03)


def test_reroll_merges_the_rethrown_stones_by_identity():
    roll = [stone("ash", 1), stone("birch", 3), stone("cedar", 1)]
    before = rules.resolve("throwing_stones.characteristic_test", base(characteristic="F", roll=roll))
    after = rules.resolve("throwing_stones.characteristic_test", base(
        characteristic="F", roll=roll, roll_reroll={"positions": [1, 2], "roll": [stone("cedar", 5), stone("birch", 4)]}))
    assert before["result"] == 1 and after["result"] == 3
    assert [f["stone_id"] for f in after["faces"]] == ["ash", "birch", "cedar"]


def test_reroll_with_other_stones_or_another_count_is_refused():
    roll = [stone("ash", 1), stone("birch", 3)]
    with pytest.raises(rules.RulesError, match="was not picked up"):
        rules.resolve("throwing_stones.characteristic_test", base(
            characteristic="F", roll=roll, roll_reroll={"positions": [1], "roll": [stone("ash", 2)]}))
    with pytest.raises(rules.RulesError, match="2 dice read in the re-throw but 1"):
        rules.resolve("throwing_stones.characteristic_test", base(
            characteristic="F", roll=roll, roll_reroll={"positions": [1], "roll": [stone("birch", 2), stone("ash", 2)]}))


def test_reroll_round_declares_the_stones_to_pick_up():
    out = rules.resolve("throwing_stones.reroll_round", base(sources=["prone"], rerolls=1, positions=[2],
                                                             roll=[stone("ash", 2), stone("birch", 2), stone("cedar", 2)]))
    assert (out["own_rerolls"], out["opponent_may_force"], out["chooser"]) == (0, 1, "opponent")
    assert out["reroll_request"]["stones"] == ["cedar"] and out["reroll_request"]["who"] == "opponent"


def test_reroll_round_refuses_more_stones_than_allowed():
    with pytest.raises(rules.RulesError, match="allowance is 1"):
        rules.resolve("throwing_stones.reroll_round", base(rerolls=3, anti_rerolls=2, positions=[0, 1],
                                                           roll=[stone("ash", 2), stone("birch", 2)]))
    dodge = rules.resolve("throwing_stones.reroll_round", {"sources": ["dodge", "prone"]})
    assert dodge["own_rerolls"] == "ALL"


def test_mulligan_on_an_odd_number_of_chance_faces_asks_for_every_stone():
    out = rules.resolve("throwing_stones.characteristic_test", base(characteristic="A", roll=[stone("ash", 5), stone("birch", 1)]))
    assert out["mulligan_allowed"] is True and out["reroll_request"]["stones"] == ["ash", "birch"]
    taken = rules.resolve("throwing_stones.chance_mulligan", base(roll=[stone("ash", 5)], mulligan_taken=True))
    assert taken["mulligan_allowed"] is False


# ---------------------------------------------------------------- rainbow (TS-D02), damage, armour


def test_rainbow_counts_as_the_needed_colour_in_tests_but_not_in_damage():
    roll = [stone("ash", 6)]
    assert rules.resolve("throwing_stones.characteristic_test", base(characteristic="I", roll=roll))["result"] == 1
    chosen = rules.resolve("throwing_stones.characteristic_test", base(characteristic="I", roll=roll, rainbow_choices={"0": "ruby"}))
    assert chosen["result"] == 0 and chosen["choices"]["rainbow"]["by"] == "player"
    dmg = rules.resolve("throwing_stones.damage", base(damage_roll=roll, weapon_size=1))
    assert dmg["rubies"] == 0 and dmg["damage"] == 0


def test_monster_rainbow_is_limited_to_its_attribute_colour():
    rainbow = {"colour": "rainbow"}
    cobra = rules.resolve("throwing_stones.characteristic_test", {"characteristic": "F", "roll": [rainbow], "monster": "cobra"})
    bull = rules.resolve("throwing_stones.characteristic_test", {"characteristic": "F", "roll": [rainbow], "monster": "taureau"})
    assert cobra["result"] == 0 and bull["result"] == 1
    with pytest.raises(rules.RulesError, match="may be silver, not ruby"):
        rules.resolve("throwing_stones.characteristic_test", {"characteristic": "F", "roll": [rainbow], "monster": "cobra",
                                                              "rainbow_choices": {"0": "ruby"}})
    with pytest.raises(rules.RulesError, match="no rainbow face"):
        rules.resolve("throwing_stones.characteristic_test", {"characteristic": "F", "roll": [{"colour": "gold"}],
                                                              "rainbow_choices": {"0": "ruby"}})


def test_damage_armour_reroll_defaults_to_the_stones_that_hurt_most_and_merges_by_identity():
    roll = [stone("ash", 4), stone("birch", 5), stone("cedar", 5)]  # gold; ruby+1 sword; ruby+3 swords
    out = rules.resolve("throwing_stones.damage", base(damage_roll=roll, weapon="dague", worn_armour=["matelassee"]))
    assert (out["rubies"], out["sword_points"], out["damage"]) == (2, 3, 5)
    assert out["reroll_request"]["stones"] == ["cedar"] and out["reroll_request"]["who"] == "defender"
    after = rules.resolve("throwing_stones.damage", base(damage_roll=roll, weapon="dague", worn_armour=["matelassee"],
                                                         armour_reroll={"positions": [2], "roll": [stone("cedar", 1)]}))
    assert after["damage"] == 1 + 1 and after["damage_before_armour"] == 5
    with pytest.raises(rules.RulesError, match="at most 1"):
        rules.resolve("throwing_stones.damage", base(damage_roll=roll, weapon="dague", worn_armour=["matelassee"],
                                                     armour_reroll={"positions": [1, 2], "roll": [stone("birch", 1), stone("cedar", 1)]}))


def test_unarmed_damage_counts_one_sword_face_only_with_combat_sans_armes():
    roll = [{"colour": "silver", "swords": 2}, {"colour": "ruby", "swords": 1}]
    bare = rules.resolve("throwing_stones.damage", {"damage_roll": roll, "attacker_armed": False})
    fist = rules.resolve("throwing_stones.damage", {"damage_roll": roll, "attacker_armed": False,
                                                    "attacker_attack_roll": [{"colour": "gold", "talent": "combat_sans_armes"}]})
    assert (bare["damage"], fist["damage"]) == (1, 3)


def test_damage_runs_the_death_check():
    out = rules.resolve("throwing_stones.damage", {"damage_roll": [{"colour": "ruby", "swords": 2}], "weapon_size": 1,
                                                   "damage_received_before": 12, "HP": 13})
    assert out["damage_received_after"] == 15 and out["state"] == "death_check" and out["difficulty"] == 2


def test_attack_effects_act_only_for_who_threw_them():
    out = rules.resolve("throwing_stones.attack", base(attacker_roll=[stone("birch", 4), stone("dogwood", 2), stone("cedar", 1)],
                                                       defender_roll=[{"colour": "gold", "effects": ["berserk", "contre_attaque"]}]))
    assert out["hit"] is True and out["attacker_extra_rerolls_on_damage_roll"] == 1
    assert out["defender_poisoned"] is True and out["counter_attack"] is False
    miss = rules.resolve("throwing_stones.attack", {"attacker_roll": [{"colour": "gold", "effects": ["poison"]}],
                                                    "defender_roll": [{"colour": "silver", "effects": ["contre_attaque"]}]})
    assert miss["hit"] is False and miss["counter_attack"] is True and miss["defender_poisoned"] is False


# ---------------------------------------------------------------- standard d6 procedures


def test_monster_hp_takes_table_2_defaults_and_refuses_stones_or_a_wrong_count():
    out = rules.resolve("throwing_stones.monster_hp", {"monster": "Grenouille", "d6": [{"die_type": "d6", "value": 6}, 1]})
    assert out["stones"] == 2 and out["per_die"] == [5, 2] and out["HP"] == 7
    with pytest.raises(rules.RulesError, match="exactly 2"):
        rules.resolve("throwing_stones.monster_hp", {"monster": "grenouille", "d6": [3, 4, 5]})
    with pytest.raises(rules.RulesError, match="stone"):
        rules.resolve("throwing_stones.monster_hp", {"monster": "grenouille", "d6": [stone("ash", 3), 4]})


def test_poison_difficulty_must_be_a_d6():
    with pytest.raises(rules.RulesError, match="d8"):
        rules.resolve("throwing_stones.poison_tick", {"poisoned": True, "d6_difficulty": {"die_type": "d8", "value": 7},
                                                      "save_result": 3, "damage_received_before": 0})


def test_spell_beyond_the_mp_left_cannot_be_cast_and_school_must_match():
    with pytest.raises(rules.RulesError, match="cannot be cast"):
        rules.resolve("throwing_stones.spell_cast", base(spell="mur_de_feu", MP_before=3, roll=[stone("ash", 4)]))
    with pytest.raises(rules.RulesError, match="sorcellerie"):
        rules.resolve("throwing_stones.spell_cast", base(spell="assommer", school="zoetrie", MP_before=3, roll=[stone("ash", 4)]))


def test_initiative_still_tied_asks_everyone_to_throw_again():
    out = rules.resolve("throwing_stones.initiative", {"initiative_rolls": [{"p1": 2, "p2": 2}]})
    assert out["first_to_act"] is None and out["reroll_request"]["who"] == "all"
    with pytest.raises(rules.RulesError, match="tied"):
        rules.resolve("throwing_stones.round_order", {"initiative": {"p1": 2, "p2": 2}})


# ---------------------------------------------------------------- exact odds against enumeration


def enumerate_faces(ids: list[str]):
    """Every equally likely up-face combination of the catalogue stones `ids` (6**n of them)."""
    return itertools.product(*[CATALOGUE[i] for i in ids])


def brute(ids: list[str], predicate) -> Fraction:
    combos = list(enumerate_faces(ids))
    return Fraction(sum(bool(predicate(list(c))) for c in combos), len(combos))


def silver_or_rainbow(face: dict) -> bool:
    return face.get("colour") in ("silver", "rainbow")


@pytest.mark.parametrize("difficulty", [1, 2, 3])
def test_characteristic_odds_match_enumeration(difficulty):
    ids = ["ash", "birch", "cedar"]
    odds = rules.get("throwing_stones.characteristic_test").odds(base(characteristic="A", difficulty=difficulty, stones=ids))
    assert Fraction(odds["success"]["fraction"]) == brute(ids, lambda c: sum(map(silver_or_rainbow, c)) >= difficulty)


def test_save_odds_match_enumeration():
    ids = ["birch", "cedar", "dogwood"]

    def result(c):
        return sum(f.get("colour") == "ruby" or f.get("colour") == "rainbow" for f in c) + sum(
            bool(f.get("name_face")) + f.get("effects", []).count("centrer") + f.get("effects", []).count("zele") for f in c)
    odds = rules.get("throwing_stones.save").odds(base(characteristic="F", difficulty=3, stones=ids))
    assert Fraction(odds["success"]["fraction"]) == brute(ids, lambda c: result(c) >= 3)


def test_attack_odds_match_enumeration():
    att, dfn = ["ash", "dogwood"], ["birch", "cedar"]
    odds = rules.get("throwing_stones.attack").odds(base(attacker_stones=att, defender_stones=dfn))

    def score(c, attack):
        return sum(map(silver_or_rainbow, c)) + sum(f.get("swords", 0) for f in c) + (
            sum(f.get("effects", []).count("zele") for f in c) if attack else 0)
    hits = brute(att + dfn, lambda c: score(c[:2], True) >= score(c[2:], False))
    assert Fraction(odds["hit"]["fraction"]) == hits


def test_damage_odds_match_enumeration():
    ids = ["ash", "birch", "cedar"]
    odds = rules.get("throwing_stones.damage").odds(base(attacker_stones=ids, weapon_size=1))
    dist = {o["outcome"]: Fraction(o["fraction"]) for o in odds["outcomes"]}
    for value in (0, 3, 5):
        want = brute(ids, lambda c: sum(f.get("colour") == "ruby" for f in c) + max(f.get("swords", 0) for f in c) == value)
        assert dist.get(value, Fraction(0)) == want


def test_spell_cast_odds_match_enumeration():
    ids = ["ash", "birch", "cedar"]
    odds = rules.get("throwing_stones.spell_cast").odds(base(spell="assommer", stones=ids, MP_before=4))

    def success(c):
        m = [f for f in c if f.get("talent") == "sorcellerie"]
        non_magic = sum(f.get("talent") not in ("sorcellerie", "necromancie", "thaumaturgie", "magie_pure", "zoetrie") for f in c)
        return m and sum(f.get("pluses", 0) for f in m) + min(len(m), non_magic) >= 1
    assert Fraction(odds["success"]["fraction"]) == brute(ids, success)


def test_monster_hp_and_eclair_odds_are_exact():
    hp = rules.get("throwing_stones.monster_hp").odds({"monster": "cobra"})
    per = [min(5, max(2, v - 2)) for v in range(1, 7)]
    want = Fraction(sum(sum(t) == 8 for t in itertools.product(per, repeat=3)), 216)
    assert Fraction(next(o["fraction"] for o in hp["outcomes"] if o["outcome"] == 8)) == want
    ec = rules.get("throwing_stones.magic.eclair").odds({"caster_success_value": 3, "target_save_result": 3})
    assert {o["outcome"]: o["fraction"] for o in ec["outcomes"]} == {0: "1/2", 1: "1/6", 2: "1/6", 3: "1/6"}


def test_odds_without_a_catalogue_say_what_is_missing():
    with pytest.raises(rules.RulesError, match="catalogue"):
        rules.get("throwing_stones.characteristic_test").odds({"characteristic": "F", "difficulty": 2})


# ---------------------------------------------------------------- registry and display forms


def rules_md_ids() -> set[str]:
    path = shared_dir() / "rules" / "RULES.md"
    if not path.is_file():
        pytest.skip(f"shared rules digest not found at {path}")
    return set(re.findall(r"`((?:throwing_stones|alkemy)\.[a-z_.0-9]+)`", path.read_text(encoding="utf-8")))


def test_every_rules_md_id_of_throwing_stones_and_alkemy_is_registered():
    missing = rules_md_ids() - set(rules.all_ids())
    assert not missing, f"not registered: {sorted(missing)}"


def test_every_table_3_spell_has_a_procedure():
    spells = ["assommer", "illusion", "mental_broye", "drain_de_vie", "invoquer_un_monstre", "vision_du_futur",
              "arme_inutilisable", "changeforme", "arme_amelioree", "eclair", "vent_fort", "mur_de_feu", "soin",
              "poison", "aveugler"]
    assert {f"throwing_stones.magic.{s}" for s in spells} <= set(rules.all_ids())


@pytest.mark.parametrize("proc,inputs", [
    ("throwing_stones.characteristic_test", base(characteristic="F", difficulty=2, roll=[stone("ash", 5), stone("birch", 4)])),
    ("throwing_stones.attack", base(attacker_roll=[stone("dogwood", 2), stone("birch", 4)],
                                    defender_roll=[stone("cedar", 4)])),
    ("throwing_stones.damage", base(damage_roll=[stone("cedar", 5)], weapon="epee", worn_armour=["cuir"])),
    ("throwing_stones.spell_cast", base(spell="assommer", MP_before=3, roll=[stone("ash", 4)])),
    ("throwing_stones.monster_hp", {"monster": "scorpion geant", "d6": [1, 2, 3, 4, 5, 6]}),
    ("throwing_stones.initiative", {"initiative_rolls": [{"p1": 2, "p2": 5}]}),
])
def test_display_forms_fit_the_oled(proc, inputs):
    p = rules.get(proc)
    check_screen(p.screen(p.resolve(inputs)))


def test_procedures_that_roll_answer_odds_on_a_catalogue():
    """Each throwing_stones procedure with an odds function answers with fractions summing to 1."""
    inputs = base(stones=["ash", "birch"], attacker_stones=["ash"], defender_stones=["cedar"], target_stones=["dogwood"],
                  characteristic="F", talent="charisme", difficulty=2, weapon_size=2, spell="assommer", MP_before=5,
                  opponent_stones=4, HP=5, damage_received=6, karma=3, save_result=2, caster_success_value=2,
                  target_save_result=1, initiative=2, opponent_initiative=3, players={"a": ["ash"], "b": ["birch"]},
                  )
    for pid in rules.all_ids():
        proc = rules.get(pid)
        if proc.system != "throwing_stones" or proc.odds is None:
            continue
        odds = proc.odds({"monster": "cobra"} if pid == "throwing_stones.monster_hp" else inputs)
        assert odds["procedure"] == pid
        assert sum(Fraction(o["fraction"]) for o in odds["outcomes"]) == 1, pid


# ---------------------------------------------------------------- from a table profile to an outcome


PROFILE = """
name = "Arena night"
system = "throwing_stones"
[roll]
procedure = "throwing_stones.characteristic_test"
dice_input = "roll"
[roll.inputs]
characteristic = "F"
difficulty = 1
catalogue = "@characters.Ada.stones"
[characters.Ada]
[[characters.Ada.stones.ash]]
colour = "ruby"
name_face = true
[[characters.Ada.stones.ash]]
colour = "ruby"
swords = 1
[[characters.Ada.stones.ash]]
colour = "silver"
[[characters.Ada.stones.ash]]
colour = "gold"
talent = "sorcellerie"
pluses = 1
[[characters.Ada.stones.ash]]
colour = "silver"
effects = ["chance"]
[[characters.Ada.stones.ash]]
name_face = true
"""


def test_a_toml_profile_catalogue_resolves_vision_readings_and_gives_idle_odds(tmp_path):
    """TS-D01 through the tower service's plan: a TOML catalogue (no colour key = colourless face,
    TS-D03), stone readings from the vision, and the odds of the roll about to be made."""
    from dicetower.rules.odds import idle_line
    from dicetower.service.table import load_profile, plan_from_profile

    path = tmp_path / "arena.toml"
    path.write_text(PROFILE, encoding="utf-8")
    plan = plan_from_profile(load_profile(path), path)
    readings = [DieReading("stone", 2, (0, 0, 9, 9), 0.99, die_id="ash")]
    out = rules.resolve(plan.procedure, plan.build_inputs(readings))
    assert out["result"] == 1 and out["success"] is True and out["faces"][0]["swords"] == 1
    odds = rules.get(plan.procedure).odds(plan.inputs)
    assert odds["success"]["fraction"] == "1/3" and idle_line(odds) == "Success 33.3%"
    with pytest.raises(rules.RulesError, match="unknown stone 'oak'"):
        rules.resolve(plan.procedure, plan.build_inputs([DieReading("stone", 2, (0, 0, 9, 9), 0.99, die_id="oak")]))


def test_bersek_rerolls_come_first_and_are_capped_at_one_per_face():
    roll = [stone("ash", 4), stone("birch", 5), stone("cedar", 5)]  # gold (adds nothing); ruby+1; ruby+3
    common = base(damage_roll=roll, weapon="dague", worn_armour=["cuir"], attacker_attack_roll_effects=["berserk"])
    first = rules.resolve("throwing_stones.damage", common)
    assert first["stage"] == "attacker_reroll" and first["attacker_rerolls_allowed"] == 1
    assert first["reroll_request"] == {**first["reroll_request"], "who": "attacker", "stones": ["ash"]}
    with pytest.raises(rules.RulesError, match="at most 1"):
        rules.resolve("throwing_stones.damage", {**common, "damage_roll_reroll": {
            "positions": [0, 1], "roll": [stone("ash", 2), stone("birch", 2)]}})
    second = rules.resolve("throwing_stones.damage", {**common, "damage_roll_reroll": {"positions": [0], "roll": [stone("ash", 2)]}})
    assert second["stage"] == "armour_reroll" and second["damage"] == 3 + 3  # 3 rubies + the 3 swords of the best face (dagger W 1)
    assert second["reroll_request"]["who"] == "defender" and len(second["reroll_request"]["positions"]) == 2


def test_bersek_with_every_damage_stone_adding_something_goes_straight_to_the_armour_stage():
    """GEN-D05's default offers the stones that add nothing; with none there is no attacker stage to ask about
    (no empty "REROLL 0" request for the tower to wait on)."""
    roll = [stone("birch", 5), stone("cedar", 5)]  # ruby+1; ruby+3
    out = rules.resolve("throwing_stones.damage", base(damage_roll=roll, weapon="dague", worn_armour=["cuir"],
                                                       attacker_attack_roll_effects=["berserk"]))
    assert out["attacker_rerolls_allowed"] == 1 and out["stage"] == "armour_reroll"
    assert out["reroll_request"]["who"] == "defender" and out["reroll_request"]["positions"]


def test_special_effects_odds_match_enumeration_and_name_what_they_lack():
    ids = ["birch", "dogwood"]
    odds = rules.get("throwing_stones.special_effects").odds(base(attacker_stones=ids))
    dist = {o["outcome"]: Fraction(o["fraction"]) for o in odds["outcomes"]}
    assert dist["berserk+poison"] == brute(ids, lambda c: c[0].get("effects") == ["berserk"] and c[1].get("effects") == ["poison"])
    assert Fraction(odds["berserk"]["fraction"]) == brute(ids, lambda c: any("berserk" in f.get("effects", []) for f in c))
    with pytest.raises(rules.RulesError, match="'attacker_stones'"):
        rules.get("throwing_stones.special_effects").odds({"attack_hit": True})


def test_a_killer_loses_half_the_karma():
    out = rules.resolve("throwing_stones.fight_rewards", {"defeated_stones": 5, "killed": True, "winner_karma": 7})
    assert (out["winner_xp"], out["winner_gold"], out["winner_karma_after"]) == (5, 5, 3)


@pytest.mark.parametrize("bad", [{}, {"roll": "x"}, {"roll": [5]}, {"dice": [{"colour": "white", "value": "3"}] * 2},
                                 {"X": -1, "caster_success_value": "a"}, {"side_a": {}, "side_b": {}},
                                 {"initiative_rolls": [{"a": "x"}]}, {"sources": "dodge"}, {"d6": [9]}])
def test_malformed_inputs_get_a_rules_error_never_a_crash(bad):
    """Bad input gets a clear RulesError (what was wrong), never a TypeError/KeyError, from resolve and odds."""
    for pid in rules.all_ids():
        proc = rules.get(pid)
        if proc.system not in ("throwing_stones", "alkemy"):
            continue
        for fn in filter(None, (proc.resolve, proc.odds)):
            try:
                fn(dict(bad))
            except rules.RulesError as exc:
                assert str(exc).strip()


# ---------------------------------------------------------------- re-throws through the tower (GEN-D03)


def rethrown(proc: str, inputs: dict, dice: list | None) -> dict | None:
    """The inputs proc's rethrow gives for its own outcome on inputs, with dice re-thrown (None: declined)."""
    return rules.get(proc).rethrow(inputs, rules.resolve(proc, inputs), dice)


def test_a_mulligan_rethrow_replaces_every_stone_once_and_may_be_declined():
    inputs = base(characteristic="A", roll=[stone("ash", 5), stone("birch", 1)])  # one chance face
    again = rethrown("throwing_stones.characteristic_test", inputs, [stone("birch", 3), stone("ash", 3)])
    out = rules.resolve("throwing_stones.characteristic_test", again)
    assert "reroll_request" not in out and out["mulligan_allowed"] is False  # no second mulligan (TS-D14)
    assert [f["colour"] for f in out["faces"]] == ["silver", "silver"] and out["result"] == 2  # merged by identity
    assert rethrown("throwing_stones.characteristic_test", inputs, None) is None  # declined: the throw stands
    with pytest.raises(rules.RulesError, match="throw exactly the dice"):
        rules.resolve("throwing_stones.characteristic_test",
                      rethrown("throwing_stones.characteristic_test", inputs, [stone("ash", 3)]))


def test_damage_rethrows_go_to_the_attackers_stage_then_the_defenders():
    roll = [stone("ash", 4), stone("birch", 5), stone("cedar", 5)]
    common = base(damage_roll=roll, weapon="dague", worn_armour=["cuir"], attacker_attack_roll_effects=["berserk"])
    second_inputs = rethrown("throwing_stones.damage", common, [stone("ash", 2)])
    second = rules.resolve("throwing_stones.damage", second_inputs)
    assert second["stage"] == "armour_reroll" and second["damage"] == 6
    picked = second["reroll_request"]["positions"]
    assert picked == [2, 0]  # the defender's default: the stones adding most (cedar ruby+3, then ash ruby+1)
    final = rules.resolve("throwing_stones.damage", rules.get("throwing_stones.damage").rethrow(
        second_inputs, second, [stone("cedar", 1), stone("ash", 1)]))
    assert final["stage"] == "final" and "reroll_request" not in final and final["damage_before_armour"] == 6
    # cedar now silver, ash a ruby name face, birch still ruby + 1 sword: 2 rubies + 1 sword
    assert (final["rubies"], final["sword_points"], final["damage"]) == (2, 1, 3)
    declined = rules.resolve("throwing_stones.damage", rethrown("throwing_stones.damage", common, None))
    assert declined["stage"] == "armour_reroll" and declined["damage"] == 2 + 3  # ash's gold face kept
    kept = rules.get("throwing_stones.damage").rethrow(second_inputs, second, None)
    assert rules.resolve("throwing_stones.damage", kept)["damage"] == 6  # the defender forces none
