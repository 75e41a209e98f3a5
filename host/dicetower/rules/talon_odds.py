"""Exact odds of a Talon test over the cards left in the talon (issue 3, item 7; RULES.md 3.3-3.7).

Model (what the players know): the cards left in the talon come in a uniformly random order, except
the Nameless Arcanum, which the cycle start placed uniformly among the bottom 11 cards (seed 002
"4. Cycle de la Destinée"): while it is still in the talon it lies uniformly among the last
min(11, N) of the N cards left. The probability that the card at position t+1 is the Nameless,
given it was not among the first t, is then 1/(N - t) once t >= N - min(11, N), else 0; every
other card is uniform over the other cards left (exchangeable).

Method: exact enumeration with fractions.Fraction: the draw until the test honour(s) is a small
chain over (cards drawn, arcana left, Nameless still in), the honours' identities are uniform and
enumerated, and a King's continuation is a memoised recursion over (ranks of the declared suit
left, other honours left, arcana left, position). Paths on which the talon runs out mid-test
(TAL-D06 reshuffle) are reported as the outcome "talon_exhausted" rather than approximated.
Sans limite ou presque (a suit choice at every card) is sampled instead, with a stated error bound
(`sampled_odds`).
"""

from __future__ import annotations

from collections import defaultdict
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from .odds import odds_result, probability_json
from .registry import RulesError
from .talon import (DEMOLITION_FUMBLE_BONUS, DIFFICULTY, SUITS, archetype_modifier_of,
                    context_modifier, grade_of, modifier_sum, sans_limite_level, skill_suit_of, suit_gains)
from .talon_deck import BOTTOM_PILE, NAMELESS, Card, Deck, as_int, atout_levels, fold_key, full_deck, parse_card

METHOD = ("exact enumeration (fractions.Fraction) over the {n} cards left in the talon; Nameless Arcanum "
          "uniform among the last {w}; talon running out mid-test reported as talon_exhausted")
GRADES = ("critical_failure", "normal_failure", "failure", "simple", "special", "critical", "talon_exhausted")


def remaining_cards(inputs: dict[str, Any]) -> list[str]:
    """The talon's cards for the odds: from "deck_file" (the saved virtual deck), "remaining_cards"
    (card codes), or a full fresh 74-card deck. Raises RulesError on unknown or repeated cards."""
    if inputs.get("deck_file"):
        return Deck.load(Path(inputs["deck_file"]).expanduser()).remaining()
    if inputs.get("remaining_cards") is not None:
        ids = [parse_card(c).id for c in inputs["remaining_cards"]]
        if len(set(ids)) != len(ids):
            raise RulesError("remaining_cards lists a card twice; each card is in the talon once")
        return ids
    return full_deck()


class _Talon:
    """The cards left, split as the enumeration needs them."""

    def __init__(self, ids: list[str], bottom_pile: int = BOTTOM_PILE) -> None:
        cards = [parse_card(c) for c in ids]
        self.n = len(cards)
        self.honours = [c for c in cards if c.is_honour]
        self.arcana = [c for c in cards if c.kind == "arcanum"]
        self.nameless = any(c.kind == "nameless" for c in cards)
        self.window = min(bottom_pile, self.n)

    def q(self, t: int, nameless_in: bool) -> Fraction:
        """P(card t+1 is the Nameless | not among the first t)."""
        if not nameless_in or t < self.n - self.window:
            return Fraction(0)
        return Fraction(1, self.n - t)


def _first_cards(talon: _Talon, k: int, finir: bool) -> dict[tuple, Fraction]:
    """Distribution of the reveal until k honours show (the Nameless counts as one with Finir en
    beauté): (t drawn, arcana left, nameless still in, nameless seen, pattern of "H"/"N") -> P,
    plus ("exhausted",) -> P when the talon runs out first."""
    out: dict[tuple, Fraction] = defaultdict(Fraction)
    frontier = {(0, len(talon.arcana), talon.nameless, False, ()): Fraction(1)}
    while frontier:
        nxt: dict[tuple, Fraction] = defaultdict(Fraction)
        for (t, a, n_in, seen, pat), p in frontier.items():
            if len(pat) == k:
                out[(t, a, n_in, seen, pat)] += p
                continue
            h = len(talon.honours) - pat.count("H")
            r = h + a
            qn = talon.q(t, n_in)
            if r == 0 and qn == 0:
                out[("exhausted",)] += p
                continue
            if qn:
                key = (t + 1, a, False, True, pat + ("N",) if finir else pat)
                nxt[key] += p * qn
            if r:
                rest = p * (1 - qn)
                if h:
                    nxt[(t + 1, a, n_in, seen, pat + ("H",))] += rest * Fraction(h, r)
                if a:
                    nxt[(t + 1, a - 1, n_in, seen, pat)] += rest * Fraction(a, r)
        frontier = nxt
    return out


