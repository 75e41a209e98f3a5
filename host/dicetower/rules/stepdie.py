"""Step-die TN system (seed 003_e6c4036056579b7d.txt; RULES.md section 4).

One die per test, the die of the characteristic (d6, d8, d10, d12 or d20), one size up with help,
against a target number (TN) on the ladder 4/6/8/12. A 1 is a failure with complication, the die's
maximum an exceptional success (SD-D01), otherwise success iff face >= TN. The seed's "seulement-d6"
variant (section 9) throws one d6 against a threshold. Dice come in as readings (dicetower.rules.dice):
the die read must be the size the engine expects after help (GEN-D04).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool

from . import odds as odds_mod
from .dice import SIDES, choose, read_dice, read_die
from .registry import RulesError, procedure, takes
from .inputs import int_input
from .screen import ascii_text, fit, label, wrap

DIE_STEPS = ("d6", "d8", "d10", "d12", "d20")           # seed 003, 3.6
TN_LADDER = (4, 6, 8, 12)                               # seed 003, Wyniki Testu / 3.3; SD-D02
TN_LABELS = {4: "facile", 6: "normal", 8: "difficile", 12: "boss / grande puissance"}
STARTING_HEARTS = 5                                     # seed 003, 7.1
STARTING_MANA = 3                                       # seed 003, 6.1
#: Characteristic letters (SD-D04): F Force, A Agilité/Dextérité, M Magie; Polish S = F, Z = A.
CHARACTERISTICS = {"F": "F (Force)", "A": "A (Dextérité/Agilité)", "M": "M (Magie)"}
CHARACTERISTIC_ALIASES = {"S": "F", "Z": "A", "FORCE": "F", "AGILITE": "A", "DEXTERITE": "A", "MAGIE": "M"}
#: Attack kind -> characteristic (seed 003, Atak step 3).
ATTACK_CHARACTERISTIC = {"melee": "F", "ranged": "A", "spell": "M"}
#: Opponents (SD-D07, SD-D09): TN and Hearts; a minion dies when hit (hearts None).
OPPONENTS: dict[str, dict[str, Any]] = {"minion": {"tn": 6, "hearts": None}, "elite": {"tn": 8, "hearts": 2}, "boss": {"tn": 12, "hearts": 3}}
#: Magic effect levels (seed 003, 6.3; SD-D12: Astuce costs 0 unless the GM sets 1).
EFFECT_LEVELS: dict[str, dict[str, int]] = {"astuce": {"tn": 4, "cost": 0}, "standard": {"tn": 6, "cost": 1},
                 "fort": {"tn": 8, "cost": 2}, "grande_puissance": {"tn": 12, "cost": 3}}
EXCEPTIONAL_MAGIC_OPTIONS = ("larger_effect", "reduce_cost", "extra_advantage")   # seed 003, 6.4
#: d6-only variant levels and thresholds (seed 003, 9.1), in development order (9.5).
D6_LEVELS = {"sans_competence": 6, "novice": 5, "entraine": 4, "maitre": 3}
D6_OPPONENT_SHIFT = {"minion": 0, "elite": 1, "boss": 2}                        # seed 003, 9.4
OUTCOME_ORDER = ("exceptional_success", "success", "failure", "complication")
#: Outcome words on the OLED (16 columns).
SCREEN_WORDS = {"exceptional_success": "EXCEPTIONAL!", "success": "SUCCESS", "failure": "FAILURE",
                "failure_complication": "FAILURE", "not_attempted": "NOT ATTEMPTED"}


# --- input helpers -------------------------------------------------------------------------------

def _key(text: Any) -> str:
    """Lower-case ASCII form of a name: "Entraîné" -> "entraine", "Grande puissance" -> "grande_puissance"."""
    return "_".join(ascii_text(text).strip().lower().replace("-", " ").split())


def _flag(inputs: dict[str, Any], key: str, default: bool) -> bool:
    value = inputs.get(key, default)
    if not isinstance(value, bool):
        raise RulesError(f"input {key!r} must be true or false, not {value!r}")
    return value


def step_die(die: Any) -> str:
    """A step die name ("D10" -> "d10"). Raises RulesError when it is not d6/d8/d10/d12/d20."""
    name = str(die).strip().lower()
    if name not in DIE_STEPS:
        raise RulesError(f"{die!r} is not a step die; use one of {', '.join(DIE_STEPS)} (seed 003, 3.6)")
    return name


def helped_die(base_die: Any, helpers: int) -> tuple[str, int]:
    """(die thrown, helpers counted): one size up for one helper, extra helpers count for nothing and
    a d20 stays a d20 (seed 003, 3.6; SD-D03)."""
    if isinstance(helpers, bool) or not isinstance(helpers, int) or helpers < 0:
        raise RulesError(f"helpers must be a non-negative integer, not {helpers!r}")
    die = step_die(base_die)
    counted = min(helpers, 1)
    return DIE_STEPS[min(DIE_STEPS.index(die) + counted, len(DIE_STEPS) - 1)], counted


def _die(inputs: dict[str, Any]) -> tuple[str, int]:
    """(die thrown, helpers counted) from "die" (already helped), "base_die" + "helpers", or the
    character's "dice" ({letter: die}, SD-D04) + "characteristic" + "helpers"."""
    if "base_die" in inputs:
        return helped_die(inputs["base_die"], inputs.get("helpers", 0))
    if "die" in inputs:
        if inputs.get("helpers"):
            raise RulesError("give the die before help as base_die when helpers are counted")
        return step_die(inputs["die"]), 0
    if isinstance(inputs.get("dice"), dict) and inputs.get("characteristic") is not None:
        letter = characteristic(inputs["characteristic"])
        dice = {characteristic(k): v for k, v in inputs["dice"].items()}
        if letter not in dice:
            raise RulesError(f"the character's dice {inputs['dice']} give no die for {letter}")
        return helped_die(dice[letter], inputs.get("helpers", 0))
    raise RulesError("give the die thrown (die: 'd10'), the characteristic's die and its help "
                     "(base_die: 'd10', helpers: 1), or the character's dice and the characteristic "
                     "(dice: {'F': 'd8', ...}, characteristic: 'F'; SD-D04)")


