"""Write a part as a binary STL (numpy-stl)."""

from pathlib import Path

import numpy as np
from manifold3d import Manifold
from stl import Mode
from stl import mesh as stl_mesh


def triangles(part: Manifold) -> np.ndarray:
    """The part's surface: Nx3x3 float32 array of triangles (mm), counter-clockwise seen from
    outside. Raises ValueError if the part is empty or a CSG step failed (its status)."""
    if part.is_empty():
        raise ValueError(f"the part is empty (manifold3d status {part.status().name}); "
                         "check the dimensions it was built from")
    m = part.to_mesh()
    verts = np.asarray(m.vert_properties, dtype=np.float32)[:, :3]
    return verts[np.asarray(m.tri_verts)]


def write_stl(part: Manifold, path: Path, name: str) -> None:
    """Write `part` to `path` as a binary STL whose header names it `name`.

    Raises ValueError for an empty part, OSError if the file cannot be written.
    """
    tris = triangles(part)
    solid = stl_mesh.Mesh(np.zeros(len(tris), dtype=stl_mesh.Mesh.dtype), name=name)
    solid.vectors[:] = tris
    solid.update_normals()
    solid.save(str(path), mode=Mode.BINARY)