class _Continuation:
    """King continuation over one talon (RULES.md 3.6; TAL-D07, TAL-D24 Finir en beauté, Uniforme
    continuité). The cards of the declared suit are exchangeable, so which of them are drawn is a
    uniform subset given how many are drawn: a memoised chain over counts (suit cards left, stoppers
    left, arcana left, position, Nameless still in) gives P(j suit cards drawn, Nameless seen, +13),
    and the points of j cards come from the subset-sum counts of the suit's ranks."""

    def __init__(self, talon: _Talon, uniforme: bool, finir: bool) -> None:
        self.talon, self.uniforme, self.finir = talon, uniforme, finir
        self.chain = lru_cache(maxsize=None)(self._chain)
        self._points = lru_cache(maxsize=None)(self._points_of)

    def key(self, ranks: tuple[int, ...], others: int, arcana: int, t: int, n_in: bool, per_card: int) -> tuple:
        """The state that decides the continuation (positions only matter near the Nameless)."""
        stoppers = others + (0 if self.uniforme else arcana)
        skipped = arcana if self.uniforme else 0
        return (ranks, stoppers, skipped, self._t(len(ranks), skipped, t, n_in), n_in, per_card)

    def dist(self, ranks: tuple[int, ...], others: int, arcana: int, t: int, n_in: bool,
             per_card: int) -> dict[tuple, Fraction]:
        """(added points, nameless seen) -> P; ("exhausted",) when the talon runs out mid-test."""
        return self._points(*self.key(ranks, others, arcana, t, n_in, per_card))

    def _points_of(self, ranks: tuple[int, ...], stoppers: int, skipped: int, t: int | None, n_in: bool,
                   per_card: int) -> dict[tuple, Fraction]:
        sums = _subset_sums(ranks)
        out: dict[tuple, Fraction] = defaultdict(Fraction)
        for key, p in self.chain(len(ranks), stoppers, skipped, t, n_in).items():
            if key == ("exhausted",):
                out[key] += p
                continue
            j, seen, bonus = key
            ways = sum(sums[j].values())
            for points, count in sums[j].items():
                out[(points + j * per_card + bonus, seen)] += p * Fraction(count, ways)
        return dict(out)

    def _t(self, m: int, skipped: int, t: int, n_in: bool) -> int | None:
        reach = m + skipped + 1  # cards this continuation can still draw
        return t if n_in and t + reach - 1 >= self.talon.n - self.talon.window else None

    def _chain(self, m: int, stoppers: int, skipped: int, t: int | None, n_in: bool) -> dict[tuple, Fraction]:
        out: dict[tuple, Fraction] = defaultdict(Fraction)
        r = m + stoppers + skipped
        qn = self.talon.q(t, n_in) if t is not None else Fraction(0)
        if r == 0 and qn == 0:
            return {("exhausted",): Fraction(1)}

        def then(weight: Fraction, m2: int, s2: int, n2: bool, drawn: int, seen: bool) -> None:
            t2 = self._t(m2, s2, (t or 0) + 1, n2) if t is not None else None
            for key, p in self.chain(m2, stoppers, s2, t2, n2).items():
                out[key if key == ("exhausted",) else (key[0] + drawn, key[1] or seen, key[2])] += weight * p

        if qn:
            if self.finir:
                out[(0, True, 13)] += qn  # TAL-D24: the Nameless ends the continuation with +13
            elif self.uniforme:
                then(qn, m, skipped, False, 0, True)  # set aside like any arcanum
            else:
                out[(0, True, 0)] += qn  # an arcanum stops it (TAL-D07)
        if r:
            rest = 1 - qn
            if m:
                then(rest * Fraction(m, r), m - 1, skipped, n_in, 1, False)
            if stoppers:
                out[(0, False, 0)] += rest * Fraction(stoppers, r)
            if skipped:
                then(rest * Fraction(skipped, r), m, skipped - 1, n_in, 0, False)
        return dict(out)


