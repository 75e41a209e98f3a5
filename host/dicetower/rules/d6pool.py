"""d6 success pool (seed 004_a42eb52995a0e2c4.txt; RULES.md section 5).

A pool of d6: 1-4 give nothing, a 5 one success, a 6 two successes (seed 004, "5 La résolution des
actions"). The pool is characteristic + skill + one equipment bonus - wounds (seed 004, 3-5).
Dice come in as readings (see dicetower.rules.dice); a die other than a d6 is refused (GEN-D04).
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import icepool

from . import odds as odds_mod
from .dice import choose, gm_prompt, read_dice
from .registry import RulesError, procedure, takes
from .inputs import int_input
from .screen import COLUMNS, ROWS, ascii_text, fit

CHARACTERISTICS = ("CONS", "DEXT", "INTE", "CHAR")
#: Other names of the characteristics in the seed's examples (D6P-D01): agilité = DEXT, force = CONS.
ALIASES = {"DEX": "DEXT", "AGILITE": "DEXT", "AGILITÉ": "DEXT", "DEXTERITE": "DEXT", "DEXTÉRITÉ": "DEXT",
           "FORCE": "CONS", "CONSTITUTION": "CONS", "INTELLIGENCE": "INTE", "CHARISME": "CHAR"}

#: Successes per d6 face (seed 004, 5: "Un 5 rapporte 1 succès, un 6 rapporte 2 succès").
SUCCESSES_PER_FACE = {1: 0, 2: 0, 3: 0, 4: 0, 5: 1, 6: 2}
SUCCESS_DIE = icepool.d6.map(SUCCESSES_PER_FACE)


# --- inputs --------------------------------------------------------------------------------------

def characteristic_name(name: Any) -> str:
    """Canonical characteristic (CONS, DEXT, INTE, CHAR) of a name or alias (D6P-D01: agilité/DEX = DEXT,
    force = CONS). Raises RulesError for anything else."""
    key = str(name).strip().upper()
    key = ALIASES.get(key, key)
    if key not in CHARACTERISTICS:
        raise RulesError(f"unknown characteristic {name!r}; use one of {', '.join(CHARACTERISTICS)}")
    return key


def pool_values(inputs: dict[str, Any], key: str = "faces", size_key: str = "dice") -> list[int]:
    """The d6 values of a throw: inputs[key] (list of readings) or, when the tray could not hold the
    pool, inputs["batches"] (list of such lists, summed; D6P-D09). When inputs[size_key] (the pool
    size from d6pool.dice_count) is given, the number of dice read must equal it. Raises RulesError on
    a non-d6 die, a value out of 1..6, or a count that does not match the pool (GEN-D04)."""
    if key == "faces" and "batches" in inputs:
        batches = inputs["batches"]
        if not isinstance(batches, list) or not all(isinstance(b, list) for b in batches):
            raise RulesError("batches must be a list of throws, each a list of d6 readings (D6P-D09)")
        values = [d.value for i, batch in enumerate(batches)
                  for d in read_dice(batch, die_type="d6", what=f"batch {i + 1} die")]
    elif key in inputs:
        values = [d.value for d in read_dice(inputs[key], die_type="d6", what="die")]
    else:
        raise RulesError(f"no dice: give {key!r} as a list of d6 readings")
    if size_key in inputs:
        size = int_input(inputs, size_key, minimum=0)
        if len(values) != size:
            more = "take out the extra dice" if len(values) > size else "throw the missing dice as another batch"
            raise RulesError(f"{len(values)} d6 read but the pool is {size} dice: {more} (GEN-D04, D6P-D09)")
    return values


def score(values: list[int]) -> int:
    """Number of successes of d6 values (seed 004, 5): 5 -> 1, 6 -> 2, 1-4 -> 0."""
    return sum(SUCCESSES_PER_FACE[v] for v in values)


def _successes(inputs: dict[str, Any], who: str = "") -> int:
    """A side's score: inputs[who+"successes"] when given, else counted from inputs[who+"faces"]."""
    if f"{who}successes" in inputs:
        return int_input(inputs, f"{who}successes", minimum=0)
    if f"{who}faces" in inputs:
        return score(pool_values(inputs, f"{who}faces", f"{who}dice"))
    raise RulesError(f"give {who}successes (a count) or {who}faces (the d6 readings)")


def pool_die(n: int) -> icepool.Die:
    """Exact distribution of the number of successes of n d6 (icepool)."""
    return n @ SUCCESS_DIE if n > 0 else icepool.Die([0])


