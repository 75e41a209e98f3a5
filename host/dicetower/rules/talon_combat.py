"""Talon combat and NPC procedures that roll dice or read tables (RULES.md 3.10-3.11; seed 002
"6. Combat"). Dice come from the tower as readings (ints, {"value"} or DieReading-like dicts) and
are checked with dice.read_die / read_dice (GEN-D04); odds are exact with icepool.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any

import icepool

from .dice import gm_prompt, read_dice, read_die
from .odds import label_distribution, odds_result, probability_where
from .registry import RulesError, procedure, takes
from .screen import fit
from .talon_deck import as_int, fold_key

#: Weapons: damage dice, Dégainer, Initiative (bladed) / Précision, ranges, Recharger (ranged).
WEAPONS: dict[str, dict[str, Any]] = {
    "dague": {"dice": "1D6", "degainer": 5, "initiative": 0},
    "epee_courte": {"dice": "1D4", "degainer": 2, "initiative": 0},
    "epee_longue": {"dice": "1D8", "degainer": -5, "initiative": 4},
    "epee_batarde": {"dice": "1D10", "degainer": -10, "initiative": 6},
    "arc_court": {"dice": "1D8", "precision": (1, 5), "ranges": (5, 10, 15), "recharger": (2, 27)},
    "arc_long": {"dice": "1D10", "precision": (1, 5), "ranges": (5, 15, 30), "recharger": (2, 27)},
    "arbalete": {"dice": "1D10+2", "precision": (2, 8), "ranges": (10, 20, 40), "recharger": (6, 79),
                 "armour_halved": True},
}
NPC_GRADES = {  # grade: (example, active, passive, special damage S, critical damage C) (TAL-D16)
    "mauvais": ("paysans", 3, 3, 25, 35),
    "passables": ("miliciens", 0, 0, 22, 32),
    "bons": ("sergents", -3, -5, 19, 29),
    "serieux": ("capitaines", -5, -5, 16, 26),
    "epiques": ("nemesis", -7, -7, 13, 23),
}
RANGED_TABLE = {  # (speed, size) -> (short, medium, long) (seed 002 "Table de tir"; TAL-D36)
    ("immobile", "petite"): (0, -3, -7), ("immobile", "moyenne"): (3, 0, -4), ("immobile", "grande"): (7, 3, 0),
    ("marche", "petite"): (-3, -7, -10), ("marche", "moyenne"): (0, -3, -7), ("marche", "grande"): (3, 0, -4),
    ("course", "petite"): (-7, -10, -13), ("course", "moyenne"): (-3, -7, -10), ("course", "grande"): (0, -3, -7),
}
DEMOLITION_CAP = 20  # TAL-D20: at most 20 rerolls of a die showing 1
_DICE_RE = re.compile(r"^(\d*)D(\d+)(?:\+(\d+))?$", re.IGNORECASE)


def parse_dice(spec: Any) -> tuple[int, str, int]:
    """"1D10+2" -> (1, "d10", 2). Raises RulesError for anything else."""
    m = _DICE_RE.match(str(spec).strip())
    if not m:
        raise RulesError(f"dice {spec!r} must look like 1D6, 2D6 or 1D10+2")
    return int(m.group(1) or 1), f"d{m.group(2)}", int(m.group(3) or 0)


def dice_die(spec: Any) -> icepool.Die:
    """The icepool distribution of a dice spec ("2D6", "1D10+2")."""
    count, die_type, plus = parse_dice(spec)
    return count @ icepool.Die(range(1, int(die_type[1:]) + 1)) + plus


def _throw(inputs: dict[str, Any], spec: str) -> list[int]:
    """The dice readings for `spec` from inputs: "readings" | "throws" | "<die type>" (one value or
    a list), checked against the die type and count (GEN-D04)."""
    count, die_type, _ = parse_dice(spec)
    items = inputs.get("readings", inputs.get("throws", inputs.get(die_type)))
    if items is None:
        raise RulesError(f"throw {spec} in the tower and give the readings ({die_type} values)")
    if not isinstance(items, list):
        items = [items]
    return [d.value for d in read_dice(items, die_type=die_type, count=count, what=f"{die_type} damage dice")]


def _damage_dice(key: str, inputs: dict[str, Any]) -> str | None:
    """talon.damage_roll's `dice` declaration: the die type of its damage dice (the weapon's or "dice", as
    _throw reads them) under "readings", "throws" or that die type's own key; None under any other key.
    Raises RulesError when the inputs name no weapon nor dice."""
    die_type = parse_dice(_weapon(inputs)[1])[1]
    return die_type if key in ("readings", "throws", die_type) else None


def _weapon(inputs: dict[str, Any]) -> tuple[str | None, str]:
    weapon = fold_key(inputs["weapon"]) if inputs.get("weapon") else None
    if weapon is not None and weapon not in WEAPONS:
        raise RulesError(f"unknown weapon {inputs['weapon']!r}; weapons are {', '.join(WEAPONS)}")
    spec = inputs.get("dice") or (WEAPONS[weapon]["dice"] if weapon else None)
    if spec is None:
        raise RulesError("give the weapon or the damage dice (e.g. \"1D6\")")
    if weapon and parse_dice(spec) != parse_dice(WEAPONS[weapon]["dice"]):
        raise RulesError(f"{weapon} deals {WEAPONS[weapon]['dice']}, not {spec}")
    return weapon, str(spec).upper()


def _armour(inputs: dict[str, Any], weapon: str | None) -> int:
    armour = as_int(inputs.get("armour_points", 0), "armour_points")
    return armour // 2 if weapon and WEAPONS[weapon].get("armour_halved") else armour


def _damage_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Exact distribution of damage (after armour, + Puissance) for talon.damage_roll."""
    weapon, spec = _weapon(inputs)
    armour = _armour(inputs, weapon)
    bonus = as_int(inputs.get("puissance_chips", 0), "puissance_chips")
    dist = (dice_die(spec) - armour).map(lambda x: max(0, x)) + bonus
    return odds_result("talon.damage_roll", dist, mean=str(dist.mean()),
                       no_damage=probability_where(dist, lambda x: x == 0))


