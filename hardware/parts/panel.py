"""The button panel: the enclosure's lid, with the window for the SSD1306 0.96 inch OLED (four
standoffs on its back hold the module, glass against the panel) and holes for the three 12 mm
push buttons ROLL, OK and NO (left to right, as firmware/board.py's BUTTONS lists them).

Built in the box frame of hardware.parts.enclosure, front face up at z = TOP + PANEL_T; print
pose: front face down on the bed (a flat, smooth face for the user), standoffs up.
"""

from manifold3d import Manifold, OpType

from . import dimensions as dim
from . import enclosure
from .solid import box, on_bed, z_rod

W = dim.BOX_WALL
IN_X, IN_Y, _ = dim.BOX_IN


def button_points() -> list[tuple[float, float]]:
    """(x, y) of the ROLL, OK and NO button centres (mm, box frame)."""
    return [(dim.BUTTON_X0 + k * dim.BUTTON_PITCH, IN_Y / 2) for k in range(3)]


def oled_window() -> tuple[float, float, float, float]:
    """The OLED window's x0, x1, y0, y1 (mm, box frame): the active area plus a margin."""
    cx, cy = dim.OLED_X0, IN_Y / 2 + dim.OLED_ACTIVE_DY
    hw = dim.OLED_ACTIVE[0] / 2 + dim.OLED_WINDOW_MARGIN
    hh = dim.OLED_ACTIVE[1] / 2 + dim.OLED_WINDOW_MARGIN
    return cx - hw, cx + hw, cy - hh, cy + hh


def oled_hole_points() -> list[tuple[float, float]]:
    """(x, y) of the OLED module's four M2 holes (mm, box frame)."""
    px, py = dim.OLED_HOLE_PITCH
    return [(dim.OLED_X0 + sx * px / 2, IN_Y / 2 + sy * py / 2) for sx in (-1, 1) for sy in (-1, 1)]


def in_frame() -> Manifold:
    """The panel in the box frame, resting on the enclosure's rim (mm)."""
    z0 = enclosure.TOP
    z1 = z0 + dim.PANEL_T
    standoff_h = dim.OLED_GLASS_T + dim.FIT
    solids = [box(-W, IN_X + W, -W, IN_Y + W, z0, z1)]
    solids += [z_rod(dim.OLED_STANDOFF_D, x, y, z0 - standoff_h, z0 + 0.01)
               for x, y in oled_hole_points()]
    panel = Manifold.batch_boolean(solids, OpType.Add)
    x0, x1, y0, y1 = oled_window()
    cuts = [box(x0, x1, y0, y1, z0 - 1, z1 + 1)]
    cuts += [z_rod(dim.BUTTON_D + dim.FIT, x, y, z0 - 1, z1 + 1) for x, y in button_points()]
    cuts += [z_rod(dim.M3_CLEAR, x, y, z0 - 1, z1 + 1) for x, y in enclosure.post_points()]
    cuts += [z_rod(dim.M2_PILOT, x, y, z0 - standoff_h - 1, z0 + 1.0) for x, y in oled_hole_points()]
    return panel - Manifold.batch_boolean(cuts, OpType.Add)


def build() -> Manifold:
    """The panel in its print pose: front face down, standoffs up."""
    return on_bed(in_frame().rotate((180, 0, 0)))