def _pool_size(inputs: dict[str, Any], who: str = "") -> int:
    """The number of dice of a side for odds: inputs[who+"dice"], or the length of its faces."""
    if f"{who}dice" in inputs:
        return int_input(inputs, f"{who}dice", minimum=0)
    if isinstance(inputs.get(f"{who}faces"), list):
        return len(inputs[f"{who}faces"])
    raise RulesError(f"give {who}dice (the pool size) to compute the odds")


# --- d6pool.count_successes ----------------------------------------------------------------------

def count_successes_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Exact distribution of the successes of a pool of `dice` d6 (or of len(faces)), its mean
    (dice/2, seed 004, 5) and, with `required_successes`, the chance of reaching it."""
    n = _pool_size(inputs)
    dist = pool_die(n)
    summaries: dict[str, Any] = {"dice": n, "mean": odds_mod.fraction_str(Fraction(n, 2))}
    if "required_successes" in inputs:
        need = int_input(inputs, "required_successes", minimum=0)
        summaries["success"] = odds_mod.probability_where(dist, lambda s: s >= need)
    return odds_mod.odds_result("d6pool.count_successes", dist, **summaries)


def count_successes_screen(outcome: dict[str, Any]) -> list[str]:
    """"d6 POOL", "Successes: N", then the dice values as read (folded, "+k" when they do not fit);
    for the expectation-only outcome, "Mean/die: 0.5"."""
    if "successes" not in outcome:
        return ["d6 POOL", fit(f"Mean/die: {outcome['expected_successes_per_die']:g}")]
    lines = ["d6 POOL", fit(f"Successes: {outcome['successes']}")]
    values = [str(v) for v in outcome.get("faces", [])]
    per_line = (COLUMNS + 1) // 2
    room = (ROWS - len(lines)) * per_line
    if len(values) > room:  # the last row keeps 6 values and "+k" (k up to 4 digits)
        values = values[: room - 2] + [f"+{len(values) - room + 2}"]
    for i in range(0, len(values), per_line):
        lines.append(" ".join(values[i:i + per_line]))
    return lines


@procedure("d6pool.count_successes", odds=count_successes_odds, screen=count_successes_screen,
           dice=takes("d6", "faces"))
def count_successes(inputs: dict[str, Any]) -> dict[str, Any]:
    """Count the successes of a d6 pool (seed 004, "5 La résolution des actions"; RULES.md 5.3).

    inputs:  {"faces": [d6 readings]} or {"batches": [[...], ...]} (D6P-D09), optional "dice"
             (pool size; the number of dice read must equal it); or {"expected_value_per_die": true}
             alone for the rule's expectation.
    outcome: {"successes": int, "faces": [int], "dice": int, "per_die": [0|1|2],
              "expected_successes_per_die": 0.5}
    Raises RulesError on a die that is not a d6, a value out of 1..6, a count != dice.
    """
    expected = float(SUCCESS_DIE.mean())
    if "faces" not in inputs and "batches" not in inputs and inputs.get("expected_value_per_die"):
        return {"expected_successes_per_die": expected}
    values = pool_values(inputs)
    return {"successes": score(values), "faces": values, "dice": len(values),
            "per_die": [SUCCESSES_PER_FACE[v] for v in values], "expected_successes_per_die": expected}


# --- d6pool.choose_characteristic ----------------------------------------------------------------

#: Words of the seed's characteristic definitions (seed 004, 2), in French and English, and of its
#: example (climbing: "sa force ou sa dextérité"). CHAR's definition is "TODO": only its name.
#: An action word matches when it starts with one of these (ASCII-folded, lower case).
ACTION_WORDS = {
    "CONS": ("constitution", "force", "strength", "soulever", "lift", "charge", "load", "frapp", "hit",
             "strike", "grimp", "climb", "escalad"),
    "DEXT": ("dexterite", "dexterity", "adresse", "deft", "agilite", "agility", "grimp", "climb", "escalad"),
    "INTE": ("intelligence", "comprendre", "understand", "resoudre", "solve", "apprendre", "learn"),
    "CHAR": ("charisme", "charisma"),
}


@procedure("d6pool.choose_characteristic")
def choose_characteristic(inputs: dict[str, Any]) -> dict[str, Any]:
    """Which characteristic an action uses (seed 004, 2: "En cas d'ambiguïté, c'est le MJ qui
    détermine"; RULES.md 5.3, D6P-D01).

    inputs:  {"action": str} and optionally "allowed_characteristics" (the table's own list, which
             replaces the word match) and "gm_choice" (the GM's pick).
    outcome: {"allowed_characteristics": [...], "chosen_by": "rule" | "GM (with player)",
              "characteristic": name | GM prompt}
    Candidates come from the words of the seed's definitions (CONS: strength, lifting loads, hitting;
    DEXT: deftness, agility; INTE: understanding, solving, learning; CHAR: its name only) and its
    climbing example (CONS or DEXT); with no match all four are candidates and the GM picks. One
    candidate is the rule's; several go to the GM.
    Raises RulesError when gm_choice is not a candidate.
    """
    if "allowed_characteristics" in inputs:
        allowed = [characteristic_name(c) for c in inputs["allowed_characteristics"]]
    else:
        words = re.findall(r"[a-z]+", ascii_text(inputs.get("action", "")).lower())
        allowed = [c for c in CHARACTERISTICS if any(w.startswith(k) for w in words for k in ACTION_WORDS[c])] \
            or list(CHARACTERISTICS)
    if len(allowed) == 1:
        return {"allowed_characteristics": allowed, "chosen_by": "rule", "characteristic": allowed[0]}
    out: dict[str, Any] = {"allowed_characteristics": allowed, "chosen_by": "GM (with player)"}
    if inputs.get("gm_choice") is not None:
        pick = characteristic_name(inputs["gm_choice"])
        if pick not in allowed:
            raise RulesError(f"gm_choice {pick} is not one of the candidates {allowed}")
        out["characteristic"] = pick
    else:
        out["characteristic"] = gm_prompt(f"Which characteristic for: {inputs.get('action', 'this action')}?", allowed)
    return out


# --- d6pool.dice_count ---------------------------------------------------------------------------

def _item_bonus(item: dict[str, Any], characteristic: str | None) -> int:
    """The bonus one equipment item gives this roll (only one of its bonuses, seed 004, 4)."""
    if "use_bonus" in item:
        bonus = item["use_bonus"]
    elif isinstance(item.get("bonus"), dict):
        bonuses = {characteristic_name(k): v for k, v in item["bonus"].items()}
        if characteristic is None:
            if len(bonuses) != 1:
                raise RulesError(f"equipment {item.get('name', '?')} has bonuses {bonuses}: give 'characteristic'")
            bonus = next(iter(bonuses.values()))
        else:
            bonus = bonuses.get(characteristic, 0)
    else:
        bonus = item.get("bonus", 0)
    if isinstance(bonus, bool) or not isinstance(bonus, int):
        raise RulesError(f"equipment bonus must be an integer, not {bonus!r}")
    return bonus


def _permanent(item: dict[str, Any], characteristic: str | None) -> int:
    """The permanent modifier an owned item puts on this characteristic (seed 004, 4; D6P-D06)."""
    mods = item.get("permanent", {})
    if not isinstance(mods, dict):
        raise RulesError(f"equipment 'permanent' must map a characteristic to a modifier, not {mods!r}")
    if characteristic is None:
        if mods:
            raise RulesError("equipment with permanent modifiers: give 'characteristic' to apply them")
        return 0
    return sum(v for k, v in mods.items() if characteristic_name(k) == characteristic)


def _items(value: Any, key: str) -> list[dict[str, Any]]:
    items = value if isinstance(value, list) else [value]
    if not all(isinstance(i, dict) for i in items):
        raise RulesError(f"{key} must be an item {{'name', 'bonus' | 'use_bonus', 'permanent'}} or a list of them")
    return items


@procedure("d6pool.dice_count")
def dice_count(inputs: dict[str, Any]) -> dict[str, Any]:
    """Number of dice of a roll (seed 004, 3-5; RULES.md 5.3 d6pool.dice_count, D6P-D05, D6P-D06).

    dice = characteristic_value + permanent modifiers of all owned equipment on that characteristic
           + skill_level + the bonus of at most one item - wounds_physical - wounds_mental
    inputs:  characteristic ("DEXT", aliases per D6P-D01), characteristic_value, skill_level (0),
             equipment_bonus (int, the item used) | equipment (item) | equipment_candidates (items;
             the best is used unless equipment_choice = index, GEN-D05), roll_uses_equipment (true),
             equipment_possessed (owned items not used), wounds_physical (0), wounds_mental (0).
             An item = {"name", "bonus": int | {CHAR: int}, "use_bonus": int, "permanent": {CHAR: int}}.
    outcome: {"dice", "can_act", "net_dice_modifier_vs_no_equipment", "equipment_used", "choices"};
             dice/can_act only when characteristic_value is given. dice <= 0 -> dice 0, can_act false
             (D6P-D05: too weakened; a forced defence scores 0).
    Raises RulesError on non-integer values or a bad equipment choice.
    """
    if not {"characteristic_value", "equipment_bonus", "equipment", "equipment_candidates",
            "equipment_possessed"} & set(inputs):
        raise RulesError("give characteristic_value (and skill_level, equipment, wounds) to count the dice")
    characteristic = characteristic_name(inputs["characteristic"]) if inputs.get("characteristic") else None
    owned: list[dict[str, Any]] = []
    used_bonus = 0
    out: dict[str, Any] = {}
    if "equipment_bonus" in inputs:
        used_bonus = int_input(inputs, "equipment_bonus")
    if "equipment" in inputs:
        item = _items(inputs["equipment"], "equipment")
        if len(item) != 1:
            raise RulesError("only one equipment item can be used per roll (seed 004, 4): "
                             "list the others under equipment_possessed")
        owned += item
        if inputs.get("roll_uses_equipment", True):
            used_bonus = _item_bonus(item[0], characteristic)
    if "equipment_candidates" in inputs:
        candidates = _items(inputs["equipment_candidates"], "equipment_candidates")
        owned += candidates
        bonuses = [_item_bonus(c, characteristic) for c in candidates]
        best = max(range(len(bonuses)), key=lambda i: bonuses[i])
        index, record = choose(inputs, "equipment_choice", best, allowed=list(range(len(candidates))))
        used_bonus = bonuses[index]
        how = "best" if record["chosen_by"] == "default" else "chosen"
        out["equipment_used"] = f"one only ({how}: {used_bonus:+d})"
        out["choices"] = {"equipment_choice": record}
    if "equipment_possessed" in inputs:
        owned += _items(inputs["equipment_possessed"], "equipment_possessed")
    permanent = sum(_permanent(i, characteristic) for i in owned)
    out["net_dice_modifier_vs_no_equipment"] = used_bonus + permanent
    if "characteristic_value" in inputs:
        wounds = int_input(inputs, "wounds_physical", 0, minimum=0) + int_input(inputs, "wounds_mental", 0, minimum=0)
        raw = int_input(inputs, "characteristic_value") + permanent + int_input(inputs, "skill_level", 0, minimum=0) \
            + used_bonus - wounds
        out = {"dice": max(raw, 0), "can_act": raw > 0, **out, "wounds": wounds}
    return out


# --- d6pool.simple_action ------------------------------------------------------------------------

GM_ANSWERS = {"enough": "success", "success": "success", "too_few": "failure", "failure": "failure"}


def simple_action_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Distribution of the score of `dice` d6; with required_successes, P(success) = P(score >= it)."""
    return {**count_successes_odds(inputs), "procedure": "d6pool.simple_action"}


def simple_action_screen(outcome: dict[str, Any]) -> list[str]:
    """"SIMPLE ACTION", "Successes: N", then the verdict or "GM: enough?", then wounds."""
    verdict = outcome["outcome"]
    lines = ["SIMPLE ACTION", fit(f"Successes: {outcome['successes']}"),
             "GM: enough?" if isinstance(verdict, dict) else fit(str(verdict).upper())]
    if outcome.get("wounds_physical_after"):
        lines.append(fit(f"Wounds: {outcome['wounds_physical_after']}"))
    if "dice_next_attempt" in outcome:
        lines.append(fit(f"Next try: {outcome['dice_next_attempt']} dice"))
    return lines


@procedure("d6pool.simple_action", odds=simple_action_odds, screen=simple_action_screen, dice=takes("d6", "faces"))
def simple_action(inputs: dict[str, Any]) -> dict[str, Any]:
    """A simple action: the GM judges whether the score is enough (seed 004, 5.1; RULES.md 5.3, D6P-D03).

    inputs:  successes (int) | faces (d6 readings, optional dice = pool size); optional
             required_successes (set beforehand: success iff score >= it); or gm_judgement
             ("enough"/"success" | "too_few"/"failure"); gm_consequence_wounds (physical wounds the
             GM inflicts on failure, default 0); wounds_physical (before, default 0).
    outcome: {"successes", "outcome": "success" | "failure" | GM prompt, "decided_by",
              "wounds_physical_after", "dice_next_attempt" (when dice is given)}
    Raises RulesError on a bad gm_judgement or dice.
    """
    successes = _successes(inputs)
    out: dict[str, Any] = {"successes": successes}
    if "required_successes" in inputs:
        need = int_input(inputs, "required_successes", minimum=0)
        out.update(outcome="success" if successes >= need else "failure", decided_by="required_successes")
    elif inputs.get("gm_judgement") is not None:
        answer = inputs["gm_judgement"]
        if answer not in GM_ANSWERS:
            raise RulesError(f"gm_judgement {answer!r}: use one of {', '.join(GM_ANSWERS)}")
        out.update(outcome=GM_ANSWERS[answer], decided_by="GM")
    else:
        out.update(outcome=gm_prompt(f"{successes} successes: is it enough?", ["success", "failure"]),
                   decided_by="GM")
    wounds = int_input(inputs, "gm_consequence_wounds", 0, minimum=0) if out["outcome"] == "failure" else 0
    out["wounds_physical_after"] = int_input(inputs, "wounds_physical", 0, minimum=0) + wounds
    if "dice" in inputs:
        out["dice_next_attempt"] = max(int_input(inputs, "dice", minimum=0) - wounds, 0)
    return out


# --- d6pool.opposed_action and d6pool.combat -----------------------------------------------------

def _versus(inputs: dict[str, Any], a: str, b: str) -> icepool.Die:
    """Exact distribution of (a's score - b's score)."""
    return pool_die(_pool_size(inputs, a)) - pool_die(_pool_size(inputs, b))


def opposed_action_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """From a_dice and b_dice: P(a wins) (reported as success and win), P(b wins), P(tie), and the
    distribution of the score difference a - b."""
    diff = _versus(inputs, "a_", "b_")
    labels = odds_mod.label_distribution(diff, lambda d: "a" if d > 0 else ("b" if d < 0 else "tie_status_quo"),
                                         order=("a", "b", "tie_status_quo"))
    p = odds_mod.probability_where
    return odds_mod.odds_result("d6pool.opposed_action", labels, success=p(diff, lambda d: d > 0),
                                b_wins=p(diff, lambda d: d < 0), tie=p(diff, lambda d: d == 0), difference=diff)


def opposed_action_screen(outcome: dict[str, Any]) -> list[str]:
    """"OPPOSED", "A 5 vs B 3", "A WINS" or "TIE: no winner"."""
    verdict = f"{outcome['winner'].upper()} WINS" if outcome["winner"] else "TIE: no winner"
    return ["OPPOSED", fit(f"A {outcome['a_successes']} vs B {outcome['b_successes']}"), verdict]


@procedure("d6pool.opposed_action", odds=opposed_action_odds, screen=opposed_action_screen,
           dice=takes("d6", "a_faces", "b_faces"))
def opposed_action(inputs: dict[str, Any]) -> dict[str, Any]:
    """Opposed action: the higher score wins (seed 004, 5.2); a tie has no winner and the initiator
    ("a") does not succeed (D6P-D04).

    inputs:  a_successes | a_faces, b_successes | b_faces (optional a_dice/b_dice pool sizes)
    outcome: {"winner": "a" | "b" | None, "result": "a_wins" | "b_wins" | "tie_status_quo",
              "a_successes", "b_successes"}
    """
    a, b = _successes(inputs, "a_"), _successes(inputs, "b_")
    winner = "a" if a > b else ("b" if b > a else None)
    return {"winner": winner, "result": f"{winner}_wins" if winner else "tie_status_quo",
            "a_successes": a, "b_successes": b}


def combat_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """From attacker_dice and defender_dice: distribution of the damage dealt, P(hit)."""
    damage = _versus(inputs, "attacker_", "defender_").map(lambda d: max(d, 0))
    return odds_mod.odds_result("d6pool.combat", damage, hit=odds_mod.probability_where(damage, lambda d: d > 0),
                                mean=odds_mod.fraction_str(damage.mean()))


def combat_screen(outcome: dict[str, Any]) -> list[str]:
    """"COMBAT", "Att 4 vs Def 2", "HIT: 2 damage" or "No hit", "Def damage: N"."""
    lines = ["COMBAT", fit(f"Att {outcome['attacker_successes']} vs Def {outcome['defender_successes']}"),
             fit(f"HIT: {outcome['damage']} damage") if outcome["hit"] else "No hit"]
    return lines + [fit(f"Def damage: {outcome['defender_damage_after']}")]


@procedure("d6pool.combat", odds=combat_odds, screen=combat_screen,
           dice=takes("d6", "attacker_faces", "defender_faces"))
def combat(inputs: dict[str, Any]) -> dict[str, Any]:
    """Combat: if the attacker's score exceeds the defender's (strictly), the defender takes the
    difference in damage points (seed 004, 5.3; RULES.md 5.3, D6P-D04, D6P-D08).

    inputs:  attacker_successes | attacker_faces, defender_successes | defender_faces,
             defender_damage_before (0), psychological (false: damage is physical, D6P-D08),
             optional defender_HP (or defender_mental_health for psychological damage)
    outcome: {"hit", "damage", "damage_kind": "physical" | "psychological", "defender_damage_after",
              "defender_state" (with defender_HP / defender_mental_health, see d6pool.health)}
    """
    attack, defence = _successes(inputs, "attacker_"), _successes(inputs, "defender_")
    damage = max(attack - defence, 0)
    psychological = bool(inputs.get("psychological"))
    after = int_input(inputs, "defender_damage_before", 0, minimum=0) + damage
    out = {"hit": damage > 0, "damage": damage, "damage_kind": "psychological" if psychological else "physical",
           "defender_damage_after": after, "attacker_successes": attack, "defender_successes": defence}
    track = ("mental_health", "mental_damage") if psychological else ("HP", "physical_damage")
    limit_key = f"defender_{track[0]}"
    if limit_key in inputs:
        out["defender_state"] = health({track[0]: int_input(inputs, limit_key, minimum=0), track[1]: after})["state"]
    return out


# --- d6pool.health and d6pool.advancement_cost ---------------------------------------------------

@procedure("d6pool.health")
def health(inputs: dict[str, Any]) -> dict[str, Any]:
    """Death and madness (seed 004, 5.3; D6P-D07): physical damage >= hit points -> dead;
    psychological damage > mental health -> mad, the GM takes control (the asymmetry is the seed's).

    inputs:  HP and physical_damage, and/or mental_health and mental_damage
    outcome: {"state": "dead" | "mad_gm_control" | "alive" | "sane", "dice_penalty"}; "sane" when only
             the mental track was given, "alive" otherwise. dice_penalty = damage points (one die each).
    """
    physical = "HP" in inputs or "physical_damage" in inputs
    mental = "mental_health" in inputs or "mental_damage" in inputs
    if not physical and not mental:
        raise RulesError("give HP and physical_damage, and/or mental_health and mental_damage")
    dead = physical and int_input(inputs, "physical_damage", 0, minimum=0) >= int_input(inputs, "HP", minimum=0)
    mad = mental and int_input(inputs, "mental_damage", 0, minimum=0) > int_input(inputs, "mental_health", minimum=0)
    state = "dead" if dead else "mad_gm_control" if mad else "alive" if physical else "sane"
    return {"state": state,
            "dice_penalty": int_input(inputs, "physical_damage", 0) + int_input(inputs, "mental_damage", 0)}


@procedure("d6pool.advancement_cost")
def advancement_cost(inputs: dict[str, Any]) -> dict[str, Any]:
    """Points to acquire a skill (or an equipment effect) at level N: N(N-1)/2 (seed 004, 3 and 4;
    DECISION D6P-D02, which keeps the seed's closed formula over its "N points per step" wording).

    inputs:  {"level" (or "to_level"): N} (optional "from_level": the level already held, default 0) or
             {"bonuses": [N1, N2, ...]} for an item with several bonuses (the costs add up).
    outcome: {"total_cost", "step_cost" (N-1, level form only)}
    """
    def cost(n: int) -> int:
        """Points for level n from nothing: n(n-1)/2."""
        return n * (n - 1) // 2

    if "bonuses" in inputs:
        levels = inputs["bonuses"]
        if not isinstance(levels, list) or any(isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in levels):
            raise RulesError("bonuses must be a list of non-negative integer levels")
        return {"total_cost": sum(cost(n) for n in levels)}
    level = int_input(inputs, "level" if "level" in inputs else "to_level", minimum=0)
    start = int_input(inputs, "from_level", 0, minimum=0)
    if start > level:
        raise RulesError(f"from_level {start} is above level {level}")
    return {"total_cost": cost(level) - cost(start), "step_cost": max(level - 1, 0)}