@lru_cache(maxsize=None)
def _subset_sums(ranks: tuple[int, ...]) -> list[dict[int, int]]:
    """counts[j][s] = number of j-card subsets of `ranks` whose ranks sum to s."""
    counts: list[dict[int, int]] = [defaultdict(int) for _ in range(len(ranks) + 1)]
    counts[0][0] = 1
    for rank in ranks:
        for j in range(len(ranks) - 1, -1, -1):
            for total, c in list(counts[j].items()):
                counts[j + 1][total + rank] += c
    return [dict(c) for c in counts]


class OrderSource:
    """Cards in one fixed order, revealed as the virtual deck would (for sampling and checks).
    Raises TalonExhausted when a card is needed after the last one."""

    def __init__(self, order: tuple[str, ...] | list[str]) -> None:
        self.order, self.i = tuple(order), 0

    def next(self, why: str) -> Card:
        if self.i >= len(self.order):
            raise TalonExhausted(why)
        self.i += 1
        return parse_card(self.order[self.i - 1])

    def draw_to_reserve(self, player: str) -> str | None:
        if self.i >= len(self.order):
            return None  # the deck would reshuffle first (TAL-D06): the card is not known here
        self.i += 1
        return self.order[self.i - 1]

    def known_remaining(self) -> list[str]:
        return list(self.order[self.i:])

    def leftover(self) -> list[str]:
        return []


class TalonExhausted(Exception):
    """The talon ran out in the middle of a sampled or enumerated test (TAL-D06)."""


SAMPLES = 20000
CONFIDENCE = 0.99


def sampled_odds(inputs: dict[str, Any], procedure_id: str, *, samples: int = SAMPLES, seed: int | None = None,
                 bottom_pile: int = BOTTOM_PILE) -> dict[str, Any]:
    """Odds of a test by sampling, for what the enumeration does not cover (Sans limite ou presque:
    a suit choice at every card): `samples` orders of the cards left, drawn as the model of this
    module says, each resolved by the real engine (talon.run_test with its GEN-D05 defaults).
    Error bound (Hoeffding): each reported probability is within sqrt(ln(2/0.01) / (2 * samples))
    of the exact one with 99 % confidence (0.0115 for 20000 samples)."""
    import math
    import random

    from .talon import run_test

    rng = random.Random(seed)
    ids = remaining_cards(inputs)
    others = [c for c in ids if c != NAMELESS]
    window = min(bottom_pile, len(ids))
    counts: dict[str, int] = defaultdict(int)
    totals: dict[int, int] = defaultdict(int)
    cycle = 0
    clean = {k: v for k, v in inputs.items() if k not in ("cards_revealed", "deck_file", "remaining_cards")}
    for _ in range(samples):
        order = others[:]
        rng.shuffle(order)
        if len(others) < len(ids):
            order.insert(rng.randrange(len(ids) - window, len(ids)), NAMELESS)
        try:
            out = run_test(clean, OrderSource(order))
        except TalonExhausted:
            counts["talon_exhausted"] += 1
            continue
        counts[out["grade"]] += 1
        cycle += out["cycle_end_after_test"]
        if "total" in out:
            totals[out["total"]] += 1
    frac = {g: Fraction(counts[g], samples) for g in GRADES if counts.get(g)}
    success = sum((frac.get(g, Fraction(0)) for g in ("simple", "special", "critical")), Fraction(0))
    bound = math.sqrt(math.log(2 / (1 - CONFIDENCE)) / (2 * samples))
    return odds_result(procedure_id, frac,
                       method=f"sampled: {samples} random orders of the {len(ids)} cards left, each resolved by the "
                              f"engine; each probability within +/-{bound:.4f} at {CONFIDENCE:.0%} (Hoeffding)",
                       error_bound=round(bound, 4), success=success, critical=frac.get("critical", Fraction(0)),
                       special_or_better=frac.get("special", Fraction(0)) + frac.get("critical", Fraction(0)),
                       critical_failure=frac.get("critical_failure", Fraction(0)),
                       cycle_end=Fraction(cycle, samples), cards_left=len(ids),
                       totals=[{"total": t, **probability_json(Fraction(c, samples))} for t, c in sorted(totals.items())])


