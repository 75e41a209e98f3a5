"""The printable parts: each builds as a closed solid that fits the bed with walls a 0.4 mm nozzle
prints, the camera sees the whole tray, a 22 mm d20 gets through the tower, and the gate's flap
swings between the firmware's angles without touching the chute."""

import math
import subprocess
import sys
from collections import Counter

import numpy as np
import pytest

pytest.importorskip("manifold3d", reason="manifold3d (the CSG library) is not installed")
pytest.importorskip("stl", reason="numpy-stl is not installed")
cv2 = pytest.importorskip("cv2")

from manifold3d import CrossSection, Manifold, OpType  # noqa: E402
from stl import mesh as stl_mesh  # noqa: E402

from dicetower.paths import repo_root  # noqa: E402
from hardware.parts import PARTS, camera_mount, enclosure, gate, panel, ring_holder, tower, tray  # noqa: E402
from hardware.parts import dimensions as dim  # noqa: E402
from hardware.parts.export import write_stl  # noqa: E402
from hardware.parts.solid import box  # noqa: E402


@pytest.fixture(scope="module")
def built():
    """Every part in its print pose, built once."""
    return {name: build() for name, build in PARTS.items()}


def open_edges(tris: np.ndarray) -> int:
    """Edges of a triangle soup (Nx3x3) that are not shared by exactly two triangles of opposite
    winding, after merging coincident vertices as a slicer does (0 for a closed 2-manifold)."""
    _, index = np.unique(tris.reshape(-1, 3), axis=0, return_inverse=True)
    faces = index.reshape(-1, 3)
    edges = Counter(map(tuple, np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])))
    return sum(1 for (a, b), n in edges.items() if n != 1 or edges.get((b, a)) != 1)


def test_open_edges_finds_a_hole():
    cube = Manifold.cube((10, 10, 10)).to_mesh()
    tris = np.asarray(cube.vert_properties)[:, :3][np.asarray(cube.tri_verts)]
    assert open_edges(tris) == 0
    assert open_edges(tris[1:]) == 3


@pytest.mark.parametrize("name", list(PARTS))
def test_part_is_a_closed_solid_in_its_stl(name, built, tmp_path):
    part = built[name]
    assert part.status().name == "NoError"
    assert part.volume() > 1000.0  # mm3: a real part, not a sliver
    path = tmp_path / f"{name}.stl"
    write_stl(part, path, name)
    back = stl_mesh.Mesh.from_file(str(path))
    assert open_edges(back.vectors.astype(np.float64)) == 0
    volume, _, _ = back.get_mass_properties()
    assert volume == pytest.approx(part.volume(), rel=1e-4)


@pytest.mark.parametrize("name", list(PARTS))
def test_part_lies_on_the_bed_and_fits_it(name, built):
    x0, y0, z0, x1, y1, z1 = built[name].bounding_box()
    assert z0 == pytest.approx(0.0, abs=1e-6), "print pose starts on the bed"
    for size, limit in zip((x1 - x0, y1 - y0, z1 - z0), dim.BED):
        assert size <= limit


def test_every_wall_in_the_dimensions_prints_with_the_nozzle():
    assert dim.MIN_WALL >= 3 * dim.NOZZLE - 1e-9
    thin = {name: t for name, t in dim.WALLS.items() if t < dim.MIN_WALL}
    assert not thin, f"walls thinner than {dim.MIN_WALL} mm: {thin}"


def thinnest_wall(part: Manifold) -> float:
    """Smallest material thickness (mm) met by a ray cast inwards from each face's centroid."""
    m = part.to_mesh()
    verts = np.asarray(m.vert_properties)[:, :3]
    tris = verts[np.asarray(m.tri_verts)]
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    area2 = np.linalg.norm(normals, axis=1)
    keep = area2 > 1e-6
    normals = normals[keep] / area2[keep, None]
    centroids = tris[keep].mean(axis=1)
    thinnest, start, reach = math.inf, 1e-3, 300.0
    for c, n in zip(centroids, normals):
        hits = part.ray_cast(tuple(c - n * start), tuple(c - n * reach))
        if hits:  # RayHit.distance is the fraction of the cast segment
            thinnest = min(thinnest, start + hits[0].distance * (reach - start))
    return thinnest