def thrown_die(inputs: dict[str, Any]) -> str:
    """The step die a test, attack or spell throws (after help; _die): what its "face" must be read from
    (GEN-D04). Raises RulesError when the inputs do not say which die it is."""
    return _die(inputs)[0]


def read_face(inputs: dict[str, Any], die: str, key: str = "face") -> int:
    """The face of the one die thrown: inputs[key] as an int, a reading, or a list of exactly one
    reading (the vision's form). Raises RulesError when missing, of another size than `die`
    (GEN-D04: the size after help), out of range, or when several dice were thrown."""
    if key not in inputs:
        raise RulesError(f"no die read: give {key!r}, the {die} thrown")
    value = inputs[key]
    if isinstance(value, list):
        return read_dice(value, die_type=die, count=1, what=f"{key}")[0].value
    return read_die(value, die_type=die, where=key).value


def characteristic(letter: Any) -> str:
    """Canonical characteristic letter F, A or M (SD-D04: S = F, Z = A). Raises RulesError otherwise."""
    key = _key(letter).upper()
    key = CHARACTERISTIC_ALIASES.get(key, key)
    if key not in CHARACTERISTICS:
        raise RulesError(f"unknown characteristic {letter!r}; use F (Force), A (Agilité), M (Magie) "
                         "or the Polish S/Z")
    return key


def opponent_kind(target: Any) -> str:
    """"minion" | "elite" | "boss" | "player" from a target description (SD-D07: "cône" and
    Pachołek/Pion are minions). Raises RulesError for an unknown target."""
    text = _key(target)
    for kind, words in (("boss", ("boss",)), ("elite", ("elite",)),
                        ("minion", ("pacholek", "pion", "minion", "cone", "henchman")),
                        ("player", ("player", "joueur", "pc"))):
        if any(w in text for w in words):
            return kind
    raise RulesError(f"unknown target {target!r}: say minion (pion, pachołek), elite, boss or player")


# --- TN ------------------------------------------------------------------------------------------

def shift_tn(tn: int, degrees: int) -> dict[str, Any]:
    """Move a TN along the ladder 4/6/8/12 by degrees (seed 003, 3.5; SD-D02). Returns
    {"tn", "status": "roll", "roll_required": True}, or {"status": "auto_success" | "near_impossible",
    "roll_required": False} below 4 / above 12. A TN off the ladder (set by the GM by hand, SD-D02 4)
    is kept when not shifted. Raises RulesError when an off-ladder TN is shifted."""
    if isinstance(degrees, bool) or not isinstance(degrees, int):
        raise RulesError(f"degrees must be an integer, not {degrees!r}")
    if tn not in TN_LADDER:
        if degrees == 0 and tn >= 1:  # a TN the GM set by hand (SD-D02 4) is used as it is
            return {"tn": tn, "status": "roll", "roll_required": True}
        raise RulesError(f"TN {tn} is not on the ladder {list(TN_LADDER)}, so it cannot move by degrees; "
                         "give the adjusted TN by hand (tn_override)")
    index = TN_LADDER.index(tn) + degrees
    if index < 0:
        return {"status": "auto_success", "roll_required": False}
    if index >= len(TN_LADDER):
        return {"status": "near_impossible", "roll_required": False}
    return {"tn": TN_LADDER[index], "status": "roll", "roll_required": True}


def _tn(inputs: dict[str, Any], tn_key: str = "tn", extra_degrees: int = 0) -> dict[str, Any]:
    """The final TN of a test: tn_override (the GM's hand-entered TN, SD-D02 4) or inputs[tn_key]
    shifted by shift_degrees / tn_shift_degrees and `extra_degrees`."""
    if "tn_override" in inputs:
        return {"tn": int_input(inputs, "tn_override", minimum=1), "status": "roll", "roll_required": True}
    degrees = int_input(inputs, "tn_shift_degrees", int_input(inputs, "shift_degrees", 0)) + extra_degrees
    return shift_tn(int_input(inputs, tn_key), degrees)


@procedure("stepdie.tn_ladder")
def tn_ladder(inputs: dict[str, Any]) -> dict[str, Any]:
    """The TN ladder (seed 003, Wyniki Testu; RULES.md 4.3): 4 facile, 6 normal, 8 difficile, 12 boss /
    grande puissance. inputs: optional "difficulty" (or "level", "label": "facile"|"normal"|
    "difficile"|"boss") -> its "tn"; optional "tn" -> its "label".
    outcome: {"ladder": [4, 6, 8, 12], "labels": {"4": "facile", ...}, "tn"?, "label"?}.
    Raises RulesError for an unknown difficulty or a TN off the ladder."""
    out: dict[str, Any] = {"ladder": list(TN_LADDER), "labels": {str(k): v for k, v in TN_LABELS.items()}}
    if "tn" in inputs:
        tn = int_input(inputs, "tn")
        if tn not in TN_LABELS:
            raise RulesError(f"TN {tn} is not on the ladder {list(TN_LADDER)}")
        out.update(tn=tn, label=TN_LABELS[tn])
    name = next((inputs[k] for k in ("difficulty", "level", "label") if k in inputs), None)
    if name is not None:
        wanted = _key(name)
        match = [tn for tn, name in TN_LABELS.items() if wanted in _key(name).split("_")]
        if not match:
            raise RulesError(f"unknown difficulty {name!r}; use facile, normal, difficile or boss")
        out.update(tn=match[0], label=TN_LABELS[match[0]])
    return out


