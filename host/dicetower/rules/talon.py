"""Le Talon de la Destinée (`talon.*`, RULES.md section 3; seed 002_6bba7f364af6ae29.txt).

Tests are resolved with tarot cards, revealed one at a time either from a `cards_revealed` list
(a vector's input, or cards shown in physical-card mode) or from the host's virtual deck
(inputs {"deck_file": path, "player": name}: the engine reveals what the rules need, saves the deck
back atomically, TAL-D02). Dice (damage, the NPC-defence d20, Adrénaline's d6) come from the tower
as readings, checked per GEN-D04 (talon_combat). Health tracks live in talon_health; exact odds of a
test over the cards left in the deck in talon_odds.

This module registers the test procedures; importing it registers every `talon.*` id.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .dice import gm_prompt
from .registry import RulesError, procedure
from .screen import fit
from .talon_deck import (NAMELESS, SUITS, Card, Deck, as_int, atout_levels, fold_key, full_deck, parse_card,
                         players_list)

DIFFICULTY = 14  # seed 002 "3. Tests": "De base, la difficulté est fixée à 14" (TAL-D35: configurable)
CONTEXT_MODIFIERS = {"cauchemardesque": -13, "atroce": -7, "ardu": -3, "usuel": 0, "favorable": 3, "ideal": 7}
SPECIAL_MR, CRITICAL_MR = 7, 14
ARCHETYPE_SUITS = {"combattant": "E", "beni_des_dieux": "C", "survivant": "D", "magus": "B"}
DEMOLITION_FUMBLE_BONUS = 3  # TAL-D20 (part): fumble check arcanum number + 3
#: Skill -> suit (seed 002 "2. Compétences"; RULES.md 3.7). Recherche has none (TAL-D23).
SKILL_SUITS = {
    **dict.fromkeys(["armes_a_distance", "armes_blanches", "commandement", "corps_a_corps", "embuscade",
                     "feinte"], "E"),
    **dict.fromkeys(["comedie", "course", "endurance", "equilibre_mental", "equitation", "escalade", "filature",
                     "seduction", "vitalite"], "C"),
    **dict.fromkeys(["acrobatie", "baratin", "degainer", "furtivite", "natation", "nature", "pieges_et_serrures",
                     "recharger", "reflexes"], "D"),
    **dict.fromkeys(["connaissances", "interrogation", "intimidation", "negociation", "pouvoir"], "B"),
    "recherche": None,
}
#: Suits declared at each step of a continuation with Sans limite ou presque (level -> sizes).
SANS_LIMITE_STEPS = {0: (1,), 1: (2, 1), 2: (3, 2, 1), 3: (4, 3, 2, 1), 4: (4, 3, 2, 1)}
FUMBLE_CHOICES = ("accept_critical", "reveal_check_card")


def modifier_sum(modifiers: Any) -> int:
    """Sum of signed modifiers given as ints or {"source", "value"} objects (RULES.md 0.2)."""
    if modifiers is None:
        return 0
    if not isinstance(modifiers, list):
        raise RulesError("modifiers must be a list of integers or {\"source\", \"value\"} objects")
    total = 0
    for m in modifiers:
        total += as_int(m.get("value") if isinstance(m, dict) else m, "modifier")
    return total


def sans_limite_level(atouts: dict[str, int]) -> int:
    """Level 0..4 of Sans limite ou presque (accepts the short name sans_limite)."""
    return max(atouts.get("sans_limite_ou_presque", 0), atouts.get("sans_limite", 0))


def archetype_modifier_of(archetype: str | None, skill_suit: str | None, card: Card) -> int:
    """Archetype modifier of one contributing honour (seed 002 "8. Création — Archétypes";
    RULES.md 3.7; TAL-D09): skill suit = archetype suit -> +3 for a card of that suit, else 0;
    skill suit != archetype suit -> 0 for a card of the archetype suit, -1 for any other suit.
    No archetype, no skill suit (attribute, Recherche) or a suitless card -> 0."""
    if not archetype or not skill_suit or card.suit is None:
        return 0
    arch_suit = ARCHETYPE_SUITS.get(fold_key(archetype))
    if arch_suit is None:
        raise RulesError(f"unknown archetype {archetype!r}; archetypes are {', '.join(ARCHETYPE_SUITS)}")
    if skill_suit == arch_suit:
        return 3 if card.suit == arch_suit else 0
    return 0 if card.suit == arch_suit else -1


def skill_suit_of(inputs: dict[str, Any]) -> str | None:
    """The tested skill's suit: inputs["skill_suit"], else from the skill table by inputs["skill"];
    None for an attribute test or Recherche (TAL-D09, TAL-D23). Raises RulesError on an unknown skill."""
    if inputs.get("skill_suit"):
        suit = str(inputs["skill_suit"]).upper()
        if suit not in SUITS:
            raise RulesError(f"skill_suit {inputs['skill_suit']!r} must be one of {', '.join(SUITS)}")
        return suit
    skill = inputs.get("skill")
    if not skill or inputs.get("attribute"):
        return None
    key = fold_key(skill)
    if key not in SKILL_SUITS:
        raise RulesError(f"unknown skill {skill!r}; give skill_suit (E, C, D, B) or a skill of seed 002")
    return SKILL_SUITS[key]


def grade_of(mr: int) -> str:
    """`talon.success_grade`: failure (MR < 0), simple (0..6), special (>= 7), critical (>= 14)."""
    if mr < 0:
        return "failure"
    return "critical" if mr >= CRITICAL_MR else "special" if mr >= SPECIAL_MR else "simple"


def _choice(value: Any, by: str) -> dict[str, Any]:
    """A choice record in the form dice.choose gives (GEN-D05): {"value", "chosen_by": player | gm |
    default, "rule"?}; `by` is "player", "gm" or "default (<rule applied>)"."""
    if by.startswith("default"):
        return {"value": value, "chosen_by": "default", "rule": by[len("default ("):-1]}
    return {"value": value, "chosen_by": by}


# --- card sources --------------------------------------------------------------------------------
class _ListSource:
    """Cards in the order given (vector input / physical cards). A missing card is an error."""

    def __init__(self, codes: Any) -> None:
        if not isinstance(codes, list):
            raise RulesError("cards_revealed must be a list of card codes, e.g. [\"ARC7\", \"5C\"]")
        self.cards = [parse_card(c) for c in codes]
        seen = [c.id for c in self.cards]
        #: cards seen twice: flagged as a misread or deck error (RULES.md 3.2), the test still resolves
        self.doubled = sorted({c for c in seen if seen.count(c) > 1})
        self.i = 0

    def next(self, why: str) -> Card:
        if self.i >= len(self.cards):
            raise RulesError(f"cards_revealed ends after {len(self.cards)} card(s) but the rules need "
                             f"another: {why}; reveal the next card and add it")
        self.i += 1
        return self.cards[self.i - 1]

    def draw_to_reserve(self, player: str) -> str | None:
        return None

    def known_remaining(self) -> list[str]:
        gone = {c.id for c in self.cards[: self.i]}
        return [c for c in full_deck() if c not in gone]

    def leftover(self) -> list[str]:
        return [c.code for c in self.cards[self.i:]]


class _DeckSource:
    """Cards revealed from the host's virtual deck for `player` (TAL-D02)."""

    def __init__(self, deck: Deck, player: str, reserve_card: dict[str, Any] | None) -> None:
        self.deck, self.player = deck, player
        self.reserve_card = reserve_card

    def next(self, why: str) -> Card:
        if self.reserve_card:
            card, self.reserve_card = self.reserve_card, None
            return parse_card(self.deck.reveal_from_reserve(self.player, card["card"],
                                                            card.get("orientation") == "reversed"))
        return parse_card(self.deck.reveal(self.player))

    def draw_to_reserve(self, player: str) -> str | None:
        return self.deck.draw_to_reserve(player)

    def known_remaining(self) -> list[str]:
        return self.deck.remaining()

    def leftover(self) -> list[str]:
        return []


