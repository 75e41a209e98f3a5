"""The pinout the builder wires by (hardware/pinout.md) is the one the firmware uses (board.py)."""

import re

from dicetower import paths
from dicetower.sim.firmware_info import firmware_info


def test_pinout_table_matches_board_py():
    text = (paths.repo_root() / "hardware" / "pinout.md").read_text()
    rows = re.findall(r"^\|\s*(\d+)\s*\|.*\|\s*`(\w+)`\s*\|$", text, re.M)
    assert len(rows) >= 7
    board = firmware_info().board
    for gpio, const in rows:
        assert int(gpio) == board[const], f"pinout.md says {const} is GPIO {gpio}, board.py says {board[const]}"
