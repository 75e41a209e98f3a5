"""Throwing Stones combat (seed 000, Combat, Dégâts et Mort, Table 1, Table 4; RULES.md 1.7-1.9, 1.13):
the opposed attack, special effects, the damage roll with armour rerolls, the death check, poison,
and the equipment load. Imported by throwing_stones, which registers the other procedures.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool

from . import odds as odds_json
from .dice import read_die
from .registry import RulesError, procedure, takes
from .screen import fit
from .throwing_stones import ALL, _int, _item, _mulligan, _outcomes, run_test, test_odds_die
from .throwing_stones_stones import (
    ARMOURS, WEAPONS, Face, allowed_rainbow, apply_reroll, colour_count, count_effect, fold_die, monster, norm_id, rainbow_choices,
    read_throw, sum_die, thrown_stone_faces,
)

# ---------------------------------------------------------------- attack (1.7) and effects (1.9)


def _armed(inputs: dict[str, Any], key: str) -> bool:
    value = inputs.get(key, True)
    if not isinstance(value, bool):
        raise RulesError(f"{key} must be true or false")
    return value


def combat_score(faces: list[Face], *, armed: bool, attack: bool, choices: dict[str, str] | None = None,
                 allowed: list[str] | None = None) -> int:
    """Attack or defence score (RULES.md 1.7): silver faces + swords (unarmed: only if a
    combat_sans_armes face shows, TS-D07) + zele faces on attack only (TS-D06)."""
    csa = any(f.talent == "combat_sans_armes" for f in faces)
    score = colour_count(faces, "silver", choices, allowed)
    if armed or csa:
        score += sum(f.swords for f in faces)
    if attack:
        score += count_effect(faces, "zele")
    return score


def _score_die(stones: list[list[Face]], armed: bool, attack: bool, allowed: list[str] | None) -> icepool.Die:
    joint = sum_die(stones, lambda f: icepool.Vector((
        int(f.counts_as("silver", allowed=allowed)) + (f.effects.count("zele") if attack else 0),
        f.swords, int(f.talent == "combat_sans_armes"))))
    return joint.map(lambda v: v[0] + (v[1] if armed or v[2] else 0), star=False)


def effects(attacker: list[str], defender: list[str], *, hit: bool, attack_score: int | None = None,
            defence_score: int | None = None, damage: int | None = None, extra_attack: bool = False) -> dict[str, Any]:
    """Special effects of one attack (Table 1; RULES.md 1.9). A symbol acts only for who threw it
    (seed example: Bersek on the defence roll does nothing). `attacker`/`defender`: effect ids showing
    on the attack and defence rolls. Saves "against the damage" use difficulty = damage (TS-D17)."""
    diff: Any = damage if damage is not None else "damage dealt"
    triggered: list[dict[str, Any]] = []
    out: dict[str, Any] = {"attacker_extra_rerolls_on_damage_roll": attacker.count("berserk") if hit else 0,
                           "defender_benefits_from_berserk": False}
    stun = hit and attack_score is not None and defence_score is not None and attack_score >= 2 * defence_score
    out["stun_save_required"] = bool(stun and "etourdir" in attacker)
    if hit:
        for e in sorted(set(attacker), key=attacker.index):
            n = attacker.count(e)
            if e == "berserk":
                triggered.append({"effect": e, "by": "attacker", "count": n, "consequence": f"{n} self-reroll(s) on the damage roll (TS-D09)"})
            elif e == "poison":
                triggered.append({"effect": e, "by": "attacker", "consequence": "defender poisoned (poison_tick, TS-D22)"})
            elif e == "coup_additionnel" and not extra_attack:
                triggered.append({"effect": e, "by": "attacker", "consequence": "one extra attack after damage (TS-D29)"})
            elif e == "etourdir" and stun:
                triggered.append({"effect": e, "by": "attacker", "save": "F", "difficulty": diff,
                                  "consequence": "on a failed save the defender loses its next action (TS-D17)"})
            elif e == "desarmer":
                triggered.append({"effect": e, "by": "attacker", "save": "talent dexterite [A]", "difficulty": diff,
                                  "consequence": "on a failed save the defender loses its weapon"})
            elif e == "faire_tomber":
                triggered.append({"effect": e, "by": "attacker", "save": "talent equilibre [A]", "difficulty": diff,
                                  "consequence": "on a failed save the defender falls (prone)"})
            elif e == "ignorer_armure":
                triggered.append({"effect": e, "by": "attacker", "consequence": "armour ignored on the damage roll (AV 0)"})
        if "roll" in defender:
            triggered.append({"effect": "roll", "by": "defender", "count": defender.count("roll"),
                              "consequence": "defender may force that many more damage rerolls (TS-D11)"})
    elif "contre_attaque" in defender:
        triggered.append({"effect": "contre_attaque", "by": "defender",
                          "consequence": "a free attack by the defender, right now (TS-D29)"})
    out.update(triggered=triggered,
               defender_poisoned=hit and "poison" in attacker,
               extra_attack=hit and "coup_additionnel" in attacker and not extra_attack,
               counter_attack=not hit and "contre_attaque" in defender,
               armour_ignored=hit and "ignorer_armure" in attacker,
               defender_roll_rerolls=defender.count("roll") if hit else 0)
    return out


def _effects_of(faces: list[Face] | None) -> list[str]:
    return [e for f in faces or [] for e in f.effects]


def _attack_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    att = _score_die(thrown_stone_faces(inputs, "attacker", "attacker_roll"), _armed(inputs, "attacker_armed"), True,
                     allowed_rainbow(inputs, "attacker"))
    dfn = _score_die(thrown_stone_faces(inputs, "defender", "defender_roll"), _armed(inputs, "defender_armed"), False,
                     allowed_rainbow(inputs, "defender"))
    margin = att - dfn
    p = odds_json.probability_where(margin, lambda m: m >= 0)
    return _outcomes(margin.map(lambda m: "hit" if m >= 0 else "miss"), "throwing_stones.attack", hit=p, miss=1 - p,
                     attack_score=att, defence_score=dfn, margin=margin)


def _attack_screen(outcome: dict[str, Any]) -> list[str]:
    lines = [("HIT" if outcome["hit"] else "MISS") + f" {outcome['attack_score']} vs {outcome['defence_score']}"]
    lines += [fit(f"{t['by'][:3]} {t['effect']}") for t in outcome.get("triggered", [])][:6]
    return lines


@procedure("throwing_stones.attack", odds=_attack_odds, screen=_attack_screen)
def attack(inputs: dict[str, Any]) -> dict[str, Any]:
    """Opposed attack (seed 000, Combat and Table 5 Attaque; RULES.md 1.7; TS-D06, TS-D07): attack =
    silver + swords + zele; defence = silver + swords; unarmed swords count only with a
    combat_sans_armes face; hit iff attack >= defence (the attacker wins ties); then the effects (1.9).

    inputs:  {"attacker_roll": [stones], "defender_roll": [stones], "attacker_armed"?: bool (true),
              "defender_armed"?: bool (true), "extra_attack"?: bool (an attack granted by
              coup_additionnel, which grants no further one), "attacker_stones"/"defender_stones"?,
              "attacker_monster"/"defender_monster"?, "catalogue"?, "<roll>_reroll"?}
    returns: {"attack_score", "defence_score", "hit", "margin", "triggered": [effects],
              "attacker_extra_rerolls_on_damage_roll", "stun_save_required", "counter_attack", ...,
              "attacker_mulligan_allowed", "defender_mulligan_allowed"}
    Raises RulesError on wrong stones (GEN-D04) for either side.
    """
    att = read_throw(inputs, "attacker_roll", who="attacker")
    dfn = read_throw(inputs, "defender_roll", who="defender")
    assert att is not None and dfn is not None
    a = combat_score(att, armed=_armed(inputs, "attacker_armed"), attack=True, allowed=allowed_rainbow(inputs, "attacker"),
                     choices=rainbow_choices(inputs, "attacker_rainbow_choices"))
    d = combat_score(dfn, armed=_armed(inputs, "defender_armed"), attack=False, allowed=allowed_rainbow(inputs, "defender"),
                     choices=rainbow_choices(inputs, "defender_rainbow_choices"))
    hit = a >= d
    out = {"attack_score": a, "defence_score": d, "hit": hit, "margin": a - d,
           "attacker_faces": [f.to_json() for f in att], "defender_faces": [f.to_json() for f in dfn],
           "attacker_mulligan_allowed": _mulligan(att, inputs)["mulligan_allowed"],
           "defender_mulligan_allowed": _mulligan(dfn, inputs)["mulligan_allowed"],
           "combat_sans_armes_shown": any(f.talent == "combat_sans_armes" for f in att)}
    out.update(effects(_effects_of(att), _effects_of(dfn), hit=hit, attack_score=a, defence_score=d,
                       extra_attack=bool(inputs.get("extra_attack", False))))
    return out


def _effect_list(inputs: dict[str, Any], key: str) -> list[str] | None:
    value = inputs.get(key)
    if value is None:
        return None
    if not isinstance(value, list):
        raise RulesError(f"{key} must be a list of effect ids")
    return [norm_id(e) for e in value]


#: Effects a hitting attack roll triggers for the attacker (Table 1; RULES.md 1.9)
HIT_EFFECTS = ("berserk", "poison", "coup_additionnel", "etourdir", "desarmer", "faire_tomber", "ignorer_armure")


def _effects_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Exact chance of each set of hit effects showing on the attacker's attack roll (catalogue faces,
    1/6 each; they act only if the attack hits; etourdir also needs attack >= 2 x defence)."""
    stones = thrown_stone_faces(inputs, "attacker", "attacker_attack_roll")
    joint = sum_die(stones, lambda f: icepool.Vector(tuple(f.effects.count(e) for e in HIT_EFFECTS)))
    shown = joint.map(lambda v: "+".join(e for e, n in zip(HIT_EFFECTS, v) if n) or "none", star=False)
    per_effect = {e: odds_json.probability_where(joint.marginals[i], lambda n: n > 0) for i, e in enumerate(HIT_EFFECTS)}
    return odds_json.odds_result("throwing_stones.special_effects", shown,
                                 method=f"{odds_json.EXACT}; attacker's catalogue faces, each 1/6 (TS-D01); effects "
                                        "act on a hit only", berserk_rerolls=joint.marginals[0], **per_effect)


