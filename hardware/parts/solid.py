"""Small CSG helpers the part modules share (manifold3d, millimetres)."""

from manifold3d import CrossSection, FillRule, Manifold

from . import dimensions as dim


def box(x0: float, x1: float, y0: float, y1: float, z0: float, z1: float) -> Manifold:
    """Axis-aligned box from (x0, y0, z0) to (x1, y1, z1) (mm)."""
    return Manifold.cube((x1 - x0, y1 - y0, z1 - z0)).translate((x0, y0, z0))


def x_rod(d: float, y: float, z: float, x0: float, x1: float) -> Manifold:
    """Cylinder of diameter d along x from x0 to x1, axis at (y, z) (mm): a pin, or a hole to cut."""
    return (Manifold.cylinder(x1 - x0, d / 2, d / 2, dim.SEGMENTS)
            .rotate((0, 90, 0)).translate((x0, y, z)))


def z_rod(d: float, x: float, y: float, z0: float, z1: float) -> Manifold:
    """Cylinder of diameter d along z from z0 to z1, axis at (x, y) (mm)."""
    return Manifold.cylinder(z1 - z0, d / 2, d / 2, dim.SEGMENTS).translate((x, y, z0))


def yz_profile(points: list[tuple[float, float]], x0: float, x1: float) -> Manifold:
    """Prism of a y-z polygon (either winding) extruded along x from x0 to x1 (mm)."""
    solid = CrossSection([points], FillRule.NonZero).extrude(x1 - x0)
    # extrude runs along z: map (u, v, w) -> (x, y, z) = (w + x0, u, v)
    return solid.transform([[0, 0, 1, x0], [1, 0, 0, 0], [0, 1, 0, 0]])


def on_bed(part: Manifold) -> Manifold:
    """Move a part so its bounding box starts at the origin: it lies on the bed at z = 0."""
    x0, y0, z0, _, _, _ = part.bounding_box()
    return part.translate((-x0, -y0, -z0))
