"""Pack tests: the `tests:` of packs and `*_test.yaml` files, run by `policy test`.

`suite` finds what to run and the packs each suite loads, `run` runs it (one engine per
suite, each test in a state of its own), `verdict` compares a decision with `expect`,
`coverage` says which rules and builtin gates no test exercised, and `lint` checks test
entries without running them (for `policy check`).
"""

from __future__ import annotations

from policy.pack_tests.run import StepOutcome, TestOutcome, run_pack_tests
from policy.pack_tests.verdict import action_of, verdict

__all__ = ["StepOutcome", "TestOutcome", "action_of", "run_pack_tests", "verdict"]