@procedure("throwing_stones.special_effects", odds=_effects_odds)
def special_effects(inputs: dict[str, Any]) -> dict[str, Any]:
    """Which special effects an attack triggers and for whom (Table 1; RULES.md 1.9; TS-D09, TS-D11,
    TS-D17, TS-D22, TS-D29): a symbol acts only for the player who threw it.

    inputs:  rolls {"attacker_attack_roll": [stones], "defender_defence_roll": [stones]} or effect lists
             {"attacker_effects": [ids], "defender_effects": [ids]} or one {"effect": id}; "attack_hit"?
             (else attack_score >= defence_score), "attack_score"?, "defence_score"?, "damage"?,
             "extra_attack"?
    returns: {"triggered": [...], "attacker_extra_rerolls_on_damage_roll", "defender_benefits_from_berserk"
              (always false), "stun_save_required", "defender_poisoned", "extra_attack", "counter_attack",
              "armour_ignored", "defender_roll_rerolls", "hit"}
    Raises RulesError when whether the attack hit cannot be told.
    """
    att_faces = read_throw(inputs, "attacker_attack_roll", required=False, who="attacker")
    dfn_faces = read_throw(inputs, "defender_defence_roll", required=False, who="defender")
    attacker = _effect_list(inputs, "attacker_effects") or _effects_of(att_faces)
    if "effect" in inputs:
        attacker = attacker + [norm_id(inputs["effect"])]
    defender = _effect_list(inputs, "defender_effects") or _effects_of(dfn_faces)
    a_score, d_score = _int(inputs, "attack_score", default=None), _int(inputs, "defence_score", default=None)
    if a_score is None and att_faces is not None and dfn_faces is not None:
        a_score = combat_score(att_faces, armed=_armed(inputs, "attacker_armed"), attack=True)
        d_score = combat_score(dfn_faces, armed=_armed(inputs, "defender_armed"), attack=False)
    hit = inputs.get("attack_hit")
    if hit is None:
        if a_score is None or d_score is None:
            raise RulesError("give 'attack_hit' or both 'attack_score' and 'defence_score'")
        hit = a_score >= d_score
    return {"hit": bool(hit), **effects(attacker, defender, hit=bool(hit), attack_score=a_score, defence_score=d_score,
                                         damage=_int(inputs, "damage", default=None),
                                         extra_attack=bool(inputs.get("extra_attack", False)))}