@pytest.mark.parametrize("name", list(PARTS))
def test_no_wall_is_thinner_than_the_minimum(name, built):
    assert thinnest_wall(built[name]) >= dim.MIN_WALL - 0.01


def test_thinnest_wall_measures_a_thin_plate():
    plate = Manifold.cube((20, 20, 0.8))
    assert thinnest_wall(plate) == pytest.approx(0.8, abs=0.01)


def _camera_projection(pose):
    """OpenCV pinhole camera for the assumed webcam at `pose`: (K, rvec, tvec)."""
    w, h = dim.CAM_RES
    f = math.hypot(w, h) / 2 / math.tan(math.radians(dim.CAM_DFOV) / 2)
    K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], dtype=np.float64)
    t = math.radians(pose.tilt_deg)
    z_cam = np.array([0, -math.sin(t), -math.cos(t)])
    x_cam = np.array([1.0, 0, 0])
    y_cam = np.cross(z_cam, x_cam)
    R = np.vstack([x_cam, y_cam, z_cam])
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ np.array([0, pose.y, pose.z])
    return K, rvec, tvec


def _tray_floor_in_image(pose, beyond: float) -> np.ndarray:
    ix, iy = tray.INNER[0] + beyond, tray.INNER[1] + beyond
    corners = np.array([[sx * ix, sy * iy, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
    K, rvec, tvec = _camera_projection(pose)
    px, _ = cv2.projectPoints(corners, rvec, tvec, K, None)
    return px.reshape(-1, 2)


def _in_image(px: np.ndarray) -> bool:
    w, h = dim.CAM_RES
    return bool(np.all((px >= 0) & (px <= (w, h))))


def test_camera_sees_the_whole_tray_with_the_margin():
    pose = camera_mount.camera_pose()
    assert _in_image(_tray_floor_in_image(pose, dim.CAM_MARGIN))
    # the height is the computed lowest, not a generous guess: 5 mm lower loses the margin
    lower = camera_mount.CameraPose(pose.y, pose.z - 5, math.degrees(math.atan2(pose.y, pose.z - 5)))
    assert not _in_image(_tray_floor_in_image(lower, dim.CAM_MARGIN))
    # the lens is over the tray floor, so no tray wall hides a part of it
    assert abs(pose.y) < tray.INNER[1]


def test_nothing_stands_between_the_lens_and_the_tray_floor():
    pose = camera_mount.camera_pose()
    ix, iy = tray.INNER
    view = Manifold.hull_points(np.array(
        [[0, pose.y, pose.z - 0.01]] + [[sx * ix, sy * iy, 0.01] for sx in (-1, 1) for sy in (-1, 1)]))
    mount, holder = camera_mount.in_frame(pose), ring_holder.in_frame(pose)
    for part in (mount, holder, tray.in_frame()):
        assert (view ^ part).volume() < 1e-6
    assert (mount ^ holder).volume() < 1e-3  # the holder sits flush under the plate, in nothing
    assert mount.min_gap(holder, 1.0) < 1e-6


def test_lens_hole_and_ring_aperture_do_not_vignette():
    corner_slope = math.tan(math.radians(dim.CAM_DFOV) / 2)
    depth_plate = dim.CAM_PLATE_T
    depth_holder = dim.CAM_PLATE_T + ring_holder.HEIGHT
    assert dim.LENS_HOLE_D / 2 >= dim.LENS_D / 2 + depth_plate * corner_slope
    assert dim.HOLDER_APERTURE_D / 2 >= dim.LENS_D / 2 + depth_holder * corner_slope


def _dice_path(radius: float) -> list[tuple[float, float]]:
    """(y, z) of a die's centre from the hopper to out of the exit, `radius` off every ramp."""
    *baffles, exit_ramp = tower.ramps()

    def on_ramp(ramp, y):
        (uy, uz), (ny, nz) = ramp.downhill, ramp.normal
        s = (y - ramp.high[0] - ny * radius) / uy
        return ramp.high[0] + uy * s + ny * radius, ramp.high[1] + uz * s + nz * radius

    y = tower.INNER_Y[0] + radius + 1.0
    path = [(y, dim.TOWER_H + radius)]
    for ramp, below in zip(baffles, baffles[1:] + [exit_ramp]):
        path.append(on_ramp(ramp, y))
        (ty, tz), (ny, nz) = ramp.low, ramp.normal
        side = math.copysign(1.0, ramp.downhill[0])
        start = math.atan2(nz, ny)
        end = 0.0 if side > 0 else math.pi
        for a in np.linspace(start, end, 12):  # round the baffle's tip
            path.append((ty + radius * math.cos(a), tz + radius * math.sin(a)))
        y = ty + side * radius
        path.append(on_ramp(below, y))
    (ly, lz), (uy, uz), (ny, nz) = exit_ramp.low, exit_ramp.downhill, exit_ramp.normal
    out = radius + 5.0  # past the front wall's outer face: the die is out of the tower
    path.append((ly + ny * radius + uy * out, lz + nz * radius + uz * out))
    return path


def _swept(die_d: float, path_radius: float) -> Manifold:
    x = (tower.INNER_X[0] + tower.INNER_X[1]) / 2
    balls = [Manifold.sphere(die_d / 2, 48).translate((x, y, z)) for y, z in _dice_path(path_radius)]
    capsules = [Manifold.batch_hull([a, b]) for a, b in zip(balls, balls[1:])]
    return Manifold.batch_boolean(capsules, OpType.Add)


def test_a_22mm_d20_falls_through_the_open_gate_baffles_and_exit():
    closed, opened = gate.firmware_gate_angles()
    obstacles = tower.build() + gate.flap_at(opened, closed)
    path_radius = dim.D20_TUMBLE_DIAMETER / 2 + dim.DIE_CLEARANCE
    assert (_swept(dim.D20_TUMBLE_DIAMETER, path_radius) ^ obstacles).volume() < 1e-6
    # the check can fail: a die 4 mm wider than the passage is caught
    big = dim.DIE_PASSAGE + 4.0
    assert (_swept(big, big / 2) ^ obstacles).volume() > 1.0


def test_d20_tumble_sphere_is_the_icosahedron_circumsphere():
    # vertices of a regular icosahedron (edge 2): (0, +-1, +-phi) and cyclic permutations
    phi = (1 + math.sqrt(5)) / 2
    verts = np.array([p for a in (-1, 1) for b in (-phi, phi)
                      for p in ((0, a, b), (a, b, 0), (b, 0, a))])
    ico = Manifold.hull_points(verts)
    circum = np.linalg.norm(verts[0])
    inradius = 3 * ico.volume() / ico.surface_area()  # centre to every face plane: V = A r / 3
    assert circum / inradius == pytest.approx(dim.ICOSAHEDRON_CIRCUM_PER_IN, rel=1e-6)
    assert dim.DIE_PASSAGE <= dim.BAFFLE_GAP


def test_gate_flap_swings_from_closed_to_open_without_touching_the_chute():
    closed, opened = gate.firmware_gate_angles()
    assert opened != closed
    body = tower.build()
    step = 1 if opened > closed else -1
    for deg in range(closed, opened + step, step):
        flap = gate.flap_at(deg, closed)
        assert (flap ^ body).volume() < 1e-6, f"flap hits the chute at {deg} degrees"
        assert flap.min_gap(body, 1.0) > dim.FIT / 2 - 0.02, f"flap rubs the chute at {deg} degrees"


def test_closed_flap_leaves_no_gap_a_die_could_fall_through():
    closed, opened = gate.firmware_gate_angles()
    x0, x1 = tower.INNER_X
    y0, y1 = tower.INNER_Y
    chute = CrossSection.square((x1 - x0, y1 - y0)).translate((x0, y0))
    uncovered = chute - gate.flap_at(closed, closed).project()
    assert uncovered.offset(-2.5).area() == 0.0  # no slit wider than 5 mm
    open_gap = chute - gate.flap_at(opened, closed).project()
    assert open_gap.offset(-dim.DIE_PASSAGE / 2).area() > 0.0  # open: a die's way is clear


def test_gate_angles_are_read_from_the_firmware(tmp_path):
    board = tmp_path / "board.py"
    board.write_text("from micropython import const\nGATE_CLOSED_DEG = const(5)\nGATE_OPEN_DEG = 95\n")
    assert gate.firmware_gate_angles(board) == (5, 95)
    board.write_text("GATE_CLOSED_DEG = const(5)\n")
    with pytest.raises(ValueError, match="GATE_OPEN_DEG"):
        gate.firmware_gate_angles(board)
    assert gate.BOARD_PY == repo_root() / "firmware" / "board.py"


def test_builder_writes_each_named_part_and_reports_it(tmp_path):
    run = subprocess.run([sys.executable, "-m", "hardware.parts", "build", str(tmp_path / "out"),
                          "gate_flap", "ring_holder"], cwd=repo_root(), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["gate_flap.stl", "ring_holder.stl"]
    line = next(s for s in run.stdout.splitlines() if s.startswith("gate_flap"))
    size_x = float(line.split()[1])
    x0, _, _, x1, _, _ = gate.build().bounding_box()
    assert size_x == pytest.approx(x1 - x0, abs=0.05)


def test_builder_refuses_an_unknown_part(tmp_path):
    run = subprocess.run([sys.executable, "-m", "hardware.parts", "build", str(tmp_path), "spire"],
                         cwd=repo_root(), capture_output=True, text=True)
    assert run.returncode == 2
    assert "unknown part(s) spire" in run.stderr and "tower" in run.stderr
    assert not list(tmp_path.iterdir())


def test_servo_case_lies_flat_on_the_tower_and_its_spline_reaches_the_horn():
    front, back = tower.servo_case_y()
    length, width, height = dim.SERVO_BODY
    case = box(-height, 0.0, front, back, tower.HINGE_Z - width / 2, tower.HINGE_Z + width / 2)
    body = tower.build()
    assert (case ^ body).volume() < 1e-6  # the standoffs stand beside the case, not under it
    assert case.min_gap(body, 1.0) < 1e-6  # its top face rests on the wall
    tabs = [y for y, _ in tower.servo_screw_points()]
    assert tabs[1] - tabs[0] == pytest.approx(dim.SERVO_TAB_PITCH)
    assert front < tower.HINGE_Y < back and 0 <= min(tabs) and max(tabs) <= tower.OUTER[1]
    # the gear tower crosses the wall and the side gap, so the spline enters the horn's hub
    assert dim.TOWER_WALL <= dim.SERVO_TOWER_H <= dim.TOWER_WALL + dim.FLAP_SIDE_GAP + dim.HORN_HUB_H


def test_oled_module_sits_on_its_standoffs_clear_of_the_box():
    (x0, y0), (x1, y1) = min(panel.oled_hole_points()), max(panel.oled_hole_points())
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = dim.OLED_PCB
    under = enclosure.TOP - dim.OLED_GLASS_T - dim.FIT
    module = box(cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2, under - 1.6 - 8.0, under)
    assert (module ^ enclosure.build()).volume() < 1e-6
    assert module.min_gap(panel.in_frame(), 1.0) < 1e-6  # the standoffs touch the board
    wx0, wx1, wy0, wy1 = panel.oled_window()
    assert cx - w / 2 < wx0 < wx1 < cx + w / 2 and cy - h / 2 < wy0 < wy1 < cy + h / 2


def test_esp32_board_is_held_by_the_card_guides():
    length, width, thick = dim.BOARD
    yc = enclosure.BOARD_Y
    board = box(enclosure.BOARD_X0, enclosure.BOARD_X0 + length, yc - width / 2, yc + width / 2,
                enclosure.BOARD_Z, enclosure.BOARD_Z + thick)
    shell = enclosure.build()
    assert (board ^ shell).volume() < 1e-6
    for dz in (-1.0, 1.0):  # it cannot move up or down: both ends are in grooves
        assert (board.translate((0, 0, dz)) ^ shell).volume() > 1.0
    assert (board.translate((0, 2.0, 0)) ^ shell).volume() < 1e-6  # it slides in along y


def test_ring_board_rests_on_the_lip_around_a_clear_aperture():
    assert dim.HOLDER_APERTURE_D < dim.RING_ID < dim.RING_OD + dim.FIT < ring_holder.OUTER_D
    ring = Manifold.cylinder(dim.RING_PCB_T, dim.RING_OD / 2, dim.RING_OD / 2, 64) - Manifold.cylinder(
        dim.RING_PCB_T, dim.RING_ID / 2, dim.RING_ID / 2, 64)
    seated = ring.translate((0, 0, dim.HOLDER_WALL))
    holder = ring_holder.build()
    assert (seated ^ holder).volume() < 1e-6
    assert (seated.translate((0, 0, -0.5)) ^ holder).volume() > 1.0
