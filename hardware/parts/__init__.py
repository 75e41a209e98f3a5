"""Parametric models of the tower's printable parts (manifold3d CSG, millimetres).

Every measure lives in `hardware.parts.dimensions`; each part module has a
`build() -> manifold3d.Manifold` that returns its part in its print pose. `PARTS` maps a part
name (the STL's file stem) to that function. Build them all with
`.venv/bin/python -m hardware.parts build OUTDIR`.
"""

from collections.abc import Callable

from manifold3d import Manifold

from . import camera_mount, enclosure, gate, panel, ring_holder, tower, tray

PARTS: dict[str, Callable[[], Manifold]] = {
    "tower": tower.build,
    "gate_flap": gate.build,
    "tray": tray.build,
    "camera_mount": camera_mount.build,
    "ring_holder": ring_holder.build,
    "button_panel": panel.build,
    "esp32_enclosure": enclosure.build,
}
"""Part name -> builder, in assembly order."""
