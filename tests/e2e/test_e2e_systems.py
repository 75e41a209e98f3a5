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
