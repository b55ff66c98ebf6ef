"""The tally of a Python checker (tests/*/check_*.py, the gprMax comparisons):
each check passes or fails with what it checked, and the last line,
"NAME: N passed, M failed", is what ctest's PASS_REGULAR_EXPRESSION (or the
calling script) looks for.

    from tally import Tally
    t = Tally("check_h5")               # verbose=True: print the passes too
    t.check(x == 1, "x %s" % x)
    sys.exit(t.finish(least=10))        # 1 on a failure or fewer passes
"""


class Tally:
    def __init__(self, name, verbose=False):
        self.name = name
        self.verbose = verbose
        self.passed = self.failed = 0

    def check(self, ok, what):
        ok = bool(ok)
        self.passed += ok
        self.failed += not ok
        if self.verbose or not ok:
            print(f"{'ok  ' if ok else 'FAIL'} {what}")
        return ok

    def finish(self, least=0):
        """Print the summary line; the exit status: 1 on a failure or when
        fewer than least checks passed (a checker that checked nothing)."""
        print(f"{self.name}: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed or self.passed < least else 0
