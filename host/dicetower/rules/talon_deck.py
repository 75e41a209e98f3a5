"""The Talon de la Destinée as a virtual deck on the host (RULES.md 3.1-3.3, DECISION TAL-D02).

Cards ("lames", RULES.md 0.2 notation):
    honours  "<rank><suit>"  rank 1..13 (Ace 1, Chevalier 11, Reine 12, Roi 13; no Valet), suit
             E Épées, C Coupes, D Écus, B Bâtons: 52 cards
    arcana   "ARC<n>" upright, "ARC<n>r" reversed, n in 0..12, 14..21 (Le Mat = 0, TAL-D01): 21 cards
    "NAMELESS" the Arcane Sans Nom (no number, TAL-D01): 1 card          -> 74 cards in all

`Deck` holds the talon (draw pile, top first), the discard pile, the players' reserves, Cheap-chips,
reserve reveals used this cycle and each card's orientation. Shuffling uses `secrets.SystemRandom`
(cryptographic randomness). `Deck.save(path)` writes the state atomically (temp file in the same
folder, fsync, os.replace) and `Deck.load(path)` refuses a corrupt file with DeckStateError naming
it, never resetting it silently.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .registry import RulesError
from .screen import ascii_text

SUITS = ("E", "C", "D", "B")
SUIT_NAMES = {"E": "Epees", "C": "Coupes", "D": "Ecus", "B": "Batons"}
HONOUR_NAMES = {1: "As", 11: "Chevalier", 12: "Reine", 13: "Roi"}
ARCANA_NUMBERS = tuple(n for n in range(22) if n != 13)  # TAL-D01: Le Mat = 0, XIII = Nameless
NAMELESS = "NAMELESS"
DECK_SIZE = 74
BOTTOM_PILE = 11  # seed 002 "4. Cycle de la Destinée": the Nameless Arcanum + 10 random cards
STATE_VERSION = 1

_HONOUR_RE = re.compile(r"^(1[0-3]|[1-9])([ECDB])$")
_ARCANUM_RE = re.compile(r"^ARC(\d{1,2})(r?)$")


class DeckStateError(RulesError):
    """A saved deck state that cannot be used (unreadable JSON, cards missing or duplicated). The
    message names the file; the file is left as it is for a person to inspect or restore."""


@dataclass(frozen=True)
class Card:
    """One card of the 74-card Talon.

    kind:     "honour" | "arcanum" | "nameless"
    rank:     1..13 for an honour, else None
    suit:     "E" | "C" | "D" | "B" for an honour, else None
    number:   0..21 (not 13) for an arcanum, else None (the Nameless has no number, TAL-D01)
    reversed: orientation as revealed (only arcana use it, RULES.md 3.1)
    """

    kind: str
    rank: int | None = None
    suit: str | None = None
    number: int | None = None
    reversed: bool = False

    @property
    def id(self) -> str:
        """Identity in the deck, without orientation: "13D", "ARC7", "NAMELESS"."""
        if self.kind == "honour":
            return f"{self.rank}{self.suit}"
        return f"ARC{self.number}" if self.kind == "arcanum" else NAMELESS

    @property
    def code(self) -> str:
        """Vector notation with orientation for arcana: "13D", "ARC7", "ARC7r", "NAMELESS"."""
        return self.id + ("r" if self.kind == "arcanum" and self.reversed else "")

    @property
    def is_honour(self) -> bool:
        return self.kind == "honour"

    def label(self) -> str:
        """Short ASCII label for the OLED: "K-D", "Q-C", "Kn-B", "A-E", "7-C", "XVII", "XVIIr",
        "Mat", "SansNom"."""
        if self.kind == "honour":
            short = {1: "A", 11: "Kn", 12: "Q", 13: "K"}.get(self.rank or 0, str(self.rank))
            return f"{short}-{self.suit}"
        if self.kind == "nameless":
            return "SansNom"
        name = "Mat" if self.number == 0 else _roman(self.number or 0)
        return name + ("r" if self.reversed else "")


def _roman(n: int) -> str:
    out = ""
    for value, sym in ((10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")):
        while n >= value:
            out, n = out + sym, n - value
    return out


def parse_card(code: Any) -> Card:
    """Card from its notation ("10E", "ARC7", "ARC7r", "NAMELESS"; RULES.md 0.2).

    Raises RulesError for anything else, e.g. a Valet (not in the 74-card deck, TAL-D01), rank 0 or
    14, an unknown suit, or "ARC13" (card XIII is the Nameless Arcanum: write NAMELESS)."""
    if isinstance(code, Card):
        return code
    text = str(code).strip()
    if text.upper() == NAMELESS:
        return Card("nameless")
    m = _HONOUR_RE.match(text.upper())
    if m:
        return Card("honour", rank=int(m.group(1)), suit=m.group(2))
    m = _ARCANUM_RE.match(text)
    if m:
        number = int(m.group(1))
        if number == 13:
            raise RulesError("ARC13 is the Nameless Arcanum (TAL-D01): write it NAMELESS")
        if number not in ARCANA_NUMBERS:
            raise RulesError(f"arcanum {number} does not exist: arcana are ARC0 (Le Mat) to ARC21, not 13")
        return Card("arcanum", number=number, reversed=bool(m.group(2)))
    raise RulesError(f"unknown card {code!r}: write honours <rank 1-13><suit E|C|D|B> (e.g. 12C; there is "
                     "no Valet), arcana ARC<n> or ARC<n>r (reversed), or NAMELESS (RULES.md 0.2)")


def fold_key(text: Any) -> str:
    """An input name as a table key: ASCII, lower case, snake_case ("Épée longue" -> "epee_longue")."""
    return ascii_text(text).strip().lower().replace(" ", "_").replace("-", "_").replace("'", "_")


def as_int(value: Any, name: str) -> int:
    """`value` when it is an integer (not a bool); else RulesError naming the input."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise RulesError(f"{name} must be an integer, not {value!r}")
    return value


