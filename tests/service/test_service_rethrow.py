"""Physical re-throws through the tower (GEN-D03): an outcome that asks for some dice again waits for the next
ROLL, whose dice are merged into the asking roll (Talon's Demolition man, a Throwing Stones mulligan); a wrong
re-throw is refused and stays pending; an optional one may be declined with NO; every throw is logged, and the
table's state changes once, with the outcome that asks for nothing more."""

from types import SimpleNamespace

import numpy as np

from dicetower.audit.rolllog import RollLog
from dicetower.readings import DieReading
from dicetower.service.plan import RollPlan
from dicetower.service.roll import RollPipeline
from dicetower.service.tower import TowerService

from test_service_tower import ScriptedLink, event


class Throws:
    """A reader that reads the next scripted throw at each frame."""

    def __init__(self, throws):
        self.throws = list(throws)

    def read(self, image):
        return self.throws.pop(0)


class Camera:
    def read(self):
        return SimpleNamespace(image=np.zeros((8, 8, 3), np.uint8), source="memory")


class Table:
    """Records the outcomes applied to the table's state."""

    def __init__(self):
        self.applied = []

    def apply(self, outcome):
        self.applied.append(outcome)
        return ["applied"]


def d6(value):
    return DieReading("d6", value, (0, 0, 20, 20), 0.99)


def stone(stone_id, face):
    return DieReading("stone", face, (0, 0, 20, 20), 0.95, die_id=stone_id)


CATALOGUE = {"ash": [{"colour": "ruby"}, {"colour": "silver"}, {"colour": "silver"}, {"colour": "gold"},
                     {"colour": "silver", "effects": ["chance"]}, {"colour": "rainbow"}],
             "birch": [{"colour": "gold"}, {"colour": "gold"}, {"colour": "silver"}, {"colour": "ruby"},
                       {"colour": "ruby"}, {"colour": "gold"}]}


def tower(tmp_path, plan, throws, events):
    log, link, table = RollLog(tmp_path / "rolls.sqlite"), ScriptedLink(events), Table()
    pipeline = RollPipeline(Throws(throws), log, plan, table)
    return TowerService(link, Camera(), pipeline), link, log, table


DEMOLITION = RollPlan("talon.demolition_man", "throws", {"dice": "1D6"})


def test_demolition_man_waits_for_each_1_thrown_again_and_applies_the_total_once(tmp_path):
    svc, link, log, table = tower(tmp_path, DEMOLITION, [[d6(1)], [d6(1)], [d6(3)]], [event("ROLL")] * 3)
    first = svc.poll(1.0)
    assert first.outcome["reroll_request"]["dice"] == [0] and link.screens[-1] == first.screen
    assert first.big == "1" and first.screen == ["DEMOLITION MAN", "REROLL 1: ROLL", "hold NO: give up"]
    assert svc.pipeline.pending.roll_id == first.roll_id and table.applied == []
    second = svc.poll(1.0)
    assert second.outcome["rethrow_of"] == first.roll_id and second.outcome["damage_before_armour"] == 2
    last = svc.poll(1.0)
    assert last.outcome["rethrow_of"] == second.roll_id and last.outcome["complete"] is True
    assert last.outcome["damage_before_armour"] == 1 + 1 + 3 and svc.pipeline.pending is None
    assert table.applied == [last.outcome] and last.state_changes == ["applied"]
    assert [[d["face"] for d in r["dice"]] for r in log.rolls()] == [[1], [1], [3]]  # every physical throw logged
    log.close()


def test_a_rethrow_of_the_wrong_dice_is_refused_and_stays_pending(tmp_path):
    svc, link, log, table = tower(tmp_path, DEMOLITION, [[d6(1)], [d6(3), d6(4)], [d6(4)]], [event("ROLL")] * 3)
    first = svc.poll(1.0)
    refused = svc.poll(1.0)
    assert refused.outcome["roll_status"] == "rethrow" and "showed 1" in refused.outcome["reason"]
    assert link.screens[-1][0] == "THROW AGAIN" and svc.pipeline.pending.roll_id == first.roll_id
    done = svc.poll(1.0)
    assert done.outcome["rethrow_of"] == first.roll_id and done.outcome["damage_before_armour"] == 5
    assert len(log.rolls()) == 3 and table.applied == [done.outcome]
    log.close()