def suit_gains(honours: list[Card], n: int, archetype: str | None, skill_suit: str | None) -> dict[str, float]:
    """Expected continuation gain of declaring each suit, with `honours` the honours left among the
    n cards left: sum_S(rank + archetype modifier) / (n - |S| + 1). In a random order a suit-S card
    counts iff it comes before every non-S card, which has probability 1 / (n - |S| + 1)."""
    gains = {}
    for suit in SUITS:
        of_suit = [c for c in honours if c.suit == suit]
        total = sum((c.rank or 0) + archetype_modifier_of(archetype, skill_suit, c) for c in of_suit)
        gains[suit] = total / (n - len(of_suit) + 1)
    return gains


def default_suit_order(remaining: list[str], archetype: str | None, skill_suit: str | None) -> list[str]:
    """Suits ranked for a continuation declaration, best first (GEN-D05 default favouring the
    player): by suit_gains over the cards left (ties in E, C, D, B order)."""
    cards = [parse_card(c) for c in remaining]
    gains = suit_gains([c for c in cards if c.is_honour], len(cards), archetype, skill_suit)
    return sorted(SUITS, key=lambda s: (-gains[s], SUITS.index(s)))


def _declarations(inputs: dict[str, Any], level: int, source: Any, archetype: str | None,
                  skill_suit: str | None) -> tuple[list[list[str]], str]:
    """Suits valid at each step of a continuation (last entry repeats) and who chose them."""
    sizes = SANS_LIMITE_STEPS[level]
    given = inputs.get("declared_suits")
    if given is not None:
        if not isinstance(given, list) or not all(isinstance(g, list) for g in given) or len(given) != len(sizes):
            raise RulesError(f"declared_suits must be {len(sizes)} lists of suits of sizes {list(sizes)} "
                             f"(Sans limite ou presque {level})")
        out = []
        for want, suits in zip(sizes, given):
            suits = [str(s).upper() for s in suits]
            if len(set(suits)) != want or set(suits) - set(SUITS):
                raise RulesError(f"declared suits {suits} must be {want} distinct suits among {', '.join(SUITS)}")
            out.append(suits)
        return out, "player"
    order = default_suit_order(source.known_remaining(), archetype, skill_suit)
    if inputs.get("declared_suit"):
        suit = str(inputs["declared_suit"]).upper()
        if suit not in SUITS:
            raise RulesError(f"declared_suit {inputs['declared_suit']!r} must be one of {', '.join(SUITS)}")
        order = [suit] + [s for s in order if s != suit]
        chooser = "player"
    else:
        chooser = "default (GEN-D05: best expected continuation)"
    return [order[:k] for k in sizes], chooser


def _honour_value(card: Card) -> int:
    return 13 if card.kind == "nameless" else card.rank or 0


def _starts_continuation(card: Card, atouts: dict[str, int]) -> bool:
    if card.kind == "nameless":
        return True  # only reaches here with Finir en beauté (TAL-D24)
    if card.rank == 13:
        return True
    return bool(atouts.get("une_veine_de_cocu")) and card.rank in (11, 12)  # TAL-D26


