"""Each of the five seed systems runs on the simulated tower from its table profile (issue 3 item 10):
a press of ROLL on the simulated tower, a known real photo in the replay camera, and the outcome the
rules engine gives for the photo's labelled dice must be on the OLED and in the log."""

import shutil
import time
from pathlib import Path

import pytest

from dicetower import paths, rules
from dicetower.audit.rolllog import RollLog
from dicetower.link import TowerLink
from dicetower.readings import DieReading
from dicetower.service.roll import RollPipeline
from dicetower.service.table import Table
from dicetower.service.tower import TowerService
from dicetower.sim import SimTower
from dicetower.vision.camera import ReplayCamera
from dicetower.vision.reader import DiceReader
from dicetower.vision.scoring import load_labels

pytestmark = pytest.mark.e2e
DEMO = paths.repo_root() / "demo" / "matteop65"
TABLES = paths.repo_root() / "tables"

# system -> (profile, demo photo whose labelled dice the roll uses, outcome keys to compare)
CASES = {
    "d6pool": ("d6pool.toml", "valid_76.jpg", ["successes", "outcome"]),
    "alkemy": ("alkemy.toml", "valid_36.jpg", ["kept", "total", "success"]),
    "stepdie": ("stepdie.toml", "valid_20.jpg", ["outcome"]),
    "talon": ("talon.toml", "valid_32.jpg", ["raw", "damage"]),
    "throwing_stones": ("throwing_stones.toml", "valid_46.jpg", ["per_die", "HP"]),
}


def labelled(photo: str) -> list[int]:
    """Labelled values of one shipped demo photo."""
    return [int(r["value"]) for image, rows in load_labels(DEMO).items() if Path(image).name == photo for r in rows]


@pytest.fixture(scope="module")
def tower():
    with SimTower() as sim:
        link = TowerLink(sim.serial_url)
        link.handshake()
        yield sim, link
        link.close()


@pytest.mark.parametrize("system", sorted(CASES))
def test_system_resolves_a_known_photo_on_the_tower(system, tower, tmp_path):
    sim, link = tower
    profile, photo, keys = CASES[system]
    shutil.copy(TABLES / profile, tmp_path / profile)  # outcomes may save state into the profile
    table = Table(tmp_path / profile)
    assert table.profile["system"] == system
    truth = [DieReading("d6", v, (0, 0, 1, 1), 1.0, colour="white") for v in labelled(photo)]
    expected = rules.resolve(table.plan.procedure, table.plan.build_inputs(truth))

    with RollLog(tmp_path / "rolls.sqlite") as log:
        service = TowerService(link, ReplayCamera([DEMO / photo]),
                               RollPipeline(DiceReader(), log, table.plan, table),
                               idle_line=table.idle_line(), confirm_timeout_s=1.0)
        service.start()
        sim.press("roll")
        deadline = time.monotonic() + 60
        result = None
        while result is None and time.monotonic() < deadline:
            result = service.poll(0.1)
        assert result is not None, "no ROLL reached the host"
        assert result.outcome["roll_status"] == "resolved", result.outcome
        for key in keys:
            assert result.outcome[key] == expected[key], key
        assert sim.wait_until(lambda: sim.shows(result.screen, result.big), 5.0), sim.oled_text_art()
        assert log.rolls()[-1]["outcome"]["roll_status"] == "resolved"


DEMOLITION_TABLE = """name = "Demolition man"
system = "talon"

[roll]
procedure = "talon.demolition_man"
dice_input = "throws"
inputs = { dice = "3D6" }
apply = { damage_before_armour = "characters.garde.wounds" }

[characters.garde]
wounds = 0
"""


def test_a_rethrow_asked_on_the_oled_completes_the_roll_at_the_next_press(tower, tmp_path):
    """Talon's Demolition man (TAL-D20, GEN-D03): valid_46 shows 2, 1, 3; the tower asks for the 1 again, and
    valid_14 (one 3) is that re-throw: 2 + 1 + 3 + 3 = 9, logged as two rolls and added to the wounds once."""
    sim, link = tower
    (tmp_path / "talon.toml").write_text(DEMOLITION_TABLE)
    table = Table(tmp_path / "talon.toml")
    with RollLog(tmp_path / "rolls.sqlite") as log:
        service = TowerService(link, ReplayCamera([DEMO / "valid_46.jpg", DEMO / "valid_14.jpg"]),
                               RollPipeline(DiceReader(), log, table.plan, table), confirm_timeout_s=1.0)
        service.start()
        results = []
        for _ in range(2):
            sim.press("roll")
            deadline, result = time.monotonic() + 60, None
            while result is None and time.monotonic() < deadline:
                result = service.poll(0.1)
            assert result is not None, "no ROLL reached the host"
            results.append(result)
            assert sim.wait_until(lambda: sim.shows(result.screen, result.big), 5.0), sim.oled_text_art()
            if len(results) == 1:
                assert result.screen[-2] == "REROLL 1: ROLL" and table.profile["characters"]["garde"]["wounds"] == 0
        first, last = results
        assert last.outcome["rethrow_of"] == first.roll_id and last.outcome["damage_before_armour"] == 9
        assert Table(tmp_path / "talon.toml").profile["characters"]["garde"]["wounds"] == 9
        assert [len(r["dice"]) for r in log.rolls()] == [3, 1]