def test_no_declines_an_optional_mulligan_and_the_first_throw_stands(tmp_path):
    plan = RollPlan("throwing_stones.characteristic_test", "roll", {"characteristic": "A", "catalogue": CATALOGUE})
    throws = [[stone("ash", 5), stone("birch", 3)]]  # one chance face: a mulligan is offered
    svc, link, log, table = tower(tmp_path, plan, throws, [event("ROLL"), event("BTN", name="no", press="short")])
    first = svc.poll(1.0)
    assert first.outcome["mulligan_allowed"] is True and link.screens[-1][-2:] == ["REROLL 2: ROLL", "NO: keep as is"]
    kept = svc.poll(1.0)
    assert kept.outcome["rethrow_declined"] is True and kept.outcome["rethrow_of"] == first.roll_id
    assert "reroll_request" not in kept.outcome and kept.outcome["result"] == first.outcome["result"] == 2
    assert svc.pipeline.pending is None and table.applied == [kept.outcome]
    assert [r["dice"] for r in log.rolls()][1] == [] and log.rolls()[1]["frame_sha256"] == first.frame_sha256
    log.close()


def test_a_mulligan_taken_merges_the_stones_by_identity_and_offers_no_second(tmp_path):
    plan = RollPlan("throwing_stones.characteristic_test", "roll", {"characteristic": "A", "catalogue": CATALOGUE})
    throws = [[stone("ash", 5), stone("birch", 3)], [stone("birch", 1), stone("ash", 5)]]
    svc, link, log, table = tower(tmp_path, plan, throws, [event("ROLL"), event("ROLL")])
    svc.poll(1.0)
    again = svc.poll(1.0)
    assert again.outcome["mulligan_allowed"] is False and "reroll_request" not in again.outcome
    assert again.outcome["result"] == 1  # ash still silver (chance), birch now gold: 1 silver
    assert svc.pipeline.pending is None and table.applied == [again.outcome]
    log.close()


def test_no_is_ignored_when_the_pending_rethrow_is_the_rule(tmp_path):
    events = [event("ROLL"), event("BTN", name="no", press="short")]
    svc, link, log, table = tower(tmp_path, DEMOLITION, [[d6(1)]], events)
    svc.poll(1.0)
    assert svc.poll(1.0) is None and svc.pipeline.pending is not None and len(log.rolls()) == 1
    log.close()


def test_no_typed_at_the_host_declines_too(tmp_path):
    plan = RollPlan("throwing_stones.characteristic_test", "roll", {"characteristic": "A", "catalogue": CATALOGUE})
    svc, link, log, table = tower(tmp_path, plan, [[stone("ash", 5), stone("birch", 3)]], [event("ROLL")])
    svc.poll(1.0)
    svc.answers.put("OK")  # no answer to a re-throw: dropped
    assert svc.poll(0.1) is None and svc.pipeline.pending is not None
    svc.answers.put("NO")
    assert svc.poll(0.1).outcome["rethrow_declined"] is True and svc.pipeline.pending is None
    log.close()


def test_a_held_no_abandons_a_pending_rethrow_and_the_next_roll_is_new(tmp_path):
    events = [event("ROLL"), event("BTN", name="no", press="long"), event("ROLL")]
    svc, link, log, table = tower(tmp_path, DEMOLITION, [[d6(1)], [d6(4)]], events)
    first = svc.poll(1.0)
    gave_up = svc.poll(1.0)
    assert gave_up.outcome == {**gave_up.outcome, "roll_status": "abandoned", "rethrow_of": first.roll_id}
    assert link.screens[-1][0] == "ABANDONED" and svc.pipeline.pending is None and table.applied == []
    new = svc.poll(1.0)
    assert "rethrow_of" not in new.outcome and new.outcome["damage_before_armour"] == 4
    assert [len(r["dice"]) for r in log.rolls()] == [1, 0, 1] and table.applied == [new.outcome]
    log.close()


def test_a_bersek_damage_roll_of_stones_that_all_count_asks_the_defender_not_the_attacker(tmp_path):
    """Bersek's rerolls go to the stones that add nothing (GEN-D05); with every stone a ruby there are none, and
    the tower asks at once for the defender's armour rerolls (no "REROLL 0" for the attacker to dismiss)."""
    plan = RollPlan("throwing_stones.damage", "damage_roll",
                    {"weapon": "dague", "worn_armour": ["cuir"], "attacker_attack_roll_effects": ["berserk"],
                     "catalogue": CATALOGUE})
    svc, link, log, table = tower(tmp_path, plan, [[stone("ash", 1), stone("birch", 4)]], [event("ROLL")])
    first = svc.poll(1.0)
    assert first.outcome["stage"] == "armour_reroll" and svc.pipeline.pending is not None
    assert svc.pipeline.pending.request["who"] == "defender" and svc.pipeline.pending.count >= 1
    assert f"REROLL {svc.pipeline.pending.count}: ROLL" in first.screen and table.applied == []
