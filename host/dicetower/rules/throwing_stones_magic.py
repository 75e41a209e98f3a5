"""Throwing Stones magic: `throwing_stones.spell_cast` and one `throwing_stones.magic.<spell>` per
Table 3 spell (seed 000, Les Sorts, Table3 : Sortilège; RULES.md 1.11; TS-D15, TS-D16, TS-D18, TS-D21,
TS-D27, TS-D28).

Spell effects take the caster's success value (`caster_success_value` = the cast value, TS-D16) and
the target's save result (`target_save_result`); a save succeeds when it reaches the success value.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool

from . import odds as odds_json
from .dice import read_dice, read_die
from .registry import RulesError, procedure, takes
from .screen import fit
from .throwing_stones import _int, _outcomes, test_odds_die
from .throwing_stones_stones import MAGIC_TALENTS, monster, norm_id, read_throw, sum_die, thrown_stone_faces

#: spell id -> (school, cost): an int, or a formula of X ("X", "X+1", "2X")
SPELLS: dict[str, tuple[str, Any]] = {
    "assommer": ("sorcellerie", 1), "illusion": ("sorcellerie", "X+1"), "mental_broye": ("sorcellerie", "X"),
    "drain_de_vie": ("necromancie", "X"), "invoquer_un_monstre": ("necromancie", "2X"),
    "vision_du_futur": ("necromancie", "X"),
    "arme_inutilisable": ("thaumaturgie", 1), "changeforme": ("thaumaturgie", 3), "arme_amelioree": ("thaumaturgie", 2),
    "eclair": ("magie_pure", 3), "vent_fort": ("magie_pure", 3), "mur_de_feu": ("magie_pure", 4),
    "soin": ("zoetrie", "X+1"), "poison": ("zoetrie", 2), "aveugler": ("zoetrie", 2),
}


def spell_cost(spell: str, inputs: dict[str, Any]) -> int:
    """MP cost of a spell (Table 3): fixed, or from X (inputs["X"]; for invoquer_un_monstre X = the
    monster's stones, for mental_broye X = the target's I). Raises RulesError when X is missing."""
    cost = SPELLS[spell][1]
    if isinstance(cost, int):
        return cost
    if "X" in inputs:
        x = _int(inputs, "X", minimum=0)
    elif spell == "invoquer_un_monstre" and inputs.get("monster"):
        x = monster(inputs["monster"])["stones"]
    elif spell == "mental_broye" and "target_I" in inputs:
        x = _int(inputs, "target_I", minimum=0)
    elif "cost" in inputs:
        return _int(inputs, "cost", minimum=0)
    else:
        raise RulesError(f"{spell} costs {cost}: give 'X' (or 'cost')")
    return {"X": x, "X+1": x + 1, "2X": 2 * x}[cost]


def _spell(inputs: dict[str, Any]) -> tuple[str, str, int]:
    spell = norm_id(inputs.get("spell", ""))
    if spell not in SPELLS:
        raise RulesError(f"unknown spell {inputs.get('spell')!r}; Table 3 has {', '.join(SPELLS)}")
    school = SPELLS[spell][0]
    if inputs.get("school") is not None and norm_id(inputs["school"]) != school:
        raise RulesError(f"{spell} is a {school} spell, not {inputs['school']}")
    cost = spell_cost(spell, inputs)
    if "cost" in inputs and _int(inputs, "cost", minimum=0) != cost:
        raise RulesError(f"{spell} costs {cost} MP here (Table 3), not {inputs['cost']}")
    return spell, school, cost


def cast_value(faces: list, school: str) -> tuple[int, int]:
    """(M, cast value) of a throw (TS-D15): M = faces showing the school's magic talent; cast value =
    pluses on those faces + min(M, faces showing no magic talent)."""
    matching = [f for f in faces if f.talent == school]
    non_magic = sum(f.talent not in MAGIC_TALENTS for f in faces)
    m = len(matching)
    return m, sum(f.pluses + f.effects.count("talent_plus") for f in matching) + min(m, non_magic)


def _cast_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    spell, school, cost = _spell(inputs)
    need = cost + (1 if spell == "illusion" else 0)
    joint = sum_die(thrown_stone_faces(inputs), lambda f: icepool.Vector((
        int(f.talent == school), f.pluses + f.effects.count("talent_plus") if f.talent == school else 0,
        int(f.talent not in MAGIC_TALENTS))))
    value = joint.map(lambda v: v[1] + min(v[0], v[2]) if v[0] else -1, star=False)
    p = odds_json.probability_where(value, lambda c: c >= need)
    return _outcomes(value.map(lambda c: "success" if c >= need else "failure"), "throwing_stones.spell_cast",
                     success=p, failure=1 - p, no_matching_face=odds_json.probability_where(value, lambda c: c < 0))


def _cast_screen(outcome: dict[str, Any]) -> dict[str, Any]:
    return {"big": str(outcome["cast_value"])[:4],
            "lines": [fit(f"{outcome['spell']} {'OK' if outcome['success'] else 'FAILED'}"),
                      fit(f"M {outcome['matching_magic_faces']} need {outcome['difficulty']}"),
                      fit(f"MP {outcome['MP_before']}->{outcome['MP_after']}")]}


@procedure("throwing_stones.spell_cast", odds=_cast_odds, screen=_cast_screen)
def spell_cast(inputs: dict[str, Any]) -> dict[str, Any]:
    """Cast a spell (seed 000, Les Sorts, Table 5 Lancer un sort; RULES.md 1.11; TS-D15, TS-D16,
    TS-D21): MP are paid on declaration; M = faces of the spell's school; fails if M = 0; cast value =
    pluses on those faces + min(M, non-magic faces); success iff cast value >= cost (Illusion: cost + 1).

    inputs:  {"spell": Table 3 id, "school"?, "cost"? (checked), "X"? (X spells), "MP_before": int,
              "roll": [stones], "catalogue"?}
    returns: {"spell", "school", "cost", "difficulty", "matching_magic_faces", "cast_value", "success",
              "success_value" (cast value on success, else None), "MP_before", "MP_after"}
    Raises RulesError for an unknown spell, a school or cost that does not match Table 3, a cost above
    the MP left (the spell cannot be cast), or wrong stones.
    """
    spell, school, cost = _spell(inputs)
    mp = _int(inputs, "MP_before", minimum=0)
    if cost > mp:
        raise RulesError(f"{spell} costs {cost} MP but only {mp} are left: it cannot be cast (TS-D21)")
    faces = read_throw(inputs, "roll")
    assert faces is not None
    m, value = cast_value(faces, school)
    need = cost + (1 if spell == "illusion" else 0)
    ok = m >= 1 and value >= need
    return {"spell": spell, "school": school, "cost": cost, "difficulty": need, "matching_magic_faces": m,
            "cast_value": value, "success": ok, "success_value": value if ok else None,
            "MP_before": mp, "MP_after": mp - cost}


# ---------------------------------------------------------------- spell effects


def _cv(inputs: dict[str, Any]) -> int:
    return _int(inputs, "caster_success_value", minimum=0)


def _save(inputs: dict[str, Any], needed: bool = True) -> int | None:
    return _int(inputs, "target_save_result", minimum=0, default=None if not needed else ...)


def _eclair_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    cv, save = _cv(inputs), _save(inputs)
    assert save is not None
    die = icepool.d6.map(lambda d: min(d // 2, max(0, d - save)) if save >= cv else max(0, d - save))
    return odds_json.odds_result("throwing_stones.magic.eclair", die, damage=die, mean=str(Fraction(die.mean()).limit_denominator()))


@procedure("throwing_stones.magic.eclair", odds=_eclair_odds, dice=takes("d6", "d6_damage"),
           screen=lambda o: {"big": str(o["damage"])[:4], "lines": [fit(f"Eclair d6 {o['d6_damage']}"), "save " + ("made" if o["save_succeeded"] else "failed")]})
def eclair(inputs: dict[str, Any]) -> dict[str, Any]:
    """Éclair (3): 1d6 electrical damage; an Équilibre [A] save vs the success value halves it or reduces
    it by the save result (TS-D18): save made -> min(floor(d6/2), max(0, d6 - save)); failed ->
    max(0, d6 - save).

    inputs:  {"d6_damage": d6 reading, "caster_success_value": int, "target_save_result": int}
    returns: {"d6_damage", "save_succeeded", "damage"}
    Raises RulesError when the damage die is not a d6 (GEN-D04).
    """
    d6 = read_die(inputs.get("d6_damage"), die_type="d6", where="d6_damage").value
    cv, save = _cv(inputs), _save(inputs)
    assert save is not None
    ok = save >= cv
    dmg = min(d6 // 2, max(0, d6 - save)) if ok else max(0, d6 - save)
    return {"d6_damage": d6, "save_succeeded": ok, "damage": dmg}


def target_save_odds(proc: str, characteristic: str, talent: str | None = None):
    """Odds function for a spell whose effect hangs on the target's save (RULES.md 1.11 step 7): the
    exact chance that a save of `characteristic` (or `talent`) by inputs["target_stones"] (catalogue
    faces, 1/6 each) reaches the caster's success value."""
    def odds(inputs: dict[str, Any]) -> dict[str, Any]:
        cv = _cv(inputs)
        if not isinstance(inputs.get("target_stones"), list):
            raise RulesError("odds of the target's save need 'target_stones' (stone ids) and the catalogue (TS-D01)")
        target = {**inputs, "stones": inputs.get("target_stones"), "characteristic": characteristic, "talent": talent,
                  "monster": inputs.get("target_monster")}
        die = test_odds_die(target, save=True)
        p = odds_json.probability_where(die, lambda r: r >= cv)
        return _outcomes(die.map(lambda r: "resisted" if r >= cv else "affected"), proc,
                         success=1 - p, resisted=p, target_save=die)
    return odds