def atout_levels(atouts: Any) -> dict[str, int]:
    """Atouts as name -> level from a list ("uniforme_continuite", "sans_limite_ou_presque:3",
    "demolition_man(1)") or a dict {name: level}. Names are folded to snake_case ASCII."""
    if not atouts:
        return {}
    if isinstance(atouts, dict):
        return {fold_key(k): int(v) for k, v in atouts.items()}
    out = {}
    for item in atouts:
        m = re.match(r"^(.*?)[\s:(]*(\d+)\)?$", str(item))
        name, level = (m.group(1), int(m.group(2))) if m else (str(item), 1)
        out[fold_key(name)] = level
    return out


def full_deck() -> list[str]:
    """The 74 card ids: 52 honours, 21 numbered arcana, the Nameless Arcanum (RULES.md 3.1)."""
    return ([f"{rank}{suit}" for suit in SUITS for rank in range(1, 14)]
            + [f"ARC{n}" for n in ARCANA_NUMBERS] + [NAMELESS])


def players_list(players: Any) -> list[str]:
    """Player names from a count (3 -> ["p1", "p2", "p3"]) or a list of names. Raises RulesError."""
    if isinstance(players, bool):
        raise RulesError("players must be a count or a list of names")
    if isinstance(players, int):
        if players < 1:
            raise RulesError(f"players must be at least 1, not {players}")
        return [f"p{i}" for i in range(1, players + 1)]
    if isinstance(players, (list, tuple)) and players and all(isinstance(p, str) and p for p in players):
        if len(set(players)) != len(players):
            raise RulesError(f"player names must be distinct: {list(players)}")
        return list(players)
    raise RulesError(f"players must be a count or a non-empty list of names, not {players!r}")