# ---------------------------------------------------------------- damage and death (1.8)


def armour_value(inputs: dict[str, Any]) -> int:
    """Defender's table armour value: inputs["armour_value"], or the sum of inputs["worn_armour"]
    (Table 4, TS-D10: the "Dégât" column, armour + shield), or a defender monster's Table 2 armour."""
    if "armour_value" in inputs:
        return _int(inputs, "armour_value", minimum=0)
    if "worn_armour" in inputs:
        total = 0
        for item in inputs["worn_armour"] or []:
            key = _item(item)
            if key not in ARMOURS:
                raise RulesError(f"unknown armour {item!r}; Table 4 has {', '.join(ARMOURS)}")
            total += ARMOURS[key][2]
        return total
    if inputs.get("defender_monster"):
        return monster(inputs["defender_monster"])["AV"]
    return 0


def weapon_size(inputs: dict[str, Any], attack_faces: list[Face] | None) -> int:
    """W (RULES.md 1.8 step 3): inputs["weapon_size"], or the weapon's Table 4 size, or the attacking
    monster's Table 2 Dégât; unarmed 0, or 1 when a combat_sans_armes face showed on the attack
    (TS-D07); +1 with "enhanced_weapon" (Arme améliorée)."""
    if inputs.get("attacker_armed", True) is False:
        csa = any(f.talent == "combat_sans_armes" for f in attack_faces or []) or "combat_sans_armes" in (
            _effect_list(inputs, "attacker_attack_roll_effects") or [])
        size = 1 if csa else 0
    elif "weapon_size" in inputs:
        size = _int(inputs, "weapon_size", minimum=0)
    elif inputs.get("weapon"):
        key = _item(inputs["weapon"])
        if key not in WEAPONS:
            raise RulesError(f"unknown weapon {inputs['weapon']!r}; Table 4 has {', '.join(WEAPONS)}")
        size = WEAPONS[key][2]
    elif inputs.get("attacker_monster"):
        size = monster(inputs["attacker_monster"])["W"]
    else:
        raise RulesError("damage needs 'weapon_size', 'weapon', 'attacker_monster' or attacker_armed = false")
    return size + int(bool(inputs.get("enhanced_weapon", False)))


