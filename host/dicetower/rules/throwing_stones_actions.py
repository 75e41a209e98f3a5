"""Throwing Stones Table 5 actions, `throwing_stones.action.<id>` (seed 000, Table 5 : Action;
RULES.md 1.10; TS-D24, TS-D26, TS-D30). Imported by throwing_stones, which registers the rest.
"""

from __future__ import annotations

from typing import Any

import icepool

from . import odds as odds_json
from .dice import read_die
from .registry import RulesError, procedure, takes
from .registry import REGISTRY
from .throwing_stones import _int, _item, _outcomes, karma_gain, run_test, test_odds_die
from .throwing_stones_stones import WEAPONS


def same_odds_as(proc_id: str, own_id: str):
    """Odds of an action resolved by another procedure: that procedure's odds under the action's id."""
    def odds(inputs: dict[str, Any]) -> dict[str, Any]:
        base = REGISTRY[proc_id].odds
        assert base is not None
        return {**base(inputs), "procedure": own_id}
    return odds


def _test_with_optional_roll(inputs: dict[str, Any], test: str, talent: str, char: str, difficulty: int) -> dict[str, Any]:
    """{"test", "difficulty"} plus, when the stones were read ("roll"), the talent test's result/success."""
    out: dict[str, Any] = {"test": test, "difficulty": difficulty}
    if "roll" in inputs:
        res = run_test({**inputs, "talent": talent, "characteristic": char, "difficulty": difficulty}, save=False)
        out.update(result=res["result"], success=res["success"], mulligan_allowed=res["mulligan_allowed"])
    return out


def _draw_size(inputs: dict[str, Any]) -> int:
    if "weapon_size" in inputs:
        return _int(inputs, "weapon_size", minimum=0)
    key = _item(inputs.get("weapon", ""))
    if key not in WEAPONS:
        raise RulesError(f"draw_and_strike needs 'weapon_size' or a Table 4 'weapon' ({', '.join(WEAPONS)})")
    return WEAPONS[key][2]


def _draw_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    difficulty = 2 * _draw_size(inputs)
    die = test_odds_die({**inputs, "talent": "dexterite", "characteristic": "A"}, save=False)
    p = odds_json.probability_where(die, lambda r: r >= difficulty)
    return odds_json.odds_result("throwing_stones.action.draw_and_strike", die, success=p, failure=1 - p)


@procedure("throwing_stones.action.draw_and_strike", odds=_draw_odds)
def draw_and_strike(inputs: dict[str, Any]) -> dict[str, Any]:
    """Dégainer et frapper: Dextérité talent test [A] at 2 x weapon size; success: attack this turn;
    failure: the weapon stays sheathed, no attack (Table 5; RULES.md 1.10).

    inputs:  {"weapon_size": int | "weapon": Table 4 id, "roll"?: [stones]}
    returns: {"test": "talent dexterite [A]", "difficulty", and with the roll "result", "success", "may_attack"}
    """
    out = _test_with_optional_roll(inputs, "talent dexterite [A]", "dexterite", "A", 2 * _draw_size(inputs))
    if "success" in out:
        out["may_attack"] = out["success"]
    return out


def _stand_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    difficulty = icepool.d6 - 1
    if "catalogue" in inputs:
        margin = test_odds_die({**inputs, "talent": "equilibre", "characteristic": "A"}, save=False) - difficulty
        p = odds_json.probability_where(margin, lambda m: m >= 0)
        return odds_json.odds_result("throwing_stones.action.stand_and_act", margin.map(lambda m: "stand and act" if m >= 0 else "stay prone"),
                                     success=p, failure=1 - p, difficulty=difficulty)
    return odds_json.odds_result("throwing_stones.action.stand_and_act", difficulty, difficulty=difficulty)