def run_test(inputs: dict[str, Any], source: Any) -> dict[str, Any]:
    """One Talon test, steps 1-5 of seed 002 "3. Tests" (RULES.md 3.4-3.7), on cards from `source`.

    inputs: skill_value (raw V), modifiers, context?, difficulty (14), mode (normal | advantage |
      disadvantage), skill?/skill_suit?, archetype?, atouts?, declared_suit?/declared_suits?,
      player_choice? (Ace: accept_critical | reveal_check_card; Avantage: the card kept),
      fumble_choice? (the Ace choice when player_choice names the Avantage card),
      gm_choice? (Désavantage: the card kept), gm_roleplay_chip? (0/1), cheap_chips_spent?,
      cheap_chips? (held), player?/revealer?, cards_seen_this_cycle? (physical-card mode: cards
      revealed earlier in the cycle; a card seen again is flagged as card_error, RULES.md 3.2)
    Returns the outcome (see talon.simple_test). Raises RulesError when a card the rules need is
    missing, a choice names a card not showing, or chips spent exceed those held.
    """
    value = as_int(inputs.get("skill_value", inputs.get("attribute_value", inputs.get("value"))), "skill_value")
    mods = modifier_sum(inputs.get("modifiers"))
    if inputs.get("context") is not None:
        mods += context_modifier({"context": inputs["context"]})["modifier"]
    difficulty = as_int(inputs.get("difficulty", DIFFICULTY), "difficulty")
    effective = value + mods
    mode = fold_key(inputs.get("mode", "normal"))
    if mode not in ("normal", "advantage", "disadvantage"):
        raise RulesError(f"mode {inputs.get('mode')!r} must be normal, advantage or disadvantage")
    atouts = atout_levels(inputs.get("atouts"))
    archetype, skill_suit = inputs.get("archetype"), skill_suit_of(inputs)
    player = str(inputs.get("player", inputs.get("revealer", "player")))
    spent = as_int(inputs.get("cheap_chips_spent", 0), "cheap_chips_spent")
    if spent < 0 or ("cheap_chips" in inputs and spent > as_int(inputs["cheap_chips"], "cheap_chips")):
        raise RulesError(f"cannot spend {spent} Cheap-chips holding {inputs.get('cheap_chips')}")
    finir = bool(atouts.get("finir_en_beaute"))
    arcaniste = atouts.get("arcaniste", 0)

    revealed: list[str] = []
    set_aside: list[str] = []
    gm_arcana: list[str] = []
    out: dict[str, Any] = {"effective_value": effective, "difficulty": difficulty}
    choices: dict[str, Any] = {}
    cycle_end = False

    def draw(why: str) -> Card:
        nonlocal cycle_end
        card = source.next(why)
        revealed.append(card.code)
        if card.kind == "nameless":
            cycle_end = True
        if card.kind == "arcanum" and not card.reversed and arcaniste >= 15 and (arcaniste >= 20 or skill_suit != "E"):
            gm_arcana.append(card.code)  # property undefined in the seed: logged for the GM
        return card

    # steps 2-3: reveal until the honour(s) show; arcana are set aside (TAL-D08 for two cards)
    need = 1 if mode == "normal" else 2
    showing: list[Card] = []
    while len(showing) < need:
        card = draw("the test needs an honour")
        if card.is_honour or (card.kind == "nameless" and finir):
            showing.append(card)
        else:
            set_aside.append(card.code)

    def worth(c: Card) -> int:
        return _honour_value(c) + archetype_modifier_of(archetype, skill_suit, c)

    kept = showing[0]
    if need == 2:
        key = "player_choice" if mode == "advantage" else "gm_choice"
        chooser = "player" if mode == "advantage" else "gm"
        if inputs.get(key) is not None:
            wanted = parse_card(inputs[key]).id
            match = [c for c in showing if c.id == wanted]
            if not match:
                raise RulesError(f"{key} {inputs[key]!r} is not one of the honours showing "
                                 f"{[c.code for c in showing]}")
            kept, how = match[0], chooser
        elif mode == "advantage":  # TAL-D08 default: prefer a King, then the higher value
            kept = max(showing, key=lambda c: (_starts_continuation(c, atouts), worth(c)))
            how = "default (TAL-D08: higher value, King first)"
        else:
            kept = min(showing, key=worth)
            how = "default (TAL-D08: GM keeps the lower)"
        discarded = [c for c in showing if c is not kept][0]
        out.update({"kept": kept.code, "discarded": discarded.code})
        choices["kept_card"] = _choice(kept.code, how)

    contributing: list[Card] = []
    if kept.is_honour and kept.rank == 1:  # step 4, Ace: TAL-D04 always a failure
        fumble = _fumble(value, inputs, source, draw, atouts, player)
        choices["fumble"] = fumble.pop("choice")
        out.update({"honour_total": 1, "success": False, "grade": fumble["outcome"], "fumble": fumble})
        naive = effective + 1 + spent
        out["note"] = (f"an Ace as the test honour is always a failure, even though {value}"
                       f"{'+' if mods >= 0 else '-'}{abs(mods)}+1={naive}>={difficulty}" if naive >= difficulty
                       else "an Ace as the test honour is always a failure (TAL-D04)")
        if fumble.get("cycle_end_after_test"):
            cycle_end = True
    else:
        if _starts_continuation(kept, atouts):
            honour_total = _continuation(kept, inputs, source, draw, atouts, archetype, skill_suit,
                                         set_aside, contributing, out, choices)
        else:
            honour_total = kept.rank or 0
            contributing.append(kept)
        arch = sum(archetype_modifier_of(archetype, skill_suit, c) for c in contributing)
        total = effective + honour_total + arch + spent
        mr = total - difficulty
        out.update({"honour_total": honour_total, "archetype_bonus": arch, "cheap_chips_spent": spent,
                    "total": total, "MR": mr, "success": mr >= 0, "grade": grade_of(mr)})
        if mr < 0:
            out["cheap_chip_roleplay"] = gm_prompt("Failed test: award a Cheap-chip for describing the "
                                                   "failure well? (seed 002 3. Tests, step 4)", [0, 1])
    leftover = source.leftover()
    if leftover:
        raise RulesError(f"card(s) {leftover} come after the end of the test: the test ended at "
                         f"{revealed[-1]}; remove them or check the order revealed")
    delta = -spent + (1 if out.get("fumble", {}).get("cheap_chips_delta") == 1 else 0)
    if cycle_end:
        delta += 1  # the revealer of the Nameless Arcanum gains a chip at the cycle end (RULES.md 3.3)
    out.update({"arcana_set_aside": set_aside, "cards_revealed": revealed, "discard_after": list(revealed),
                "cycle_end_after_test": cycle_end, "cheap_chips_delta": {player: delta}})
    if gm_arcana:
        out["arcana_actions_for_gm"] = gm_arcana
    seen_before = {parse_card(c).id for c in inputs.get("cards_seen_this_cycle") or []}
    doubled = sorted(set(getattr(source, "doubled", [])) | {parse_card(c).id for c in revealed} & seen_before)
    if doubled:
        out["card_error"] = (f"card(s) {doubled} seen twice in this cycle: a misread or a deck error "
                             "(each card appears once per cycle, RULES.md 3.2); check the cards")
    if choices:
        out["choices"] = choices
    return out


