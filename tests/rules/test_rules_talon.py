"""Talon procedures beyond the shared vectors (RULES.md section 3; seed 002): atout variants of the
continuation, choices and their defaults (GEN-D05), dice from the tower (GEN-D04), health tracks,
the virtual deck through the procedures, and the OLED forms."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dicetower.readings import DieReading
from dicetower.rules import RulesError
from dicetower.rules.registry import REGISTRY
from dicetower.rules.screen import check_screen, generic_screen
from dicetower.rules.talon_deck import NAMELESS, Deck, full_deck, parse_card

import dicetower.rules.talon  # noqa: F401  (registers every talon.* id)


def resolve(proc_id, inputs):
    return REGISTRY[proc_id].resolve(inputs)


def screen_of(proc_id, outcome):
    proc = REGISTRY[proc_id]
    form = proc.screen(outcome) if proc.screen else generic_screen(proc_id, outcome)
    check_screen(form)
    return form


# --- tests, continuation and choices ------------------------------------------------------------
def test_continuation_stops_on_another_suit_and_counts_only_declared_suit_cards():
    out = resolve("talon.king_continuation", {"skill_value": 2, "cards_revealed": ["ARC1", "13E", "4C", "9C", "1C", "2D"],
                                              "declared_suit": "C"})
    assert out["honour_total"] == 13 + 4 + 9 + 1 and out["stop_card"] == "2D"
    assert out["arcana_set_aside"] == ["ARC1"] and out["discard_after"][-1] == "2D"
    assert out["choices"]["declared_suit"] == {"value": "C", "chosen_by": "player"}


def test_default_suit_is_the_best_expected_continuation_and_is_logged():
    out = resolve("talon.king_continuation", {"skill_value": 2, "cards_revealed": ["13E", "4C", "2E"]})
    # with the King of Épées gone, Épées has 12 cards left against 13 for the others: Coupes first
    assert out["choices"]["declared_suit"]["value"] == "C"
    assert out["choices"]["declared_suit"]["chosen_by"] == "default" and "GEN-D05" in out["choices"]["declared_suit"]["rule"]
    assert out["honour_total"] == 17


def test_finir_en_beaute_makes_the_nameless_a_king_and_ends_a_continuation_with_13():
    out = resolve("talon.simple_test", {"skill_value": 0, "cards_revealed": [NAMELESS, "5B", "13D"],
                                        "declared_suit": "B", "atouts": ["finir_en_beaute"], "player": "ana"})
    assert out["honour_total"] == 18 and out["cycle_end_after_test"] is True
    assert out["cheap_chips_delta"] == {"ana": 1}
    during = resolve("talon.king_continuation", {"skill_value": 0, "cards_revealed": ["13D", "5D", NAMELESS],
                                                 "declared_suit": "D", "atouts": ["finir_en_beaute"]})
    assert during["honour_total"] == 13 + 5 + 13 and during["stop_card_counted"] is True


def test_une_veine_de_cocu_starts_from_a_queen_or_knight_with_their_own_value():
    out = resolve("talon.king_continuation", {"skill_value": 3, "cards_revealed": ["11C", "3C", "13C", "4E"],
                                              "declared_suit": "C", "atouts": ["une_veine_de_cocu"]})
    assert out["honour_total"] == 11 + 3 + 13
    plain = resolve("talon.simple_test", {"skill_value": 3, "cards_revealed": ["11C"]})
    assert plain["honour_total"] == 11 and "stop_card" not in plain


def test_sans_limite_narrows_the_suits_step_by_step():
    inputs = {"skill_value": 0, "atouts": {"sans_limite_ou_presque": 2},
              "declared_suits": [["C", "D", "B"], ["C", "D"], ["D"]]}
    out = resolve("talon.king_continuation", {**inputs, "cards_revealed": ["13E", "2B", "3C", "4D", "5D", "6C"]})
    assert out["honour_total"] == 13 + 2 + 3 + 4 + 5 and out["stop_card"] == "6C"
    with pytest.raises(RulesError, match="declared_suits"):
        resolve("talon.king_continuation", {**inputs, "declared_suits": [["C"]], "cards_revealed": ["13E", "2B"]})
    four = resolve("talon.king_continuation", {"skill_value": 0, "atouts": ["sans_limite_ou_presque:4"],
                                               "cards_revealed": ["13E", "ARC9", "2B", "ARC3"]})
    assert four["honour_total"] == 13 + 9 + 2 and four["continuation_stopped_by"] == "ARC3"


def test_avantage_default_prefers_a_king_and_desavantage_the_lower_card():
    adv = resolve("talon.advantage", {"skill_value": 5, "cards_revealed": ["12C", "13E", "1C", "3D"], "declared_suit": "C"})
    assert adv["kept"] == "13E" and adv["discarded"] == "12C" and adv["honour_total"] == 14
    dis = resolve("talon.advantage", {"skill_value": 5, "mode": "disadvantage", "cards_revealed": ["12C", "1D"]})
    assert dis["kept"] == "1D" and dis["success"] is False and dis["grade"] == "critical_failure"
    with pytest.raises(RulesError, match="not one of the honours showing"):
        resolve("talon.advantage", {"skill_value": 5, "cards_revealed": ["12C", "3D"], "player_choice": "4D"})


def test_archetype_counts_only_contributing_honours():
    out = resolve("talon.simple_test", {"skill_value": 5, "cards_revealed": ["9C"], "archetype": "magus",
                                        "skill": "armes_blanches"})
    assert out["archetype_bonus"] == -1 and out["total"] == 13
    attribute = resolve("talon.simple_test", {"skill_value": 5, "cards_revealed": ["9C"], "archetype": "magus",
                                              "skill": "vif", "attribute": True})
    assert attribute["archetype_bonus"] == 0


def test_ace_choices_default_and_check():
    sure = resolve("talon.ace_fumble", {"skill_value": 9, "cards_revealed": ["ARC2", "1B"], "player": "ana"})
    assert sure["outcome"] == "critical_failure" and sure["choices"]["fumble"]["chosen_by"] == "default"
    assert sure["cheap_chips_delta"] == 1 and sure["draw_to_reserve"] == 1
    check = resolve("talon.simple_test", {"skill_value": 9, "cards_revealed": ["1B", "ARC7"],
                                          "atouts": ["demolition_man"], "gm_roleplay_chip": 1})
    assert check["fumble"]["outcome"] == "critical_failure"  # 7 + 3 > 9 (TAL-D20)
    normal = resolve("talon.ace_fumble", {"skill_value": 9, "first_honour": "1B", "player_choice": "reveal_check_card",
                                          "check_card": "ARC7", "gm_roleplay_chip": 1})
    assert normal["outcome"] == "normal_failure" and normal["cheap_chips_delta"] == 1
    with pytest.raises(RulesError, match="not an Ace"):
        resolve("talon.ace_fumble", {"skill_value": 9, "first_honour": "2B"})


def test_cards_missing_or_left_over_are_errors_and_duplicates_are_flagged():
    with pytest.raises(RulesError, match="need another"):
        resolve("talon.king_continuation", {"skill_value": 2, "cards_revealed": ["13E", "4E"], "declared_suit": "E"})
    with pytest.raises(RulesError, match="after the end of the test"):
        resolve("talon.simple_test", {"skill_value": 2, "cards_revealed": ["5E", "4E"]})
    flagged = resolve("talon.simple_test", {"skill_value": 2, "cards_revealed": ["ARC3", "ARC3", "5E"]})
    assert "card_error" in flagged and "ARC3" in flagged["card_error"]
    physical = resolve("talon.simple_test", {"skill_value": 2, "cards_revealed": ["5E"], "cards_seen_this_cycle": ["5E"]})
    assert "5E" in physical["card_error"] and physical["total"] == 7
    with pytest.raises(RulesError, match="cannot spend"):
        resolve("talon.simple_test", {"skill_value": 2, "cards_revealed": ["5E"], "cheap_chips_spent": 3, "cheap_chips": 1})


def test_cycle_end_default_keeps_the_best_card_and_refuses_too_many():
    out = resolve("talon.cycle_end", {"revealer": "p1", "reserves": {"p1": ["1C", "ARC3", "12D"], "p2": ["9B"]},
                                      "fil_rouge": {"p1": 1}})
    assert out["reserves_after"] == {"p1": ["12D"], "p2": []} and out["cheap_chips_delta"] == {"p1": 1}
    with pytest.raises(RulesError, match="Fil rouge allows 0"):
        resolve("talon.cycle_end", {"revealer": "p1", "reserves": {"p1": ["1C"]}, "keeps": {"p1": ["1C"]}})
    exhausted = resolve("talon.cycle_end", {"revealer": "p1", "reserves": {"p1": []}, "talon_exhausted": True})
    assert exhausted["cheap_chips_delta"] == {}


def test_reserve_reveal_costs_a_chip_or_a_mental_level():
    out = resolve("talon.reserve_reveal", {"reserve_reveals_used_this_cycle": 0, "cheap_chips": 0, "card": "ARC5",
                                           "chosen_orientation": "reversed"})
    assert out["allowed"] and out["cost"] == "equilibre_mental_level" and out["revealed"] == "ARC5r"
    with pytest.raises(RulesError, match="not in the reserve"):
        resolve("talon.reserve_reveal", {"card": "ARC5", "reserve": ["2C"]})


# --- the virtual deck through the procedures ----------------------------------------------------
def test_tests_reveal_from_the_saved_deck_and_save_it_back(tmp_path):
    path = tmp_path / "talon.json"
    start = resolve("talon.cycle_start", {"players": ["ana", "bo"], "deck_file": str(path)})
    assert start["talon_size_after_deal"] == 72
    gm = resolve("talon.cycle_start", {"players": ["mj"], "deck_name": "fatalite", "deck_file": str(tmp_path / "gm.json")})
    assert gm["cards_dealt"] == {"mj": 1} and Deck.load(tmp_path / "gm.json").name == "fatalite"
    before = Deck.load(path)
    out = resolve("talon.simple_test", {"skill_value": 9, "deck_file": str(path), "player": "ana"})
    after = Deck.load(path)
    revealed = [parse_card(c).id for c in out["cards_revealed"]]
    to_reserve = out.get("fumble", {}).get("draw_to_reserve", 0)  # an Ace: a card drawn into the reserve
    assert before.talon[: len(revealed)] == revealed
    assert after.talon == before.talon[len(revealed) + to_reserve:]
    assert after.discard == revealed and after.in_play == []
    assert len(after.reserves["ana"]) == 1 + to_reserve
    assert after.cheap_chips["ana"] == out["cheap_chips_after"]
    with pytest.raises(RulesError, match="not at this deck's table"):
        resolve("talon.simple_test", {"skill_value": 9, "deck_file": str(path), "player": "zoe"})


def test_a_nameless_revealed_from_the_deck_runs_the_cycle_end_after_the_test(tmp_path):
    path = tmp_path / "talon.json"
    deck = Deck(["ana"])
    deck.cycle_start({"ana": 1})
    deck.talon.remove(NAMELESS)
    five = deck.talon.pop(deck.talon.index("5C"))
    deck.talon[:0] = [NAMELESS, five]
    deck.save(path)
    out = resolve("talon.simple_test", {"skill_value": 9, "deck_file": str(path), "player": "ana"})
    assert out["cards_revealed"] == [NAMELESS, "5C"] and out["cycle_end_after_test"] is True
    assert out["cycle_end"]["cheap_chips_delta"] == {"ana": 1}
    deck = Deck.load(path)
    assert deck.cycle == 2 and deck.cheap_chips["ana"] == 1 and NAMELESS in deck.talon[-11:]


def test_cli_resolve_and_odds_on_the_virtual_deck(tmp_path):
    """The real console script, as the table uses it (issue 3 items 3, 6, 7)."""
    exe = Path(sys.executable).with_name("dicetower")
    if not exe.exists():
        pytest.skip(f"console script {exe} not installed")
    path = tmp_path / "talon.json"
    run = lambda cmd, data: subprocess.run([str(exe), cmd, *data[0], "--input", "-"], input=json.dumps(data[1]),
                                           capture_output=True, text=True, timeout=120)
    started = run("resolve", (["talon.cycle_start"], {"players": 2, "deck_file": str(path)}))
    assert started.returncode == 0, started.stderr
    odds = run("odds", (["talon.simple_test"], {"skill_value": 9, "deck_file": str(path)}))
    assert odds.returncode == 0, odds.stderr
    assert json.loads(odds.stdout)["cards_left"] == 72
    bad = run("resolve", (["talon.damage_roll"], {"weapon": "dague", "d6": 9}))
    assert bad.returncode == 1 and "impossible on a d6" in bad.stderr


# --- dice from the tower (GEN-D04) ---------------------------------------------------------------
def test_damage_takes_tower_readings_and_rejects_wrong_dice():
    reading = DieReading("d10", 0, (0, 0, 10, 10), 0.97).to_json()  # a d10 "0" reads 10 (GEN-D02)
    out = resolve("talon.damage_roll", {"weapon": "arbalete", "readings": [reading], "armour_points": 7})
    assert out["raw"] == 12 and out["effective_armour"] == 3 and out["damage"] == 9 and out["track"] == "vitalite"
    with pytest.raises(RulesError, match="is a d8"):
        resolve("talon.damage_roll", {"weapon": "dague", "readings": [{"die_type": "d8", "value": 3}]})
    with pytest.raises(RulesError, match="exactly 1"):
        resolve("talon.damage_roll", {"weapon": "dague", "readings": [2, 3]})
    with pytest.raises(RulesError, match="cocked"):
        resolve("talon.damage_roll", {"weapon": "dague", "readings": [{"die_type": "d6", "value": 3, "cocked": True}]})
    two = resolve("talon.damage_roll", {"dice": "2D6", "d6": [6, 5], "unarmed": True})
    assert two["raw"] == 11 and two["track"] == "endurance"
    with pytest.raises(RulesError, match="deals 1D6"):
        resolve("talon.damage_roll", {"weapon": "dague", "dice": "1D8", "d8": 3})


def test_npc_d20_and_adrenaline_d6_are_checked_readings():
    with pytest.raises(RulesError, match="impossible on a d20"):
        resolve("talon.npc_defense_d20", {"npc_grade": "bons", "d20": 21})
    with pytest.raises(RulesError, match="is a d12"):
        resolve("talon.npc_defense_d20", {"npc_grade": "bons", "d20": {"die_type": "d12", "value": 12}})
    no_ace = resolve("talon.npc_defense_d20", {"npc_grade": "epiques", "player_defence_first_honour": "7C"})
    assert no_ace["npc_damage_grade"] == "normal" and no_ace["d20"] is None
    with pytest.raises(RulesError, match="Cheap-chip"):
        resolve("talon.initiative", {"reflexes": 10, "adrenaline": True, "d6": 3, "cheap_chips": 0})
    over = resolve("talon.initiative", {"reflexes": 10, "adrenaline": True, "d6": 3, "cheap_chips": 1,
                                        "endurance_cumul": 3})
    assert over["endurance_cumul_after"] == 0 and over["levels_taken"] == ["fatigue"]
    order = resolve("talon.initiative", {"a": {"celerite": 1, "reflexes": 5, "deborde": True},
                                         "b": {"celerite": 0, "reflexes": 4}, "c": {"celerite": 0, "reflexes": 9}})
    assert order["order"] == ["c", "b", "a"]


def test_demolition_man_asks_for_the_one_to_be_thrown_again():
    out = resolve("talon.demolition_man", {"level": 2, "dice": "1D6", "throws": [1]})
    assert out["complete"] is False and out["reroll_request"]["dice"] == [0] and out["inactive_levels"] == [2]
    with pytest.raises(RulesError, match="only a 1 is thrown again"):
        resolve("talon.demolition_man", {"dice": "1D6", "throws": [3, 4]})


# --- health ---------------------------------------------------------------------------------------
def test_free_levels_fill_first_and_a_full_track_overflows_to_the_terminal_state():
    state = {"track": "vitalite", "skill_value": 15}
    first = resolve("talon.health_apply_damage", {**state, "damage": 2})
    assert first["track_after"]["tier1"]["free_taken"] == 1 and first["malus"] == 0
    full = {"state": {"track": "vitalite", "tier1": {"slots": 4, "threshold": 2, "taken": 4},
                      "tier2": {"slots": 2, "threshold": 5, "taken": 2},
                      "tier3": {"slots": 1, "threshold": 10, "taken": 1}, "cumul": 0}, "damage": 3}
    out = resolve("talon.health_apply_damage", full)
    assert out["levels_recorded"] == ["collapsed_dying"] and out["terminal"] == "collapsed_dying"
    assert out["malus"] == -7


def test_maluses_of_the_three_tracks_add():
    out = resolve("talon.health_malus", {"tracks": [
        {"track": "endurance", "tier1_nonfree_taken": 2},
        {"track": "vitalite", "tier2_nonfree_taken": 1},
        {"track": "equilibre_mental"}]})
    assert out["malus"] == -1 - 3 + 0


def test_npc_second_category_track():
    hit = resolve("talon.npc_tracks", {"npc": "deuxieme_categorie", "damage": 4})
    assert hit["levels_taken"] == ["blessure_grave"] and hit["state"] == "active"
    again = resolve("talon.npc_tracks", {"npc": "deuxieme_categorie", "damage": 5, "track": {"nbg_taken": 1}})
    assert again["levels_recorded"] == ["blessure_mortelle"] and again["state"] == "active"
    dead = resolve("talon.npc_tracks", {"npc": "deuxieme_categorie", "damage": 9, "track": {"nbg_taken": 1, "taken": 1}})
    assert dead["state"] == "collapsed_dying"


def test_souffler_and_unknown_actions():
    out = resolve("talon.endurance_cumul_actions", {"action": "souffler", "fatigue_levels_taken": 3, "endurance_cumul": 2,
                                                    "souffler_rounds_in_a_row": 2, "epuisement_levels_taken": 1})
    assert out["fatigue_levels_taken_after"] == 2 and out["epuisement_recovered"] == 1
    assert "endurance_test_success" in out["next"]
    with pytest.raises(RulesError, match="unknown action"):
        resolve("talon.endurance_cumul_actions", {"action": "danser", "endurance_cumul": 0})


# --- OLED forms -----------------------------------------------------------------------------------
def test_display_forms_fit_the_oled():
    test = resolve("talon.simple_test", {"skill_value": 9, "cards_revealed": ["ARC17r", "13C", "12C", "11C", "9E"],
                                         "declared_suit": "C"})
    form = screen_of("talon.simple_test", test)
    assert form["big"] == "45" and form["lines"][0] == "CRITICAL MR+31"
    assert "XVIIr" in form["lines"][1]
    fumble = resolve("talon.ace_fumble", {"skill_value": 9, "first_honour": "1C", "player_choice": "reveal_check_card",
                                          "check_card": "7E"})
    assert "GM decides" in " ".join(screen_of("talon.ace_fumble", fumble))
    damage = resolve("talon.damage_roll", {"weapon": "epee_longue", "d8": 8, "armour_points": 2})
    assert screen_of("talon.damage_roll", damage)["big"] == "6"
    preview = resolve("talon.simple_test", {"skill_value": 9, "modifiers": [-3, -2]})
    assert "Need honour 10" in screen_of("talon.simple_test", preview)


def test_every_card_label_fits_five_per_line():
    assert max(len(parse_card(c).label()) for c in full_deck()) <= 7


def test_health_atouts_cancel_maluses():
    nbl = {"state": {"track": "vitalite", "tier1": {"taken": 4}, "tier2": {"taken": 0}, "tier3": {"taken": 0}}}
    assert resolve("talon.health_malus", nbl)["malus"] == -2
    assert resolve("talon.health_malus", {**nbl, "atouts": ["juste_une_egratignure"]})["malus"] == 0
    nbg = {"state": {"track": "vitalite", "tier1": {"taken": 4}, "tier2": {"taken": 1}, "tier3": {"taken": 0}}}
    assert resolve("talon.health_malus", nbg)["malus"] == -3
    assert resolve("talon.health_malus", {**nbg, "atouts": {"dur_a_cuire": 1}})["malus"] == -2  # NBL count again
    tired = {"track": "endurance", "tier1_nonfree_taken": 4, "tier2_nonfree_taken": 1}
    assert resolve("talon.health_malus", {**tired, "atouts": ["second_souffle"]})["malus"] == 0
    assert resolve("talon.health_malus", {**tired, "atouts": ["infatigable"]})["malus"] == -2


def test_a_reserve_card_opens_the_test_once_per_cycle_and_costs_a_chip(tmp_path):
    path = tmp_path / "talon.json"
    resolve("talon.cycle_start", {"players": ["ana"], "deck_file": str(path)})
    deck = Deck.load(path)
    deck.cheap_chips["ana"] = 1
    card = deck.reserves["ana"][0]
    deck.save(path)
    inputs = {"skill_value": 9, "deck_file": str(path), "player": "ana",
              "reserve_card": {"card": card, "orientation": "reversed"}}
    out = resolve("talon.simple_test", inputs)
    assert parse_card(out["cards_revealed"][0]).id == card and out["reserve_reveal_cost"] == "cheap_chip"
    deck = Deck.load(path)
    assert card in deck.discard and deck.reserve_reveals_used["ana"] == 1
    with pytest.raises(RulesError, match="cannot reveal from the reserve"):
        resolve("talon.simple_test", {**inputs, "reserve_card": {"card": deck.reserves["ana"][0] if deck.reserves["ana"] else card}})
    with pytest.raises(RulesError, match="not .*\\['bo'\\]"):
        resolve("talon.cycle_start", {"players": ["bo"], "deck_file": str(path)})


def test_fumble_choice_is_separate_from_the_avantage_choice():
    out = resolve("talon.advantage", {"skill_value": 5, "cards_revealed": ["1C", "2E", "ARC20"], "player_choice": "1C",
                                      "fumble_choice": "reveal_check_card"})
    assert out["kept"] == "1C" and out["fumble"]["check_card"] == "ARC20"
    assert out["grade"] == "critical_failure" and out["choices"]["kept_card"]["chosen_by"] == "player"


def test_ko_check_resolves_the_endurance_test_and_gives_its_odds():
    base = {"level_taken": "syncope", "corps_a_corps": True, "gm_calls_test": True, "adversary_modifier": -3,
            "tete_de_pioche": True}
    out = resolve("talon.ko_check", {**base, "endurance_test": {"skill_value": 8, "cards_revealed": ["3C"]}})
    assert out["modifier"] == 2 and out["endurance_test"]["total"] == 13 and out["knocked_out"] is True
    asked = resolve("talon.ko_check", {"level_taken": "epuisement"})
    assert asked["test_called"]["gm_judgement"] is True
    odds = REGISTRY["talon.ko_check"].odds({**base, "endurance_test": {"skill_value": 8}})
    # effective 10: an honour >= 4 (not an Ace) keeps the character up: 40 of the 52 honours
    assert odds["knocked_out"]["fraction"] == "3/13"


def test_demolition_man_rethrows_end_the_chain_of_the_die_that_showed_1():
    proc = REGISTRY["talon.demolition_man"]
    first = {"dice": "2D6", "throws": [{"die_type": "d6", "value": 1}, {"die_type": "d6", "value": 4}]}
    out = resolve("talon.demolition_man", first)  # a flat first throw: a face per die
    assert out["reroll_request"]["dice"] == [0] and out["damage_before_armour"] == 5
    again = proc.rethrow(first, out, [{"die_type": "d6", "value": 1}])
    out = resolve("talon.demolition_man", again)
    assert out["reroll_request"]["dice"] == [0] and out["damage_before_armour"] == 6
    done = resolve("talon.demolition_man", proc.rethrow(again, out, [{"die_type": "d6", "value": 3}]))
    assert done["complete"] is True and done["damage_before_armour"] == 1 + 1 + 3 + 4
    with pytest.raises(RulesError, match="showed 1"):
        proc.rethrow(first, resolve("talon.demolition_man", first), [])
    with pytest.raises(RulesError, match="cannot be declined"):
        proc.rethrow(first, resolve("talon.demolition_man", first), None)
