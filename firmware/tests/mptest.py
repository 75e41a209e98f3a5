"""A minimal test runner for the firmware tests on the real micropython (no unittest on the port).

`micropython -c "import mptest; mptest.main('test_frame')"` imports the module, calls each
function named test_*, and prints one line per test: `PASS name` or `FAIL name: error`, then
`DONE passed failed`. firmware/tools/run_tests.py runs every test file this way.
"""
import sys


def main(module_name: str) -> None:
    module = __import__(module_name)
    passed = failed = 0
    for name in sorted(dir(module)):
        if not name.startswith("test_"):
            continue
        try:
            getattr(module, name)()
        except Exception as exc:  # report every failure, keep running the other tests
            failed += 1
            print("FAIL %s.%s: %s %r" % (module_name, name, type(exc).__name__, exc.args))
            sys.print_exception(exc)
        else:
            passed += 1
            print("PASS %s.%s" % (module_name, name))
    print("DONE %d %d" % (passed, failed))