def _saved(inputs: dict[str, Any]) -> tuple[int, int, bool]:
    cv, save = _cv(inputs), _save(inputs)
    assert save is not None
    return cv, save, save >= cv


@procedure("throwing_stones.magic.assommer", odds=target_save_odds("throwing_stones.magic.assommer", "I", None))
def assommer(inputs: dict[str, Any]) -> dict[str, Any]:
    """Assommer (1): the target must pass an [I] save or cannot act next turn (Table 3).
    inputs: {"caster_success_value", "target_save_result"}; returns: {"save_succeeded", "target_loses_next_turn"}"""
    _, _, ok = _saved(inputs)
    return {"save": "I", "save_succeeded": ok, "target_loses_next_turn": not ok}


@procedure("throwing_stones.magic.illusion", odds=target_save_odds("throwing_stones.magic.illusion", "I", None))
def illusion(inputs: dict[str, Any]) -> dict[str, Any]:
    """Illusion (X+1): cast any school's spell at difficulty +1 (X = its cost); the target gets an [I]
    save besides the spell's own save; never affects the caster (Table 3).
    inputs: {"caster_success_value", "target_save_result" (the [I] save)}; returns: {"illusion_resisted", ...}"""
    _, _, ok = _saved(inputs)
    return {"save": "I", "save_succeeded": ok, "illusion_resisted": ok, "then": "the original spell's own save"}