def _fumble(value: int, inputs: dict[str, Any], source: Any, draw: Any, atouts: dict[str, int],
            player: str) -> dict[str, Any]:
    """The Ace rule (seed 002 "L'As (règle du fumble)"; TAL-D04, TAL-D05, TAL-D20)."""
    choice = inputs.get("fumble_choice", inputs.get("player_choice"))
    if choice is not None and fold_key(choice) in FUMBLE_CHOICES:
        choice, by = fold_key(choice), "player"
    else:
        # GEN-D05 default: check when the next card is already given, else take the sure chip and card
        has_next = isinstance(source, _ListSource) and source.i < len(source.cards)
        choice, by = ("reveal_check_card" if has_next else "accept_critical"), "default (GEN-D05)"
    out: dict[str, Any] = {"choice": _choice(choice, by)}
    if choice == "accept_critical":
        drawn = source.draw_to_reserve(player)
        out.update({"outcome": "critical_failure", "cheap_chips_delta": 1, "draw_to_reserve": 1})
        if drawn == NAMELESS:
            out["cycle_end_after_test"] = True  # TAL-D03: drawn into a reserve = revealed
        return out
    check = draw("Ace fumble check: reveal the next card")
    bonus = DEMOLITION_FUMBLE_BONUS if atouts.get("demolition_man") else 0
    critical = (check.is_honour and check.rank == 13) or (check.kind == "arcanum" and (check.number or 0) + bonus > value)
    out.update({"check_card": check.code, "draw_to_reserve": 0})
    if critical:
        out.update({"outcome": "critical_failure", "cheap_chips_delta": 0})
    else:
        chip = inputs.get("gm_roleplay_chip")
        out.update({"outcome": "normal_failure",
                    "cheap_chips_delta": as_int(chip, "gm_roleplay_chip") if chip is not None else
                    gm_prompt("Ace, normal failure: award a Cheap-chip for the role-play? (0 or 1)", [0, 1])})
    if check.kind == "nameless":
        out["cycle_end_after_test"] = True
    return out


def _continuation(kept: Card, inputs: dict[str, Any], source: Any, draw: Any, atouts: dict[str, int],
                  archetype: str | None, skill_suit: str | None, set_aside: list[str],
                  contributing: list[Card], out: dict[str, Any], choices: dict[str, Any]) -> int:
    """The King rule (seed 002 "Le Roi (règle de continuation)"; RULES.md 3.6; TAL-D07, TAL-D24,
    TAL-D25, TAL-D26) with Uniforme continuité, Finir en beauté, Sans limite ou presque, Une veine
    de cocu. Returns the honour total; fills contributing honours and the stop card into out."""
    level = sans_limite_level(atouts)
    steps, chooser = _declarations(inputs, level, source, archetype, skill_suit)
    choices["declared_suits" if level else "declared_suit"] = _choice(steps if level else steps[0][0], chooser)
    total = _honour_value(kept)
    if kept.is_honour:
        contributing.append(kept)
    step, arcanum_bonus_used = 0, False
    while True:
        valid = steps[min(step, len(steps) - 1)]
        card = draw(f"continuation: reveal the card after {kept.code}")
        if card.is_honour and card.suit in valid:
            total += card.rank or 0
            contributing.append(card)
            step += 1
            continue
        if card.kind == "nameless" and atouts.get("finir_en_beaute"):
            total += 13  # TAL-D24: ends the continuation with +13
            out.update({"continuation_stopped_by": card.code, "stop_card": card.code, "stop_card_counted": True})
            return total
        if card.kind == "arcanum" and level == 4 and step == 0 and not arcanum_bonus_used:
            total += card.number or 0  # Sans limite (4): the first card's arcanum number counts
            arcanum_bonus_used = True
            step += 1
            continue
        if not card.is_honour and atouts.get("uniforme_continuite"):
            set_aside.append(card.code)  # Uniforme continuité: set aside and go on
            continue
        out.update({"continuation_stopped_by": card.code, "stop_card": card.code, "stop_card_counted": False})
        if not card.is_honour:
            set_aside.append(card.code)
        return total


# --- procedures ----------------------------------------------------------------------------------
def _with_source(inputs: dict[str, Any], fn: Any) -> dict[str, Any]:
    """Resolve on cards_revealed, or on the virtual deck when inputs has deck_file (+ player)."""
    if inputs.get("deck_file"):
        path = Path(inputs["deck_file"]).expanduser()
        deck = Deck.load(path)
        player = inputs.get("player")
        if player not in deck.players:
            raise RulesError(f"player {player!r} is not at this deck's table {deck.players}")
        if "cheap_chips_spent" in inputs and as_int(inputs["cheap_chips_spent"], "cheap_chips_spent") > deck.cheap_chips[player]:
            raise RulesError(f"{player} holds {deck.cheap_chips[player]} Cheap-chips, cannot spend {inputs['cheap_chips_spent']}")
        reserve = inputs.get("reserve_card")
        reveal_cost = None
        if reserve is not None:  # Arcaniste (0): the first card comes from the player's reserve
            if not isinstance(reserve, dict) or not reserve.get("card"):
                raise RulesError("reserve_card must be {\"card\": code, \"orientation\": upright|reversed}")
            allowed = reserve_reveal({"reserve_reveals_used_this_cycle": deck.reserve_reveals_used[player],
                                      "maitriser_son_destin": inputs.get("maitriser_son_destin", 0),
                                      "cheap_chips": deck.cheap_chips[player]})
            if not allowed["allowed"]:
                raise RulesError(f"{player} cannot reveal from the reserve: {allowed['reason']}")
            reveal_cost = allowed["cost"]
        out = fn(inputs, _DeckSource(deck, player, reserve))
        if reveal_cost is not None:
            deck.cheap_chips[player] -= reveal_cost == "cheap_chip"
            out["reserve_reveal_cost"] = reveal_cost  # else 1 Équilibre Mental level (TAL-D28, TAL-D31)
        pending = deck.pending_cycle_end or {}
        cycle_chip = 1 if pending.get("chip") and pending.get("revealer") == player else 0  # paid by cycle_end
        deck.cheap_chips[player] += out["cheap_chips_delta"][player] - cycle_chip
        cycle = deck.finish_test()
        if cycle:
            out["cycle_end"] = cycle
        deck.save(path)
        out["cheap_chips_after"] = deck.cheap_chips[player]
        return out
    return fn(inputs, _ListSource(inputs["cards_revealed"]))