def _params(inputs: dict[str, Any]) -> dict[str, Any]:
    value = as_int(inputs.get("skill_value", inputs.get("attribute_value", inputs.get("value"))), "skill_value")
    mods = modifier_sum(inputs.get("modifiers"))
    if inputs.get("context") is not None:
        mods += context_modifier({"context": inputs["context"]})["modifier"]
    atouts = atout_levels(inputs.get("atouts"))
    return {"value": value, "effective": value + mods, "difficulty": as_int(inputs.get("difficulty", DIFFICULTY), "difficulty"),
            "spent": as_int(inputs.get("cheap_chips_spent", 0), "cheap_chips_spent"), "atouts": atouts,
            "archetype": inputs.get("archetype"), "skill_suit": skill_suit_of(inputs),
            "declared": str(inputs["declared_suit"]).upper() if inputs.get("declared_suit") else None,
            "fumble_choice": fold_key(inputs.get("fumble_choice", inputs.get("player_choice", "accept_critical")))}


def _arch(p: dict[str, Any], card: Card) -> int:
    return archetype_modifier_of(p["archetype"], p["skill_suit"], card)


def _fumble_split(p: dict[str, Any], talon: _Talon, gone: list[Card], arcana: int, t: int,
                  n_in: bool) -> dict[str, Fraction]:
    """critical_failure / normal_failure after an Ace (TAL-D05, TAL-D20), and under "nameless" the
    probability that the next card (check card, or the card drawn into the reserve) is the Nameless."""
    if p["fumble_choice"] != "reveal_check_card":  # the card drawn into the reserve may be the Nameless
        return {"critical_failure": Fraction(1), "nameless": talon.q(t, n_in)}
    gone_ids = {c.id for c in gone}
    honours = [c for c in talon.honours if c.id not in gone_ids]
    r = len(honours) + arcana
    qn = talon.q(t, n_in)
    if r == 0 and qn == 0:
        return {"talon_exhausted": Fraction(1)}
    bonus = DEMOLITION_FUMBLE_BONUS if p["atouts"].get("demolition_man") else 0
    kings = sum(1 for c in honours if c.rank == 13)
    high = sum(1 for c in talon.arcana if (c.number or 0) + bonus > p["value"])
    # the arcana left are a uniform subset of the talon's arcana: P(next is a given arcanum) is equal
    p_high = Fraction(arcana, r) * Fraction(high, len(talon.arcana)) if talon.arcana and r else Fraction(0)
    critical = (1 - qn) * (Fraction(kings, r) + p_high) if r else Fraction(0)
    return {"critical_failure": critical, "normal_failure": 1 - critical, "nameless": qn}


def _starts(card: Card, atouts: dict[str, int]) -> bool:
    return card.kind == "nameless" or card.rank == 13 or (bool(atouts.get("une_veine_de_cocu")) and card.rank in (11, 12))


def _best_suit(honours: list[Card], n: int, p: dict[str, Any]) -> str:
    """The engine's default continuation suit (talon.default_suit_order) for these cards left."""
    gains = suit_gains(honours, n, p["archetype"], p["skill_suit"])
    return min(SUITS, key=lambda s: (-gains[s], SUITS.index(s)))


def _kept(p: dict[str, Any], showing: list[Card], mode: str) -> tuple[Card, Card | None]:
    if mode == "normal":
        return showing[0], None
    worth = [(13 if c.kind == "nameless" else c.rank or 0) + _arch(p, c) for c in showing]
    if mode == "advantage":
        i = max(range(2), key=lambda j: (_starts(showing[j], p["atouts"]), worth[j], -j))
    else:
        i = min(range(2), key=lambda j: (worth[j], j))
    return showing[i], showing[1 - i]