@procedure("throwing_stones.action.stand_and_act", odds=_stand_odds, dice=takes("d6", "d6"))
def stand_and_act(inputs: dict[str, Any]) -> dict[str, Any]:
    """Se relever et agir: Équilibre talent test [A] vs a standard d6 - 1; success: stand and take a
    second action; failure: stay prone (Table 5; RULES.md 1.10).

    inputs:  {"d6": d6 reading (int or {"die_type": "d6", "value"}), "roll"?: [stones]}
    returns: {"test": "talent equilibre [A]", "difficulty": d6 - 1, "success"?, "stands"?, "second_action"?}
    Raises RulesError when the die is not a d6 (GEN-D04).
    """
    d6 = read_die(inputs.get("d6"), die_type="d6", where="d6").value
    out = _test_with_optional_roll(inputs, "talent equilibre [A]", "equilibre", "A", d6 - 1)
    if "success" in out:
        out.update(stands=out["success"], second_action=out["success"])
    return out


@procedure("throwing_stones.action.attack", odds=same_odds_as("throwing_stones.attack", "throwing_stones.action.attack"))
def action_attack(inputs: dict[str, Any]) -> dict[str, Any]:
    """Attaque: resolved as throwing_stones.attack (Table 5; RULES.md 1.10). Same inputs and outcome."""
    return REGISTRY["throwing_stones.attack"].resolve(inputs)


@procedure("throwing_stones.action.cast", odds=same_odds_as("throwing_stones.spell_cast", "throwing_stones.action.cast"))
def action_cast(inputs: dict[str, Any]) -> dict[str, Any]:
    """Lancer un sort: resolved as throwing_stones.spell_cast (Table 5; RULES.md 1.10, 1.11)."""
    return REGISTRY["throwing_stones.spell_cast"].resolve(inputs)


@procedure("throwing_stones.action.draw")
def draw(inputs: dict[str, Any]) -> dict[str, Any]:
    """Dégainer une arme: no roll; the weapon is usable next turn (Table 5; TS-D24)."""
    return {"roll": False, "weapon_ready_next_turn": True}


def _ready_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    gap = _int(inputs, "opponent_initiative", minimum=0) - _int(inputs, "initiative", minimum=0)
    added = test_odds_die({**inputs, "characteristic": "I", "talent": None}, save=False, centrer=True)
    p = odds_json.probability_where(added, lambda a: a > gap)
    return _outcomes(added, "throwing_stones.action.ready", success=p, failure=1 - p, added=added)


@procedure("throwing_stones.action.ready", odds=_ready_odds)
def ready(inputs: dict[str, Any]) -> dict[str, Any]:
    """Prêt: another [I] throw added to your initiative, +1 per centrer face; you take the initiative
    only if the new total strictly exceeds the opponent's (Table 5; RULES.md 1.6 step 4; TS-D24, TS-D31).

    inputs:  {"initiative": int, "opponent_initiative": int, "roll": [stones] | "ready_result": int}
    returns: {"added", "new_initiative", "takes_initiative"}
    """
    own, opp = _int(inputs, "initiative", minimum=0), _int(inputs, "opponent_initiative", minimum=0)
    if "roll" in inputs:
        res = run_test({**inputs, "characteristic": "I"}, save=False)
        added = res["result"] + sum(f.get("effects", []).count("centrer") for f in res["faces"])
    else:
        added = _int(inputs, "ready_result", minimum=0)
    return {"added": added, "new_initiative": own + added, "takes_initiative": own + added > opp}


@procedure("throwing_stones.action.dodge")
def dodge(inputs: dict[str, Any]) -> dict[str, Any]:
    """Esquive: may reroll all dice of this round's defence rolls and saves (R = ALL; Table 5; RULES.md 1.5)."""
    return {"roll": False, "rerolls_on_defence_and_saves": "ALL", "reroll_source": "dodge"}


@procedure("throwing_stones.action.trip", odds=same_odds_as("throwing_stones.attack", "throwing_stones.action.trip"))
def trip(inputs: dict[str, Any]) -> dict[str, Any]:
    """Faire tomber: an attack; on a hit the target falls unless it passes an Équilibre talent save [A]
    at difficulty = the attack's result (TS-D30) (Table 5; RULES.md 1.10).

    inputs:  throwing_stones.attack inputs, plus "target_save_result"?: int
    returns: the attack outcome plus {"save_required": {"test", "difficulty"}, "target_falls"?}
    """
    out = REGISTRY["throwing_stones.attack"].resolve(inputs)
    if out["hit"]:
        out["save_required"] = {"test": "save talent equilibre [A]", "difficulty": out["attack_score"]}
        if "target_save_result" in inputs:
            out["target_falls"] = _int(inputs, "target_save_result", minimum=0) < out["attack_score"]
    else:
        out["target_falls"] = False
    return out