def _test_odds(procedure_id: str) -> Any:
    def odds(inputs: dict[str, Any]) -> dict[str, Any]:
        from . import talon_odds

        if procedure_id == "talon.king_continuation":
            return talon_odds.continuation_odds(inputs)
        return talon_odds.odds_of_test(inputs, procedure_id)
    return odds


def test_screen(outcome: dict[str, Any]) -> dict[str, Any] | list[str]:
    """OLED form of a test: the total large, then result, cards, and difficulty/MR."""
    if "total" not in outcome:
        if "fumble" in outcome:
            f = outcome["fumble"]
            return ["ACE - FUMBLE", fit(f["outcome"].replace("_", " ").upper()),
                    fit("check " + parse_card(f["check_card"]).label() if "check_card" in f else "chip+1 card+1")]
        return [fit("TALON TEST"), fit(f"Eff {outcome['effective_value']:+d}"),
                fit(f"Need honour {outcome['min_honour_value_to_succeed']}"), fit(f"vs {outcome['difficulty']}")]
    result = "FAIL" if not outcome["success"] else outcome["grade"].upper()
    cards = " ".join(parse_card(c).label() for c in outcome["cards_revealed"])
    lines = [fit(f"{result} MR{outcome['MR']:+d}"), fit(cards), fit(f"vs {outcome['difficulty']}"
                                                                + (" CYCLE END" if outcome["cycle_end_after_test"] else ""))]
    return {"big": str(outcome["total"])[:4], "lines": lines}


@procedure("talon.simple_test", odds=_test_odds("talon.simple_test"), screen=test_screen)
def simple_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """A Talon test (seed 002 "3. Tests", steps 1-5; RULES.md 3.4; TAL-D03, TAL-D04, TAL-D08, TAL-D09).

    inputs: see run_test; cards from "cards_revealed" (list of codes, in order) or the virtual deck
    ("deck_file", "player", and "reserve_card": {"card", "orientation"} to reveal the first card from
    the player's reserve, checked and paid as talon.reserve_reveal). Without either, a preview: effective_value and
    min_honour_value_to_succeed (seed example: Robert needs >= 10).
    Returns effective_value, honour_total, archetype_bonus, total, MR, success, grade
    (failure|simple|special|critical, or critical_failure|normal_failure after an Ace),
    arcana_set_aside, cards_revealed, discard_after, cycle_end_after_test, cheap_chips_delta
    {player: n}, choices, and GM prompts (cheap_chip_roleplay) on a failure.
    """
    if "cards_revealed" not in inputs and not inputs.get("deck_file"):
        value = as_int(inputs.get("skill_value", inputs.get("value")), "skill_value")
        mods = modifier_sum(inputs.get("modifiers"))
        if inputs.get("context") is not None:
            mods += context_modifier({"context": inputs["context"]})["modifier"]
        difficulty = as_int(inputs.get("difficulty", DIFFICULTY), "difficulty")
        effective = value + mods
        return {"effective_value": effective, "difficulty": difficulty,
                "min_honour_value_to_succeed": max(2, difficulty - effective)}  # an Ace never succeeds
    return _with_source(inputs, run_test)


@procedure("talon.king_continuation", odds=_test_odds("talon.king_continuation"), screen=test_screen)
def king_continuation(inputs: dict[str, Any]) -> dict[str, Any]:
    """A test whose (kept) honour is a King: the continuation rule (seed 002 "Le Roi"; RULES.md 3.6;
    TAL-D07, TAL-D24..D26). inputs as talon.simple_test, with declared_suit (or declared_suits for
    Sans limite ou presque); cards_revealed starts with the test's cards (arcana, then the King).
    Returns the simple_test outcome with stop_card, stop_card_counted, continuation_stopped_by.
    Raises RulesError when the kept honour does not start a continuation."""
    out = _with_source(inputs, run_test)
    if "stop_card" not in out:
        raise RulesError(f"no continuation: the test honour in {out['cards_revealed']} is not a King "
                         "(use talon.simple_test)")
    return out


@procedure("talon.advantage", odds=_test_odds("talon.advantage"), screen=test_screen)
def advantage(inputs: dict[str, Any]) -> dict[str, Any]:
    """Avantage / Désavantage (seed 002 "3. Tests — Avantage/Désavantage"; RULES.md 3.7; TAL-D08):
    reveal until two honours show, arcana set aside; the player (Avantage, player_choice) or the GM
    (Désavantage, gm_choice) keeps one. inputs as talon.simple_test with mode advantage|disadvantage
    (default advantage). Returns the test outcome with kept and discarded."""
    return _with_source({**inputs, "mode": inputs.get("mode", "advantage")}, run_test)


def _fumble_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    from .talon_odds import fumble_odds

    return fumble_odds(inputs)


def fumble_screen(outcome: dict[str, Any]) -> list[str]:
    """OLED form of the Ace rule."""
    f = outcome.get("fumble", outcome)
    chips = f["cheap_chips_delta"]
    return ["ACE - FUMBLE", fit(f["outcome"].replace("_", " ").upper()),
            fit(("check " + parse_card(f["check_card"]).label()) if f.get("check_card") else "no check card"),
            fit("chip: GM decides" if isinstance(chips, dict) else f"chips {chips:+d}"),
            fit(f"to reserve {f['draw_to_reserve']}")]


@procedure("talon.ace_fumble", odds=_fumble_odds, screen=fumble_screen)
def ace_fumble(inputs: dict[str, Any]) -> dict[str, Any]:
    """The Ace rule (seed 002 "L'As (règle du fumble)"; RULES.md 3.5; TAL-D04, TAL-D05, TAL-D20).

    inputs, either {"skill_value", "first_honour": "1C", "player_choice": accept_critical |
    reveal_check_card, "check_card"?, "gm_roleplay_chip"?, "atouts"?} or a whole test (as
    talon.simple_test) whose honour is an Ace.
    Returns outcome (critical_failure | normal_failure), cheap_chips_delta (int, or a GM prompt for
    the role-play chip), draw_to_reserve, check_card, cycle_end_after_test, success False.
    Raises RulesError when the first honour is not an Ace."""
    if "first_honour" in inputs:
        ace = parse_card(inputs["first_honour"])
        if not (ace.is_honour and ace.rank == 1):
            raise RulesError(f"first_honour {inputs['first_honour']!r} is not an Ace: the fumble rule does not apply")
        cards = [inputs["check_card"]] if inputs.get("check_card") else []
        test = run_test(inputs, _ListSource([ace.code, *cards]))
    else:
        test = _with_source(inputs, run_test)
        if "fumble" not in test:
            raise RulesError(f"the test honour in {test['cards_revealed']} is not an Ace: the fumble rule does not apply")
    fumble = dict(test["fumble"])
    fumble.setdefault("cycle_end_after_test", test["cycle_end_after_test"])
    return {**test, **fumble, "success": False}