def damage_count(faces: list[Face], size: int) -> tuple[int, int]:
    """(ruby faces, sword points) of a damage roll: printed ruby faces only (a rainbow face counts as its
    printed colour, TS-D02) and the swords of the `size` faces with most swords (TS-D08)."""
    rubies = sum(f.colour == "ruby" for f in faces)
    swords = sum(sorted((f.swords for f in faces), reverse=True)[:size])
    return rubies, swords


def _damage_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    stones = thrown_stone_faces(inputs, "attacker", "damage_roll")
    size = weapon_size(inputs, None)
    state = fold_die(stones, (0, ()), lambda s, f: (s[0] + (f.colour == "ruby"), tuple(sorted(s[1] + (f.swords,), reverse=True)[:size])))
    die = state.map(lambda s: s[0] + sum(s[1]), star=False)
    return _outcomes(die, "throwing_stones.damage", damage=die, mean=str(Fraction(die.mean()).limit_denominator()))


def _damage_screen(outcome: dict[str, Any]) -> dict[str, Any]:
    if outcome.get("damage") is None:
        return {"big": str(outcome["armour_rerolls_defender_may_force"])[:4], "lines": ["armour rerolls", "defender may", "force"]}
    lines = [fit(f"ruby {outcome['rubies']} sword {outcome['sword_points']}")]
    if outcome.get("reroll_request"):
        lines.append(fit(f"armour: reroll {len(outcome['reroll_request']['positions'])}"))
    if outcome.get("state"):
        lines.append(fit(f"defender {outcome['state']}"))
    return {"big": str(outcome["damage"])[:4], "lines": lines[:3]}