def damage_screen(outcome: dict[str, Any]) -> dict[str, Any]:
    """Damage as a large figure."""
    return {"big": str(outcome["damage"])[:4],
            "lines": [fit(f"{outcome['dice']} = {outcome['raw']}"), fit(f"armour -{outcome['effective_armour']}"),
                      fit(f"to {outcome['track']}")]}


@procedure("talon.damage_roll", odds=_damage_odds, screen=damage_screen, dice=_damage_dice)
def damage_roll(inputs: dict[str, Any]) -> dict[str, Any]:
    """Damage of a successful attack (seed 002 "6. Combat — Dommages", weapon tables; RULES.md 3.10;
    TAL-D19): roll the dice in the tower, subtract armour (halved, rounded down, for the Arbalète),
    never below 0; Puissance adds X chips.

    inputs {"weapon"? (dague, epee_courte, epee_longue, epee_batarde, arc_court, arc_long, arbalete),
            "dice"? ("1D6", "2D6", "1D10+2"), readings as "d6": 2 | "d10": 7 | "readings": [...],
            "armour_points"?, "puissance_chips"?, "unarmed"?, "artiste_martial"?}
    Returns raw, effective_armour, damage, track (vitalite, or endurance for Corps à corps), dice.
    Raises RulesError for a wrong die type or count (GEN-D04) or an unknown weapon."""
    weapon, spec = _weapon(inputs)
    _, _, plus = parse_dice(spec)
    values = _throw(inputs, spec)
    raw = sum(values) + plus
    armour = _armour(inputs, weapon)
    bonus = as_int(inputs.get("puissance_chips", 0), "puissance_chips")
    unarmed = bool(inputs.get("unarmed")) or weapon is None and not inputs.get("weapon")
    track = "endurance" if unarmed and not inputs.get("artiste_martial") else "vitalite"
    return {"dice": spec, "dice_values": values, "raw": raw, "effective_armour": armour,
            "damage": max(0, raw - armour) + bonus, "puissance_bonus": bonus, "track": track}


@procedure("talon.melee_damage_dice")
def melee_damage_dice(inputs: dict[str, Any]) -> dict[str, Any]:
    """Unarmed (Corps à corps) damage dice from Costaud and Violent (seed 002 "2. Compétences —
    Corps à Corps"; RULES.md 3.10): both primary 2D6; primary + secondary 1D10; one primary (other
    neither) or both secondary 1D8; else 1D6. Damage goes to Endurance.
    inputs {"costaud", "violent"}: primary | secondary | none -> {"damage_dice", "track"}."""
    c, v = fold_key(inputs.get("costaud", "none")), fold_key(inputs.get("violent", "none"))
    for name, value in (("costaud", c), ("violent", v)):
        if value not in ("primary", "secondary", "none"):
            raise RulesError(f"{name} must be primary, secondary or none, not {value!r}")
    pair = sorted((c, v))
    if pair == ["primary", "primary"]:
        dice = "2D6"
    elif pair == ["primary", "secondary"]:
        dice = "1D10"
    elif pair in (["none", "primary"], ["secondary", "secondary"]):
        dice = "1D8"
    else:
        dice = "1D6"
    return {"damage_dice": dice, "track": "endurance"}