@procedure("talon.success_grade")
def success_grade(inputs: dict[str, Any]) -> dict[str, Any]:
    """Grade of a margin (seed 002 "Réussites spéciale et critiques"; RULES.md 3.4; TAL-D18: the
    effects are the GM's). inputs {"MR": int} -> {"grade": failure|simple|special|critical}."""
    return {"grade": grade_of(as_int(inputs.get("MR"), "MR"))}


@procedure("talon.context_modifier")
def context_modifier(inputs: dict[str, Any]) -> dict[str, Any]:
    """Context modifier (seed 002 "3. Tests — Modificateurs"): cauchemardesque -13, atroce -7,
    ardu -3, usuel 0, favorable +3, idéal +7. inputs {"context"} -> {"modifier"}."""
    ctx = fold_key(inputs.get("context", ""))
    if ctx not in CONTEXT_MODIFIERS:
        raise RulesError(f"unknown context {inputs.get('context')!r}; contexts are {', '.join(CONTEXT_MODIFIERS)}")
    return {"context": ctx, "modifier": CONTEXT_MODIFIERS[ctx]}


@procedure("talon.cheap_chip_spend")
def cheap_chip_spend(inputs: dict[str, Any]) -> dict[str, Any]:
    """Spend X Cheap-chips for +X after revealing an honour (seed 002 "3. Tests — Cheap-Chips";
    RULES.md 3.4). inputs {"cheap_chips": held, "spend": X, "total"?, "difficulty"?}.
    Returns cheap_chips_after, bonus, and total/MR/success/grade when a total is given.
    Raises RulesError when spending more than held or a negative amount."""
    held, spend = as_int(inputs.get("cheap_chips"), "cheap_chips"), as_int(inputs.get("spend"), "spend")
    if not 0 <= spend <= held:
        raise RulesError(f"cannot spend {spend} Cheap-chips holding {held}")
    out: dict[str, Any] = {"cheap_chips_after": held - spend, "bonus": spend}
    if "total" in inputs:
        total = as_int(inputs["total"], "total") + spend
        mr = total - as_int(inputs.get("difficulty", DIFFICULTY), "difficulty")
        out.update({"total": total, "MR": mr, "success": mr >= 0, "grade": grade_of(mr)})
    return out


@procedure("talon.archetype_modifier",
           screen=lambda o: ["ARCHETYPE"] + [fit(f"{s} card {v:+d}") for s, v in o["per_card"].items()])
def archetype_modifier(inputs: dict[str, Any]) -> dict[str, Any]:
    """Archetype modifier per suit of a contributing honour (seed 002 "8. Création — Archétypes";
    RULES.md 3.7; TAL-D09). inputs {"archetype", "skill"?, "skill_suit"?, "card"?}.
    Returns {"per_card": {suit: modifier}} and "modifier" for the given card."""
    skill_suit = skill_suit_of(inputs)
    per = {s: archetype_modifier_of(inputs.get("archetype"), skill_suit, Card("honour", 2, s)) for s in SUITS}
    out: dict[str, Any] = {"per_card": per}
    if inputs.get("card"):
        out["modifier"] = archetype_modifier_of(inputs.get("archetype"), skill_suit, parse_card(inputs["card"]))
    return out


def _carry(mr: int, success: bool) -> int:
    """Prise de risque carry: MR on a success, min(MR, -5) on a failure (seed 002 "Prise de Risque")."""
    return mr if success else min(mr, -5)


@procedure("talon.risk_taking")
def risk_taking(inputs: dict[str, Any]) -> dict[str, Any]:
    """Prise de risque (seed 002 "3. Tests — Prise de Risque"; RULES.md 3.8): the risk test's MR on a
    success, min(MR, -5) on a failure, becomes the next test's modifier.
    inputs {"risk_test_MR", "risk_test_success"? (default MR >= 0)} -> {"next_test_modifier"}."""
    mr = as_int(inputs.get("risk_test_MR"), "risk_test_MR")
    return {"next_test_modifier": _carry(mr, bool(inputs.get("risk_test_success", mr >= 0)))}


@procedure("talon.feint")
def feint(inputs: dict[str, Any]) -> dict[str, Any]:
    """Feinte and contre-feinte (seed 002 "6. Combat — Feinte"; RULES.md 3.8; TAL-D29).

    inputs {"feint_test_MR", "feint_test_success"?, "endurance_cumul_before"} -> next_attack_modifier
    (risk carry), endurance_cumul_after (+1; over 3 -> 0 and a Fatigue level, levels_taken);
    or {"enemy_feint_carry", "counter_feint_MR", "counter_feint_success"?} ->
    enemy_feint_modifier_after = enemy carry - your carry."""
    if "enemy_feint_carry" in inputs:
        mr = as_int(inputs.get("counter_feint_MR"), "counter_feint_MR")
        mine = _carry(mr, bool(inputs.get("counter_feint_success", mr >= 0)))
        return {"counter_feint_carry": mine,
                "enemy_feint_modifier_after": as_int(inputs["enemy_feint_carry"], "enemy_feint_carry") - mine}
    from .talon_health import endurance_cumul_actions

    mr = as_int(inputs.get("feint_test_MR"), "feint_test_MR")
    cumul = endurance_cumul_actions({"action": "feinter",
                                     "endurance_cumul": inputs.get("endurance_cumul_before", 0)})
    return {"next_attack_modifier": _carry(mr, bool(inputs.get("feint_test_success", mr >= 0))),
            "endurance_cumul_after": cumul["endurance_cumul_after"], "levels_taken": cumul["levels_taken"]}