def _damage_rethrow(inputs: dict[str, Any], outcome: dict[str, Any], dice: list[Any] | None) -> dict[str, Any]:
    """damage's inputs once the damage stones its outcome's reroll_request names were dropped through the tower
    again (GEN-D03): at stage "attacker_reroll" (Bersek, optional) as damage_roll_reroll, at "armour_reroll" (the
    defender's forced rerolls) as armour_reroll, {"positions": the request's, "roll": dice}. Declined (dice
    None): the attacker goes on to the armour stage (attacker_reroll_declined); the defender forces none."""
    positions = list(outcome["reroll_request"]["positions"])
    if outcome.get("stage") == "attacker_reroll":
        if dice is None:
            return {**inputs, "attacker_reroll_declined": True}
        return {**inputs, "damage_roll_reroll": {"positions": positions, "roll": list(dice)}}
    forced = {"positions": [], "roll": []} if dice is None else {"positions": positions, "roll": list(dice)}
    return {**inputs, "armour_reroll": forced}


@procedure("throwing_stones.damage", odds=_damage_odds, screen=_damage_screen, rethrow=_damage_rethrow)
def damage(inputs: dict[str, Any]) -> dict[str, Any]:
    """Damage roll (seed 000, Dégâts et Mort, Table 5 Dégât; RULES.md 1.8; TS-D02, TS-D07, TS-D08,
    TS-D10, TS-D11): ruby faces + swords of the W best sword faces; only swords and rubies count (no
    other symbol acts in a damage roll); the defender may then force up to AV (+1 per roll face on its
    defence, 0 armour if the hitting attack showed ignorer_armure) damage stones to be rerolled.

    inputs:  {"damage_roll"?: [stones], "weapon_size" | "weapon" | "attacker_monster" | "attacker_armed": false,
              "enhanced_weapon"?, "armour_value" | "worn_armour" | "defender_monster",
              "attacker_attack_roll_effects"? | "attacker_attack_roll"?, "defender_defence_roll_effects"? |
              "defender_defence_roll"?, "attack_hit"?, "armour_reroll"?: {"positions", "roll"} (the forced
              reroll, merged by stone identity), "armour_reroll_positions"? (the defender's choice),
              "damage_roll_reroll"?: {"positions", "roll"} (the attacker's own Bersek rerolls, made first),
              "attacker_rerolls"?: extra own rerolls, "attacker_reroll_declined"?: bool,
              "damage_received_before"?, "HP"?}
    returns: {"armour_value_table", "roll_bonus", "armour_rerolls_defender_may_force", and with a
              damage roll: "rubies", "sword_points", "damage", "weapon_size", "effects_triggered": [],
              "attacker_rerolls_allowed", "stage": "attacker_reroll"|"armour_reroll"|"final",
              "reroll_request"? (the stones to pick up at this stage: the attacker's first, then the
              defender's), "damage_received_after"?, "state"?}
    Raises RulesError on wrong stones or more own or forced rerolls than allowed.
    """
    att_faces = read_throw(inputs, "attacker_attack_roll", required=False, who="attacker")
    dfn_faces = read_throw(inputs, "defender_defence_roll", required=False, who="defender")
    att_effects = _effect_list(inputs, "attacker_attack_roll_effects") or _effects_of(att_faces)
    dfn_effects = _effect_list(inputs, "defender_defence_roll_effects") or _effects_of(dfn_faces)
    table = armour_value(inputs)
    ignored = "ignorer_armure" in att_effects and inputs.get("attack_hit", True) is not False
    roll_bonus = dfn_effects.count("roll")
    forced = (0 if ignored else table) + roll_bonus
    out: dict[str, Any] = {"armour_value_table": table, "armour_ignored": ignored, "roll_bonus": roll_bonus,
                           "armour_rerolls_defender_may_force": forced, "effects_triggered": []}
    if "damage_roll" not in inputs:
        return out
    faces = read_throw(inputs, "damage_roll", who="attacker")
    assert faces is not None
    size = weapon_size(inputs, att_faces)
    rubies, swords = damage_count(faces, size)
    out.update(weapon_size=size, rubies=rubies, sword_points=swords, damage=rubies + swords,
               faces=[f.to_json() for f in faces])
    own_allowed = _own_damage_rerolls(inputs, att_effects)
    out["attacker_rerolls_allowed"] = own_allowed
    own_reroll = inputs.get("damage_roll_reroll")
    if own_reroll is not None:
        n = len(own_reroll.get("positions") or []) if isinstance(own_reroll, dict) else 0
        if own_allowed != ALL and n > int(own_allowed):
            raise RulesError(f"the attacker may reroll at most {own_allowed} damage stones (1 per Bersek face on the "
                             f"hitting attack, TS-D09, plus attacker_rerolls), not {n}")
    forced_reroll = inputs.get("armour_reroll")
    # the attacker declares first (Table 5, Dégât); GEN-D05 default: the stones that add nothing, and when every
    # stone adds something there is nothing to offer and the defender's stage follows at once
    idle = [i for i, f in enumerate(faces) if f.colour != "ruby" and f.swords == 0]
    offered = idle if own_allowed == ALL else idle[:int(own_allowed)]
    if (own_allowed and offered and own_reroll is None and forced_reroll is None
            and not inputs.get("attacker_reroll_declined")):
        out["stage"] = "attacker_reroll"
        out["reroll_request"] = {"who": "attacker", "optional": True, "positions": offered,
                                 "stones": [faces[p].stone_id for p in offered],
                                 "why": "Bersek: pick up these damage stones and drop them again (TS-D09, GEN-D03); "
                                        "the defender's armour rerolls come after"}
        out["choices"] = {"attacker_reroll": {"by": "default (stones adding nothing)", "positions": offered}}
        return _after_damage(inputs, out)
    out["stage"] = "final" if forced_reroll is not None or not forced else "armour_reroll"
    if forced_reroll is not None:
        positions = forced_reroll.get("positions") if isinstance(forced_reroll, dict) else None
        if not isinstance(positions, list) or len(positions) > forced:
            raise RulesError(f"the defender may force at most {forced} damage stones to be rerolled, not {positions!r}")
        own = apply_reroll(inputs["damage_roll"], inputs.get("damage_roll_reroll"), "damage_roll_reroll")
        after = read_throw({**inputs, "damage_roll_reroll": None, "damage_roll": apply_reroll(own, forced_reroll, "armour_reroll")},
                           "damage_roll", who="attacker")
        assert after is not None
        rubies, swords = damage_count(after, size)
        out.update(damage_before_armour=out["damage"], rubies=rubies, sword_points=swords, damage=rubies + swords,
                   faces=[f.to_json() for f in after])
    elif forced:
        chosen = inputs.get("armour_reroll_positions")
        if chosen is None:  # GEN-D05: favour the defender: reroll the stones that add the most damage
            worth = sorted(range(len(faces)), key=lambda i: -((faces[i].colour == "ruby") + faces[i].swords))
            chosen = [i for i in worth if (faces[i].colour == "ruby") + faces[i].swords > 0][:forced]
            by = "default (stones adding most damage)"
        else:
            by = "defender"
            if len(chosen) > forced or any(not isinstance(p, int) or not 0 <= p < len(faces) for p in chosen):
                raise RulesError(f"armour_reroll_positions: at most {forced} positions in 0..{len(faces) - 1}")
        if chosen:
            out["reroll_request"] = {"who": "defender", "positions": chosen, "stones": [faces[p].stone_id for p in chosen],
                                     "why": "armour: the attacker picks up these damage stones and drops them again "
                                            "(RULES.md 1.8 step 4, GEN-D03)"}
        out["choices"] = {"armour_reroll": {"by": by, "positions": chosen}}
    return _after_damage(inputs, out)