@procedure("stepdie.adjust_tn")
def adjust_tn(inputs: dict[str, Any]) -> dict[str, Any]:
    """Adjust a TN by degrees (seed 003, 3.5 "sans compter", Limites; RULES.md 4.3; SD-D02, SD-D15).

    inputs:  tn (4/6/8/12), shift_degrees (signed; +1 unfavourable, -1 favourable, +-2 "extrêmement"),
             optional GM toggles (SD-D15, default off): beyond_10_squares (+1), enemies_in_contact_tn (+1).
    outcome: {"tn", "status": "roll", "roll_required": true} or {"status": "auto_success" |
             "near_impossible", "roll_required": false}
    """
    extra = int(_flag(inputs, "beyond_10_squares", False)) + int(_flag(inputs, "enemies_in_contact_tn", False))
    return _tn(inputs, extra_degrees=extra)


@procedure("stepdie.help")
def help_(inputs: dict[str, Any]) -> dict[str, Any]:
    """Help from an ally: the die goes one size up for this test (seed 003, 3.6; SD-D03).

    inputs:  base_die ("d6".."d20"), helpers (int)
    outcome: {"die_rolled", "helpers_counted": 0 | 1}
    """
    die, counted = helped_die(inputs.get("base_die", inputs.get("die")), inputs.get("helpers", 1))
    return {"die_rolled": die, "helpers_counted": counted}


# --- the test ------------------------------------------------------------------------------------

def judge(face: int, die: str, tn: int) -> str:
    """Outcome of one face (seed 003, 3.4; SD-D01, SD-D10), checked in this order: 1 -> "complication"
    (a failure with complication), the die's maximum -> "exceptional_success" (even below the TN),
    face >= tn -> "success", else "failure"."""
    if face == 1:
        return "complication"
    if face == SIDES[die]:
        return "exceptional_success"
    return "success" if face >= tn else "failure"


def _test_result(face: int, die: str, tn: int) -> dict[str, Any]:
    kind = judge(face, die, tn)
    return {"face": face, "outcome": "failure" if kind == "complication" else kind,
            "complication": kind == "complication", "complication_by_rule": kind == "complication",
            "success": kind in ("success", "exceptional_success")}


def outcome_odds(procedure_id: str, die: str, tn_info: dict[str, Any]) -> dict[str, Any]:
    """Exact odds of a step-die test with this die and TN result: outcomes exceptional_success,
    success, failure, complication (a 1), and the summaries success (incl. exceptional), failure
    (incl. a 1), exceptional_success, complication. Tests with no roll (SD-D02) are certain."""
    if not tn_info["roll_required"]:
        certain = "success" if tn_info["status"] == "auto_success" else "not_attempted"
        return odds_mod.odds_result(procedure_id, {certain: Fraction(1)}, method="certain (no roll, SD-D02)",
                                    status=tn_info["status"])
    tn = tn_info["tn"]
    labels = odds_mod.label_distribution(icepool.Die(range(1, SIDES[die] + 1)),
                                         lambda f: judge(f, die, tn), order=OUTCOME_ORDER)
    get = lambda k: labels.get(k, Fraction(0))  # noqa: E731
    return odds_mod.odds_result(procedure_id, labels, die=die, tn=tn,
                                success=get("success") + get("exceptional_success"),
                                failure=get("failure") + get("complication"),
                                exceptional_success=get("exceptional_success"), complication=get("complication"))


def outcome_screen(outcome: dict[str, Any]) -> list[str]:
    """"d12 vs TN 8", "Rolled 12", the outcome in capitals, then complication / hearts / mana lines."""
    if "face" not in outcome:
        status = outcome.get("status") or ("no cast" if outcome.get("allowed") is False else "no roll")
        lines = [fit(label(str(status)).upper()), "No roll needed"]
        if outcome.get("reason"):
            lines[1:] = wrap(label(str(outcome["reason"])))
        if "mana_after" in outcome:
            lines.append(fit(f"Mana: {outcome['mana_after']}"))
        return lines[:8]
    lines = [fit(f"{outcome['die_rolled']} vs TN {outcome['tn']}"), fit(f"Rolled {outcome['face']}"),
             SCREEN_WORDS[outcome["outcome"]]]
    if outcome.get("complication"):
        lines.append("+ complication")
    if outcome.get("vengeance"):
        lines += ["Hit back!", fit(f"Hearts: {outcome['attacker_hearts_after']}")]
    if "mana_after" in outcome:
        lines.append(fit(f"Mana: {outcome['mana_after']}"))
    for key in ("boss_hearts_after", "elite_hearts_after"):
        if key in outcome:
            lines.append(fit(f"{key.split('_')[0].title()} hearts: {outcome[key]}"))
    if outcome.get("target_state") == "dead_or_removed":
        lines.append("Target down")
    return lines[:8]


