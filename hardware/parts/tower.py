"""The tower body: a square chute with two 45 degree baffles, an exit ramp, the gate's hinge holes
and the servo's standoffs.

Built in the tower frame (see dimensions), which is also its print pose: upright, open top, the
baffles' undersides at 45 degrees print without support, the exit ramp is a solid wedge.
"""

import math
from dataclasses import dataclass

from manifold3d import Manifold, OpType

from . import dimensions as dim
from .solid import box, x_rod, yz_profile

WALL = dim.TOWER_WALL
INNER_X = (WALL, WALL + dim.CHUTE_W)
"""Chute inside across x (mm), tower frame."""
INNER_Y = (WALL, WALL + dim.CHUTE_D)
"""Chute inside along y, front wall to back wall (mm), tower frame."""
OUTER = (dim.CHUTE_W + 2 * WALL, dim.CHUTE_D + 2 * WALL, dim.TOWER_H)
"""Outside size x, y, z (mm)."""
HINGE_Y = INNER_Y[1] - dim.HUB_TO_BACK_WALL - dim.FLAP_HUB_R
"""y of the gate's hinge axis (the servo shaft), tower frame (mm)."""
HINGE_Z = dim.HINGE_Z
"""z of the gate's hinge axis (mm)."""


@dataclass(frozen=True)
class Ramp:
    """The upper face of a baffle or of the exit ramp, as a line in the tower's y-z plane (mm).

    `high` is its upper end at the wall it hangs from, `low` its lower end (a baffle's tip, or the
    exit ramp's end at the front wall's outer face). Dice roll from `high` to `low`.
    """

    high: tuple[float, float]
    low: tuple[float, float]

    @property
    def downhill(self) -> tuple[float, float]:
        """Unit vector (y, z) from `high` towards `low`."""
        dy, dz = self.low[0] - self.high[0], self.low[1] - self.high[1]
        n = math.hypot(dy, dz)
        return dy / n, dz / n

    @property
    def normal(self) -> tuple[float, float]:
        """Unit normal (y, z) of the face, pointing up into the chute."""
        uy, uz = self.downhill
        return (-uz, uy) if uy > 0 else (uz, -uy)


def ramps() -> list[Ramp]:
    """The baffles, top to bottom, then the exit ramp (upper faces, tower frame, mm).

    Baffle k hangs from the front wall when k is even, from the back wall when k is odd; each
    leaves dim.BAFFLE_GAP to the opposite wall. The exit ramp runs from the back wall down to the
    exit in the front wall at dim.EXIT_RAMP_ANGLE.
    """
    out = []
    reach = dim.CHUTE_D - dim.BAFFLE_GAP
    drop = reach * math.tan(math.radians(dim.BAFFLE_ANGLE))
    for k, z_top in enumerate(dim.BAFFLE_TOPS):
        if k % 2 == 0:
            out.append(Ramp((INNER_Y[0], z_top), (INNER_Y[0] + reach, z_top - drop)))
        else:
            out.append(Ramp((INNER_Y[1], z_top), (INNER_Y[1] - reach, z_top - drop)))
    slope = math.tan(math.radians(dim.EXIT_RAMP_ANGLE))
    out.append(Ramp((INNER_Y[1], dim.EXIT_SILL_Z + dim.CHUTE_D * slope),
                    (0.0, dim.EXIT_SILL_Z - WALL * slope)))
    return out


def _across_chute(profile_yz: list[tuple[float, float]]) -> Manifold:
    """Extrude a y-z polygon across the chute (x), 0.5 mm into each side wall."""
    return yz_profile(profile_yz, INNER_X[0] - 0.5, INNER_X[1] + 0.5)


def _baffle(ramp: Ramp) -> Manifold:
    ny, nz = ramp.normal
    uy, uz = ramp.downhill
    embed = 0.5  # into the wall it hangs from
    hy, hz = ramp.high[0] - uy * embed, ramp.high[1] - uz * embed
    ly, lz = ramp.low
    t = dim.BAFFLE_T
    return _across_chute([(hy, hz), (ly, lz), (ly - ny * t, lz - nz * t), (hy - ny * t, hz - nz * t)])


def _exit_wedge(ramp: Ramp) -> Manifold:
    (by, bz), (fy, fz) = ramp.high, ramp.low
    slope = (bz - fz) / (by - fy)
    back = by + 0.5
    return _across_chute([(fy, 0.0), (back, 0.0), (back, fz + (back - fy) * slope), (fy, fz)])


def servo_case_y() -> tuple[float, float]:
    """y range of the servo's case on the tower's outer servo-side face (mm).

    The servo lies on its side against the wall at x = 0, long axis along y, its case top on the
    wall, gear tower through the wall, shaft on the hinge axis, case reaching towards the front.
    """
    back = HINGE_Y + dim.SERVO_SHAFT_FROM_END
    return back - dim.SERVO_BODY[0], back


def servo_screw_points() -> list[tuple[float, float]]:
    """(y, z) of the servo's two tab screws on the tower's outer servo-side face (mm)."""
    front, back = servo_case_y()
    centre = (front + back) / 2
    return [(centre - dim.SERVO_TAB_PITCH / 2, HINGE_Z), (centre + dim.SERVO_TAB_PITCH / 2, HINGE_Z)]


def _servo_standoff(y: float, z: float) -> Manifold:
    """A standoff for one servo tab: from the case end's side clear of the case (0.45 mm), at most
    3 mm beyond the screw and within the tower's outline, with a 45 degree chamfer below it."""
    front, back = servo_case_y()
    h, s = dim.SERVO_TAB_TO_TOP, 3.0
    if y > back:
        y0, y1 = back + 0.45, min(y + s, OUTER[1])
    else:
        y0, y1 = max(y - s, 0.0), front - 0.45
    block = box(-h, 0.5, y0, y1, z - s, z + s)
    foot = box(0.0, 0.5, y0, y1, z - s - h - 0.5, z - s)
    return Manifold.batch_hull([block, foot])


def build() -> Manifold:
    """The tower body in its print pose (= tower frame), a closed solid (mm)."""
    shell = box(0, OUTER[0], 0, OUTER[1], 0, OUTER[2]) - box(
        INNER_X[0], INNER_X[1], INNER_Y[0], INNER_Y[1], -1, OUTER[2] + 1)
    exit_top = dim.EXIT_SILL_Z + dim.EXIT_H
    shell -= box(INNER_X[0], INNER_X[1], -1, WALL + 1, -1, exit_top)
    *baffles, exit_ramp = ramps()
    body = Manifold.batch_boolean([shell, *map(_baffle, baffles), _exit_wedge(exit_ramp)],
                                  OpType.Add)
    body += Manifold.batch_boolean([_servo_standoff(y, z) for y, z in servo_screw_points()],
                                   OpType.Add)
    for y, z in servo_screw_points():  # blind: the screw tip stays out of the chute
        body -= x_rod(dim.M2_PILOT, y, z, -dim.SERVO_TAB_TO_TOP - 1, WALL - dim.MIN_WALL - 0.3)
    body -= x_rod(dim.SERVO_TOWER_D + dim.FIT, HINGE_Y, HINGE_Z, -1, WALL + 0.01)
    body -= x_rod(dim.HINGE_PIN_D + dim.FIT, HINGE_Y, HINGE_Z, INNER_X[1] - 0.01, OUTER[0] + 1)
    return body