def _own_damage_rerolls(inputs: dict[str, Any], attack_effects: list[str]) -> int | str:
    """Rerolls the attacker may make on the damage roll: 1 per Bersek face on the hitting attack
    (TS-D09) plus inputs["attacker_rerolls"] (int or "ALL", e.g. a targeted action)."""
    extra = inputs.get("attacker_rerolls", 0)
    if extra == ALL:
        return ALL
    if isinstance(extra, bool) or not isinstance(extra, int) or extra < 0:
        raise RulesError(f"attacker_rerolls must be a whole number >= 0 or \"ALL\", not {extra!r}")
    hit = inputs.get("attack_hit", True) is not False
    return extra + (attack_effects.count("berserk") if hit else 0)


def _after_damage(inputs: dict[str, Any], out: dict[str, Any]) -> dict[str, Any]:
    """Add the damage to the defender's damage received and run the death check when given."""
    if "damage_received_before" in inputs:
        out["damage_received_after"] = _int(inputs, "damage_received_before", minimum=0) + out["damage"]
        if "HP" in inputs:
            out.update(death_check({"HP": inputs["HP"], "damage_received": out["damage_received_after"]}))
    return out


def _death_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    state = death_check({k: inputs[k] for k in ("HP", "damage_received") if k in inputs})
    if state["state"] != "death_check":
        return odds_json.odds_result("throwing_stones.death_check", {state["state"]: Fraction(1)}, method="certain (no roll)")
    die = test_odds_die({**inputs, "characteristic": "F"}, save=False)
    p = odds_json.probability_where(die, lambda r: r >= state["difficulty"])
    return _outcomes(die.map(lambda r: "unconscious" if r >= state["difficulty"] else "dead"),
                     "throwing_stones.death_check", success=p, failure=1 - p)