def _test_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds of stepdie.test from its inputs without the face."""
    die, _ = _die(inputs)
    return outcome_odds("stepdie.test", die, _tn(inputs))


@procedure("stepdie.test", odds=_test_odds, screen=outcome_screen, dice=takes(thrown_die, "face"))
def test(inputs: dict[str, Any]) -> dict[str, Any]:
    """A test (seed 003, 3.4 Résultats du test, Wyniki Testu; RULES.md 4.5; SD-D01, SD-D02, SD-D10).

    inputs:  die | base_die + helpers | dice ({"F": "d8", "A": "d6", "M": "d10"}, SD-D04) +
             characteristic + helpers; tn (+ shift_degrees or tn_shift_degrees; or tn_override);
             face (int, reading, or [one reading]); optional characteristic (F/A/M, S/Z).
    outcome: {"die_rolled", "helpers_counted", "tn", "status", "roll_required", "face",
              "outcome": "exceptional_success" | "success" | "failure", "success",
              "complication" (a 1 only, SD-D10), "complication_by_rule"}; a TN below the ladder ->
              status auto_success, outcome success, no roll; above -> near_impossible, not_attempted.
    Raises RulesError on a die of another size than the one expected after help (GEN-D04).
    """
    die, counted = _die(inputs)
    out: dict[str, Any] = {"die_rolled": die, "helpers_counted": counted}
    if inputs.get("characteristic") is not None:
        out["characteristic"] = characteristic(inputs["characteristic"])
    tn_info = _tn(inputs)
    out.update(tn_info, final_tn=tn_info.get("tn"))
    if not tn_info["roll_required"]:
        out["outcome"] = "success" if tn_info["status"] == "auto_success" else "not_attempted"
        return out
    out.update(_test_result(read_face(inputs, die), die, tn_info["tn"]))
    return out


# --- combat --------------------------------------------------------------------------------------

def lose_hearts(hearts: int, loss: int, armour_tokens: int, use_armour: bool) -> dict[str, Any]:
    """Apply a Heart loss to a character (seed 003, 7.1, 0 Serc, 11.1; SD-D11, SD-D13): one Armour
    token absorbs one Heart when used; damage while at 0 Hearts kills; reaching 0 puts them down.
    Returns {"hearts_after", "armour_tokens_after", "armour_used", "state": "active"|"down"|"dead"}."""
    absorbed = min(loss, armour_tokens, 1) if use_armour else 0
    taken = loss - absorbed
    if taken > 0 and hearts == 0:
        state = "dead"
    else:
        state = "active" if hearts - taken > 0 else "down"
    return {"hearts_after": max(hearts - taken, 0), "armour_tokens_after": armour_tokens - absorbed,
            "armour_used": absorbed > 0, "state": state}


def opponent_can_reach(inputs: dict[str, Any]) -> bool:
    """Could the opponent really hit back (seed 003, 5.6; SD-D06)? The input opponent_can_reach when
    given; else yes in melee, yes at range in the open, no with full cover."""
    if "opponent_can_reach" in inputs:
        return _flag(inputs, "opponent_can_reach", True)
    if _flag(inputs, "melee", True):
        return True
    return not _flag(inputs, "full_cover", False)


def vengeance(face: int, missed: bool, inputs: dict[str, Any], hearts_key: str) -> dict[str, Any]:
    """The effect of a failed attack (seed 003, 5.6 Pudło et « Vengeance »; SD-D06): a miss (a 1
    included) when the opponent could reach -> the attacker loses 1 Heart (an Armour token may absorb
    it, SD-D11); a 1 also sets extra_complication_flag (fall, lose the weapon, pushed out of cover),
    not a second Heart. Returns {"vengeance", "extra_complication_flag", "attacker_hearts_after",
    "armour_tokens_after", "armour_used", "attacker_state"}."""
    hearts = int_input(inputs, hearts_key, STARTING_HEARTS, minimum=0)
    tokens = int_input(inputs, "armour_tokens", int(_flag(inputs, "armour_token", False)), minimum=0)
    hit_back = missed and opponent_can_reach(inputs)
    loss = lose_hearts(hearts, 1 if hit_back else 0, tokens, _flag(inputs, "use_armour", True))
    extra = face == 1 or (missed and _flag(inputs, "enemies_in_contact_complication", False))
    return {"vengeance": hit_back, "extra_complication_flag": extra,
            "attacker_hearts_after": loss["hearts_after"], "armour_tokens_after": loss["armour_tokens_after"],
            "armour_used": loss["armour_used"], "attacker_state": loss["state"]}


def hit_on(kind: str, outcome: str, hearts: int | None, inputs: dict[str, Any]) -> dict[str, Any]:
    """The effect of a hit (seed 003, Trafienie; SD-D08, SD-D09): a minion dies or leaves the fight;
    an elite or boss loses 1 Heart, 2 on an exceptional hit; a player loses 1 Heart unless Armour
    absorbs it (SD-D11). Returns {"target_state", "hearts_lost", "hearts_after"?}."""
    if kind == "minion":
        return {"target_state": "dead_or_removed", "hearts_lost": 0}
    if kind == "player":
        loss = lose_hearts(hearts if hearts is not None else STARTING_HEARTS, 1,
                           int_input(inputs, "armour_tokens", 0, minimum=0), _flag(inputs, "use_armour", True))
        return {"target_state": loss["state"], "hearts_lost": 0 if loss["armour_used"] else 1,
                "hearts_after": loss["hearts_after"], "armour_tokens_after": loss["armour_tokens_after"]}
    start = OPPONENTS[kind]["hearts"] if hearts is None else hearts
    lost = min(2 if outcome == "exceptional_success" else 1, start)
    after = start - lost
    return {"target_state": "defeated" if after == 0 else "wounded", "hearts_lost": lost, "hearts_after": after}


@procedure("stepdie.hit_effect")
def hit_effect(inputs: dict[str, Any]) -> dict[str, Any]:
    """What a successful attack does to its target (seed 003, Trafienie; RULES.md 4.6; SD-D08, SD-D09,
    SD-D11).

    inputs:  target (minion/pion/pachołek, elite, boss, player), outcome ("success" |
             "exceptional_success"), hearts (the target's; default elite 2, boss 3, player 5),
             armour_tokens / use_armour for a player.
    outcome: {"target_state": "dead_or_removed" | "wounded" | "defeated" | "unharmed" (a miss) | ...,
              "hearts_lost", "hearts_after"}
    Raises RulesError for an unknown outcome or target.
    """
    outcome = _key(inputs.get("outcome", "success"))
    if outcome not in ("success", "exceptional_success", "failure", "failure_complication", "complication"):
        raise RulesError(f"outcome {inputs.get('outcome')!r}: use success, exceptional_success or failure")
    hearts = int_input(inputs, "hearts", minimum=0) if "hearts" in inputs else None
    kind = opponent_kind(inputs.get("target", ""))
    if outcome not in ("success", "exceptional_success"):  # a miss touches nobody (see miss_vengeance)
        return {"target_state": "unharmed", "hearts_lost": 0,
                **({"hearts_after": hearts} if hearts is not None else {})}
    return hit_on(kind, outcome, hearts, inputs)


def _miss_vengeance_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds that an attack with `die` against `tn` brings the opponent's answer: outcomes
    "vengeance" (a miss the opponent can punish), "miss_unanswered" (a miss it cannot reach),
    "hit"; summaries vengeance and complication (a 1)."""
    if "die" not in inputs:
        raise RulesError("the odds of a miss need 'die', the attacker's step die (d6..d20)")
    die = step_die(inputs["die"])
    tn = int_input(inputs, "tn", minimum=1)
    reach = opponent_can_reach(inputs)
    faces = icepool.Die(range(1, SIDES[die] + 1))
    miss = lambda f: judge(f, die, tn) in ("failure", "complication")  # noqa: E731
    labels = odds_mod.label_distribution(
        faces, lambda f: ("vengeance" if reach else "miss_unanswered") if miss(f) else "hit",
        order=("hit", "vengeance", "miss_unanswered"))
    return odds_mod.odds_result("stepdie.miss_vengeance", labels, die=die, tn=tn,
                                vengeance=labels.get("vengeance", Fraction(0)), complication=Fraction(1, SIDES[die]))


@procedure("stepdie.miss_vengeance", odds=_miss_vengeance_odds)
def miss_vengeance(inputs: dict[str, Any]) -> dict[str, Any]:
    """The opponent's answer to a missed attack (seed 003, 5.6 and Pudło i Odwet; RULES.md 4.6;
    SD-D06, SD-D11, SD-D15).

    inputs:  attack_face, tn, die (optional here, needed for the odds: an exceptional maximum below
             the TN is no miss, SD-D01),
             opponent_can_reach | melee / full_cover, attacker_hearts (5), armour_tokens (0),
             use_armour (true when a token is there, GEN-D05), enemies_in_contact_complication.
    outcome: {"missed", "vengeance", "hearts_after", "armour_tokens_after", "complication" (a 1),
              "extra_complication_flag", "attacker_state"}
    """
    face = int_input(inputs, "attack_face", minimum=1)
    tn = int_input(inputs, "tn", minimum=1)
    die = step_die(inputs["die"]) if "die" in inputs else None
    missed = face == 1 or (face < tn and (die is None or face != SIDES[die]))
    v = vengeance(face, missed, inputs, "attacker_hearts")
    return {"missed": missed, "vengeance": v["vengeance"], "hearts_after": v["attacker_hearts_after"],
            "attacker_hearts_after": v["attacker_hearts_after"],
            "armour_tokens_after": v["armour_tokens_after"], "complication": face == 1,
            "extra_complication_flag": v["extra_complication_flag"], "attacker_state": v["attacker_state"]}


def _attack_setup(inputs: dict[str, Any]) -> tuple[str, int, str, dict[str, Any]]:
    """(die, helpers counted, opponent kind, TN result) of an attack."""
    die, counted = _die(inputs)
    kind = opponent_kind(inputs["target"]) if "target" in inputs else None
    if "target_tn" not in inputs and "tn_override" not in inputs and kind not in OPPONENTS:
        raise RulesError("give target_tn, or a target (minion, elite, boss) whose TN the rules set (SD-D09)")
    tn_inputs = dict(inputs)
    tn_inputs.setdefault("target_tn", OPPONENTS[kind]["tn"] if kind in OPPONENTS else None)
    extra = int(_flag(inputs, "beyond_10_squares", False)) + int(_flag(inputs, "enemies_in_contact_tn", False))
    return die, counted, kind or "unknown", _tn(tn_inputs, "target_tn", extra)


def _attack_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds of stepdie.attack from its inputs without the face: the test's odds against the target's
    TN, plus "vengeance" (a miss the opponent can answer, SD-D06)."""
    die, _, _, tn_info = _attack_setup(inputs)
    odds = outcome_odds("stepdie.attack", die, tn_info)
    if "failure" in odds:
        odds["vengeance"] = odds["failure"] if opponent_can_reach(inputs) else odds_mod.probability_json(0)
    return odds


@procedure("stepdie.attack", odds=_attack_odds, screen=outcome_screen, dice=takes(thrown_die, "face"))
def attack(inputs: dict[str, Any]) -> dict[str, Any]:
    """An attack, "Atak" (seed 003, Atak, Trafienie, 5.6-5.9; RULES.md 4.6; SD-D04, SD-D06-D09, SD-D15).

    inputs:  attack_kind ("melee" F, "ranged" A, "spell" M) or characteristic; die | base_die +
             helpers; target (minion/pion/pachołek/"cône", elite, boss); target_tn (default by target,
             SD-D09) + tn_shift_degrees; face; attacker_hearts (5); armour_tokens, use_armour; melee,
             opponent_can_reach, full_cover; <boss|elite>_hearts or target_hearts (default 3 | 2); GM toggles
             beyond_10_squares, enemies_in_contact_tn, enemies_in_contact_complication (SD-D15).
             With only attack_kinds (a list), the outcome is the characteristic of each kind.
    outcome: the stepdie.test outcome plus, on a hit, "target_state" and "<kind>_hearts_lost/_after"
             (also as target_hearts_lost/_after);
             on a miss, "vengeance", "attacker_hearts_after", "armour_tokens_after",
             "extra_complication_flag" (a 1), "attacker_state".
    """
    if "attack_kinds" in inputs and "face" not in inputs:
        kinds = inputs["attack_kinds"]
        if not isinstance(kinds, list) or any(_key(k) not in ATTACK_CHARACTERISTIC for k in kinds):
            raise RulesError(f"attack_kinds must list melee, ranged or spell, not {kinds!r}")
        return {"characteristic": {k: CHARACTERISTICS[ATTACK_CHARACTERISTIC[_key(k)]] for k in kinds}}
    die, counted, kind, tn_info = _attack_setup(inputs)
    out: dict[str, Any] = {"die_rolled": die, "helpers_counted": counted, "target_kind": kind}
    if "characteristic" in inputs:
        out["characteristic"] = characteristic(inputs["characteristic"])
    elif "attack_kind" in inputs:
        if _key(inputs["attack_kind"]) not in ATTACK_CHARACTERISTIC:
            raise RulesError(f"attack_kind must be melee, ranged or spell, not {inputs['attack_kind']!r}")
        out["characteristic"] = ATTACK_CHARACTERISTIC[_key(inputs["attack_kind"])]
    out.update(tn_info)
    out["final_tn"] = tn_info.get("tn")
    if not tn_info["roll_required"]:
        out["outcome"] = "success" if tn_info["status"] == "auto_success" else "not_attempted"
        if tn_info["status"] != "auto_success":
            return out
        face = None
    else:
        face = read_face(inputs, die)
        out.update(_test_result(face, die, tn_info["tn"]))
    if out["outcome"] in ("success", "exceptional_success"):
        key = f"{kind}_hearts" if f"{kind}_hearts" in inputs else "target_hearts"
        hearts = int_input(inputs, key, minimum=0) if key in inputs else None
        effect = hit_on(kind, out["outcome"], hearts, inputs) if kind != "unknown" else {}
        out["target_state"] = effect.get("target_state")
        if "hearts_after" in effect:
            for prefix in (kind, "target"):
                out[f"{prefix}_hearts_lost"] = effect["hearts_lost"]
                out[f"{prefix}_hearts_after"] = effect["hearts_after"]
        out.update(vengeance(face or 0, False, inputs, "attacker_hearts"))
    else:
        out.update(vengeance(face or 0, True, inputs, "attacker_hearts"))
    return out


# --- magic ---------------------------------------------------------------------------------------

def _spell(inputs: dict[str, Any]) -> tuple[dict[str, Any], int, int]:
    """(TN result, cost, mana before) of a spell: the effect level's TN and cost unless tn/cost given."""
    level = _key(inputs["effect_level"]) if "effect_level" in inputs else None
    if level is not None and level not in EFFECT_LEVELS:
        raise RulesError(f"unknown effect_level {inputs['effect_level']!r}; use {', '.join(EFFECT_LEVELS)}")
    spec = EFFECT_LEVELS.get(level or "", {})
    if "tn" not in inputs and "tn_override" not in inputs and not spec:
        raise RulesError("give the spell's effect_level (astuce, standard, fort, grande_puissance) or its tn and cost")
    tn_inputs = {**inputs, "tn": inputs.get("tn", spec.get("tn"))}
    cost = int_input(inputs, "cost", spec.get("cost"), minimum=0)
    return _tn(tn_inputs), cost, int_input(inputs, "mana_before", STARTING_MANA, minimum=0)


def _magic_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds of a spell: the M die test against its TN; certain "not_allowed" when Mana is short."""
    tn_info, cost, mana = _spell(inputs)
    if mana < cost:
        return odds_mod.odds_result("stepdie.magic", {"not_allowed": Fraction(1)},
                                    method="certain (insufficient Mana, SD-D12)")
    die, _ = _die(inputs)
    return outcome_odds("stepdie.magic", die, tn_info)


@procedure("stepdie.magic", odds=_magic_odds, screen=outcome_screen, dice=takes(thrown_die, "face"))
def magic(inputs: dict[str, Any]) -> dict[str, Any]:
    """Cast a spell (seed 003, 6.1-6.5; RULES.md 4.7; SD-D12).

    inputs:  effect_level (astuce 4/0, standard 6/1, fort 8/2, grande_puissance 12/3) and/or tn, cost;
             mana_before (3); die (the M die) | base_die + helpers; face; on an exceptional success
             exceptional_option (larger_effect (default: the seed's first) | reduce_cost | extra_advantage).
    outcome: {"allowed", "reason"?, "mana_after", the stepdie.test keys, "light_consequence" (failure),
              "choices"}. Mana is spent before the roll; with less Mana than the cost there is no cast
              (allowed false, reason insufficient_mana). reduce_cost refunds exactly 1 Mana.
    """
    tn_info, cost, mana = _spell(inputs)
    if mana < cost:
        return {"allowed": False, "reason": "insufficient_mana", "mana_after": mana, "cost": cost}
    die, counted = _die(inputs)
    out: dict[str, Any] = {"allowed": True, "cost": cost, "die_rolled": die, "helpers_counted": counted, **tn_info,
                           "final_tn": tn_info.get("tn")}
    mana_after = mana - cost
    if not tn_info["roll_required"]:
        out.update(outcome="success" if tn_info["status"] == "auto_success" else "not_attempted",
                   mana_after=mana_after if tn_info["status"] == "auto_success" else mana)
        return out
    out.update(_test_result(read_face(inputs, die), die, tn_info["tn"]))
    out["light_consequence"] = not out["success"]
    if out["outcome"] == "exceptional_success":
        option, record = choose(inputs, "exceptional_option", EXCEPTIONAL_MAGIC_OPTIONS[0],
                                allowed=EXCEPTIONAL_MAGIC_OPTIONS)
        out["exceptional_option"] = option
        out["choices"] = {"exceptional_option": record}
        if option == "reduce_cost":
            mana_after = min(mana_after + 1, mana)
    out["mana_after"] = mana_after
    return out


# --- Hearts, armour, rest, clock -----------------------------------------------------------------

@procedure("stepdie.hearts")
def hearts(inputs: dict[str, Any]) -> dict[str, Any]:
    """Hearts (seed 003, 7.1; RULES.md 4.8): 5 at the start; a lost Heart is real harm or exhaustion.

    inputs:  hearts (current, default 5), change (signed) and/or lose / gain (counts; all default 0),
             max_hearts (5), armour_tokens
             (0) and use_armour (true) for a loss.
    outcome: {"starting_hearts": 5, "hearts", "hearts_after", "state": "active" | "down" | "dead",
              "armour_tokens_after"}; healing
             stops at max_hearts; a loss while at 0 kills (SD-D13).
    """
    current = int_input(inputs, "hearts", STARTING_HEARTS, minimum=0)
    top = int_input(inputs, "max_hearts", STARTING_HEARTS, minimum=1)
    change = int_input(inputs, "change", 0) - int_input(inputs, "lose", 0, minimum=0) + int_input(inputs, "gain", 0, minimum=0)
    out: dict[str, Any] = {"starting_hearts": STARTING_HEARTS, "hearts": current}
    if change >= 0:
        after = min(current + change, top)
        return {**out, "hearts_after": after, "state": "active" if after > 0 else "down",
                "armour_tokens_after": int_input(inputs, "armour_tokens", 0, minimum=0)}
    loss = lose_hearts(current, -change, int_input(inputs, "armour_tokens", 0, minimum=0), _flag(inputs, "use_armour", True))
    return {**out, "hearts_after": loss["hearts_after"], "state": loss["state"],
            "armour_tokens_after": loss["armour_tokens_after"]}


@procedure("stepdie.hearts_zero")
def hearts_zero(inputs: dict[str, Any]) -> dict[str, Any]:
    """A character at 0 Hearts (seed 003, 0 Serc and 7.2 merged; SD-D05, SD-D13): down, cannot act
    (only crawl and speak); an ally's Aide action puts them up with 1 Heart; damage kills.

    inputs:  hearts (must be 0), event: none | "ally_help_action" | "takes_damage"
    outcome: {"state": "down" | "active" | "dead", "hearts_after", "can_act"}
    Raises RulesError when hearts is not 0 or the event is unknown.
    """
    if int_input(inputs, "hearts", minimum=0) != 0:
        raise RulesError(f"hearts is {inputs['hearts']}: this procedure is for a character at 0 Hearts")
    event = _key(inputs.get("event") or "none")
    if event == "takes_damage":
        return {"state": "dead", "hearts_after": 0, "can_act": False}
    if event in ("ally_help_action", "aide"):
        return {"state": "active", "hearts_after": 1, "can_act": True}
    if event == "none":
        return {"state": "down", "hearts_after": 0, "can_act": False}
    raise RulesError(f"unknown event {inputs.get('event')!r}; use ally_help_action or takes_damage")


@procedure("stepdie.armour_token")
def armour_token(inputs: dict[str, Any]) -> dict[str, Any]:
    """The Armour token (seed 003, 11.1 and Trafienie; SD-D11): 1 per scene; when the character would
    lose 1 Heart they may spend it instead (the default, GEN-D05: it favours them).

    inputs:  hearts, armour_tokens, hearts_to_lose (1), use_armour (true)
    outcome: {"hearts_after", "armour_tokens_after", "armour_used", "state", "choices"}
    """
    use, record = choose(inputs, "use_armour", True, allowed=[True, False])
    loss = lose_hearts(int_input(inputs, "hearts", minimum=0), int_input(inputs, "hearts_to_lose", 1, minimum=0),
                       int_input(inputs, "armour_tokens", 1, minimum=0), use)
    return {**loss, "choices": {"use_armour": record}}


@procedure("stepdie.rest")
def rest(inputs: dict[str, Any]) -> dict[str, Any]:
    """Rest (seed 003, 7.3): after a conflict, with a safe rest and basic conditions, Hearts and Mana
    come back in full; otherwise nothing changes.

    inputs:  hearts, mana, max_hearts (5), max_mana (3), safe_rest (bool)
    outcome: {"hearts_after", "mana_after", "restored"}
    """
    safe = _flag(inputs, "safe_rest", False)
    top_h, top_m = int_input(inputs, "max_hearts", STARTING_HEARTS, minimum=1), int_input(inputs, "max_mana", STARTING_MANA, minimum=0)
    if safe:
        return {"hearts_after": top_h, "mana_after": top_m, "restored": True}
    return {"hearts_after": int_input(inputs, "hearts", minimum=0), "mana_after": int_input(inputs, "mana", minimum=0),
            "restored": False}


@procedure("stepdie.time_pressure_clock")
def time_pressure_clock(inputs: dict[str, Any]) -> dict[str, Any]:
    """Time pressure as a clock (seed 003, 11.2, optional): the GM sets clock_steps (e.g. 3); each
    failure moves it 1 step; at the end a consequence occurs (alarm, the target flees, collapse).

    inputs:  clock_steps, clock_before (0), failures: a count, or a list with one entry per test
             (1/true = a failure moves the clock, 0/false = no move)
    outcome: {"clock_after", "consequence_triggered", "steps_left"}
    """
    steps = int_input(inputs, "clock_steps", minimum=1)
    events = inputs.get("failures", [])
    if isinstance(events, int) and not isinstance(events, bool) and events >= 0:
        moved = events
    elif isinstance(events, list) and all(e in (0, 1) for e in events):
        moved = sum(1 for e in events if e)
    else:
        raise RulesError("failures must be a count, or a list of 1 (a failure) or 0 (no failure) per test")
    after = min(int_input(inputs, "clock_before", 0, minimum=0) + moved, steps)
    return {"clock_after": after, "consequence_triggered": after >= steps, "steps_left": steps - after}


# --- the d6-only variant -------------------------------------------------------------------------

def d6_threshold(inputs: dict[str, Any]) -> int:
    """The success threshold of a d6-only test (seed 003, 9.1-9.4; SD-D14): the level's threshold
    (or base_threshold) + difficulty_shift + the opponent's level (pion 0, élite +1, boss +2) - 1 for
    one helper, clamped to 2..6."""
    if "base_threshold" in inputs:
        base = int_input(inputs, "base_threshold", minimum=2)
    elif "level" in inputs:
        level = _key(inputs["level"])
        if level not in D6_LEVELS:
            raise RulesError(f"unknown level {inputs['level']!r}; use {', '.join(D6_LEVELS)}")
        base = D6_LEVELS[level]
    else:
        raise RulesError("give the characteristic's level (maitre, entraine, novice, sans_competence) or base_threshold")
    opponent = D6_OPPONENT_SHIFT[opponent_kind(inputs["opponent"])] if inputs.get("opponent") else 0
    helpers = int_input(inputs, "helpers", 0, minimum=0)
    return min(max(base + int_input(inputs, "difficulty_shift", 0) + opponent - min(helpers, 1), 2), 6)


def d6_judge(face: int, threshold: int) -> str:
    """SD-D14: 1 -> "failure_complication", 6 -> "exceptional_success", else success iff face >= threshold."""
    if face == 1:
        return "failure_complication"
    if face == 6:
        return "exceptional_success"
    return "success" if face >= threshold else "failure"


def _d6_variant_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds of a d6-only test at its threshold."""
    threshold = d6_threshold(inputs)
    labels = odds_mod.label_distribution(icepool.d6, lambda f: d6_judge(f, threshold),
                                         order=("exceptional_success", "success", "failure", "failure_complication"))
    get = lambda k: labels.get(k, Fraction(0))  # noqa: E731
    return odds_mod.odds_result("stepdie.d6_variant_test", labels, threshold=threshold,
                                success=get("success") + get("exceptional_success"),
                                failure=get("failure") + get("failure_complication"),
                                exceptional_success=get("exceptional_success"),
                                complication=get("failure_complication"))


def _d6_variant_screen(outcome: dict[str, Any]) -> list[str]:
    """"d6 need 4+", "Rolled 5", the outcome word, "+ complication" on a 1."""
    lines = [fit(f"d6 need {outcome['threshold']}+"), fit(f"Rolled {outcome['face']}"), SCREEN_WORDS[outcome["outcome"]]]
    return lines + ["+ complication"] if outcome["complication"] else lines


@procedure("stepdie.d6_variant_test", odds=_d6_variant_odds, screen=_d6_variant_screen,
           dice=takes("d6", "face"))
def d6_variant_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """A test of the d6-only variant, "seulement-d6" (seed 003, 9.1-9.4; RULES.md 4.9; SD-D14).

    inputs:  level (maitre 3+, entraine 4+, novice 5+, sans_competence 6) or base_threshold;
             difficulty_shift (signed degrees); opponent (pion, elite, boss); helpers; face (a d6).
    outcome: {"threshold", "face", "outcome": "exceptional_success" | "success" | "failure" |
              "failure_complication", "success", "complication"}
    """
    threshold = d6_threshold(inputs)
    face = read_face(inputs, "d6")
    kind = d6_judge(face, threshold)
    return {"threshold": threshold, "face": face, "outcome": kind,
            "success": kind in ("success", "exceptional_success"), "complication": kind == "failure_complication"}


@procedure("stepdie.d6_variant_development")
def d6_variant_development(inputs: dict[str, Any]) -> dict[str, Any]:
    """Development in the d6-only variant (seed 003, 9.5): raise one characteristic one level
    (sans compétence -> novice -> entraîné -> maître), or +1 Heart, or +1 Mana.

    inputs:  level_before (or threshold_before), choice ("characteristic" (default) | "heart" |
             "mana"), hearts / mana (current maxima, defaults 5 / 3)
    outcome: {"level_after", "threshold_after"} or {"max_hearts_after"} / {"max_mana_after"}
    Raises RulesError when raising a maître (no level above).
    """
    choice = _key(inputs.get("choice", "characteristic"))
    if choice == "heart":
        return {"max_hearts_after": int_input(inputs, "hearts", STARTING_HEARTS) + 1}
    if choice == "mana":
        return {"max_mana_after": int_input(inputs, "mana", STARTING_MANA) + 1}
    if choice != "characteristic":
        raise RulesError(f"choice {inputs.get('choice')!r}: use characteristic, heart or mana")
    order = list(D6_LEVELS)
    if "level_before" in inputs:
        level = _key(inputs["level_before"])
        if level not in D6_LEVELS:
            raise RulesError(f"unknown level {inputs['level_before']!r}; use {', '.join(order)}")
    else:
        by_threshold = {t: name for name, t in D6_LEVELS.items()}
        level = by_threshold.get(int_input(inputs, "threshold_before"), "")
        if not level:
            raise RulesError(f"threshold_before must be one of {sorted(by_threshold)}")
    if level == order[-1]:
        raise RulesError("maitre is the highest level: choose +1 Heart or +1 Mana instead")
    after = order[order.index(level) + 1]
    return {"level_after": after, "threshold_after": D6_LEVELS[after]}