def _demolition_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Exact damage-before-armour distribution with Demolition man 1 (each 1 counts and explodes, cap 20)."""
    count, die_type, plus = parse_dice(inputs.get("dice", "1D6"))
    die = icepool.Die(range(1, int(die_type[1:]) + 1)).explode([1], depth=DEMOLITION_CAP)
    dist = count @ die + plus
    return odds_result("talon.demolition_man", dist, mean=str(dist.mean()))


def _chains(throws: Any, count: int) -> list[list[Any]]:
    """Each damage die's faces, first throw then each re-throw, from demolition_man's "throws" (a copy).
    Raises RulesError when throws lists no face."""
    if not isinstance(throws, list) or not throws:
        raise RulesError("throws must list the faces read, first throw then each re-throw")
    if isinstance(throws[0], list):
        return [list(chain) for chain in throws]
    return [list(throws)] if count == 1 else [[face] for face in throws]


def _demolition_rethrow(inputs: dict[str, Any], outcome: dict[str, Any], dice: list[Any] | None) -> dict[str, Any]:
    """demolition_man's inputs once the dice its outcome's reroll_request names (those whose last face is 1) were
    dropped through the tower again (GEN-D03): each re-thrown die's reading ends the faces of the die it is, in
    the request's order. dice: the readings of that re-throw only. Raises RulesError when their number is not
    the request's, or dice is None (these re-throws are the rule, not a choice)."""
    pending = outcome["reroll_request"]["dice"]
    if dice is None:
        raise RulesError("Demolition man throws every 1 again (TAL-D20): it cannot be declined")
    if len(dice) != len(pending):
        raise RulesError(f"{len(dice)} dice read in the re-throw but {len(pending)} showed 1: "
                         "throw exactly the dice that showed 1 (GEN-D03)")
    chains = _chains(inputs.get("throws"), parse_dice(inputs.get("dice", "1D6"))[0])
    for i, reading in zip(pending, dice):
        chains[i].append(reading)
    return {**inputs, "throws": chains}


def _demolition_screen(outcome: dict[str, Any]) -> dict[str, Any]:
    """Demolition man's damage so far as a large figure, and how many of its dice show 1 (thrown again)."""
    pending = outcome.get("reroll_request", {}).get("dice", [])
    return {"big": str(outcome["damage_before_armour"])[:4],
            "lines": [fit("DEMOLITION MAN"), fit("before armour"),
                      fit(f"{len(pending)} x 1: again" if pending else "complete")]}


@procedure("talon.demolition_man", odds=_demolition_odds, screen=_demolition_screen, rethrow=_demolition_rethrow,
           dice=takes(lambda inputs: parse_dice(inputs.get("dice", "1D6"))[1], "throws"))
def demolition_man(inputs: dict[str, Any]) -> dict[str, Any]:
    """Atout Demolition man (seed 002 "9. Atouts"; RULES.md 3.10; TAL-D20): each damage die showing 1
    counts its point and is thrown again (physically, GEN-D03), while it shows 1, at most 20 times.
    Levels 2-4 act on damage cards only, unsupported in dice mode (logged).

    inputs {"level", "dice": "1D6", "throws": [first face, re-throw faces...]} for one die, or
           "throws": [[die 1 faces...], [die 2 faces...]] for several dice, whose first throw may be given
           flat, a face per die ([die 1 face, die 2 face]: the tower's reading of the dice dropped together).
    Returns damage_before_armour, and reroll_request {"dice": [indices], "why"} while a die's last
    face is 1 (pick it up and drop it again: _demolition_rethrow adds its reading), complete False then."""
    level = as_int(inputs.get("level", 1), "level")
    count, die_type, plus = parse_dice(inputs.get("dice", "1D6"))
    chains = _chains(inputs.get("throws"), count)
    if len(chains) != count:
        raise RulesError(f"{len(chains)} dice thrown but {inputs.get('dice')} needs {count} (GEN-D04)")
    total, pending = plus, []
    for i, chain in enumerate(chains):
        faces = [d.value for d in read_dice(chain, die_type=die_type, what=f"die {i + 1} throws")]
        for j, face in enumerate(faces[:-1]):
            if face != 1:
                raise RulesError(f"die {i + 1} shows {face} on throw {j + 1}: only a 1 is thrown again")
        if len(faces) > DEMOLITION_CAP + 1:
            raise RulesError(f"die {i + 1}: at most {DEMOLITION_CAP} re-throws (TAL-D20)")
        total += sum(faces)
        if faces[-1] == 1 and len(faces) <= DEMOLITION_CAP:
            pending.append(i)
    out: dict[str, Any] = {"damage_before_armour": total, "complete": not pending,
                           "inactive_levels": [lv for lv in (2, 3, 4) if lv <= level]}
    if pending:
        out["reroll_request"] = {"dice": pending, "die_type": die_type,
                                 "why": "Demolition man: a 1 counts and is thrown again (TAL-D20)"}
    return out


