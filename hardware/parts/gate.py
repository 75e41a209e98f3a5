"""The gate: a flap on the servo shaft that closes the chute under the hopper.

The flap turns about the hinge axis (x, through the servo shaft). Its servo end has a rib with a
pocket for the servo's single-arm horn (hub and arm, flush with the flap's end face); its other
end has a pin that turns in a hole in the opposite tower wall. At the firmware's closed angle
(`GATE_CLOSED_DEG` in firmware/board.py) the flap lies level and holds the dice; at the open
angle it has swung down by GATE_OPEN_DEG - GATE_CLOSED_DEG degrees and the dice fall past it.
Mount the horn so that a growing servo angle lowers the flap's free end.

Print pose: standing on the horn-pocket end face (the plate and hub vertical, no support).
"""

import ast
from pathlib import Path

from manifold3d import Manifold, OpType

from . import dimensions as dim
from . import tower
from .solid import box, on_bed, x_rod

BOARD_PY = Path(__file__).resolve().parents[2] / "firmware" / "board.py"
"""The firmware's pin and angle table: the gate angles are read from it, never copied."""

X0 = tower.INNER_X[0] + dim.FLAP_SIDE_GAP
"""x of the flap's servo end face, tower frame (mm)."""
X1 = tower.INNER_X[1] - dim.FLAP_SIDE_GAP
"""x of the flap's pin end face, tower frame (mm)."""


def firmware_gate_angles(board_py: Path = BOARD_PY) -> tuple[int, int]:
    """(closed, open) servo angles in degrees, read from GATE_CLOSED_DEG and GATE_OPEN_DEG in the
    firmware's board.py (`NAME = const(VALUE)` or `NAME = VALUE`).

    Raises FileNotFoundError if board.py is missing, ValueError if either name is absent or is not
    an integer literal (fix board.py: the firmware needs them as const ints too).
    """
    found: dict[str, int] = {}
    for node in ast.parse(board_py.read_text(), str(board_py)).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1
                and isinstance(node.targets[0], ast.Name)):
            continue
        value = node.value
        if isinstance(value, ast.Call) and getattr(value.func, "id", None) == "const" and value.args:
            value = value.args[0]
        if isinstance(value, ast.Constant) and isinstance(value.value, int):
            found[node.targets[0].id] = value.value
    try:
        return found["GATE_CLOSED_DEG"], found["GATE_OPEN_DEG"]
    except KeyError as missing:
        raise ValueError(f"{board_py} has no integer {missing.args[0]} = const(...); the gate "
                         "model needs the firmware's closed and open servo angles") from None


def _flap_closed() -> Manifold:
    """The flap in the tower frame at the closed angle (plate level, mid-plane on the axis)."""
    hy, hz = tower.HINGE_Y, tower.HINGE_Z
    tip_y = tower.INNER_Y[0] + dim.FLAP_TIP_GAP
    half = dim.FLAP_T / 2
    rib_len = dim.HORN_ARM_LEN + 3.0
    flap = Manifold.batch_boolean([
        x_rod(2 * dim.FLAP_HUB_R, hy, hz, X0, X1),
        box(X0, X1, tip_y, hy, hz - half, hz + half),
        box(X0, X0 + dim.HORN_RIB_W, hy - rib_len, hy, hz - dim.HORN_RIB_H / 2, hz + dim.HORN_RIB_H / 2),
        x_rod(dim.HINGE_PIN_D, hy, hz, X1 - 0.5, tower.OUTER[0] - 0.5),
    ], OpType.Add)
    depth = dim.HORN_HUB_H + dim.FIT / 2
    slot_w = dim.HORN_ARM_W + dim.FIT
    pocket = x_rod(dim.HORN_HUB_D + dim.FIT, hy, hz, X0 - 1, X0 + depth) + box(
        X0 - 1, X0 + depth, hy - dim.HORN_ARM_LEN - dim.FIT / 2, hy, hz - slot_w / 2, hz + slot_w / 2)
    return flap - pocket


def flap_at(servo_deg: float, closed_deg: float) -> Manifold:
    """The flap in the tower frame with the servo at `servo_deg` degrees (mm).

    closed_deg: the firmware's closed angle, where the flap lies level. The flap turns about the
    hinge axis by servo_deg - closed_deg, free end downwards.
    """
    hinge = (0.0, tower.HINGE_Y, tower.HINGE_Z)
    return (_flap_closed().translate(tuple(-c for c in hinge))
            .rotate((servo_deg - closed_deg, 0, 0)).translate(hinge))


def build() -> Manifold:
    """The flap in its print pose: standing on the horn-pocket end face."""
    return on_bed(_flap_closed().rotate((0, -90, 0)))
