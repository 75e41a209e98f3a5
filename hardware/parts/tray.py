"""The tray the dice land in: an open box with a flat floor, a notch in its left wall where the
tower's exit meets it, and two screw holes in its back wall for the camera mast.

Built in the tray frame (origin at the centre of the floor's top face, y towards the back wall);
print pose: floor down. The floor's top must stay flat and matte for the camera: print it in a
matte filament that contrasts with the dice, ironing off (see hardware/README.md).
"""

from manifold3d import Manifold

from . import dimensions as dim
from .solid import box, on_bed

INNER = (dim.TRAY_IN[0] / 2, dim.TRAY_IN[1] / 2)
"""Half the inside size, x and y (mm): the floor the camera must see is |x| <= INNER[0], |y| <= INNER[1]."""
BACK_OUTER_Y = INNER[1] + dim.TRAY_WALL
"""y of the back wall's outer face, where the camera mast stands (mm)."""
NOTCH_W = dim.CHUTE_W
"""Width of the notch in the left wall that the tower's exit opens into (mm)."""


def in_frame() -> Manifold:
    """The tray in the tray frame (mm)."""
    w, f = dim.TRAY_WALL, dim.TRAY_FLOOR
    tray = box(-INNER[0] - w, INNER[0] + w, -INNER[1] - w, INNER[1] + w, -f, dim.TRAY_WALL_H)
    tray -= box(-INNER[0], INNER[0], -INNER[1], INNER[1], 0, dim.TRAY_WALL_H + 1)
    tray -= box(-INNER[0] - w - 1, -INNER[0] + 0.01, -NOTCH_W / 2, NOTCH_W / 2, 0, dim.TRAY_WALL_H + 1)
    for sx in (-1, 1):
        x = sx * dim.MAST_SCREW_PITCH / 2
        hole = Manifold.cylinder(w + 2, dim.M3_CLEAR / 2, dim.M3_CLEAR / 2, dim.SEGMENTS)
        tray -= hole.rotate((-90, 0, 0)).translate((x, INNER[1] - 1, dim.MAST_SCREW_Z))
    return tray


def build() -> Manifold:
    """The tray in its print pose (floor on the bed)."""
    return on_bed(in_frame())