@procedure("talon.npc_modifiers")
def npc_modifiers(inputs: dict[str, Any]) -> dict[str, Any]:
    """NPC grade table (seed 002 "6. Combat — Adversaires"; RULES.md 3.11; TAL-D16 Bons passive -5
    kept as printed). inputs {"npc_grade"} -> active, passive, special/critical damage thresholds."""
    grade = _grade(inputs)
    example, active, passive, s, c = NPC_GRADES[grade]
    return {"npc_grade": grade, "example_npc": example, "active": active, "passive": passive,
            "special_damage_threshold": s, "critical_damage_threshold": c}


def _grade(inputs: dict[str, Any]) -> str:
    grade = fold_key(inputs.get("npc_grade", ""))
    if grade not in NPC_GRADES:
        raise RulesError(f"unknown NPC grade {inputs.get('npc_grade')!r}; grades are {', '.join(NPC_GRADES)}")
    return grade


def _d20_grade(d20: int, s: int, c: int) -> str:
    return "critical" if d20 > c else "special" if d20 > s else "normal"


def _npc_d20_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Exact odds of the NPC damage grade on the d20 (TAL-D17)."""
    _, _, _, s, c = NPC_GRADES[_grade(inputs)]
    dist = label_distribution(icepool.d20, lambda x: _d20_grade(x, s, c), order=("normal", "special", "critical"))
    return odds_result("talon.npc_defense_d20", dist, special=dist.get("special", Fraction(0)),
                       critical=dist.get("critical", Fraction(0)))


@procedure("talon.npc_defense_d20", odds=_npc_d20_odds, dice=takes("d20", "d20"),
           screen=lambda o: ["NPC DAMAGE", fit(f"d20 {o['d20']} vs {o['special_damage_threshold']}/"
                                               f"{o['critical_damage_threshold']}"), fit(o["npc_damage_grade"].upper())])
def npc_defense_d20(inputs: dict[str, Any]) -> dict[str, Any]:
    """Rule of 1 in defence (seed 002 "Règle du 1 en défense"; RULES.md 3.11; TAL-D17 literal): after
    an Ace on a defence against an NPC, the GM throws a d20: special damage if d20 > S, critical if
    d20 > C. Outside that rule the damage is normal and no d20 is needed.
    inputs {"npc_grade", "player_defence_first_honour"? ("ace" or a card), "d20": reading}
    Returns npc_damage_grade (normal|special|critical), d20, thresholds.
    Raises RulesError for a die that is not a d20 or a value out of 1..20 (GEN-D04)."""
    grade = _grade(inputs)
    _, _, _, s, c = NPC_GRADES[grade]
    first = str(inputs.get("player_defence_first_honour", "ace")).lower()
    is_ace = first == "ace" or (first[:-1] == "1" and first[-1:].upper() in "ECDB")
    out: dict[str, Any] = {"special_damage_threshold": s, "critical_damage_threshold": c}
    if not is_ace:
        return {**out, "npc_damage_grade": "normal", "d20": None, "note": "no Ace: normal damage (TAL-D17)"}
    if inputs.get("d20") is None:
        raise RulesError("throw the d20 in the tower (rule of 1 in defence) and give its reading as d20")
    d20 = read_die(inputs["d20"], die_type="d20", where="NPC defence d20").value
    return {**out, "d20": d20, "npc_damage_grade": _d20_grade(d20, s, c)}


def _initiative_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Exact initiative distribution with Adrénaline (+1d6)."""
    if not inputs.get("adrenaline"):
        raise RulesError("initiative rolls a die only with adrenaline: true")
    dist = icepool.d6 + as_int(inputs.get("reflexes", inputs.get("initiative", 0)), "reflexes")
    return odds_result("talon.initiative", dist, mean=str(dist.mean()))