@procedure("throwing_stones.magic.mental_broye", odds=target_save_odds("throwing_stones.magic.mental_broye", "I", None))
def mental_broye(inputs: dict[str, Any]) -> dict[str, Any]:
    """Mental Broyé (X = target's I): an [I] save vs the success value or unconscious for
    max(1, success value - save) rounds (Table 3; TS-D27).
    inputs: {"caster_success_value", "target_save_result"}; returns: {"save_succeeded", "unconscious_rounds"}"""
    cv, save, ok = _saved(inputs)
    return {"save": "I", "save_succeeded": ok, "unconscious_rounds": 0 if ok else max(1, cv - save)}


@procedure("throwing_stones.magic.drain_de_vie", odds=target_save_odds("throwing_stones.magic.drain_de_vie", "F", None))
def drain_de_vie(inputs: dict[str, Any]) -> dict[str, Any]:
    """Drain de vie (X): X HP from the target to the caster unless the target passes an [F] save;
    caster's damage received cannot go below 0 (Table 3).
    inputs: {"X", "caster_success_value", "target_save_result", "target_damage_received", "caster_damage_received"}
    returns: {"save_succeeded", "target_damage_received_after", "caster_damage_received_after"}"""
    x = _int(inputs, "X", minimum=0)
    _, _, ok = _saved(inputs)
    target, caster = _int(inputs, "target_damage_received", minimum=0), _int(inputs, "caster_damage_received", minimum=0)
    return {"save": "F", "save_succeeded": ok, "target_damage_received_after": target if ok else target + x,
            "caster_damage_received_after": caster if ok else max(0, caster - x)}


