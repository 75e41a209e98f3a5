"""Alkemy dice rolls: 2 to 4 coloured d6, exactly two kept (seed 001 "Les jets de dés"; RULES.md 2).

Dice come as the vision reads them or as the vectors write them (RULES.md 0.2):
    {"colour": "white"|"yellow"|"red", "value": int, "symbols": [...]}             vector shape
    {"die_type": "d6", "value": 5, "colour": "red", "symbols": ["axe"], ...}        DieReading-like
    5                                                                               bare value (colour
                                                                                    taken as health_colour)
Every die of one roll must be of the figure's health colour (ALK-D08, GEN-D04). The printed number is
the die's value (ALK-D02: no 1..6 range is assumed); symbols are reported, never scored (ALK-D05).

Procedures: alkemy.net_modifier, alkemy.dice_pool, alkemy.keep_selection, alkemy.characteristic_test,
alkemy.opposed_test.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from typing import Any

import icepool

from . import odds as odds_json
from .registry import RulesError, procedure
from .screen import fit

COLOURS = ("white", "yellow", "red")
MAX_THROWN = 4  # "un joueur ne peut pas en lancer plus de quatre"
KEPT = 2  # "ne peut en additionner, quoiqu'il arrive, que deux"
#: Faces assumed for odds when the inputs give no "die_faces" (ALK-D02: the seed prints none).
DEFAULT_FACES = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class AlkemyDie:
    """One Alkemy die after checks: printed value, body colour, top-face symbols, 0-based read order."""

    value: int
    colour: str
    symbols: tuple[str, ...]
    index: int

    def to_json(self) -> dict[str, Any]:
        return {"value": self.value, "colour": self.colour, "symbols": list(self.symbols)}


def _count(inputs: dict[str, Any], key: str) -> int:
    value = inputs.get(key, 0)
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise RulesError(f"{key} must be a whole number >= 0, not {value!r}")
    return value


def _int(inputs: dict[str, Any], key: str, where: str = "inputs") -> int:
    if key not in inputs:
        raise RulesError(f"{where} needs {key!r} (a whole number)")
    value = inputs[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{where}: {key} must be a whole number, not {value!r}")
    return value


def _net(inputs: dict[str, Any]) -> tuple[int, str, int, int]:
    """(net, type, count, dice_thrown) from bonus_dice/malus_dice (ALK-D07, seed "Limite de dés")."""
    net = _count(inputs, "bonus_dice") - _count(inputs, "malus_dice")
    kind = "bonus" if net > 0 else "malus" if net < 0 else "none"
    return net, kind, abs(net), KEPT + min(abs(net), MAX_THROWN - KEPT)


def _health_colour(inputs: dict[str, Any], where: str) -> str | None:
    colour = inputs.get("health_colour")
    if colour is not None and colour not in COLOURS:
        raise RulesError(f"{where}: health_colour must be one of {', '.join(COLOURS)}, not {colour!r}")
    return colour


def read_alkemy_dice(items: Any, *, health_colour: str | None, count: int, where: str = "dice",
                     faces: list[int] | None = None) -> list[AlkemyDie]:
    """Check one Alkemy throw (GEN-D01, GEN-D04, ALK-D08) and return its dice in read order.

    items:         list of dice (shapes in the module docstring)
    health_colour: colour the figure's health state calls for, or None to require one common colour
                   (the first die's) when the procedure is not told it
    count:         dice the pool throws (2 + min(|net|, 2), RULES.md 2.2 alkemy.dice_pool)
    faces:         the printed numbers of the table's dice ("die_faces"), or None (ALK-D02: not assumed)
    Raises RulesError for a wrong count (more than 4 is never ignored), a die that is not a d6, a
    cocked/unsure die, a die of another colour, a bare value without a health colour, or a value that
    is not a whole number >= 0 (or not one of `faces`).
    """
    if not isinstance(items, (list, tuple)):
        raise RulesError(f"{where} must be a list of die readings, not {type(items).__name__}")
    if len(items) != count:
        if len(items) > MAX_THROWN:
            advice = f"Alkemy never throws more than {MAX_THROWN} dice: take out {len(items) - count}"
        elif len(items) > count:
            advice = f"take out {len(items) - count}"
        else:
            advice = f"add {count - len(items)}"
        raise RulesError(f"{len(items)} dice read but this roll throws exactly {count}: {advice} and throw "
                         "again (GEN-D04, seed 001 Limite de dés lancés et gardés)")
    dice: list[AlkemyDie] = []
    expected = health_colour
    for i, item in enumerate(items):
        label = f"{where} #{i + 1}"
        if isinstance(item, bool):
            raise RulesError(f"{label}: {item!r} is not a die reading")
        if isinstance(item, int):
            if expected is None:
                raise RulesError(f"{label}: a bare value carries no colour; give health_colour or readings "
                                 "with their colour (ALK-D08)")
            item = {"value": item, "colour": expected}
        if not isinstance(item, dict):
            raise RulesError(f"{label}: {item!r} is not a die reading; give {{'colour': 'white', 'value': 4}}")
        if item.get("cocked") or item.get("unsure"):
            raise RulesError(f"{label} is cocked or unsure: drop it through the tower again (GEN-D01, not a reroll)")
        die_type = item.get("die_type")
        if die_type is not None and die_type != "d6":
            raise RulesError(f"{label} is a {die_type}; Alkemy rolls its own coloured d6: take it out and "
                             "throw an Alkemy die instead (GEN-D04)")
        colour = item.get("colour")
        if colour not in COLOURS:
            raise RulesError(f"{label}: colour {colour!r} is not an Alkemy die colour ({', '.join(COLOURS)}); "
                             "throw it again in good light (GEN-D04)")
        if expected is None:
            expected = colour
        if colour != expected:
            need = "the figure's health state calls for" if health_colour else "the other dice of this roll are"
            raise RulesError(f"{label} is {colour} but {need} {expected}: replace it by a {expected} die and "
                             "throw again (ALK-D08, GEN-D04)")
        value = item.get("value")
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise RulesError(f"{label} has no readable printed number ({value!r}); throw it again (GEN-D01)")
        if faces is not None and value not in faces:
            raise RulesError(f"{label} shows {value}, which no face of these dice prints ({faces}): check the die "
                             "and throw it again")
        symbols = item.get("symbols") or []
        if not isinstance(symbols, list) or not all(isinstance(s, str) for s in symbols):
            raise RulesError(f"{label}: symbols must be a list of symbol names, not {symbols!r}")
        dice.append(AlkemyDie(value, colour, tuple(symbols), i))
    return dice


def _keep(dice: list[AlkemyDie], kind: str, keep: Any, wanted: set[str]) -> tuple[list[AlkemyDie], list[AlkemyDie], str]:
    """(kept, default kept, who chose) per alkemy.keep_selection (ALK-D03, ALK-D04)."""
    if kind == "bonus":  # ALK-D03: two highest; ties prefer wanted symbols, then the first read
        default = sorted(dice, key=lambda d: (-d.value, not (wanted & set(d.symbols)), d.index))[:KEPT]
    elif kind == "malus":  # must keep the two lowest; ties: first read (ALK-D04)
        default = sorted(dice, key=lambda d: (d.value, d.index))[:KEPT]
    else:
        default = list(dice)
    if keep is None:
        return default, default, "default"
    if (not isinstance(keep, list) or len(keep) != KEPT or len(set(keep)) != KEPT
            or not all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < len(dice) for i in keep)):
        raise RulesError(f"keep must list {KEPT} distinct 0-based die positions in 0..{len(dice) - 1}, not {keep!r}")
    chosen = [dice[i] for i in keep]
    if kind == "none" and sorted(keep) != list(range(len(dice))):
        raise RulesError("with no bonus or malus both dice are kept")
    if kind == "malus" and sorted(d.value for d in chosen) != sorted(d.value for d in default):
        raise RulesError(f"with malus dice the two lowest values {sorted(d.value for d in default)} must be kept "
                         "(seed 001, Dé de malus); only which of equal dice is yours to choose (ALK-D04)")
    return chosen, default, "player"


def _symbol_alternative(dice: list[AlkemyDie], default: list[AlkemyDie]) -> dict[str, Any] | None:
    """The best-sum pair other than the default whose two dice share a symbol (the seed's 1+4
    "hache-hache" choice, seed 001 Dé bonus); reported only (ALK-D05). None when there is none."""
    best = None
    default_ids = {d.index for d in default}
    for a, b in combinations(dice, KEPT):
        if {a.index, b.index} == default_ids or not set(a.symbols) & set(b.symbols):
            continue
        pair = sorted((a, b), key=lambda d: (-d.value, d.index))
        if best is None or sum(d.value for d in pair) > best[0]:
            best = (sum(d.value for d in pair), pair)
    if best is None:
        return None
    total, pair = best
    return {"keep": [d.value for d in pair], "sum": total, "symbols": [s for d in pair for s in d.symbols]}


def _selection(inputs: dict[str, Any], dice_key: str = "dice", where: str = "inputs") -> dict[str, Any]:
    net, kind, count, thrown = _net(inputs)
    faces = list(_faces(inputs).outcomes()) if "die_faces" in inputs else None
    dice = read_alkemy_dice(inputs.get(dice_key), health_colour=_health_colour(inputs, where), count=thrown,
                            where=f"{where}.{dice_key}" if where != "inputs" else dice_key, faces=faces)
    wanted = set(inputs.get("wanted_symbols") or [])
    kept, default, chooser = _keep(dice, kind, inputs.get("keep"), wanted)
    return {
        "net": net, "type": kind, "count": count, "dice_rolled": thrown, "dice_summed": KEPT,
        "colour": dice[0].colour,
        "dice": [d.to_json() for d in dice],
        "keep": [d.value for d in kept], "sum": sum(d.value for d in kept),
        "kept_positions": [d.index for d in kept],
        "kept_symbols": [list(d.symbols) for d in kept],
        "default_keep": [d.value for d in default], "default_sum": sum(d.value for d in default),
        "player_may_choose_any_two": kind == "bonus",
        "alternative_keep_shown_in_seed": _symbol_alternative(dice, default) if kind == "bonus" else None,
        "choices": {"keep": {"by": chooser, "positions": [d.index for d in kept]}},
    }


# ---------------------------------------------------------------- odds helpers


def _faces(inputs: dict[str, Any]) -> icepool.Die:
    faces = inputs.get("die_faces", DEFAULT_FACES)
    if (not isinstance(faces, (list, tuple)) or len(faces) != 6
            or not all(isinstance(f, int) and not isinstance(f, bool) and f >= 0 for f in faces)):
        raise RulesError(f"die_faces must list the 6 printed numbers of the die, not {faces!r}")
    return icepool.Die(list(faces))


def kept_sum_die(inputs: dict[str, Any]) -> icepool.Die:
    """Exact distribution (icepool) of the sum of the two kept dice under the default keep
    (bonus: two highest, malus: two lowest, ALK-D03/D04) for the pool of `inputs`' bonus/malus.
    Faces: inputs["die_faces"] (6 printed numbers) or 1..6 (ALK-D02: the seed prints none)."""
    _, kind, _, thrown = _net(inputs)
    pool = icepool.Pool([_faces(inputs)] * thrown)
    return pool.lowest(KEPT).sum() if kind == "malus" else pool.highest(KEPT).sum()


def _method(inputs: dict[str, Any]) -> str:
    faces = inputs.get("die_faces", DEFAULT_FACES)
    return f"{odds_json.EXACT}; faces {','.join(map(str, faces))} each 1/6 (ALK-D02), default keep"


# ---------------------------------------------------------------- procedures


@procedure("alkemy.net_modifier")
def net_modifier(inputs: dict[str, Any]) -> dict[str, Any]:
    """Net bonus/malus dice: net = bonus_dice - malus_dice (seed 001, Calcul du nombre de dés de
    bonus / malus; RULES.md 2.2; ALK-D07).

    inputs:  {"bonus_dice": int >= 0, "malus_dice": int >= 0}
    returns: {"net": int, "type": "bonus"|"malus"|"none", "count": |net|, "dice_rolled": 2..4}
    Raises RulesError on a negative or non-integer count.
    """
    net, kind, count, thrown = _net(inputs)
    return {"net": net, "type": kind, "count": count, "dice_rolled": thrown}


@procedure("alkemy.dice_pool")
def dice_pool(inputs: dict[str, Any]) -> dict[str, Any]:
    """Dice thrown and summed: 2 + min(|net|, 2) thrown, never more than 4; exactly 2 summed (seed 001,
    Limite de dés lancés et gardés; RULES.md 2.2).

    inputs:  {"bonus_dice": int >= 0, "malus_dice": int >= 0}
    returns: {"net", "type", "count", "dice_rolled": 2..4, "dice_summed": 2}
    """
    net, kind, count, thrown = _net(inputs)
    return {"net": net, "type": kind, "count": count, "dice_rolled": thrown, "dice_summed": KEPT}


def _keep_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    die = kept_sum_die(inputs)
    return odds_json.odds_result("alkemy.keep_selection", die, method=_method(inputs), sum=die,
                                 mean=str(Fraction(die.mean()).limit_denominator()))


def _keep_screen(outcome: dict[str, Any]) -> dict[str, Any]:
    lines = [fit(f"keep {'+'.join(map(str, outcome['keep']))} {outcome['type']}"),
             fit(f"thrown {' '.join(str(d['value']) for d in outcome['dice'])}")]
    alt = outcome.get("alternative_keep_shown_in_seed")
    if alt:
        lines.append(fit(f"or {'+'.join(map(str, alt['keep']))} {'-'.join(alt['symbols'])}"))
    return {"big": str(outcome["sum"])[:4], "lines": lines}


@procedure("alkemy.keep_selection", odds=_keep_odds, screen=_keep_screen)
def keep_selection(inputs: dict[str, Any]) -> dict[str, Any]:
    """Which two dice are kept (seed 001, Dé bonus / malus; RULES.md 2.2; ALK-D03, ALK-D04, ALK-D05).

    inputs: {"bonus_dice": int, "malus_dice": int, "dice": [2..4 dice], "health_colour"?: colour,
             "keep"?: [i, j] 0-based positions chosen by the player, "wanted_symbols"?: [symbol]}
    Bonus: any two (default the two highest, ties to wanted symbols then first read), listed high to
    low. Malus: the two lowest values, listed low to high (the player only picks among equal dice).
    None: both dice in read order.
    returns: {"dice_rolled", "keep": [v, v], "sum", "default_keep", "default_sum", "kept_positions",
              "kept_symbols", "player_may_choose_any_two", "alternative_keep_shown_in_seed": best other
              pair sharing a symbol (bonus only) or None, "choices", "net", "type", "count", "dice"}
    Raises RulesError on wrong dice (count, colour, type; GEN-D04, ALK-D08) or an illegal keep.
    """
    return _selection(inputs)


def _test_outcome(inputs: dict[str, Any], where: str = "inputs") -> dict[str, Any]:
    sel = _selection(inputs, where=where)
    characteristic = _int(inputs, "characteristic", where)
    total = sel["sum"] + characteristic
    return {**sel, "kept": sel["keep"], "characteristic": characteristic, "total": total}


def _test_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    characteristic, difficulty = _int(inputs, "characteristic"), _int(inputs, "difficulty")
    total = kept_sum_die(inputs) + characteristic
    success = odds_json.probability_where(total, lambda t: t >= difficulty)
    return odds_json.odds_result("alkemy.characteristic_test", total, method=_method(inputs),
                                 success=success, failure=1 - success)


def _test_screen(outcome: dict[str, Any]) -> dict[str, Any]:
    verdict = "SUCCESS" if outcome["success"] else "FAILURE"
    return {"big": str(outcome["total"])[:4],
            "lines": [fit(f"{verdict} vs {outcome['difficulty']}"),
                      fit(f"{'+'.join(map(str, outcome['kept']))} +{outcome['characteristic']}"),
                      fit(f"{outcome['colour']} {outcome['dice_rolled']}d {outcome['type']}")]}


@procedure("alkemy.characteristic_test", odds=_test_odds, screen=_test_screen)
def characteristic_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """Jet de caractéristique: total = the two kept dice + characteristic; success iff total >=
    difficulty (seed 001, Jet de caractéristique; RULES.md 2.2).

    inputs:  {"health_colour": colour, "characteristic": int, "difficulty": int, "bonus_dice"?: int,
              "malus_dice"?: int, "dice": [2..4 dice of health_colour], "keep"?, "wanted_symbols"?}
    returns: {"kept": [v, v], "total", "success", "margin": total - difficulty, "difficulty", plus the
              keep_selection keys}
    Raises RulesError on wrong dice (GEN-D04, ALK-D08) or a missing characteristic/difficulty.
    Odds: exact over the pool (faces 1..6 unless "die_faces" is given; ALK-D02).
    """
    out = _test_outcome(inputs)
    difficulty = _int(inputs, "difficulty")
    out.update(difficulty=difficulty, success=out["total"] >= difficulty, margin=out["total"] - difficulty)
    return out


SIDES = ("side_a", "side_b")


def _side(inputs: dict[str, Any], key: str) -> dict[str, Any]:
    side = inputs.get(key)
    if not isinstance(side, dict):
        raise RulesError(f"opposed_test needs {key!r}: {{'characteristic': int, 'dice': [...], ...}}")
    return side


def _opposed_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    a, b = (_side(inputs, k) for k in SIDES)
    ca, cb = _int(a, "characteristic", "side_a"), _int(b, "characteristic", "side_b")
    diff = (kept_sum_die(a) + ca) - (kept_sum_die(b) + cb)
    tie_winner = "side_a" if ca > cb else "side_b" if cb > ca else "rethrow"
    dist = odds_json.label_distribution(
        diff, lambda d: "side_a" if d > 0 else "side_b" if d < 0 else tie_winner, order=("side_a", "side_b", "rethrow"))
    summaries = {k: dist.get(k, Fraction(0)) for k in ("side_a", "side_b", "rethrow")}
    return odds_json.odds_result("alkemy.opposed_test", dist, method=_method(a),
                                 win=summaries["side_a"], **summaries)


def _opposed_screen(outcome: dict[str, Any]) -> list[str]:
    names = outcome["names"]
    winner = outcome["winner"]
    head = "RETHROW BOTH" if winner is None else f"WIN {names[winner]}"
    return [fit(head),
            fit(f"{outcome['total_a']} {names['side_a']}"),
            fit(f"{outcome['total_b']} {names['side_b']}"),
            fit(outcome["reason"].replace("_", " ") if outcome["reason"] else "tie, equal chars")]


@procedure("alkemy.opposed_test", odds=_opposed_odds, screen=_opposed_screen)
def opposed_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """Jet de caractéristique en opposition (seed 001; RULES.md 2.2; ALK-D06): each side totals its two
    kept dice + characteristic; the higher total wins; on a tie the higher base characteristic wins;
    tie and equal characteristics: both sides throw the whole test again (a new test, not a reroll).

    inputs:  {"side_a": side, "side_b": side}; side = {"characteristic": int, "dice": [...],
              "name"?: str, "health_colour"?, "bonus_dice"?, "malus_dice"?, "keep"?, "wanted_symbols"?}
    returns: {"total_a", "total_b", "tie": bool, "winner": "side_a"|"side_b"|None,
              "reason": "higher_total"|"higher_characteristic"|None,
              "action": "both_reroll_whole_test"|None, "rethrow": {side: dice to throw} when needed,
              "side_a"/"side_b": each side's keep details}
    Raises RulesError on a missing side or wrong dice (GEN-D04, ALK-D08).
    """
    a, b = (_side(inputs, k) for k in SIDES)
    res_a, res_b = _test_outcome(a, "side_a"), _test_outcome(b, "side_b")
    ta, tb = res_a["total"], res_b["total"]
    winner: str | None
    if ta != tb:
        winner, reason = ("side_a" if ta > tb else "side_b"), "higher_total"
    elif res_a["characteristic"] != res_b["characteristic"]:
        winner = "side_a" if res_a["characteristic"] > res_b["characteristic"] else "side_b"
        reason = "higher_characteristic"
    else:
        winner, reason = None, None
    names = {k: str(s.get("name") or k.replace("_", " ")) for k, s in zip(SIDES, (a, b))}
    return {
        "total_a": ta, "total_b": tb, "tie": ta == tb, "winner": winner, "reason": reason,
        "action": "both_reroll_whole_test" if winner is None else None,
        "rethrow": ({"side_a": res_a["dice_rolled"], "side_b": res_b["dice_rolled"]} if winner is None else None),
        "names": names,
        "side_a": {k: res_a[k] for k in ("kept", "total", "characteristic", "dice_rolled", "kept_symbols", "choices")},
        "side_b": {k: res_b[k] for k in ("kept", "total", "characteristic", "dice_rolled", "kept_symbols", "choices")},
    }
