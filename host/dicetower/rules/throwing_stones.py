"""Throwing Stones (seed 000, Jeff Siadek; RULES.md 1): tests, saves, rerolls, initiative, combat,
damage, effects, monsters and campaign bookkeeping.

Stones are read through the catalogue (TS-D01) or as face records; see throwing_stones_stones for the
accepted shapes. Spells live in throwing_stones_magic, Table 5 actions in throwing_stones_actions
(both imported at the end so every `throwing_stones.*` id is registered with this module).

Common optional inputs of every procedure that reads stones:
    "catalogue": {stone_id: [6 face records]}     the table's stone catalogue (TS-D01)
    "<roll key>_reroll": {"positions": [...], "roll": [...]}   a physical reroll to merge (GEN-D03)
    "rainbow_choices": {position: colour}          the owner's rainbow choices (TS-D02)
    "monster": name                                the roller is a Table 2 monster
Odds of a stone roll are exact over the catalogue faces (each 1/6) of inputs["stones"] (or the stones
read, or the whole catalogue), before mulligans and rerolls.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import icepool

from . import odds as odds_json
from .dice import read_dice, read_die
from .registry import RulesError, procedure
from .screen import fit
from .throwing_stones_stones import (
    CHARACTERISTIC_COLOUR, MAGIC_TALENTS, MAX_THROWN, TALENTS, Face, allowed_rainbow, apply_reroll, catalogue_of,
    characteristic_colour, colour_count, count_effect, fold_die, monster, norm_id, plain_id, rainbow_choices,
    read_throw, stone_faces, sum_die, thrown_stone_faces,
)

ALL = "ALL"
#: Table 4 weapons: [F] load, cost PO, damage/size W
WEAPONS = {"baton": (8, 5, 2), "dague": (3, 10, 1), "epee": (6, 50, 2), "epee_a_2_mains": (12, 120, 3), "matraque": (4, 2, 1)}
#: Table 4 armours: [F] load, cost PO, armour value (TS-D10: the "Dégât" column), pénalité (no rule)
ARMOURS = {"banded": (8, 150, 5, 3), "cotte_de_maille": (7, 120, 4, 2), "cuir": (5, 30, 2, 1),
           "matelassee": (4, 15, 1, 1), "ring_mail": (6, 45, 3, 2), "bouclier": (3, 5, 1, None)}


def _int(inputs: dict[str, Any], key: str, *, minimum: int | None = None, default: Any = ...) -> int:
    if key not in inputs or inputs[key] is None:
        if default is not ...:
            return default
        raise RulesError(f"inputs need {key!r} (a whole number)")
    value = inputs[key]
    if isinstance(value, bool) or not isinstance(value, int) or (minimum is not None and value < minimum):
        raise RulesError(f"{key} must be a whole number{f' >= {minimum}' if minimum is not None else ''}, not {value!r}")
    return value


def _item(name: Any) -> str:
    return plain_id(name)


def _ids(faces: list[Face]) -> list[str | None]:
    return [f.stone_id for f in faces]


def _outcomes(die: icepool.Die, proc: str, **summaries: Any) -> dict[str, Any]:
    return odds_json.odds_result(proc, die, method=f"{odds_json.EXACT}; catalogue faces, each 1/6 (TS-D01); "
                                 "before mulligan and rerolls", **summaries)


def _verdict(outcome: dict[str, Any]) -> str:
    if outcome.get("success") is None:
        return "RESULT"
    return "SUCCESS" if outcome["success"] else "FAILURE"


# ---------------------------------------------------------------- tests and saves (RULES.md 1.4)


def _talent_and_char(inputs: dict[str, Any], talent_required: bool) -> tuple[str | None, str]:
    talent = inputs.get("talent")
    talent = None if talent is None else norm_id(talent)
    if talent_required and talent is None:
        raise RulesError(f"inputs need 'talent' (one of {', '.join(list(TALENTS) + list(MAGIC_TALENTS))})")
    char = inputs.get("characteristic")
    if char is None and talent is not None:
        if talent in MAGIC_TALENTS:
            char = "I"
        else:
            uses = TALENTS.get(talent)
            if uses is None:
                raise RulesError(f"unknown talent {talent!r}; Table 1 has {', '.join(TALENTS)}")
            use = inputs.get("use")
            if use is None and len(set(uses.values())) > 1:
                raise RulesError(f"talent {talent} tests {', '.join(f'{u} [{c}]' for u, c in uses.items())}: "
                                 "give 'use' or 'characteristic'")
            char = uses[norm_id(use)] if use is not None else next(iter(uses.values()))
    if char is None:
        raise RulesError("inputs need 'characteristic' (F, I or A)")
    characteristic_colour(char)
    return talent, str(char).strip("[] ").upper()


def face_value(face: Face, colour: str, talent: str | None, save: bool, allowed: list[str] | None,
               centrer: bool = False) -> int:
    """What one up face adds to a test (1.4): its colour (rainbow -> the needed colour, TS-D02), the
    talent's pluses (TS-D05) and, in a save, +1 per name face, centrer and zele symbol (TS-D06);
    `centrer` adds +1 per centrer face outside saves (the Prêt throw, TS-D31)."""
    value = int(face.counts_as(colour, allowed=allowed)) + (face.talent_pluses(talent) if talent else 0)
    if save:
        value += int(face.name_face) + face.effects.count("centrer") + face.effects.count("zele")
    elif centrer:
        value += face.effects.count("centrer")
    return value


def run_test(inputs: dict[str, Any], *, save: bool, talent_required: bool = False, roll_key: str = "roll",
             difficulty_key: str = "difficulty") -> dict[str, Any]:
    """Shared body of characteristic_test / talent_test / save (RULES.md 1.4): result, and success
    iff result >= difficulty when a difficulty is given. Raises RulesError on wrong stones."""
    talent, char = _talent_and_char(inputs, talent_required)
    colour = CHARACTERISTIC_COLOUR[char]
    faces = read_throw(inputs, roll_key)
    assert faces is not None
    choices, allowed = rainbow_choices(inputs), allowed_rainbow(inputs)
    out: dict[str, Any] = {"characteristic": char, "colour": colour, "talent": talent,
                           "colour_count": colour_count(faces, colour, choices, allowed)}
    result = out["colour_count"]
    if talent:
        out["talent_pluses"] = sum(f.talent_pluses(talent) for f in faces)
        result += out["talent_pluses"]
    if save:
        out.update(name_faces=sum(f.name_face for f in faces), centrer=count_effect(faces, "centrer"),
                   zele=count_effect(faces, "zele"))
        result += out["name_faces"] + out["centrer"] + out["zele"]
    difficulty = _int(inputs, difficulty_key, default=None)
    out.update(result=result, difficulty=difficulty, success=None if difficulty is None else result >= difficulty,
               faces=[f.to_json() for f in faces], **_mulligan(faces, inputs),
               choices={"rainbow": {"by": "player" if choices else "default (needed colour, TS-D02)",
                                    "positions": choices}})
    return out


def _mulligan(faces: list[Face], inputs: dict[str, Any]) -> dict[str, Any]:
    """Chance mulligan (TS-D14): an odd number of chance faces lets the owner re-throw every stone once."""
    chance = count_effect(faces, "chance")
    allowed = chance % 2 == 1 and not inputs.get("mulligan_taken", False)
    out: dict[str, Any] = {"chance_faces": chance, "mulligan_allowed": allowed}
    if allowed:
        out["reroll_request"] = {"who": "roller", "optional": True, "stones": _ids(faces), "positions": list(range(len(faces))),
                                 "why": "chance mulligan: re-throw all these stones once (TS-D14)"}
    return out


def test_odds_die(inputs: dict[str, Any], *, save: bool, talent_required: bool = False, centrer: bool = False) -> icepool.Die:
    """Exact distribution of a test's result over the catalogue faces of the stones thrown
    (inputs["stones"], see thrown_stone_faces), each face 1/6. Raises RulesError without a catalogue."""
    talent, char = _talent_and_char(inputs, talent_required)
    colour, allowed = CHARACTERISTIC_COLOUR[char], allowed_rainbow(inputs)
    return sum_die(thrown_stone_faces(inputs), lambda f: face_value(f, colour, talent, save, allowed, centrer))


def _test_odds(proc: str, save: bool, talent_required: bool = False):
    def odds(inputs: dict[str, Any]) -> dict[str, Any]:
        die = test_odds_die(inputs, save=save, talent_required=talent_required)
        difficulty = _int(inputs, "difficulty", default=None)
        if difficulty is None:
            return _outcomes(die, proc, result=die)
        p = odds_json.probability_where(die, lambda r: r >= difficulty)
        return _outcomes(die, proc, success=p, failure=1 - p)
    return odds


def test_screen(outcome: dict[str, Any]) -> dict[str, Any]:
    """Big result, verdict against the difficulty, and what was counted."""
    parts = [f"{outcome['colour']} {outcome['colour_count']}"]
    if outcome.get("talent_pluses"):
        parts.append(f"+{outcome['talent_pluses']} {outcome['talent']}")
    extra = sum(outcome.get(k, 0) for k in ("name_faces", "centrer", "zele"))
    if extra:
        parts.append(f"+{extra} save")
    verdict = _verdict(outcome)
    lines = [fit(verdict if outcome.get("difficulty") is None else f"{verdict} vs {outcome['difficulty']}"), fit(" ".join(parts))]
    if outcome.get("mulligan_allowed"):
        lines.append("Chance: mulligan")
    return {"big": str(outcome["result"])[:4], "lines": lines}


@procedure("throwing_stones.characteristic_test", odds=_test_odds("throwing_stones.characteristic_test", False), screen=test_screen)
def characteristic_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """Characteristic test: result = faces of the characteristic's colour; success iff result >=
    difficulty (seed 000, Test et jet de protections; RULES.md 1.4; TS-D02, TS-D03).

    inputs:  {"characteristic": "F"|"I"|"A", "difficulty"?: int, "roll": [stones], "catalogue"?, ...}
    returns: {"result", "success" (None without a difficulty), "colour_count", "mulligan_allowed",
              "faces", "choices", "reroll_request"? (chance mulligan)}
    Raises RulesError on wrong stones (GEN-D04: not a stone, 11 stones, unknown stone).
    """
    return run_test(inputs, save=False)


@procedure("throwing_stones.talent_test", odds=_test_odds("throwing_stones.talent_test", False, True), screen=test_screen)
def talent_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """Talent test: result = faces of the use's colour + pluses on every face of that talent,
    whatever its colour (seed 000, Test et jet de protections, Table 1; RULES.md 1.4; TS-D05).

    inputs:  {"talent": id, "use"?: id, "characteristic"?: F/I/A (else from talent+use), "difficulty"?,
              "roll": [stones], ...}
    returns: {"colour_count", "talent_pluses", "result", "success", ...}
    """
    return run_test(inputs, save=False, talent_required=True)


@procedure("throwing_stones.save", odds=_test_odds("throwing_stones.save", True), screen=test_screen)
def save(inputs: dict[str, Any]) -> dict[str, Any]:
    """Save (jet de protection): the test (or talent test, with "talent") +1 per name face, +1 per
    centrer, +1 per zele face (seed 000, Test et jet de protections, Table 1; RULES.md 1.4; TS-D06).

    inputs:  {"characteristic"|"talent"(+"use"), "difficulty"?, "roll": [stones], ...}
    returns: {"colour_count", "name_faces", "centrer", "zele", "result", "success", ...}
    """
    return run_test(inputs, save=True)


# ---------------------------------------------------------------- throw, cap, rerolls (1.3, 1.5)


@procedure("throwing_stones.dice_cap")
def dice_cap(inputs: dict[str, Any]) -> dict[str, Any]:
    """At most 10 stones per action; the player picks which (seed 000, Héros composés de plus de 10
    dés; RULES.md 1.3; TS-D04).

    inputs:  {"stones_owned": int} or {"stones_owned": [ids], "chosen"?: [ids]}
    returns: {"max_stones_thrown_per_action": 10, "player_chooses_which": owned > 10,
              "stones_thrown": min(owned, 10), "chosen"?: ids}
    Raises RulesError when more than 10 are chosen or a chosen stone is not owned.
    """
    owned = inputs.get("stones_owned")
    count = len(owned) if isinstance(owned, list) else _int(inputs, "stones_owned", minimum=0)
    out: dict[str, Any] = {"max_stones_thrown_per_action": MAX_THROWN, "player_chooses_which": count > MAX_THROWN,
                           "stones_thrown": min(count, MAX_THROWN)}
    chosen = inputs.get("chosen")
    if chosen is not None:
        if not isinstance(chosen, list) or len(chosen) > MAX_THROWN or len(set(chosen)) != len(chosen):
            raise RulesError(f"chosen must list at most {MAX_THROWN} distinct stone ids (TS-D04), not {chosen!r}")
        if isinstance(owned, list) and set(chosen) - set(owned):
            raise RulesError(f"chosen stones {sorted(set(chosen) - set(owned))} are not owned")
        out["chosen"] = chosen
        out["choices"] = {"stones": {"by": "player", "ids": chosen}}
    return out


def _roll_all_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    stones = thrown_stone_faces(inputs)
    joint = sum_die(stones, lambda f: icepool.Vector((int(f.colour == "ruby"), int(f.colour == "gold"),
                                                      int(f.colour == "silver"), f.effects.count("chance"))))
    chance = joint.marginals[3]
    return _outcomes(chance.map(lambda c: "mulligan" if c % 2 else "no mulligan"), "throwing_stones.roll_all",
                     ruby=joint.marginals[0], gold=joint.marginals[1], silver=joint.marginals[2],
                     mulligan=odds_json.probability_where(chance, lambda c: c % 2 == 1))


@procedure("throwing_stones.roll_all", odds=_roll_all_odds)
def roll_all(inputs: dict[str, Any]) -> dict[str, Any]:
    """The throw (RULES.md 1.3): all the character's stones, at most 10 (TS-D04), read through the
    catalogue (TS-D01), then the chance mulligan (TS-D14).

    inputs:  {"roll": [stones], "stones"?: [ids owned], "catalogue"?}
    returns: {"stones_thrown", "faces", "ruby", "gold", "silver" (printed colours), "rainbow", "swords",
              "chance_faces", "mulligan_allowed", "reroll_request"?}
    Raises RulesError for 11 stones, a standard die among them, an unknown or foreign stone, or (with
    "stones" of at most 10) a stone of the character missing from the throw.
    """
    faces = read_throw(inputs, "roll")
    assert faces is not None
    owned = inputs.get("stones")
    if isinstance(owned, list) and len(owned) <= MAX_THROWN:
        missing = sorted(set(owned) - {f.stone_id for f in faces})
        if missing:
            raise RulesError(f"stones {', '.join(missing)} were not thrown: every stone is thrown (RULES.md 1.3); "
                             "throw them all again")
    return {"stones_thrown": len(faces), "faces": [f.to_json() for f in faces],
            **{c: sum(f.colour == c for f in faces) for c in ("ruby", "gold", "silver")},
            "rainbow": sum(f.rainbow for f in faces), "swords": sum(f.swords for f in faces), **_mulligan(faces, inputs)}


def _amount(value: Any, key: str) -> int | str:
    if value == ALL or (isinstance(value, str) and value.upper() == ALL):
        return ALL
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RulesError(f"{key} must be a whole number >= 0 or \"ALL\", not {value!r}")
    return value


#: Reroll sources (RULES.md 1.5): (rerolls, anti-rerolls) each gives
REROLL_SOURCES = {"targeted_action": (ALL, 0), "dodge": (ALL, 0), "berserk": (1, 0),
                  "own_targeted_action": (0, ALL), "blinded": (0, ALL), "prone": (0, 2)}


def _total(values: list[int | str]) -> int | str:
    return ALL if ALL in values else sum(v for v in values if isinstance(v, int))


def net_rerolls(rerolls: int | str, anti: int | str) -> tuple[int | str, int | str]:
    """(own rerolls, rerolls the opponent may force) from R and AR with TS-D13 arithmetic:
    ALL - k = ALL, ALL - ALL = 0, k - ALL = -ALL."""
    if rerolls == ALL and anti == ALL:
        return 0, 0
    if rerolls == ALL:
        return ALL, 0
    if anti == ALL:
        return 0, ALL
    n = int(rerolls) - int(anti)
    return max(n, 0), max(-n, 0)


@procedure("throwing_stones.reroll_round")
def reroll_round(inputs: dict[str, Any]) -> dict[str, Any]:
    """One reroll round (seed 000, Anti-relance; RULES.md 1.5; TS-D13, TS-D25): N = R - AR; N > 0: the
    roller may reroll up to N own stones; N < 0: the opponent may force up to |N|. Declarations:
    attacker first, then defender; all rerolled stones are thrown again through the tower (GEN-D03).

    inputs:  {"rerolls": int|"ALL", "anti_rerolls": int|"ALL"} and/or {"sources": [ids of
              REROLL_SOURCES, e.g. "dodge", "prone", "berserk"]}; optional "roll": [stones] and
              "positions": [0-based] chosen by the holder of the choice
    returns: {"own_rerolls", "opponent_may_force", "chooser": "roller"|"opponent"|None,
              "reroll_request"?: {"who", "positions", "stones"}, "declare_order": ["attacker", "defender"]}
    Raises RulesError on an unknown source or more positions than allowed.
    """
    sources = [norm_id(s) for s in inputs.get("sources") or []]
    for s in sources:
        if s not in REROLL_SOURCES:
            raise RulesError(f"unknown reroll source {s!r}; known: {', '.join(REROLL_SOURCES)}")
    r = _total([_amount(inputs.get("rerolls", 0), "rerolls")] + [REROLL_SOURCES[s][0] for s in sources])
    ar = _total([_amount(inputs.get("anti_rerolls", 0), "anti_rerolls")] + [REROLL_SOURCES[s][1] for s in sources])
    own, force = net_rerolls(r, ar)
    chooser = "roller" if own else "opponent" if force else None
    out: dict[str, Any] = {"rerolls": r, "anti_rerolls": ar, "own_rerolls": own, "opponent_may_force": force,
                           "chooser": chooser, "declare_order": ["attacker", "defender"]}
    positions = inputs.get("positions")
    if positions is not None:
        faces = read_throw(inputs, "roll")
        assert faces is not None
        limit = own or force
        if chooser is None or (limit != ALL and len(positions) > int(limit)):
            raise RulesError(f"{len(positions)} stones declared for reroll but the allowance is {limit}")
        if any(not isinstance(p, int) or not 0 <= p < len(faces) for p in positions) or len(set(positions)) != len(positions):
            raise RulesError(f"positions must be distinct 0-based stone positions in 0..{len(faces) - 1}")
        out["reroll_request"] = {"who": chooser, "positions": positions, "stones": [faces[p].stone_id for p in positions],
                                 "why": "pick up these stones and drop them through the tower (GEN-D03)"}
        out["choices"] = {"reroll": {"by": chooser, "positions": positions}}
    return out


def _mulligan_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    chance = sum_die(thrown_stone_faces(inputs), lambda f: f.effects.count("chance"))
    p = odds_json.probability_where(chance, lambda c: c % 2 == 1)
    return _outcomes(chance, "throwing_stones.chance_mulligan", mulligan=p)


@procedure("throwing_stones.chance_mulligan", odds=_mulligan_odds)
def chance_mulligan(inputs: dict[str, Any]) -> dict[str, Any]:
    """Chance (Table 1; RULES.md 1.5; TS-D14): an odd number of chance faces in a throw lets its owner
    re-throw all its stones once, before reroll declarations; no second mulligan.

    inputs:  {"chance_faces_showing": int} or {"roll": [stones]}; "mulligan_taken"?: bool
    returns: {"chance_faces", "mulligan_allowed", "reroll_request"? (all stones, optional)}
    """
    if "roll" in inputs:
        faces = read_throw(inputs, "roll")
        assert faces is not None
        return _mulligan(faces, inputs)
    chance = _int(inputs, "chance_faces_showing", minimum=0)
    return {"chance_faces": chance, "mulligan_allowed": chance % 2 == 1 and not inputs.get("mulligan_taken", False)}


# ---------------------------------------------------------------- initiative and round order (1.6)


def _players_values(raw: Any, key: str, inputs: dict[str, Any]) -> dict[str, int]:
    """{player: initiative} from {player: int} or {player: [stones]} (an [I] test: gold faces)."""
    if not isinstance(raw, dict) or not raw:
        raise RulesError(f"{key} must map each player to an [I] result or to their stones")
    out = {}
    for player, value in raw.items():
        if isinstance(value, list):
            out[player] = run_test({**inputs, "characteristic": "I", "roll": value}, save=False)["result"]
        elif isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            out[player] = value
        else:
            raise RulesError(f"{key}[{player}] must be a whole number >= 0 or a list of stones, not {value!r}")
    return out


def _initiative_rounds(inputs: dict[str, Any]) -> list[dict[str, int]]:
    if "initiative_rolls" in inputs:
        rounds = inputs["initiative_rolls"]
        if isinstance(rounds, dict):
            rounds = [rounds]
    else:
        keys = sorted((k for k in inputs if k.startswith("initiative_rolls_round")), key=lambda k: int(k.rsplit("round", 1)[1]))
        rounds = [inputs[k] for k in keys]
    if not rounds:
        raise RulesError("inputs need 'initiative_rolls': [{player: [I] result or stones}, ...] (one per throw)")
    return [_players_values(r, f"initiative round {i + 1}", inputs) for i, r in enumerate(rounds)]


def _initiative_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    players = inputs.get("players")
    if not isinstance(players, dict) or len(players) != 2:
        raise RulesError("initiative odds need 'players': {name: [stone ids]} for the two duellists and a catalogue")
    (pa, sa), (pb, sb) = players.items()
    diff = (test_odds_die({**inputs, "characteristic": "I", "stones": sa}, save=False)
            - test_odds_die({**inputs, "characteristic": "I", "stones": sb}, save=False))
    dist = odds_json.label_distribution(diff, lambda d: pa if d > 0 else pb if d < 0 else "tie_reroll", (pa, pb, "tie_reroll"))
    p_tie = dist.get("tie_reroll", Fraction(0))
    # ties are thrown again until decided: P(a first) = P(a ahead) / (1 - P(tie))
    decided = {pa: dist.get(pa, Fraction(0)) / (1 - p_tie), pb: dist.get(pb, Fraction(0)) / (1 - p_tie)} if p_tie < 1 else {}
    return odds_json.odds_result("throwing_stones.initiative", dist, method=f"{odds_json.EXACT}; catalogue faces",
                                 tie=p_tie, **{f"first_{k}": v for k, v in decided.items()})


def _initiative_screen(outcome: dict[str, Any]) -> list[str]:
    if outcome["first_to_act"] is None:
        return ["INITIATIVE TIE", "throw [I] again"]
    return ["INITIATIVE"] + [fit(f"{p} {v}") for p, v in outcome["initiative"].items()][:5] + \
        [fit(f"acts 1st {outcome['first_to_act']}")]


@procedure("throwing_stones.initiative", odds=_initiative_odds, screen=_initiative_screen)
def initiative(inputs: dict[str, Any]) -> dict[str, Any]:
    """Initiative for the whole combat: an [I] test per player, ties thrown again until one is higher
    (seed 000, Initiative; RULES.md 1.6; TS-D31). +1 per centrer face on a player's first action roll.

    inputs:  {"initiative_rolls": [{player: int | [stones]}, ...]} (one entry per throw; also accepted:
              "initiative_rolls_round1", "..._round2", ...), "first_action_centrer"?: {player: int}
    returns: {"after_round1": "tie_reroll"|"decided", "rounds", "initiative": {player: int},
              "first_to_act": highest, "first_to_choose_action": lowest; both None while still tied,
              with "reroll_request" (every player throws [I] again)}
    """
    rounds = _initiative_rounds(inputs)
    status = ["tie_reroll" if len(set(r.values())) < len(r) else "decided" for r in rounds]
    final = dict(rounds[-1])
    for player, n in (inputs.get("first_action_centrer") or {}).items():
        if player not in final:
            raise RulesError(f"first_action_centrer names {player!r}, who has no initiative")
        final[player] += n
    out: dict[str, Any] = {"after_round1": status[0], "rounds": status, "initiative": final}
    if len(set(final.values())) < len(final):
        out.update(first_to_act=None, first_to_choose_action=None,
                   reroll_request={"who": "all", "stones": "all", "why": "initiative tie: every player throws [I] again"})
    else:
        out.update(first_to_act=max(final, key=final.__getitem__), first_to_choose_action=min(final, key=final.__getitem__))
    return out


@procedure("throwing_stones.round_order")
def round_order(inputs: dict[str, Any]) -> dict[str, Any]:
    """Combat round (Table 5, Tour de combats; RULES.md 1.6): lowest initiative declares first, then the
    highest; the highest acts first, then the lowest; then the effects phase (poison...).

    inputs:  {"initiative": {player: int}}
    returns: {"declare_order": [...], "act_order": [...], "then": "effects_phase"}
    Raises RulesError on tied initiatives (they must be thrown again first).
    """
    init = inputs.get("initiative")
    if not isinstance(init, dict) or len(init) < 2:
        raise RulesError("inputs need 'initiative': {player: int} for the combatants")
    if len(set(init.values())) < len(init):
        raise RulesError("initiatives are tied: throw [I] again until one is higher (throwing_stones.initiative)")
    order = sorted(init, key=init.__getitem__)
    return {"declare_order": order, "act_order": order[::-1], "then": "effects_phase"}


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


@procedure("throwing_stones.special_effects")
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


@procedure("throwing_stones.damage", odds=_damage_odds, screen=_damage_screen)
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
              "damage_received_before"?, "HP"?}
    returns: {"armour_value_table", "roll_bonus", "armour_rerolls_defender_may_force", and with a
              damage roll: "rubies", "sword_points", "damage", "weapon_size", "effects_triggered": [],
              "reroll_request"? (stones the defender has picked up), "damage_received_after"?, "state"?}
    Raises RulesError on wrong stones or more forced rerolls than allowed.
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
    forced_reroll = inputs.get("armour_reroll")
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


@procedure("throwing_stones.poison_tick", odds=_poison_odds)
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


# ---------------------------------------------------------------- monsters, equipment, campaign


def _monster_hp_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    row = monster(inputs["monster"]) if inputs.get("monster") else {}
    n = _int(inputs, "stones", minimum=1, default=row.get("stones"))
    mod = _int(inputs, "hp_modifier", default=row.get("hp_modifier"))
    die = (n @ icepool.d6.map(lambda v: min(5, max(2, v + mod))))
    return odds_json.odds_result("throwing_stones.monster_hp", die, HP=die, mean=str(Fraction(die.mean()).limit_denominator()))


@procedure("throwing_stones.monster_hp", odds=_monster_hp_odds,
           screen=lambda o: {"big": str(o["HP"])[:4], "lines": [fit(f"{o['monster'] or 'monster'} HP"), fit(" ".join(map(str, o["per_die"])))]})
def monster_hp(inputs: dict[str, Any]) -> dict[str, Any]:
    """Monster hit points (Table 2, Modificateur de point de vie; RULES.md 1.12): one standard d6 per
    monster stone, each clamp(v + modifier, 2, 5), summed.

    inputs:  {"monster"?: Table 2 name, "stones"?: int, "hp_modifier"?: int (both default to Table 2),
              "d6": [one d6 reading per stone]}
    returns: {"per_die": [int], "HP": int, "monster", "stones", "hp_modifier"}
    Raises RulesError on a wrong number of d6, a die that is not a d6 (GEN-D04), an unknown monster.
    """
    row = monster(inputs["monster"]) if inputs.get("monster") else {}
    n = _int(inputs, "stones", minimum=1, default=row.get("stones"))
    mod = _int(inputs, "hp_modifier", default=row.get("hp_modifier"))
    dice = read_dice(inputs.get("d6"), die_type="d6", count=n, what="d6")
    per = [min(5, max(2, d.value + mod)) for d in dice]
    return {"monster": inputs.get("monster"), "stones": n, "hp_modifier": mod, "per_die": per, "HP": sum(per)}


@procedure("throwing_stones.equipment_load")
def equipment_load(inputs: dict[str, Any]) -> dict[str, Any]:
    """Equipment load (seed 000, Création de personnage; Table 4; RULES.md 1.2 step 5): total [F] of
    everything carried must be <= F.

    inputs:  {"F": int, "equipment": [Table 4 item ids, e.g. "epee", "cuir", "bouclier"]}
    returns: {"load", "allowed", "items": [{"item", "F", "cost"}], "cost"}
    Raises RulesError on an unknown item.
    """
    f = _int(inputs, "F", minimum=0)
    items = []
    for raw in inputs.get("equipment") or []:
        key = _item(raw)
        row = WEAPONS.get(key) or ARMOURS.get(key)
        if row is None:
            raise RulesError(f"unknown equipment {raw!r}; Table 4 has {', '.join(list(WEAPONS) + list(ARMOURS))}")
        items.append({"item": key, "F": row[0], "cost": row[1]})
    load = sum(i["F"] for i in items)
    return {"load": load, "allowed": load <= f, "items": items, "cost": sum(i["cost"] for i in items)}


def _faces_over(inputs: dict[str, Any]) -> tuple[int, dict[str, int], int]:
    """(stones, colour counts, magic faces) from counts or from the catalogue."""
    if "faces_over_all_stones" in inputs:
        counts = inputs["faces_over_all_stones"]
        colours = {c: int(counts.get(c, 0)) for c in ("ruby", "gold", "silver")}
        return _int(inputs, "stones", minimum=1), colours, _int(inputs, "magic_talent_faces_over_all_stones", minimum=0, default=0)
    cat = catalogue_of(inputs)
    ids = inputs.get("stones") if isinstance(inputs.get("stones"), list) else list(cat)
    if not ids:
        raise RulesError("character_stats needs 'faces_over_all_stones' + 'stones', or a catalogue of the character's stones")
    faces = [f for sid in ids for f in stone_faces(cat, str(sid))]
    return len(ids), {c: sum(f.colour == c for f in faces) for c in ("ruby", "gold", "silver")}, sum(f.magic is not None for f in faces)


@procedure("throwing_stones.character_stats")
def character_stats(inputs: dict[str, Any]) -> dict[str, Any]:
    """Character values over all faces of all owned stones (seed 000, Création de personnage, Les
    Sorts; RULES.md 1.2; TS-D02, TS-D03): F/I/A = ruby/gold/silver faces (rainbow faces under their
    printed colour), HP = F + stones, starting gold = I x max(A, F), MP = magic faces x stones + I.

    inputs:  {"stones": int, "faces_over_all_stones": {"ruby", "gold", "silver"},
              "magic_talent_faces_over_all_stones": int} or {"catalogue", "stones"?: [ids]}
    returns: {"F", "I", "A", "HP", "starting_gold", "MP", "stones"}
    """
    n, c, magic = _faces_over(inputs)
    f, i, a = c["ruby"], c["gold"], c["silver"]
    return {"stones": n, "F": f, "I": i, "A": a, "HP": f + n, "starting_gold": i * max(a, f), "MP": magic * n + i}


@procedure("throwing_stones.experience")
def experience(inputs: dict[str, Any]) -> dict[str, Any]:
    """A new stone costs n x n XP (n = current stones); up to half, rounded down, payable in karma
    (seed 000, Expérience et Karma; RULES.md 1.14; TS-D20).

    inputs:  {"current_stones": int, "xp"?: int, "karma"?: int, "karma_spent"?: int}
    returns: {"xp_cost_new_stone", "max_payable_in_karma", and with xp/karma: "affordable", "xp_after", "karma_after"}
    Raises RulesError when karma_spent exceeds the half or the karma held.
    """
    n = _int(inputs, "current_stones", minimum=1)
    cost, half = n * n, (n * n) // 2
    out: dict[str, Any] = {"xp_cost_new_stone": cost, "max_payable_in_karma": half}
    if "xp" in inputs:
        xp, karma = _int(inputs, "xp", minimum=0), _int(inputs, "karma", minimum=0, default=0)
        spent = _int(inputs, "karma_spent", minimum=0, default=min(half, karma, max(0, cost - xp)))
        if spent > half or spent > karma:
            raise RulesError(f"karma_spent {spent}: at most {min(half, karma)} (half the cost, TS-D20, and the karma held)")
        out.update(karma_spent=spent, affordable=xp + spent >= cost)
        if out["affordable"]:
            out.update(xp_after=xp - (cost - spent), karma_after=karma - spent)
    return out


@procedure("throwing_stones.fight_rewards")
def fight_rewards(inputs: dict[str, Any]) -> dict[str, Any]:
    """Winner gains XP and gold = the defeated character's stones; the loser gains 2 XP (seed 000,
    Expérience et Karma; RULES.md 1.14).

    inputs: {"defeated_stones": int}; returns: {"winner_xp", "winner_gold", "loser_xp": 2}
    """
    n = _int(inputs, "defeated_stones", minimum=1)
    return {"winner_xp": n, "winner_gold": n, "loser_xp": 2}


def _charisma(inputs: dict[str, Any], result_key: str, difficulty: int | None) -> dict[str, Any]:
    if "roll" in inputs:
        return run_test({**inputs, "talent": "charisme", "characteristic": "I", "difficulty": difficulty}, save=False)
    result = _int(inputs, result_key, minimum=0, default=None)
    return {"result": result, "success": None if result is None or difficulty is None else result >= difficulty}


def _karma_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    room = max(0, 2 * _int(inputs, "opponent_stones", minimum=1) - _int(inputs, "karma_already_gained_this_fight", minimum=0, default=0))
    die = test_odds_die({**inputs, "talent": "charisme", "characteristic": "I"}, save=False).map(lambda r: min(r, room))
    return _outcomes(die, "throwing_stones.karma_gain", karma_gained=die, mean=str(Fraction(die.mean()).limit_denominator()))


@procedure("throwing_stones.karma_gain", odds=_karma_odds)
def karma_gain(inputs: dict[str, Any]) -> dict[str, Any]:
    """Karma from a Charisme talent test [I] at difficulty 0: the result is the karma gained, capped
    so the fight's total is <= 2 x the opponent's stones (seed 000, Expérience et Karma, Table 5;
    RULES.md 1.14; TS-D19).

    inputs:  {"charisma_roll_result": int | "roll": [stones], "opponent_stones": int,
              "karma_already_gained_this_fight"?: int, "karma_before"?: int}
    returns: {"karma_gained", "cap_left", "karma_after"?}
    """
    test = _charisma(inputs, "charisma_roll_result", 0)
    if test["result"] is None:
        raise RulesError("karma_gain needs 'charisma_roll_result' or the 'roll' of the Charisme test")
    room = max(0, 2 * _int(inputs, "opponent_stones", minimum=1) - _int(inputs, "karma_already_gained_this_fight", minimum=0, default=0))
    gained = min(test["result"], room)
    out = {"charisma_result": test["result"], "karma_gained": gained, "cap_left": room - gained}
    if "karma_before" in inputs:
        out["karma_after"] = _int(inputs, "karma_before", minimum=0) + gained
    return out


def _surrender_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    difficulty = _int(inputs, "HP", minimum=0) - _int(inputs, "damage_received", minimum=0)
    die = test_odds_die({**inputs, "talent": "charisme", "characteristic": "I"}, save=False)
    p = odds_json.probability_where(die, lambda r: r >= difficulty)
    return _outcomes(die, "throwing_stones.surrender", success=p, failure=1 - p)


@procedure("throwing_stones.surrender", odds=_surrender_odds)
def surrender(inputs: dict[str, Any]) -> dict[str, Any]:
    """Surrender (seed 000, Abandonner; RULES.md 1.14; TS-D20): a Charisme [I] test against remaining
    HP; failure = banned from the arena for life; karma is halved (rounded down) whatever the result.

    inputs:  {"HP", "damage_received", "karma", "charisma_roll_result"? | "roll"?}
    returns: {"charisma_test_difficulty", "karma_after", "success"?, "banned"?}
    """
    difficulty = _int(inputs, "HP", minimum=0) - _int(inputs, "damage_received", minimum=0)
    out: dict[str, Any] = {"charisma_test_difficulty": difficulty, "karma_after": _int(inputs, "karma", minimum=0) // 2}
    test = _charisma(inputs, "charisma_roll_result", difficulty)
    if test["result"] is not None:
        out.update(result=test["result"], success=test["success"], banned=not test["success"])
    return out


from . import throwing_stones_actions, throwing_stones_magic  # noqa: E402,F401  (registers action.* and magic.*)

__all__ = ["run_test", "combat_score", "damage_count", "effects", "net_rerolls", "WEAPONS", "ARMOURS"]
