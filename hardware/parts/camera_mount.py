"""The camera mount: a mast screwed to the tray's back wall, carrying a tilted plate the webcam is
strapped onto, lens down, over the tray. The light ring holder screws under that plate.

The camera height is computed, not chosen: with the assumed webcam (dim.CAM_DFOV diagonal,
dim.CAM_RES aspect, pinhole model), the lens dim.CAM_Y behind the tray centre and the optical axis
aimed at the tray centre, `camera_pose()` finds the lowest lens height at which the image sees the
whole tray floor plus dim.CAM_MARGIN beyond every inner edge. A lens inside the tray's outline
also means no tray wall hides any of the floor.

Built in the tray frame as a y-z profile extruded dim.MAST_W along x; print pose: lying on its
side (the profile on the bed), so the cantilever's layers run along it.
"""

import math
from dataclasses import dataclass

import numpy as np
from manifold3d import Manifold, OpType
from scipy.optimize import brentq

from . import dimensions as dim
from . import tray
from .solid import on_bed, yz_profile


@dataclass(frozen=True)
class CameraPose:
    """Where the webcam's lens (its optical centre) sits in the tray frame.

    y, z: lens position (mm; x = 0). tilt_deg: optical axis from straight down, leaning
    towards -y (the tray centre), degrees.
    """

    y: float
    z: float
    tilt_deg: float


def half_fov_tangents() -> tuple[float, float]:
    """tan of the horizontal and vertical half fields of view (pinhole; square pixels)."""
    w, h = dim.CAM_RES
    t = math.tan(math.radians(dim.CAM_DFOV) / 2) / math.hypot(w, h)
    return w * t, h * t


def footprint(pose: CameraPose) -> np.ndarray:
    """Floor points (z = 0) the image corners see: 4x2 float array (x, y) in mm, in image order
    top-right, top-left, bottom-left, bottom-right. The image's long side runs along x.

    Raises ValueError if a corner ray does not reach the floor (camera tilted too far).
    """
    th, tv = half_fov_tangents()
    t = math.radians(pose.tilt_deg)
    axis = np.array([0.0, -math.sin(t), -math.cos(t)])
    right = np.array([1.0, 0.0, 0.0])
    up = np.array([0.0, math.cos(t), -math.sin(t)])
    lens = np.array([0.0, pose.y, pose.z])
    out = []
    for sx, sy in ((1, 1), (-1, 1), (-1, -1), (1, -1)):
        ray = axis + sx * th * right + sy * tv * up
        if ray[2] >= 0:
            raise ValueError(f"tilt {pose.tilt_deg:.1f} deg: an image corner looks above the horizon")
        out.append((lens + ray * (-pose.z / ray[2]))[:2])
    return np.array(out)


def coverage_margin(pose: CameraPose) -> float:
    """Smallest distance (mm) from a tray floor corner inside to the seen footprint's edge;
    negative when a corner of the floor is out of view."""
    quad = footprint(pose)
    ix, iy = tray.INNER
    worst = math.inf
    for k in range(4):
        p, q = quad[k], quad[(k + 1) % 4]
        edge = q - p
        inward = np.array([-edge[1], edge[0]]) / np.linalg.norm(edge)
        inward *= np.sign(np.dot(quad.mean(axis=0) - p, inward))
        for corner in ((ix, iy), (-ix, iy), (-ix, -iy), (ix, -iy)):
            worst = min(worst, float(np.dot(np.asarray(corner) - p, inward)))
    return worst


def _aimed(z: float) -> CameraPose:
    return CameraPose(dim.CAM_Y, z, math.degrees(math.atan2(dim.CAM_Y, z)))


def camera_pose() -> CameraPose:
    """The lowest lens pose (rounded up to 0.5 mm) that sees the tray floor with dim.CAM_MARGIN
    to spare on every side, the optical axis aimed at the tray centre."""
    z = brentq(lambda z: coverage_margin(_aimed(z)) - dim.CAM_MARGIN, 20.0, 2000.0, xtol=1e-3)
    return _aimed(math.ceil(z * 2) / 2)


def _plate_frame(pose: CameraPose) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(lens, along, down) in the y-z plane: the lens point on the plate's upper face, the unit
    vector along the plate towards the mast, the unit optical axis (into the plate's underside)."""
    t = math.radians(pose.tilt_deg)
    return (np.array([pose.y, pose.z]), np.array([math.cos(t), -math.sin(t)]),
            np.array([-math.sin(t), -math.cos(t)]))


def ring_screw_points(pose: CameraPose) -> list[np.ndarray]:
    """(y, z) of the two light-ring-holder screws on the plate's upper face (mm, tray frame)."""
    lens, along, _ = _plate_frame(pose)
    return [lens + s * along * dim.RING_SCREW_PITCH / 2 for s in (-1, 1)]


def in_frame(pose: CameraPose | None = None) -> Manifold:
    """The mount in the tray frame (mm), for the pose given or `camera_pose()`."""
    pose = pose or camera_pose()
    lens, along, down = _plate_frame(pose)
    y0, y1 = tray.BACK_OUTER_Y, tray.BACK_OUTER_Y + dim.MAST_T
    table = -dim.TRAY_FLOOR
    front = lens - along * dim.CAM_PLATE_L / 2
    back = lens + along * ((y1 - lens[0]) / along[0])  # the plate runs over the mast's top
    thick = down * dim.CAM_PLATE_T
    plate = [tuple(front), tuple(back), tuple(back + thick), tuple(front + thick)]
    joint_z = (back + thick)[1]
    mast = [(y0, table), (y1, table), (y1, joint_z + 1), (y0, joint_z + 1)]  # into the plate
    foot_l, foot_t = dim.MAST_FOOT
    foot = [(y0, table), (y0 + foot_l, table), (y0 + foot_l, table + foot_t), (y0, table + foot_t)]
    # gusset under the plate's joint, 1 mm below the ring holder's ear
    g_top = joint_z - dim.HOLDER_H - 1.0
    reach, drop = dim.GUSSET
    gusset = [(y0, g_top), (y0 - reach, g_top), (y0, g_top - drop)]
    half = dim.MAST_W / 2
    mount = Manifold.batch_boolean(
        [yz_profile(p, -half, half) for p in (plate, mast, foot, gusset)], OpType.Add)
    through = 2 * dim.CAM_PLATE_T + 4
    mount -= _along_axis(dim.LENS_HOLE_D, lens, pose.tilt_deg, through)
    for point in ring_screw_points(pose):
        mount -= _along_axis(dim.M3_PILOT, point, pose.tilt_deg, through)
    for sx in (-1, 1):
        screw = Manifold.cylinder(dim.MAST_T + 2, dim.M3_PILOT / 2, dim.M3_PILOT / 2, dim.SEGMENTS)
        mount -= screw.rotate((-90, 0, 0)).translate(
            (sx * dim.MAST_SCREW_PITCH / 2, y0 - 1, dim.MAST_SCREW_Z))
    return mount


def _along_axis(d: float, at: np.ndarray, tilt_deg: float, length: float) -> Manifold:
    """A hole of diameter d, `length` long, centred on `at` (y, z), along the optical axis."""
    rod = Manifold.cylinder(length, d / 2, d / 2, dim.SEGMENTS, True)
    return rod.rotate((-tilt_deg, 0, 0)).translate((0, at[0], at[1]))


def build() -> Manifold:
    """The mount in its print pose: lying on its side, the y-z profile on the bed."""
    return on_bed(in_frame().rotate((0, 90, 0)))