def odds_of_test(inputs: dict[str, Any], procedure_id: str | None = None, *,
              bottom_pile: int = BOTTOM_PILE) -> dict[str, Any]:
    """Exact odds of a Talon test (talon.simple_test / talon.advantage / talon.king_continuation)
    over the cards left (module docstring). inputs as the test's, plus "deck_file" or
    "remaining_cards"; cards_revealed is ignored (odds are before the reveal). player_choice for an
    Ace defaults to accept_critical; the King's suit to declared_suit or the GEN-D05 default.
    bottom_pile: the cycle's bottom pile (11, seed 002); other values only serve to check the
    enumeration against brute force on small decks.
    Returns the odds JSON: outcomes by grade, success/failure/special_or_better/critical/
    critical_failure/cycle_end summaries, totals (total -> probability), cards_left, mean_total."""
    p = _params(inputs)
    if sans_limite_level(p["atouts"]):
        return sampled_odds(inputs, procedure_id or "talon.simple_test", bottom_pile=bottom_pile)
    mode = fold_key(inputs.get("mode", "advantage" if procedure_id == "talon.advantage" else "normal"))
    if mode not in ("normal", "advantage", "disadvantage"):
        raise RulesError(f"mode {inputs.get('mode')!r} must be normal, advantage or disadvantage")
    ids = remaining_cards(inputs)
    talon = _Talon(ids, bottom_pile)
    finir, uniforme = bool(p["atouts"].get("finir_en_beaute")), bool(p["atouts"].get("uniforme_continuite"))
    cont = _Continuation(talon, uniforme, finir)
    k = 1 if mode == "normal" else 2
    grades: dict[str, Fraction] = defaultdict(Fraction)
    totals: dict[int, Fraction] = defaultdict(Fraction)
    cycle_end = Fraction(0)
    nameless_card = Card("nameless")
    pending: dict[tuple, Fraction] = defaultdict(Fraction)

    def settle(prob: Fraction, total: int) -> None:
        grades[grade_of(total - p["difficulty"])] += prob
        totals[total] += prob

    for key, prob in _first_cards(talon, k, finir).items():
        if key == ("exhausted",):
            grades["talon_exhausted"] += prob
            continue
        t, arcana, n_in, seen, pattern = key
        if seen:
            cycle_end += prob
        h_count = pattern.count("H")
        n_h = len(talon.honours)
        if h_count > n_h:
            continue
        perms = 1
        for i in range(h_count):
            perms *= n_h - i
        for combo in _ordered(talon.honours, h_count):
            it = iter(combo)
            showing = [next(it) if x == "H" else nameless_card for x in pattern]
            kept, other = _kept(p, showing, mode)
            pp = prob / perms
            gone = [c for c in showing if c.is_honour]
            if kept.is_honour and kept.rank == 1:
                split = _fumble_split(p, talon, gone, arcana, t, n_in)
                cycle_end += pp * split.pop("nameless", 0)
                for g, q in split.items():
                    grades[g] += pp * q
                continue
            base = p["effective"] + p["spent"]
            if not _starts(kept, p["atouts"]):
                settle(pp, base + (kept.rank or 0) + _arch(p, kept))
                continue
            start = 13 if kept.kind == "nameless" else kept.rank or 0
            start += _arch(p, kept) if kept.is_honour else 0
            gone_ids = {c.id for c in gone}
            left = [c for c in talon.honours if c.id not in gone_ids]
            suit = p["declared"] or _best_suit(left, talon.n - t, p)
            ranks = tuple(sorted(c.rank or 0 for c in left if c.suit == suit))
            others = len(left) - len(ranks)
            per_card = _arch(p, Card("honour", 2, suit))
            pending[(cont.key(ranks, others, arcana, t, n_in, per_card), base + start)] += pp
    for (ckey_state, before), pp in pending.items():  # each distinct continuation once
        for ckey, q in cont._points(*ckey_state).items():
            if ckey == ("exhausted",):
                grades["talon_exhausted"] += pp * q
                continue
            added, seen_now = ckey
            if seen_now:
                cycle_end += pp * q
            settle(pp * q, before + added)
    dist = {g: grades[g] for g in GRADES if grades.get(g)}
    success = sum((grades[g] for g in ("simple", "special", "critical")), Fraction(0))
    mass = sum(totals.values(), Fraction(0))
    return odds_result(
        procedure_id or ("talon.advantage" if mode != "normal" else "talon.simple_test"), dist,
        method=METHOD.format(n=talon.n, w=talon.window if talon.nameless else "(not in the talon)"),
        success=success, failure=1 - success - grades["talon_exhausted"],
        special_or_better=grades["special"] + grades["critical"], critical=grades["critical"],
        critical_failure=grades["critical_failure"], cycle_end=cycle_end,
        totals=[{"total": tot, **probability_json(q)} for tot, q in sorted(totals.items())],
        mean_total=str(sum((tot * q for tot, q in totals.items()), Fraction(0)) / mass) if mass else None,
        cards_left=talon.n)


