"""The ESP32 enclosure: an open box that holds the ESP32 DevKitC v4 in two card guides by its
short ends (the long edges carry the pin headers), with a cut-out for its micro-USB plug, a hole
for the servo, ring and power wires, and four corner posts the button panel screws onto.

Built in the box frame (inner corner at the USB end at x = y = 0, floor underside at z = 0),
which is also its print pose: floor down, open top.
"""

from manifold3d import Manifold, OpType

from . import dimensions as dim
from .solid import box, x_rod, z_rod

W = dim.BOX_WALL
IN_X, IN_Y, IN_Z = dim.BOX_IN
TOP = W + IN_Z
"""Height of the rim the panel rests on (mm)."""
BOARD_Y = IN_Y / 2
"""y of the board's centre line (mm): the USB plug and the board sit in the middle."""
BOARD_Z = W + dim.BOARD_Z
"""Height of the board's underside (mm)."""
BOARD_X0 = dim.GUIDE_W - dim.GUIDE_GROOVE
"""x of the board's USB end (mm)."""


def post_points() -> list[tuple[float, float]]:
    """(x, y) of the four corner posts' screw axes (mm, box frame); the panel's holes match."""
    r = dim.BOX_POST_D / 2 - 0.5  # 0.5 mm into both walls: merged, not merely touching
    return [(x, y) for x in (r, IN_X - r) for y in (r, IN_Y - r)]


def _guide(x0: float, x1: float, y0: float, y1: float) -> Manifold:
    """A guide block from the floor to 2 mm above the board (build() cuts the board's groove)."""
    return box(x0, x1, y0, y1, W - 0.01, BOARD_Z + dim.BOARD[2] + 2.0)


def build() -> Manifold:
    """The enclosure in its print pose (= box frame), a closed solid (mm)."""
    length, width, pcb_t = dim.BOARD
    outer = box(-W, IN_X + W, -W, IN_Y + W, 0, TOP)
    cavity = box(0, IN_X, 0, IN_Y, W, TOP + 1)
    far_end = BOARD_X0 + length
    gw, usb_half = dim.GUIDE_W, dim.USB_CUT[0] / 2
    guides = [
        _guide(0, gw, BOARD_Y - width / 2 - 1, BOARD_Y - usb_half),
        _guide(0, gw, BOARD_Y + usb_half, BOARD_Y + width / 2 + 1),
        _guide(far_end - dim.GUIDE_GROOVE, far_end - dim.GUIDE_GROOVE + gw,
               BOARD_Y - width / 2 - 1, BOARD_Y + width / 2 + 1),
    ]
    posts = [z_rod(dim.BOX_POST_D, x, y, W - 0.01, TOP) for x, y in post_points()]
    shell = Manifold.batch_boolean([outer - cavity, *guides, *posts], OpType.Add)
    groove = box(BOARD_X0 - dim.FIT / 2, far_end + dim.FIT / 2,
                 BOARD_Y - width / 2 - 1.01, BOARD_Y + width / 2 + 1.01,
                 BOARD_Z - dim.FIT / 2, BOARD_Z + pcb_t + dim.FIT / 2)
    usb_z = BOARD_Z + pcb_t + 1.5  # the plug's centre, on top of the board
    cuts = [
        groove,
        box(-W - 1, 0.01, BOARD_Y - usb_half, BOARD_Y + usb_half,
            usb_z - dim.USB_CUT[1] / 2, usb_z + dim.USB_CUT[1] / 2),
        x_rod(dim.CABLE_HOLE_D, BOARD_Y, W + dim.CABLE_HOLE_D, IN_X - 0.01, IN_X + W + 1),
        *[z_rod(dim.M3_PILOT, x, y, TOP - 10, TOP + 1) for x, y in post_points()],
    ]
    return shell - Manifold.batch_boolean(cuts, OpType.Add)