@procedure("talon.continuous_test")
def continuous_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """Test continu (seed 002 "3. Tests — Test continu"; RULES.md 3.8; TAL-D10): sum the signed MRs
    (accumulate "mr", default) or the test totals (accumulate "result", weapon reloading) until the
    sum reaches the complexity. inputs {"complexity", "accumulate"?, "test_MRs" | "test_results"}.
    Returns cumulative sums, completed_after_test (1-based, None if not yet), remaining."""
    complexity = as_int(inputs.get("complexity"), "complexity")
    mode = str(inputs.get("accumulate", "mr"))
    if mode not in ("mr", "result"):
        raise RulesError(f"accumulate must be mr or result, not {mode!r}")
    values = inputs.get("test_MRs" if mode == "mr" else "test_results")
    if not isinstance(values, list):
        raise RulesError(f"give {'test_MRs' if mode == 'mr' else 'test_results'} as a list of integers")
    cumulative, done, running = [], None, 0
    for i, v in enumerate(values, start=1):
        running += as_int(v, "test value")
        cumulative.append(running)
        if done is None and running >= complexity:
            done = i
    return {"cumulative": cumulative, "completed_after_test": done, "remaining": max(0, complexity - running)}


@procedure("talon.opposed_test")
def opposed_test(inputs: dict[str, Any]) -> dict[str, Any]:
    """PC-vs-PC opposed test (TAL-D11: the seed has none): each makes a simple test at 14, the higher
    total wins, a tie goes to the defender. inputs {"attacker_total", "defender_total"} or
    {"attacker": test inputs, "defender": test inputs} (resolved with talon.simple_test).
    Returns winner (attacker | defender) and both totals."""
    totals = {}
    for side in ("attacker", "defender"):
        if f"{side}_total" in inputs:
            totals[side] = as_int(inputs[f"{side}_total"], f"{side}_total")
        elif isinstance(inputs.get(side), dict):
            test = simple_test(inputs[side])
            totals[side] = test["total"] if "total" in test else -10**6  # an Ace loses (TAL-D04)
        else:
            raise RulesError(f"give {side}_total or {side} (simple test inputs)")
    return {"winner": "attacker" if totals["attacker"] > totals["defender"] else "defender",
            "attacker_total": totals["attacker"], "defender_total": totals["defender"]}


# --- deck cycle and reserve ---------------------------------------------------------------------
def cycle_screen(outcome: dict[str, Any]) -> list[str]:
    """OLED form of a cycle start: cards dealt per player and the talon left."""
    lines = ["NEW CYCLE", fit(f"talon {outcome['talon_size_after_deal']} cards")]
    lines += [fit(f"{p} +{n} reserve") for p, n in outcome["cards_dealt"].items()]
    return lines[:8]


@procedure("talon.cycle_start", screen=cycle_screen)
def cycle_start(inputs: dict[str, Any]) -> dict[str, Any]:
    """Début du cycle (seed 002 "4. Cycle de la Destinée"; RULES.md 3.3; TAL-D02, TAL-D34): the
    Nameless Arcanum among the bottom 11 (uniform), the rest shuffled on top, random orientations,
    1 card (+ Élargir extra, - Fil rouge kept) dealt to each reserve. Shuffles with secrets.SystemRandom.

    inputs {"players": count | [names], "extra_cards"?: {player: X}, "deck"?: "full_74",
            "deck_name"?: destinee | fatalite (the GM's Talon de la Fatalité, same 74 cards, TAL-D33),
            "deck_file"?: path (a new deck is saved there; an existing file is reshuffled)}
    Returns talon_size_before_deal, top_segment_size, nameless_position_from_bottom (the law: the
    actual position is hidden from the players), cards_dealt, talon_size_after_deal."""
    if inputs.get("deck", "full_74") != "full_74":
        raise RulesError(f"deck must be \"full_74\" (the 74-card Talon), not {inputs.get('deck')!r}")
    path = Path(inputs["deck_file"]).expanduser() if inputs.get("deck_file") else None
    if path is not None and path.exists():
        deck = Deck.load(path)
        if "players" in inputs and players_list(inputs["players"]) != deck.players:
            raise RulesError(f"{path} is the deck of {deck.players}, not {players_list(inputs['players'])}: "
                             "use another deck_file for another table")
        deck.pending_cycle_end = deck.pending_cycle_end or {"revealer": None, "chip": False}
        result = deck.cycle_end()["cycle_start"]
    else:
        name = str(inputs.get("deck_name", "destinee"))
        if name not in ("destinee", "fatalite"):
            raise RulesError("deck_name must be destinee (the players' talon) or fatalite (the GM's, TAL-D33)")
        deck = Deck(players_list(inputs.get("players", 1)), name=name, extra_cards=inputs.get("extra_cards"))
        result = deck.cycle_start()
    if path is not None:
        deck.save(path)
    bottom = result["talon_size_before_deal"] - result["top_segment_size"]
    return {**result, "nameless_position_from_bottom": f"uniform in 1..{bottom}"}


def _keep_default(reserve: list[str], n: int) -> list[str]:
    """GEN-D05 default for Fil rouge: keep the n cards most useful for a test: honours by value
    (King first), then arcana, an Ace last."""
    def rank(code: str) -> tuple[int, int]:
        card = parse_card(code)
        if card.is_honour:
            return (0 if card.rank != 1 else 2, -(card.rank or 0))
        return (1, 0)
    return sorted(reserve, key=rank)[:n]


def cycle_end_screen(outcome: dict[str, Any]) -> list[str]:
    """OLED form of a cycle end: who gains the chip and reshuffles, cards kept."""
    lines = ["CYCLE END", fit(f"{outcome['reshuffled_by']} reshuffles")]
    lines += [fit(f"{p} chip +{n}") for p, n in outcome["cheap_chips_delta"].items()]
    kept = outcome.get("excluded_from_reshuffle", [])
    if kept:
        lines.append(fit("kept " + " ".join(parse_card(c).label() for c in kept)))
    return lines[:8]


