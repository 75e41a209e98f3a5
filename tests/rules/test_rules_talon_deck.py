"""The virtual Talon de la Destinée (issue 3 item 6; RULES.md 3.1-3.3, TAL-D02, D03, D06, D34)."""

from __future__ import annotations

import json
import os
import random
import secrets
from collections import Counter

import pytest
from scipy.stats import chisquare

from dicetower.rules import RulesError
from dicetower.rules.talon_deck import (ARCANA_NUMBERS, NAMELESS, Deck, DeckStateError, full_deck,
                                        parse_card)


def test_the_deck_holds_74_cards_52_honours_21_arcana_and_the_nameless():
    cards = [parse_card(c) for c in full_deck()]
    assert len(cards) == len({c.id for c in cards}) == 74
    kinds = Counter(c.kind for c in cards)
    assert kinds == {"honour": 52, "arcanum": 21, "nameless": 1}
    assert Counter(c.suit for c in cards if c.is_honour) == {"E": 13, "C": 13, "D": 13, "B": 13}
    assert sorted(c.number for c in cards if c.kind == "arcanum") == list(ARCANA_NUMBERS)
    assert 13 not in ARCANA_NUMBERS and 0 in ARCANA_NUMBERS  # TAL-D01: XIII is the Nameless, Le Mat = 0


@pytest.mark.parametrize("code,message", [("14C", "no Valet"), ("0E", "no Valet"), ("ARC13", "NAMELESS"),
                                          ("ARC22", "does not exist"), ("5X", "unknown card"), ("", "unknown card")])
def test_cards_outside_the_74_are_refused(code, message):
    with pytest.raises(RulesError, match=message):
        parse_card(code)


def test_orientation_and_labels():
    assert parse_card("ARC7r").reversed and parse_card("ARC7r").code == "ARC7r"
    assert parse_card("ARC7").label() == "VII" and parse_card("ARC0").label() == "Mat"
    assert parse_card("13D").label() == "K-D" and parse_card(NAMELESS).label() == "SansNom"


def test_the_default_random_source_is_cryptographic():
    assert isinstance(Deck(["a"]).rng, secrets.SystemRandom)


def test_cycle_start_puts_the_nameless_among_the_bottom_11_and_deals_reserves():
    for _ in range(200):
        deck = Deck(["p1", "p2", "p3"], extra_cards={"p2": 1})
        result = deck.cycle_start()
        assert result["cards_dealt"] == {"p1": 1, "p2": 2, "p3": 1}
        assert result["talon_size_before_deal"] == 74 and result["talon_size_after_deal"] == 70
        assert result["top_segment_size"] == 63
        assert NAMELESS in deck.talon[-11:]
        held = [c for r in deck.reserves.values() for c in r]
        assert sorted(deck.talon + held) == sorted(full_deck())


def test_the_nameless_position_is_uniform_over_the_bottom_11_and_orientations_are_fair():
    rng = random.Random(20261121)  # seeded so the statistical check is repeatable
    positions, reversed_ = Counter(), 0
    n = 4400
    for _ in range(n):
        deck = Deck(["p1"], rng=rng)
        deck.cycle_start({"p1": 1})  # deal nothing: the whole shuffled talon is inspected
        positions[len(deck.talon) - deck.talon.index(NAMELESS)] += 1
        reversed_ += sum(deck.orientation.values())
    assert set(positions) == set(range(1, 12))
    assert chisquare([positions[i] for i in range(1, 12)]).pvalue > 0.001
    assert abs(reversed_ / (n * 74) - 0.5) < 0.01


def test_state_survives_a_restart_and_is_written_atomically(tmp_path):
    path = tmp_path / "decks" / "talon.json"
    deck = Deck(["ana", "bo"])
    deck.cycle_start()
    first = deck.reveal("ana")
    deck.cheap_chips["bo"] = 3
    deck.save(path)
    again = Deck.load(path)
    assert again.to_json() == deck.to_json()
    assert again.in_play == [parse_card(first).id] and again.cheap_chips["bo"] == 3
    assert os.listdir(path.parent) == ["talon.json"]  # no temporary file left behind
    again.finish_test()
    again.save(path)
    assert json.loads(path.read_text())["discard"] == [parse_card(first).id]


@pytest.mark.parametrize("damage", ["{not json", json.dumps({"version": 1}), "__duplicate__"])
def test_a_corrupt_state_file_is_refused_naming_the_file_and_left_untouched(tmp_path, damage):
    path = tmp_path / "talon.json"
    if damage == "__duplicate__":
        deck = Deck(["ana"])
        deck.cycle_start()
        state = deck.to_json()
        state["discard"].append(state["talon"][0])
        damage = json.dumps(state)
    path.write_text(damage)
    with pytest.raises(DeckStateError, match=str(path)):
        Deck.load(path)
    assert path.read_text() == damage


