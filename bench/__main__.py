"""`make bench`: print the project's speed and accuracy figures. Each part is its own module. `python -m bench probes`
(`make probes`): the render probes' figures (bench.probes)."""

import importlib
import sys

from dicetower import set_up_process

set_up_process()  # before the parts import numpy, as the `dicetower` command does

PARTS = ["bench.vision", "dicetower.vision.faces_eval", "bench.audit"]

if __name__ == "__main__":
    if sys.argv[1:2] == ["probes"]:  # the render probes, on their own: minutes, not part of every bench
        from bench import probes

        sys.exit(probes.main(sys.argv[2:]))
    failed = 0
    for name in PARTS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
            print(f"[{name}] not written yet")
            continue
        print(f"=== {name}")
        failed |= int(module.main() or 0)
    sys.exit(failed)
