"""Throwing Stones (seed 000, Jeff Siadek; RULES.md 1): tests, saves, the throw and its rerolls,
initiative, monsters' HP and campaign bookkeeping.

Stones are read through the catalogue (TS-D01) or as face records; see throwing_stones_stones for the
accepted shapes. Combat (attack, effects, damage, death, poison, equipment) lives in
throwing_stones_combat, spells in throwing_stones_magic, Table 5 actions in throwing_stones_actions;
all three are imported at the end so every `throwing_stones.*` id is registered with this module.

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
from .dice import read_dice
from .registry import RulesError, procedure, takes
from .screen import fit
from .throwing_stones_stones import (
    CHARACTERISTIC_COLOUR, MAGIC_TALENTS, MAX_THROWN, TALENTS, Face, allowed_rainbow, catalogue_of,
    characteristic_colour, colour_count, count_effect, monster, norm_id, plain_id, rainbow_choices,
    read_throw, rethrow_into, stone_faces, sum_die, thrown_stone_faces,
)

ALL = "ALL"



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


#: A chance mulligan's re-throw: every stone of the throw at "roll" thrown again, once (TS-D14)
MULLIGAN = rethrow_into("roll", mulligan_taken=True)


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


@procedure("throwing_stones.characteristic_test", odds=_test_odds("throwing_stones.characteristic_test", False),
           screen=test_screen, rethrow=MULLIGAN)
def characteristic_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """Characteristic test: result = faces of the characteristic's colour; success iff result >=
    difficulty (seed 000, Test et jet de protections; RULES.md 1.4; TS-D02, TS-D03).

    inputs:  {"characteristic": "F"|"I"|"A", "difficulty"?: int, "roll": [stones], "catalogue"?, ...}
    returns: {"result", "success" (None without a difficulty), "colour_count", "mulligan_allowed",
              "faces", "choices", "reroll_request"? (chance mulligan)}
    Raises RulesError on wrong stones (GEN-D04: not a stone, 11 stones, unknown stone).
    """
    return run_test(inputs, save=False)


@procedure("throwing_stones.talent_test", odds=_test_odds("throwing_stones.talent_test", False, True),
           screen=test_screen, rethrow=MULLIGAN)
def talent_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """Talent test: result = faces of the use's colour + pluses on every face of that talent,
    whatever its colour (seed 000, Test et jet de protections, Table 1; RULES.md 1.4; TS-D05).

    inputs:  {"talent": id, "use"?: id, "characteristic"?: F/I/A (else from talent+use), "difficulty"?,
              "roll": [stones], ...}
    returns: {"colour_count", "talent_pluses", "result", "success", ...}
    """
    return run_test(inputs, save=False, talent_required=True)


@procedure("throwing_stones.save", odds=_test_odds("throwing_stones.save", True), screen=test_screen, rethrow=MULLIGAN)
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


@procedure("throwing_stones.roll_all", odds=_roll_all_odds, rethrow=MULLIGAN)
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
REROLL_SOURCES: dict[str, tuple[int | str, int | str]] = {"targeted_action": (ALL, 0), "dodge": (ALL, 0), "berserk": (1, 0),
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


@procedure("throwing_stones.chance_mulligan", odds=_mulligan_odds, rethrow=MULLIGAN)
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


# ---------------------------------------------------------------- monsters, equipment, campaign


def _monster_hp_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    row = monster(inputs["monster"]) if inputs.get("monster") else {}
    n = _int(inputs, "stones", minimum=1, default=row.get("stones", ...))
    mod = _int(inputs, "hp_modifier", default=row.get("hp_modifier", ...))
    die = (n @ icepool.d6.map(lambda v: min(5, max(2, v + mod))))
    return odds_json.odds_result("throwing_stones.monster_hp", die, HP=die, mean=str(Fraction(die.mean()).limit_denominator()))


@procedure("throwing_stones.monster_hp", odds=_monster_hp_odds, dice=takes("d6", "d6"),
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
    n = _int(inputs, "stones", minimum=1, default=row.get("stones", ...))
    mod = _int(inputs, "hp_modifier", default=row.get("hp_modifier", ...))
    dice = read_dice(inputs.get("d6"), die_type="d6", count=n, what="d6")
    per = [min(5, max(2, d.value + mod)) for d in dice]
    return {"monster": inputs.get("monster"), "stones": n, "hp_modifier": mod, "per_die": per, "HP": sum(per)}


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

    A winner who killed the loser loses half their karma, rounded down (seed 000, Le Karma; TS-D20).

    inputs:  {"defeated_stones": int, "killed"?: bool, "winner_karma"?: int}
    returns: {"winner_xp", "winner_gold", "loser_xp": 2, "winner_karma_after"? (with winner_karma)}
    """
    n = _int(inputs, "defeated_stones", minimum=1)
    out: dict[str, Any] = {"winner_xp": n, "winner_gold": n, "loser_xp": 2}
    if "winner_karma" in inputs:
        karma = _int(inputs, "winner_karma", minimum=0)
        out["winner_karma_after"] = karma // 2 if inputs.get("killed", False) else karma
    return out


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


from . import throwing_stones_combat, throwing_stones_magic, throwing_stones_actions  # noqa: E402,F401  (registers the rest)

__all__ = ["run_test", "test_odds_die", "net_rerolls"]