def test_a_missing_state_file_is_a_clear_error(tmp_path):
    with pytest.raises(DeckStateError, match="cannot read deck state"):
        Deck.load(tmp_path / "none.json")


def _deck_with_order(order, players=("ana", "bo")):
    deck = Deck(list(players))
    deck.cycle_start({p: 1 for p in players})  # nothing dealt
    rest = [c for c in deck.talon if c not in order]
    deck.talon = list(order) + rest
    return deck


def test_revealing_the_nameless_ends_the_cycle_after_the_test_with_a_chip():
    deck = _deck_with_order([NAMELESS, "7C"])
    deck.reserves["bo"] = []
    assert deck.reveal("ana") == NAMELESS and deck.pending_cycle_end == {"revealer": "ana", "chip": True}
    deck.reveal("ana")
    result = deck.finish_test()
    assert result["cheap_chips_delta"] == {"ana": 1} and deck.cheap_chips["ana"] == 1
    assert deck.pending_cycle_end is None and deck.cycle == 2 and NAMELESS in deck.talon[-11:]
    assert all(len(r) == 1 for r in deck.reserves.values())  # new deal of 1 each


def test_fil_rouge_cards_stay_out_of_the_reshuffle_and_count_against_the_deal():
    deck = Deck(["ana", "bo"], extra_cards={"ana": 1})
    deck.cycle_start()
    kept = deck.reserves["ana"][0]
    deck.talon.remove(NAMELESS)
    deck.talon.insert(0, NAMELESS)
    deck.reveal("bo")
    deck.discard += deck.in_play  # test step 5 by hand, so that the keep choice reaches cycle_end
    deck.in_play = []
    result = deck.cycle_end({"ana": [kept]})
    assert result["kept"] == {"ana": [kept]}
    assert kept not in deck.talon and deck.reserves["ana"][0] == kept
    assert len(deck.reserves["ana"]) == 2  # 1 + 1 (Élargir) - 1 kept, plus the kept card
    assert len(deck.talon) + 2 + 1 == 74


def test_an_exhausted_talon_reshuffles_without_a_chip():
    deck = Deck(["ana"])
    deck.cycle_start({"ana": 1})
    deck.talon = deck.talon[-2:]
    deck.discard = [c for c in full_deck() if c not in deck.talon]
    for _ in range(2):
        deck.reveal("ana")
        deck.finish_test()
    assert deck.cheap_chips["ana"] <= 1  # only a Nameless among the two revealed gives a chip
    chips = deck.cheap_chips["ana"]
    cycle = deck.cycle
    deck.talon = []
    deck.discard = [c for c in full_deck() if c not in deck.reserves["ana"]]
    card = deck.reveal("ana")
    assert deck.cycle == cycle + 1 and deck.cheap_chips["ana"] == chips
    assert parse_card(card).id in deck.in_play


def test_a_nameless_drawn_into_a_reserve_counts_as_revealed():
    deck = _deck_with_order([NAMELESS])
    assert deck.draw_to_reserve("bo") == NAMELESS
    assert deck.pending_cycle_end == {"revealer": "bo", "chip": True}


def test_reserve_reveal_sets_the_chosen_orientation_and_checks_the_card():
    deck = Deck(["ana"])
    deck.cycle_start({"ana": 0})
    card = deck.reserves["ana"][0]
    with pytest.raises(RulesError, match="not in ana's reserve"):
        deck.reveal_from_reserve("ana", next(c for c in full_deck() if c != card), False)
    code = deck.reveal_from_reserve("ana", card, True)
    assert parse_card(code).id == card and deck.reserve_reveals_used["ana"] == 1
    assert deck.orientation[card] is True


def test_the_public_view_hides_the_order_and_the_reserves():
    deck = Deck(["ana", "bo"], extra_cards={"bo": 2})
    deck.cycle_start()
    view = deck.public_view()
    assert view["talon_size"] == 70 and view["reserve_sizes"] == {"ana": 1, "bo": 3}
    text = json.dumps(view)
    assert not any(f'"{c}"' in text for c in full_deck())


def test_a_save_that_fails_midway_leaves_the_previous_state_whole(tmp_path, monkeypatch):
    path = tmp_path / "talon.json"
    deck = Deck(["ana"])
    deck.cycle_start()
    deck.save(path)
    before = path.read_bytes()
    deck.reveal("ana")

    def crash(*args, **kwargs):
        raise OSError("disk pulled out")

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(OSError, match="disk pulled out"):
        deck.save(path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["talon.json"]
    assert Deck.load(path).to_json() != deck.to_json()
