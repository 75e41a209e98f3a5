"""The light ring holder: a flat ring with a pocket the 12-LED WS2812B ring presses into, LEDs
facing the tray, a clear aperture for the camera's view, a channel for the three wires, and two
ears that screw (M3) under the camera plate, centred on the lens.

Built and printed with the face that meets the camera plate on the bed, the pocket opening up.
In use it hangs under the plate, pocket down; a drop of hot glue keeps the ring in the pocket.
"""

import math

from manifold3d import Manifold, OpType

from . import dimensions as dim
from .camera_mount import CameraPose, camera_pose
from .solid import box, z_rod

HEIGHT = dim.HOLDER_H
"""Holder thickness along the optical axis (mm); the LEDs stand proud of it."""
OUTER_D = dim.RING_OD + dim.FIT + 2 * dim.HOLDER_WALL
"""Outer diameter of the holder's rim (mm)."""


def build() -> Manifold:
    """The holder in its print pose, centred on the lens axis (x = y = 0), z = 0 against the plate."""
    ear_half = dim.RING_SCREW_PITCH / 2 + dim.HOLDER_EAR_W / 2
    body = Manifold.batch_boolean([
        z_rod(OUTER_D, 0, 0, 0, HEIGHT),
        box(-ear_half, ear_half, -dim.HOLDER_EAR_W / 2, dim.HOLDER_EAR_W / 2, 0, HEIGHT),
    ], OpType.Add)
    cuts = [
        z_rod(dim.HOLDER_APERTURE_D, 0, 0, -1, HEIGHT + 1),
        z_rod(dim.RING_OD + dim.FIT, 0, 0, dim.HOLDER_WALL, HEIGHT + 1),
        # wire channel: across the lip from inside the ring's pads and out through the rim, along +y
        box(-dim.HOLDER_WIRE_SLOT[0] / 2, dim.HOLDER_WIRE_SLOT[0] / 2, dim.HOLDER_APERTURE_D / 2 - 1,
            OUTER_D / 2 + 1, dim.HOLDER_WALL - dim.HOLDER_WIRE_SLOT[1], HEIGHT + 1),
    ]
    cuts += [z_rod(dim.M3_CLEAR, s * dim.RING_SCREW_PITCH / 2, 0, -1, HEIGHT + 1) for s in (-1, 1)]
    return body - Manifold.batch_boolean(cuts, OpType.Add)


def in_frame(pose: CameraPose | None = None) -> Manifold:
    """The holder in the tray frame, screwed under the camera plate of the mount for `pose`
    (default `camera_pose()`): pocket down, centred on the optical axis, ears along the plate."""
    pose = pose or camera_pose()
    t = math.radians(pose.tilt_deg)
    under_plate = (0.0, pose.y - math.sin(t) * dim.CAM_PLATE_T, pose.z - math.cos(t) * dim.CAM_PLATE_T)
    # pocket down, ears along y, then the plate's tilt, then onto the plate's underside
    return (build().rotate((180, 0, 0)).rotate((0, 0, 90)).rotate((-pose.tilt_deg, 0, 0))
            .translate(under_plate))