def _ordered(honours: list[Card], k: int):
    if k == 0:
        yield ()
        return
    for i, c in enumerate(honours):
        for rest in _ordered(honours[:i] + honours[i + 1:], k - 1):
            yield (c,) + rest


def fumble_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds of the Ace rule's outcome (talon.ace_fumble) over the cards left (after the Ace): with
    player_choice reveal_check_card, P(King or arcanum number (+3 Demolition man) > skill) is a
    critical failure; accept_critical is a certain critical failure. Exact (fractions)."""
    p = _params({**inputs, "player_choice": inputs.get("player_choice", "reveal_check_card")})
    ids = [c for c in remaining_cards(inputs) if c != parse_card(inputs.get("first_honour", "1E")).id]
    talon = _Talon(ids)
    split = _fumble_split(p, talon, [], len(talon.arcana), 0, talon.nameless)
    nameless = split.pop("nameless", Fraction(0))
    return odds_result("talon.ace_fumble", {g: q for g, q in split.items() if q}, method=METHOD.format(
        n=talon.n, w=talon.window if talon.nameless else "(not in the talon)"),
        critical_failure=split.get("critical_failure", 0), cycle_end=nameless, cards_left=talon.n)


def continuation_odds(inputs: dict[str, Any]) -> dict[str, Any]:
    """Odds of a test once its King is showing (talon.king_continuation): the King is the first card
    of cards_revealed or "king" (default 13E); the continuation draws from the cards left."""
    p = _params(inputs)
    if sans_limite_level(p["atouts"]):
        raise RulesError("odds of a continuation under way with Sans limite ou presque are not computed; "
                         "ask the odds of the whole test (talon.simple_test), which are sampled")
    first = inputs.get("king") or (inputs.get("cards_revealed") or ["13E"])[0]
    king = parse_card(first)
    if not _starts(king, p["atouts"]):
        raise RulesError(f"{first} does not start a continuation (a King, or Queen/Knight with Une veine de cocu)")
    ids = [c for c in remaining_cards(inputs) if c != king.id]
    talon = _Talon(ids)
    cont = _Continuation(talon, bool(p["atouts"].get("uniforme_continuite")), bool(p["atouts"].get("finir_en_beaute")))
    suit = p["declared"] or _best_suit(talon.honours, talon.n, p)
    ranks = tuple(sorted(c.rank or 0 for c in talon.honours if c.suit == suit))
    start = (13 if king.kind == "nameless" else king.rank or 0) + (_arch(p, king) if king.is_honour else 0)
    base = p["effective"] + p["spent"] + start
    grades: dict[str, Fraction] = defaultdict(Fraction)
    totals: dict[int, Fraction] = defaultdict(Fraction)
    cycle = Fraction(0)
    for key, q in cont.dist(ranks, len(talon.honours) - len(ranks), len(talon.arcana), 0, talon.nameless,
                            _arch(p, Card("honour", 2, suit))).items():
        if key == ("exhausted",):
            grades["talon_exhausted"] += q
            continue
        grades[grade_of(base + key[0] - p["difficulty"])] += q
        totals[base + key[0]] += q
        cycle += q if key[1] else 0
    success = sum((grades[g] for g in ("simple", "special", "critical")), Fraction(0))
    return odds_result("talon.king_continuation", {g: grades[g] for g in GRADES if grades.get(g)},
                       method=METHOD.format(n=talon.n, w=talon.window if talon.nameless else "(not in the talon)"),
                       declared_suit=suit, success=success, special_or_better=grades["special"] + grades["critical"],
                       critical=grades["critical"], cycle_end=cycle,
                       totals=[{"total": tot, **probability_json(q)} for tot, q in sorted(totals.items())],
                       cards_left=talon.n)