@procedure("throwing_stones.magic.invoquer_un_monstre")
def invoquer_un_monstre(inputs: dict[str, Any]) -> dict[str, Any]:
    """Invoquer un monstre (2X, X = the monster's stones): the monster fights for you; upkeep 1 MP per
    round (Table 3). inputs: {"monster"}; returns: {"monster", "X", "cost", "upkeep_per_round": 1, "stats"}"""
    row = monster(inputs.get("monster", ""))
    return {"monster": inputs["monster"], "X": row["stones"], "cost": 2 * row["stones"], "upkeep_per_round": 1,
            "stats": {k: v for k, v in row.items()}}


@procedure("throwing_stones.magic.vision_du_futur")
def vision_du_futur(inputs: dict[str, Any]) -> dict[str, Any]:
    """Vision du futur (X): throw X dice next round before choosing your action (Table 3; recorded only).
    inputs: {"X"}; returns: {"dice_next_round": X, "before_choosing_action": true}"""
    return {"dice_next_round": _int(inputs, "X", minimum=0), "before_choosing_action": True}


@procedure("throwing_stones.magic.arme_inutilisable", odds=target_save_odds("throwing_stones.magic.arme_inutilisable", "F", None))
def arme_inutilisable(inputs: dict[str, Any]) -> dict[str, Any]:
    """Arme inutilisable (1): the target's weapon is useless for success-value rounds; an [F] save
    shortens it by the save result, min 0 (Table 3; RULES.md 1.11 DECISION).
    inputs: {"caster_success_value", "target_save_result"?}; returns: {"useless_rounds"}"""
    cv = _cv(inputs)
    save = _save(inputs, needed=False) or 0
    return {"save": "F", "useless_rounds": max(0, cv - save)}


@procedure("throwing_stones.magic.changeforme", odds=target_save_odds("throwing_stones.magic.changeforme", "F", None))
def changeforme(inputs: dict[str, Any]) -> dict[str, Any]:
    """Changeforme (3): X = success value of the target's stones become monster stones; an [F] save
    that succeeds cancels it; upkeep 1 MP per round (Table 3; RULES.md 1.11 DECISION).
    inputs: {"caster_success_value", "target_save_result"?}; returns: {"stones_replaced", "upkeep_per_round"}"""
    cv = _cv(inputs)
    save = _save(inputs, needed=False)
    cancelled = save is not None and save >= cv
    return {"save": "F", "save_succeeded": cancelled, "stones_replaced": 0 if cancelled else cv,
            "upkeep_per_round": 0 if cancelled else 1}


@procedure("throwing_stones.magic.arme_amelioree")
def arme_amelioree(inputs: dict[str, Any]) -> dict[str, Any]:
    """Arme améliorée (2): the weapon counts one more sword face in damage (W + 1) for success-value
    rounds; recasting adds to the duration, never to W (Table 3; RULES.md 1.11 DECISION).
    inputs: {"caster_success_value", "rounds_left"?: int}; returns: {"weapon_size_bonus": 1, "rounds"}"""
    return {"weapon_size_bonus": 1, "rounds": _cv(inputs) + _int(inputs, "rounds_left", minimum=0, default=0)}