@procedure("talon.initiative", odds=_initiative_odds, dice=takes("d6", "d6"))
def initiative(inputs: dict[str, Any]) -> dict[str, Any]:
    """Initiative (seed 002 "6. Combat — Initiative", "Adrénaline", "Débordé"; RULES.md 3.10).

    One character with Adrénaline: {"reflexes", "adrenaline": true, "d6": reading, "cheap_chips",
      "endurance_cumul"} -> initiative_this_round (+1d6), cheap_chips_after (-1),
      endurance_cumul_after (+1; over 3 -> 0 and a Fatigue level).
    Order of several: {name: {"celerite", "reflexes" | "initiative", "deborde"?}, ...} -> order:
      highest Célérité first, then highest initiative; a débordé character acts after all others.
    Raises RulesError when Adrénaline is used without a chip or without its d6."""
    if "adrenaline" in inputs or "reflexes" in inputs:
        ini = as_int(inputs.get("reflexes", inputs.get("initiative")), "reflexes")
        out: dict[str, Any] = {"initiative_this_round": ini}
        if inputs.get("adrenaline"):
            from .talon_health import endurance_cumul_actions

            chips = as_int(inputs.get("cheap_chips", 0), "cheap_chips")
            if chips < 1:
                raise RulesError("Adrénaline costs 1 Cheap-chip and none is left")
            if inputs.get("d6") is None:
                raise RulesError("Adrénaline: throw 1d6 in the tower and give its reading as d6")
            d6 = read_die(inputs["d6"], die_type="d6", where="Adrénaline d6").value
            cumul = endurance_cumul_actions({"action": "adrenaline",
                                             "endurance_cumul": inputs.get("endurance_cumul", 0)})
            out.update({"initiative_this_round": ini + d6, "d6": d6, "cheap_chips_after": chips - 1,
                        "endurance_cumul_after": cumul["endurance_cumul_after"], "levels_taken": cumul["levels_taken"]})
        return out
    chars = {k: v for k, v in inputs.items() if isinstance(v, dict)}
    if len(chars) < 2:
        raise RulesError("give two or more characters {name: {\"celerite\", \"reflexes\"}} or one with adrenaline")

    def key(name: str) -> tuple[int, int, int]:
        c = chars[name]
        ini = as_int(c.get("initiative", c.get("reflexes")), f"{name}.reflexes")
        return (1 if c.get("deborde") else 0, -as_int(c.get("celerite", 0), f"{name}.celerite"), -ini)

    return {"order": sorted(chars, key=key)}


@procedure("talon.multi_defense_malus")
def multi_defense_malus(inputs: dict[str, Any]) -> dict[str, Any]:
    """Defences beyond the number of actions (seed 002 "Parer/Esquiver"; RULES.md 3.10): the k-th
    extra defence is at -3k. inputs {"actions_this_round", "defense_index" (1-based)} -> {"modifier"}."""
    actions = as_int(inputs.get("actions_this_round"), "actions_this_round")
    index = as_int(inputs.get("defense_index"), "defense_index")
    if index < 1 or actions < 0:
        raise RulesError("defense_index counts from 1 and actions_this_round must be >= 0")
    return {"modifier": -3 * max(0, index - actions)}


def _table_key(value: Any, options: dict[str, str], what: str) -> str:
    words = fold_key(value).replace("(", " ").replace(")", " ").replace("_", " ").split()
    for word in words:
        if word in options:
            return options[word]
    raise RulesError(f"unknown {what} {value!r}; use one of {', '.join(sorted(set(options)))}")


@procedure("talon.ranged_modifiers")
def ranged_modifiers(inputs: dict[str, Any]) -> dict[str, Any]:
    """Shooting table (seed 002 "6. Combat — Table de tir"; RULES.md 3.10; TAL-D36 labels as printed).
    inputs {"target_size": petite|moyenne|grande, "target_speed": immobile|marche|course,
            "range": courte|moyenne|longue} (the seed's labels with parentheses are accepted)."""
    size = _table_key(inputs.get("target_size"), {"petite": "petite", "tete": "petite", "moyenne": "moyenne",
                                                  "torse": "moyenne", "grande": "grande", "homme": "grande"}, "target size")
    speed = _table_key(inputs.get("target_speed"), {"immobile": "immobile", "mouvante": "marche", "marche": "marche",
                                                    "rapide": "course", "course": "course"}, "target speed")
    rng = _table_key(inputs.get("range"), {"courte": 0, "moyenne": 1, "longue": 2}, "range")  # type: ignore[dict-item]
    return {"modifier": RANGED_TABLE[(speed, size)][int(rng)]}


