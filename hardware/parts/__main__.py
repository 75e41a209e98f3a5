"""Builder: `python -m hardware.parts build OUTDIR [PART...]` writes OUTDIR/<part>.stl for each
part (all by default) and prints its print-pose size (mm) and volume (cm3)."""

import argparse
import sys
from pathlib import Path

from . import PARTS
from .export import write_stl


def main(argv: list[str] | None = None) -> int:
    """Run the builder; returns the exit status (0 when every STL was written)."""
    parser = argparse.ArgumentParser(prog="python -m hardware.parts",
                                     description="Build the tower's printable parts as STL files.")
    sub = parser.add_subparsers(dest="command", required=True)
    build = sub.add_parser("build", help="write one binary STL per part")
    build.add_argument("outdir", type=Path, help="folder for the STL files (created if missing)")
    build.add_argument("parts", nargs="*", metavar="PART",
                       help=f"parts to build (default: all): {', '.join(PARTS)}")
    args = parser.parse_args(argv)
    unknown = [p for p in args.parts if p not in PARTS]
    if unknown:
        parser.error(f"unknown part(s) {', '.join(unknown)}; choose from {', '.join(PARTS)}")
    try:
        args.outdir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        parser.error(f"cannot create {args.outdir}: {err}")
    print(f"{'part':<16} {'x mm':>7} {'y mm':>7} {'z mm':>7} {'cm3':>7}  file")
    for name in args.parts or PARTS:
        part = PARTS[name]()
        x0, y0, z0, x1, y1, z1 = part.bounding_box()
        path = args.outdir / f"{name}.stl"
        try:
            write_stl(part, path, name)
        except OSError as err:
            print(f"error: cannot write {path}: {err}", file=sys.stderr)
            return 1
        print(f"{name:<16} {x1 - x0:7.1f} {y1 - y0:7.1f} {z1 - z0:7.1f} "
              f"{part.volume() / 1000:7.1f}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