class Deck:
    """The virtual Talon de la Destinée (TAL-D02) and what the host keeps with it.

    Attributes (all plain data, saved as JSON):
      name:          "destinee" (the players' deck) or "fatalite" (the GM's deck, TAL-D33)
      players:       player names, in dealing order
      extra_cards:   player -> X of atout "Élargir l'horizon des possibles (X)"
      talon:         card ids, index 0 = top of the draw pile
      orientation:   card id -> True when reversed (randomised at every cycle start, TAL-D02)
      discard:       card ids on the discard pile
      in_play:       card ids revealed in the test under way (set aside or showing)
      reserves:      player -> card ids held face down
      cheap_chips:   player -> count
      reserve_reveals_used: player -> reserve reveals this cycle (TAL-D28)
      pending_cycle_end: None or {"revealer": player|None, "chip": bool} (TAL-D03, TAL-D06)
      cycle:         number of cycle starts so far
    rng: the random source, `secrets.SystemRandom()` unless a test passes its own.
    """

    def __init__(self, players: Iterable[str], *, name: str = "destinee",
                 extra_cards: dict[str, int] | None = None, rng: Any = None) -> None:
        self.name = name
        self.players = players_list(list(players))
        self.extra_cards = {p: int(x) for p, x in (extra_cards or {}).items()}
        unknown = set(self.extra_cards) - set(self.players)
        if unknown:
            raise RulesError(f"extra_cards names unknown players {sorted(unknown)}; players are {self.players}")
        self.talon: list[str] = []
        self.orientation: dict[str, bool] = {}
        self.discard: list[str] = full_deck()
        self.in_play: list[str] = []
        self.reserves: dict[str, list[str]] = {p: [] for p in self.players}
        self.cheap_chips: dict[str, int] = {p: 0 for p in self.players}
        self.reserve_reveals_used: dict[str, int] = {p: 0 for p in self.players}
        self.pending_cycle_end: dict[str, Any] | None = None
        self.cycle = 0
        self.rng = rng if rng is not None else secrets.SystemRandom()

    # --- the cycle (RULES.md 3.3) -------------------------------------------------------------
    def cycle_start(self, kept: dict[str, int] | None = None) -> dict[str, Any]:
        """`talon.cycle_start`: shuffle every card not held in a reserve, the Nameless Arcanum among
        the bottom 11, random orientations, then deal 1 + extra_cards[p] - kept[p] cards to each
        player (TAL-D34: cards kept with Fil rouge stay out of the shuffle and count against the deal).

        kept: player -> number of reserve cards kept through the cycle end (default: their reserve size)
        Returns {"talon_size_before_deal", "top_segment_size", "cards_dealt": {player: n},
        "talon_size_after_deal", "cycle"}. The Nameless's position is not returned: it is hidden.
        Cards in play in the test under way stay out of the shuffle (TAL-D06 reshuffle mid-test).
        Raises RulesError when there are too few cards to deal.
        """
        held = {c for cards in self.reserves.values() for c in cards} | set(self.in_play)
        pool = [c for c in full_deck() if c not in held]
        others = [c for c in pool if c != NAMELESS]
        bottom: list[str] = []
        if NAMELESS in pool:
            bottom = self.rng.sample(others, min(BOTTOM_PILE - 1, len(others))) + [NAMELESS]
            self.rng.shuffle(bottom)
        chosen = set(bottom)
        top = [c for c in others if c not in chosen]
        self.rng.shuffle(top)
        self.talon = top + bottom
        self.orientation = {c: self.rng.random() < 0.5 for c in full_deck()}
        self.discard = []
        if NAMELESS in self.in_play:  # reshuffled mid-test (TAL-D06): reshuffle again after the test
            self.pending_cycle_end = {"revealer": None, "chip": False}
        self.reserve_reveals_used = {p: 0 for p in self.players}
        self.cycle += 1
        size_before = len(self.talon)
        kept = kept or {p: len(self.reserves[p]) for p in self.players}
        dealt: dict[str, int] = {}
        for player in self.players:
            n = max(0, 1 + self.extra_cards.get(player, 0) - int(kept.get(player, 0)))
            if n > len(self.talon):
                raise RulesError(f"the talon holds {len(self.talon)} cards, too few to deal {n} to {player}")
            for _ in range(n):
                self._to_reserve(player, self.talon.pop(0))
            dealt[player] = n
        return {"talon_size_before_deal": size_before, "top_segment_size": len(top),
                "cards_dealt": dealt, "talon_size_after_deal": len(self.talon), "cycle": self.cycle}

    def cycle_end(self, keeps: dict[str, list[str]] | None = None) -> dict[str, Any]:
        """`talon.cycle_end` for the pending cycle end: discard every reserve except the cards kept
        (Fil rouge, TAL-D34), give the revealer 1 Cheap-chip (not after an exhausted talon, TAL-D06),
        and start the next cycle. keeps: player -> card ids kept (must be in that reserve).
        Returns {"revealer", "cheap_chips_delta", "kept", "cycle_start": cycle_start()}.
        Raises RulesError when no cycle end is pending or a kept card is not in the reserve."""
        if self.pending_cycle_end is None:
            raise RulesError("no cycle end is pending: it starts when the Nameless Arcanum is revealed")
        keeps = keeps or {}
        for player, cards in keeps.items():
            missing = [c for c in cards if c not in self.reserves.get(player, [])]
            if missing:
                raise RulesError(f"{player} cannot keep {missing}: not in their reserve {self.reserves.get(player)}")
        for player in self.players:
            keep = list(keeps.get(player, []))
            self.discard += [c for c in self.reserves[player] if c not in keep]
            self.reserves[player] = keep
        revealer, chip = self.pending_cycle_end.get("revealer"), self.pending_cycle_end.get("chip", True)
        delta = {}
        if revealer is not None and chip:
            self.cheap_chips[revealer] = self.cheap_chips.get(revealer, 0) + 1
            delta = {revealer: 1}
        self.pending_cycle_end = None
        kept = {p: list(v) for p, v in self.reserves.items() if v}
        start = self.cycle_start({p: len(self.reserves[p]) for p in self.players})
        return {"revealer": revealer, "cheap_chips_delta": delta, "kept": kept, "cycle_start": start}

    # --- revealing ------------------------------------------------------------------------------
    def reveal(self, player: str | None = None) -> str:
        """Reveal the top card of the talon into the test under way; returns its code with
        orientation ("ARC7r"). Revealing the Nameless Arcanum makes a cycle end pending for `player`
        (TAL-D03). An empty talon runs the cycle end without a chip first (TAL-D06)."""
        self._refill_if_empty()
        card = self.talon.pop(0)
        self.in_play.append(card)
        if card == NAMELESS and self.pending_cycle_end is None:
            self.pending_cycle_end = {"revealer": player, "chip": True}
        return self.code(card)

    def draw_to_reserve(self, player: str) -> str:
        """Draw the top card face down into `player`'s reserve (Ace fumble choice (a)). A Nameless
        drawn this way counts as revealed by that player (TAL-D03). Returns the card id."""
        self._check_player(player)
        self._refill_if_empty()
        card = self.talon.pop(0)
        self._to_reserve(player, card)
        return card

    def reveal_from_reserve(self, player: str, card: str, reversed_: bool) -> str:
        """Arcaniste (0): reveal `card` from `player`'s reserve with the orientation the player
        chose (RULES.md 3.7). The allowance and cost are checked by `talon.reserve_reveal`.
        Returns the card's code. Raises RulesError when the card is not in that reserve."""
        self._check_player(player)
        card_id = parse_card(card).id
        if card_id not in self.reserves[player]:
            raise RulesError(f"{card_id} is not in {player}'s reserve {self.reserves[player]}")
        self.reserves[player].remove(card_id)
        self.orientation[card_id] = reversed_
        self.in_play.append(card_id)
        self.reserve_reveals_used[player] += 1
        return self.code(card_id)

    def finish_test(self) -> dict[str, Any] | None:
        """Test step 5: every card of the test goes to the discard pile, then a pending cycle end
        runs (TAL-D03). Returns the cycle end's result or None."""
        self.discard += self.in_play
        self.in_play = []
        return self.cycle_end() if self.pending_cycle_end else None

    def code(self, card_id: str) -> str:
        """The card's code with its current orientation ("ARC7r")."""
        card = parse_card(card_id)
        return card.code if card.kind != "arcanum" else card.id + ("r" if self.orientation.get(card_id) else "")

    def remaining(self) -> list[str]:
        """The card ids left in the talon, sorted (their order is secret: odds use only this)."""
        return sorted(self.talon, key=full_deck().index)

    def public_view(self) -> dict[str, Any]:
        """What the table may see (for a status screen): sizes, chips, reveals used, pending cycle
        end; never the order of the talon nor the reserves' cards."""
        return {"name": self.name, "cycle": self.cycle, "talon_size": len(self.talon),
                "discard_size": len(self.discard), "reserve_sizes": {p: len(r) for p, r in self.reserves.items()},
                "cheap_chips": dict(self.cheap_chips), "reserve_reveals_used": dict(self.reserve_reveals_used),
                "cycle_end_pending": self.pending_cycle_end is not None}

    def _refill_if_empty(self) -> None:
        """TAL-D06: a card is needed and the talon is empty: run the cycle end now (no chip unless a
        Nameless drawn into a reserve made one pending, TAL-D03), then continue."""
        if not self.talon:
            if self.pending_cycle_end is None:
                self.pending_cycle_end = {"revealer": None, "chip": False}
            self.cycle_end()

    def _to_reserve(self, player: str, card: str) -> None:
        self.reserves[player].append(card)
        if card == NAMELESS and self.pending_cycle_end is None:
            self.pending_cycle_end = {"revealer": player, "chip": True}

    def _check_player(self, player: str) -> None:
        if player not in self.reserves:
            raise RulesError(f"unknown player {player!r}; players are {self.players}")

    # --- persistence ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The state as a JSON object (see the class docstring); `from_json` reads it back."""
        return {"version": STATE_VERSION, "name": self.name, "players": self.players,
                "extra_cards": self.extra_cards, "cycle": self.cycle, "talon": self.talon,
                "reversed": sorted(c for c, r in self.orientation.items() if r),
                "discard": self.discard, "in_play": self.in_play, "reserves": self.reserves,
                "cheap_chips": self.cheap_chips, "reserve_reveals_used": self.reserve_reveals_used,
                "pending_cycle_end": self.pending_cycle_end}

    @classmethod
    def from_json(cls, state: Any, *, rng: Any = None) -> "Deck":
        """Deck from `to_json` output. Raises RulesError (what is wrong) when a field is missing or
        of the wrong type, a card is unknown, or the 74 cards are not each in exactly one place."""
        if not isinstance(state, dict):
            raise RulesError("deck state must be a JSON object")
        try:
            if state["version"] != STATE_VERSION:
                raise RulesError(f"deck state version {state['version']!r}; this engine reads {STATE_VERSION}")
            deck = cls(state["players"], name=str(state["name"]), extra_cards=state["extra_cards"], rng=rng)
            deck.cycle = int(state["cycle"])
            deck.talon = list(state["talon"])
            deck.discard = list(state["discard"])
            deck.in_play = list(state["in_play"])
            deck.reserves = {p: list(state["reserves"][p]) for p in deck.players}
            deck.cheap_chips = {p: int(state["cheap_chips"][p]) for p in deck.players}
            deck.reserve_reveals_used = {p: int(state["reserve_reveals_used"][p]) for p in deck.players}
            pending = state["pending_cycle_end"]
            reversed_ = set(state["reversed"])
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, RulesError):
                raise
            raise RulesError(f"deck state has a missing or malformed field: {exc!r}") from None
        if pending is not None and not isinstance(pending, dict):
            raise RulesError("deck state: pending_cycle_end must be null or an object")
        deck.pending_cycle_end = pending
        places = deck.talon + deck.discard + deck.in_play + [c for p in deck.players for c in deck.reserves[p]]
        for card in places:
            parse_card(card)
        if sorted(places) != sorted(full_deck()):
            missing = sorted(set(full_deck()) - set(places))
            doubled = sorted({c for c in places if places.count(c) > 1})
            raise RulesError(f"deck state does not hold the 74 cards once each (missing {missing}, "
                             f"duplicated {doubled}, unknown {sorted(set(places) - set(full_deck()))})")
        deck.orientation = {c: c in reversed_ for c in full_deck()}
        return deck

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the state to `path` atomically: a temporary file in the same folder, fsync, then
        os.replace, so a crash leaves either the old or the new state, never half a file."""
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(self.to_json(), fh, indent=1, ensure_ascii=False)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)

    @classmethod
    def load(cls, path: str | os.PathLike[str], *, rng: Any = None) -> "Deck":
        """Read a state written by `save`. Raises DeckStateError naming the file when it is missing,
        not JSON, or not a valid deck; the file is never reset or overwritten here."""
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise DeckStateError(f"cannot read deck state {path}: {exc.strerror or exc}") from None
        try:
            state = json.loads(text)
        except json.JSONDecodeError as exc:
            raise DeckStateError(f"deck state {path} is corrupt (not JSON: {exc}); restore it from a "
                                 "backup or move it away to start a new deck") from None
        try:
            return cls.from_json(state, rng=rng)
        except RulesError as exc:
            raise DeckStateError(f"deck state {path} is corrupt: {exc}; restore it from a backup or move "
                                 "it away to start a new deck") from None