@procedure("throwing_stones.magic.vent_fort", odds=target_save_odds("throwing_stones.magic.vent_fort", "A", "equilibre"))
def vent_fort(inputs: dict[str, Any]) -> dict[str, Any]:
    """Vent fort (3): an Équilibre [A] save vs the success value, or the target falls (Table 3).
    inputs: {"caster_success_value", "target_save_result"}; returns: {"save_succeeded", "target_falls"}"""
    _, _, ok = _saved(inputs)
    return {"save": "talent equilibre [A]", "save_succeeded": ok, "target_falls": not ok}


def _mur_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    die = 2 @ icepool.d6
    return odds_json.odds_result("throwing_stones.magic.mur_de_feu", die, crossing_damage=die, jump_difficulty=icepool.d6)


@procedure("throwing_stones.magic.mur_de_feu", odds=_mur_odds, dice=takes("d6", "crossing_d6", "jump_d6"))
def mur_de_feu(inputs: dict[str, Any]) -> dict[str, Any]:
    """Mur de feu (4): a fire circle round the caster; crossing it deals 2d6; jumping over needs an
    Équilibre [A] test vs 1d6; upkeep 2 MP per turn (Table 3).
    inputs: {"crossing_d6"?: [2 d6 readings], "jump_d6"?: d6 reading, "jump_test_result"?: int}
    returns: {"upkeep_per_turn": 2, "crossing_damage"?, "jump_difficulty"?, "jump_succeeded"?}
    Raises RulesError when the dice are not standard d6 or not two for the crossing."""
    out: dict[str, Any] = {"upkeep_per_turn": 2}
    if "crossing_d6" in inputs:
        out["crossing_damage"] = sum(d.value for d in read_dice(inputs["crossing_d6"], die_type="d6", count=2, what="crossing_d6"))
    if "jump_d6" in inputs:
        out["jump_difficulty"] = read_die(inputs["jump_d6"], die_type="d6", where="jump_d6").value
        if "jump_test_result" in inputs:
            out["jump_succeeded"] = _int(inputs, "jump_test_result", minimum=0) >= out["jump_difficulty"]
    return out


@procedure("throwing_stones.magic.soin")
def soin(inputs: dict[str, Any]) -> dict[str, Any]:
    """Soin (X+1): the target's damage received drops by X, never below 0 (Table 3; TS-D28).
    inputs: {"X", "target_damage_received"}; returns: {"target_damage_received_after"}"""
    return {"target_damage_received_after": max(0, _int(inputs, "target_damage_received", minimum=0) - _int(inputs, "X", minimum=0))}


@procedure("throwing_stones.magic.poison", odds=target_save_odds("throwing_stones.magic.poison", "F", None))
def poison(inputs: dict[str, Any]) -> dict[str, Any]:
    """Poison / Antidote (2): "poison": an [F] save vs the success value or poisoned (as Table 1);
    "antidote": immune to the Poison spell for success-value rounds (Table 3).
    inputs: {"mode"?: "poison"|"antidote", "caster_success_value", "target_save_result" (poison)}
    returns: {"target_poisoned"} or {"immune_rounds"}"""
    mode = inputs.get("mode", "poison")
    if mode == "antidote":
        return {"mode": mode, "immune_rounds": _cv(inputs)}
    if mode != "poison":
        raise RulesError(f"mode must be 'poison' or 'antidote', not {mode!r}")
    _, _, ok = _saved(inputs)
    return {"mode": mode, "save": "F", "save_succeeded": ok, "target_poisoned": not ok}


@procedure("throwing_stones.magic.aveugler", odds=target_save_odds("throwing_stones.magic.aveugler", "F", None))
def aveugler(inputs: dict[str, Any]) -> dict[str, Any]:
    """Aveugler (2): on a failed [F] save vs the success value the target is blinded (as sand in the
    eyes: complete anti-reroll, TS-D25) for success value - save rounds (Table 3).
    inputs: {"caster_success_value", "target_save_result"}; returns: {"save_succeeded", "blinded_rounds"}"""
    cv, save, ok = _saved(inputs)
    return {"save": "F", "save_succeeded": ok, "blinded_rounds": 0 if ok else cv - save}