@procedure("throwing_stones.death_check", odds=_death_odds)
def death_check(inputs: dict[str, Any]) -> dict[str, Any]:
    """Death check (seed 000, Dégâts et Mort; RULES.md 1.8; TS-D12): damage received D vs HP:
    D < HP conscious; D = HP unconscious; D > HP an [F] test at difficulty D - HP, success =
    unconscious (alive), failure = dead.

    inputs:  {"HP": int, "damage_received": int, "roll"?: [stones] (the [F] test, when D > HP)}
    returns: {"state": "conscious"|"unconscious"|"death_check"|"dead", and for D > HP "test": "F",
              "difficulty", "on_success": "unconscious", "on_failure": "dead"; with the roll "result"}
    """
    hp, dmg = _int(inputs, "HP", minimum=0), _int(inputs, "damage_received", minimum=0)
    if dmg < hp:
        return {"state": "conscious"}
    if dmg == hp:
        return {"state": "unconscious"}
    out: dict[str, Any] = {"state": "death_check", "test": "F", "difficulty": dmg - hp, "on_success": "unconscious",
                           "on_failure": "dead"}
    if "roll" in inputs:
        test = run_test({**inputs, "characteristic": "F", "difficulty": dmg - hp}, save=False)
        out.update(result=test["result"], success=test["success"], state="unconscious" if test["success"] else "dead")
    return out