@procedure("talon.localisation")
def localisation(inputs: dict[str, Any]) -> dict[str, Any]:
    """Localised damage (seed 002 "6. Combat — Localisation"; RULES.md 3.10): a Blessure mortelle in a
    limb makes it useless at once; every other localisation is the GM's call (prompt).
    inputs {"damage_tier", "localised_to"} -> limb_useless, immediate, or consequence (GM prompt)."""
    tier, where = fold_key(inputs.get("damage_tier", "")), fold_key(inputs.get("localised_to", ""))
    if tier == "blessure_mortelle" and where in ("limb", "membre", "arm", "leg", "bras", "jambe"):
        return {"limb_useless": True, "immediate": True}
    return {"limb_useless": False,
            "consequence": gm_prompt(f"{tier or 'damage'} localised to {where or '?'}: what follows? "
                                     "(the seed gives only the limb case)", ["no lasting effect", "as the GM describes"])}


def _ko_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """P(knocked out) = P(the Endurance test fails), exact over the cards left (talon_odds)."""
    from .talon_odds import odds_of_test

    test_inputs = inputs.get("endurance_test")
    if not isinstance(test_inputs, dict):
        raise RulesError("give endurance_test (the Endurance test's inputs: skill_value, deck_file...) for KO odds")
    modifier = as_int(inputs.get("adversary_modifier", 0), "adversary_modifier") + (5 if inputs.get("tete_de_pioche") else 0)
    test = odds_of_test({**test_inputs, "skill": "endurance",
                         "modifiers": list(test_inputs.get("modifiers") or []) + [modifier]}, "talon.simple_test")
    out = Fraction(test["failure"]["fraction"])
    exhausted = sum((Fraction(o["fraction"]) for o in test["outcomes"] if o["outcome"] == "talon_exhausted"), Fraction(0))
    dist = {"knocked_out": out, "stays_up": 1 - out - exhausted}
    if exhausted:
        dist["talon_exhausted"] = exhausted
    return odds_result("talon.ko_check", dist, method=test["method"], knocked_out=out)


@procedure("talon.ko_check", odds=_ko_odds)
def ko_check(inputs: dict[str, Any]) -> dict[str, Any]:
    """KO after an Épuisement or Syncope level taken in Corps à corps (seed 002 "Corps à Corps";
    RULES.md 3.9): the GM may call an Endurance test with a modifier set by the adversary; Tête de
    pioche +5; failure = knocked out.
    inputs {"level_taken": epuisement|syncope|fatigue, "corps_a_corps": bool, "gm_calls_test"?: bool,
            "adversary_modifier"?, "tete_de_pioche"?, "endurance_test"?: talon.simple_test inputs}
    Returns ko_possible, test_called (GM prompt when not given), modifier, and knocked_out when the
    Endurance test was made."""
    from .talon import simple_test

    level = fold_key(inputs.get("level_taken", ""))
    possible = bool(inputs.get("corps_a_corps", True)) and level in ("epuisement", "syncope")
    out: dict[str, Any] = {"ko_possible": possible}
    if not possible:
        return {**out, "knocked_out": False}
    modifier = as_int(inputs.get("adversary_modifier", 0), "adversary_modifier") + (5 if inputs.get("tete_de_pioche") else 0)
    out["modifier"] = modifier
    called = inputs.get("gm_calls_test")
    if called is None:
        out["test_called"] = gm_prompt("KO: call an Endurance test? (modifier set by the adversary)", [True, False])
        return out
    out["test_called"] = bool(called)
    if not called:
        return {**out, "knocked_out": False}
    test_inputs = inputs.get("endurance_test")
    if not isinstance(test_inputs, dict):
        return {**out, "knocked_out": None, "next": "make the Endurance test and give endurance_test"}
    mods = list(test_inputs.get("modifiers") or []) + [modifier]
    test = simple_test({**test_inputs, "skill": "endurance", "modifiers": mods})
    return {**out, "endurance_test": test, "knocked_out": not test["success"]}