@procedure("talon.cycle_end", screen=cycle_end_screen)
def cycle_end(inputs: dict[str, Any]) -> dict[str, Any]:
    """Fin du cycle (seed 002 "4. Cycle de la Destinée"; RULES.md 3.3; TAL-D34, TAL-D06): every
    reserve is discarded except the cards kept with Fil rouge (X per player), the revealer gains 1
    Cheap-chip (none when the talon ran out, "talon_exhausted": true) and reshuffles.

    inputs {"revealer", "reserves": {player: [cards]}, "fil_rouge"?: {player: X},
            "keeps"?: {player: [cards]} (or "<player>_keeps": card|[cards]), "talon_exhausted"?}
      or {"deck_file", "keeps"?} to run the virtual deck's pending cycle end.
    Returns reserves_after, cheap_chips_delta, reshuffled_by, excluded_from_reshuffle,
    deal_next_cycle (player -> "entitlement minus k" for players who kept k cards), choices.
    Raises RulesError when a player keeps more cards than Fil rouge allows or a card not held."""
    if inputs.get("deck_file"):
        path = Path(inputs["deck_file"]).expanduser()
        deck = Deck.load(path)
        result = deck.cycle_end(inputs.get("keeps"))
        deck.save(path)
        return {"cheap_chips_delta": result["cheap_chips_delta"], "reshuffled_by": result["revealer"],
                "reserves_after": {p: len(v) for p, v in deck.reserves.items()}, "cycle_start": result["cycle_start"]}
    reserves = inputs.get("reserves")
    if not isinstance(reserves, dict):
        raise RulesError("reserves must be an object {player: [cards]}")
    revealer = inputs.get("revealer")
    fil_rouge = {p: as_int(x, "fil_rouge") for p, x in (inputs.get("fil_rouge") or {}).items()}
    after, excluded, deal, choices = {}, [], {}, {}
    for player, cards in reserves.items():
        for c in cards:
            parse_card(c)
        wanted = (inputs.get("keeps") or {}).get(player, inputs.get(f"{player}_keeps"))
        allowed = fil_rouge.get(player, 0)
        if wanted is None:
            keep, by = _keep_default(list(cards), allowed), "default (GEN-D05)"
        else:
            keep, by = ([wanted] if isinstance(wanted, str) else list(wanted)), player
        if len(keep) > allowed:
            raise RulesError(f"{player} keeps {len(keep)} card(s) but Fil rouge allows {allowed}")
        missing = [c for c in keep if c not in cards]
        if missing:
            raise RulesError(f"{player} cannot keep {missing}: not in their reserve {cards}")
        after[player] = keep
        excluded += keep
        if keep:
            deal[player] = f"entitlement minus {len(keep)}"
            choices[player] = _choice(keep, by)
    chip = not inputs.get("talon_exhausted") and revealer is not None
    out = {"reserves_after": after, "cheap_chips_delta": {revealer: 1} if chip else {},
           "reshuffled_by": revealer, "excluded_from_reshuffle": excluded, "deal_next_cycle": deal}
    if choices:
        out["choices"] = choices
    return out


def _reserve_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """A reserve reveal draws nothing at random: the player picks the card and its orientation, so
    its outcome is certain (the odds of the test it serves are those of talon.simple_test)."""
    from .odds import odds_result

    allowed = reserve_reveal({k: v for k, v in inputs.items() if k not in ("card", "reserve")})["allowed"]
    return odds_result("talon.reserve_reveal", {"allowed" if allowed else "not_allowed": 1},
                       method="certain (no draw: the player chooses the card from the reserve, RULES.md 3.7)")


def reserve_screen(outcome: dict[str, Any]) -> list[str]:
    """OLED form of a reserve reveal."""
    if not outcome["allowed"]:
        return ["RESERVE REVEAL", "NOT ALLOWED", fit(f"{outcome['reveals_allowed']} per cycle")]
    lines = ["RESERVE REVEAL", fit("cost: chip" if outcome["cost"] == "cheap_chip" else "cost: mental lvl")]
    if outcome.get("revealed"):
        lines.append(fit(parse_card(outcome["revealed"]).label()))
    return lines


@procedure("talon.reserve_reveal", odds=_reserve_odds, screen=reserve_screen)
def reserve_reveal(inputs: dict[str, Any]) -> dict[str, Any]:
    """Reveal from the reserve (atout Arcaniste (0); Maîtriser son destin (X); RULES.md 3.7; TAL-D28):
    1 reveal per cycle + X, each costing 1 Cheap-chip or else 1 Équilibre Mental level (TAL-D31).
    The player chooses the card's orientation.

    inputs {"reserve_reveals_used_this_cycle", "maitriser_son_destin"?, "cheap_chips"?, "card"?,
            "chosen_orientation"? (upright | reversed), "reserve"?: [cards held]}
    Returns allowed, reveals_allowed, and when allowed: cost ("cheap_chip" | "equilibre_mental_level"),
    cheap_chips_after, revealed (code with orientation)."""
    used = as_int(inputs.get("reserve_reveals_used_this_cycle", 0), "reserve_reveals_used_this_cycle")
    allowance = 1 + as_int(inputs.get("maitriser_son_destin", 0), "maitriser_son_destin")
    out: dict[str, Any] = {"allowed": used < allowance, "reveals_allowed": allowance}
    if not out["allowed"]:
        out["reason"] = f"{used} reserve reveal(s) used of {allowance} this cycle (TAL-D28)"
        return out
    chips = as_int(inputs.get("cheap_chips", 0), "cheap_chips")
    out.update({"cost": "cheap_chip" if chips > 0 else "equilibre_mental_level",
                "cheap_chips_after": max(0, chips - 1)})
    if inputs.get("card"):
        card = parse_card(inputs["card"])
        if isinstance(inputs.get("reserve"), list) and card.id not in [parse_card(c).id for c in inputs["reserve"]]:
            raise RulesError(f"{card.id} is not in the reserve {inputs['reserve']}")
        orientation = str(inputs.get("chosen_orientation", "upright"))
        if orientation not in ("upright", "reversed"):
            raise RulesError(f"chosen_orientation must be upright or reversed, not {orientation!r}")
        out["revealed"] = card.id + ("r" if card.kind == "arcanum" and orientation == "reversed" else "")
        out["choices"] = {"orientation": _choice(orientation, "player")}
    return out


# the other talon procedures register when their modules load
from . import talon_combat, talon_health  # noqa: E402,F401
