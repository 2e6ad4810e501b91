"""`policy bench`: what the policy you load costs per decision, on calls you choose.

Like `opa bench`, for a deployment's own packs and traffic: an engine is built from
the settings (its decision log written to a file, its state in a directory of its
own, as a deployment's are), every call is decided after a warm-up pass with the
per-line analysis memos cleared so each decision is a line seen for the first time,
and the run reports, per hook point, p50/p90/p99 and decisions/s, the resident memory
before and after and its growth per decision, and the rules whose conditions cost the
most CEL time (`policy.bench.rules`). `measure.py` holds the timed run; the CLI glue
and the text table are `policy/cli/bench_cmd.py`.

`BUNDLED_CALLS` is the realistic mix the command decides when given no `--calls`: a
copy of `examples/bench/calls.jsonl` shipped inside the package, so an installed
`policy bench` finds it (tests/test_bench_cmd.py checks the two are the same bytes).
"""

from __future__ import annotations

from pathlib import Path

from policy.bench.measure import BenchCall, Report, run_bench

__all__ = ["BUNDLED_CALLS", "BenchCall", "Report", "run_bench"]

#: The bundled call mix (JSON lines in `policy eval`'s input format).
BUNDLED_CALLS = Path(__file__).with_name("calls.jsonl")