@procedure("throwing_stones.action.gain_karma", odds=same_odds_as("throwing_stones.karma_gain", "throwing_stones.action.gain_karma"))
def gain_karma(inputs: dict[str, Any]) -> dict[str, Any]:
    """Obtenir des points de Karma: allowed only after you succeeded at an action and your opponent
    failed theirs; then throwing_stones.karma_gain (Table 5; RULES.md 1.10, 1.14).

    inputs:  {"you_succeeded": bool, "opponent_failed": bool, + karma_gain inputs}
    Raises RulesError when the action is not allowed.
    """
    if not (inputs.get("you_succeeded") and inputs.get("opponent_failed")):
        raise RulesError("gain_karma is allowed only after you succeeded at an action and your opponent failed theirs "
                         "(give you_succeeded and opponent_failed)")
    return karma_gain(inputs)


@procedure("throwing_stones.action.pick_up_weapon")
def pick_up_weapon(inputs: dict[str, Any]) -> dict[str, Any]:
    """Ramasser une arme: no roll; usable next turn; prone this round (2 anti-rerolls) (Table 5)."""
    return {"roll": False, "weapon_ready_next_turn": True, "prone_this_round": True, "anti_rerolls": 2}


@procedure("throwing_stones.action.stand_up")
def stand_up(inputs: dict[str, Any]) -> dict[str, Any]:
    """Se relever: no roll; counts as prone this round (2 anti-rerolls) (Table 5)."""
    return {"roll": False, "standing_next_round": True, "prone_this_round": True, "anti_rerolls": 2}


def _sand_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    if not isinstance(inputs.get("target_stones"), list):
        raise RulesError("odds need 'target_stones' (the target's stone ids) besides 'stones' and the catalogue (TS-D01)")
    mine = test_odds_die({**inputs, "talent": "dexterite", "characteristic": "A"}, save=False)
    theirs = test_odds_die({**inputs, "stones": inputs.get("target_stones"), "talent": "perception", "characteristic": "I",
                            "monster": inputs.get("target_monster")}, save=True)
    diff = mine - theirs
    p = odds_json.probability_where(diff, lambda d: d >= 0)
    return _outcomes(diff.map(lambda d: max(1, d) if d >= 0 else 0), "throwing_stones.action.sand_in_eyes",
                     success=p, failure=1 - p)


@procedure("throwing_stones.action.sand_in_eyes", odds=_sand_odds)
def sand_in_eyes(inputs: dict[str, Any]) -> dict[str, Any]:
    """Sable dans les yeux: your Dextérité talent test [A] vs the target's Perception talent save [I];
    success (yours >= theirs) blinds the target for max(1, difference) rounds (Table 5; TS-D26).

    inputs:  {"roll": [stones] | "thrower_result": int, "target_roll": [stones] | "target_save_result": int,
              "stones"?/"target_stones"?: stone ids of each side, "catalogue"?}
    returns: {"thrower_result", "target_save_result", "success", "blinded_rounds"}
    """
    mine = (run_test({**inputs, "talent": "dexterite", "characteristic": "A"}, save=False)["result"]
            if "roll" in inputs else _int(inputs, "thrower_result", minimum=0))
    theirs = (run_test({**inputs, "talent": "perception", "characteristic": "I", "roll": inputs["target_roll"],
                        "roll_reroll": inputs.get("target_roll_reroll"), "stones": inputs.get("target_stones"),
                        "monster": inputs.get("target_monster"), "rainbow_choices": None}, save=True)["result"]
              if "target_roll" in inputs else _int(inputs, "target_save_result", minimum=0))
    ok = mine >= theirs
    return {"thrower_result": mine, "target_save_result": theirs, "success": ok,
            "blinded_rounds": max(1, mine - theirs) if ok else 0}