# ---------------------------------------------------------------- poison (1.9)


def _d6(inputs: dict[str, Any], key: str) -> int:
    return read_die(inputs.get(key), die_type="d6", where=key).value


def _poison_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    d6 = icepool.d6
    if "catalogue" in inputs:
        save_die = test_odds_die({**inputs, "characteristic": "F"}, save=True)
        margin = save_die - d6
    else:
        margin = d6.map(lambda v: _int(inputs, "save_result", minimum=0) - v)
    p = odds_json.probability_where(margin, lambda m: m >= 0)
    return odds_json.odds_result("throwing_stones.poison_tick", margin.map(lambda m: "cured" if m >= 0 else "1 damage"),
                                 method=f"{odds_json.EXACT}; d6 difficulty and catalogue faces", success=p, failure=1 - p)


@procedure("throwing_stones.poison_tick", odds=_poison_odds, dice=takes("d6", "d6_difficulty"))
def poison_tick(inputs: dict[str, Any]) -> dict[str, Any]:
    """Poison in the effects phase (Table 1 Poison; RULES.md 1.9; TS-D22): an [F] save against a
    freshly thrown standard d6; success ends the poison, failure deals 1 damage (then the death check).

    inputs:  {"poisoned": bool, "d6_difficulty": int | d6 reading, "save_result": int | "roll": [stones],
              "damage_received_before": int, "HP"?: int}
    returns: {"save_success", "damage_received_after", "still_poisoned", "state"? (with HP)}
    Raises RulesError when the difficulty die is not a d6 (a stone, a d8: GEN-D04).
    """
    before = _int(inputs, "damage_received_before", minimum=0)
    if not inputs.get("poisoned", True):
        return {"save_success": None, "damage_received_after": before, "still_poisoned": False}
    difficulty = _d6(inputs, "d6_difficulty")
    if "roll" in inputs:
        result = run_test({**inputs, "characteristic": "F", "difficulty": difficulty}, save=True)["result"]
    else:
        result = _int(inputs, "save_result", minimum=0)
    ok = result >= difficulty
    out: dict[str, Any] = {"difficulty": difficulty, "save_result": result, "save_success": ok,
                           "damage_received_after": before + (0 if ok else 1), "still_poisoned": not ok}
    if "HP" in inputs:
        out.update(death_check({"HP": inputs["HP"], "damage_received": out["damage_received_after"]}))
    return out


@procedure("throwing_stones.equipment_load")
def equipment_load(inputs: dict[str, Any]) -> dict[str, Any]:
    """Equipment load (seed 000, Création de personnage; Table 4; RULES.md 1.2 step 5): total [F] of
    everything carried must be <= F.

    inputs:  {"F": int, "equipment": [Table 4 item ids, e.g. "epee", "cuir", "bouclier"]}
    returns: {"load", "allowed", "items": [{"item", "F", "cost"}], "cost"}
    Raises RulesError on an unknown item.
    """
    f = _int(inputs, "F", minimum=0)
    items: list[dict[str, Any]] = []
    for raw in inputs.get("equipment") or []:
        key = _item(raw)
        row = WEAPONS.get(key) or ARMOURS.get(key)
        if row is None:
            raise RulesError(f"unknown equipment {raw!r}; Table 4 has {', '.join(list(WEAPONS) + list(ARMOURS))}")
        items.append({"item": key, "F": row[0], "cost": row[1]})
    load = sum(i["F"] for i in items)
    return {"load": load, "allowed": load <= f, "items": items, "cost": sum(i["cost"] for i in items)}
