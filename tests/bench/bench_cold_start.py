"""Cold start of `policy hook claude`: process start to printed answer, 100-rule pack.

    .venv/bin/python tests/bench/bench_cold_start.py [--runs N] [--pack PATH] [--env NAME=VALUE]
        [--config] [--bypass]
    .venv/bin/python tests/bench/bench_cold_start.py --mount [--runs N] [--env NAME=VALUE]

Claude Code and Agentao start the hook once per event, so this whole process is on
the path of every tool call (DESIGN §9: at most 4x `python3 -c pass`). The baseline
is `python -c pass` of the same interpreter, measured in the same run, interleaved
with the hook runs so that a noisy neighbour slows both alike.

The pack is `bench_packs.write_pack(100)`: 96 rules on tools the call is not, and 4
on `bash` reading a pack variable, one of which (`allow-readonly`) decides the
measured call (`ls -la`). The environment has no `POLICY_*` variable and a fresh
`XDG_DATA_HOME`, so the first hook run compiles the pack and fills the pack cache
(reported on its own as the cold-cache run); the N runs after it read the cache.

`--config` names the pack in a settings file (`POLICY_CONFIG`, in the same temporary
directory, so the user's own) instead of `--packs`: the first run validates it with
pydantic-settings and keeps it, the next ones read it back (policy._fast_settings).
`--env NAME=VALUE` (repeatable) sets variables for every run; a `POLICY_*` one other
than `POLICY_CONFIG` means the settings are validated at every start, never cached.

`--bypass` adds a row run with `POLICY_PACK_CACHE=false`: neither cache is used, so
every start validates the settings and compiles the pack. That is what a start costs
when the caches must be bypassed because the pack or settings file is not the user's
to change (docs/decisions/0011-cold-start.md) — which cannot be shown otherwise here:
the generated pack lives in a temporary directory the user owns, and to root every
file is the user's.

`--mount`: the shipped packs as examples/claude-code mounts the hook — a project
directory holding a copy of `rules/` and of `examples/claude-code/.claude/hookpolicy.yaml`,
the PreToolUse command of `examples/claude-code/settings.json` run there as it is
(`policy hook claude --config .claude/hookpolicy.yaml --packs rules --approval auto
--deadline 50`, `policy` being this interpreter's console script), with
`CLAUDE_PROJECT_DIR` set to the project as Claude Code sets it, and the payload's `cwd`
the project. Rows, interleaved: `python -c pass` (the baseline), the hook standalone
(deciding in its own process, caches warm after the untimed first run: the same call
each run, so its packs answer from the answers the first run kept, decision 0020), the
hook standalone asked a command no run asked before (`ls -la notes-N`: its packs'
programs are built and evaluated, as for the first call of each kind), and the same
command with `--server unix:PATH` added: a thin client of a `policy serve --packs rules`
this script starts on a socket in the temporary directory (bench_service.Service) and
stops at the end. DESIGN §9's targets: standalone ≤ 6x and thin ≤ 3x `python -c pass`.
One more row shows how much of the standalone start is not hookpolicy's: a `python -c`
importing, in order, every module the standalone hook imports that is not hookpolicy's
(its `-X importtime` list, taken from one untimed run: orjson and what it loads,
tree-sitter, pathlib, typing, ...); hookpolicy's own share, printed after the table, is
the standalone median less that row's.

An editable install (`pip install -e .`, what `./dev` sets up) imports hookpolicy
through an import hook that `site` loads into EVERY process of the virtualenv,
`python -c pass` included: it imports pathlib, re, urllib.parse and ipaddress, 15 to 60 ms
on this machine, which the hook needs anyway — so against that baseline the hook's
ratio is flattered, as a pyenv shim flatters it. When the venv is editable, `--mount`
also runs each row as an installed (non-editable) hookpolicy runs it: a virtualenv of
the same interpreter, made in the temporary directory, whose one `.pth` puts this
venv's site-packages and this checkout on `sys.path` (as a wheel install puts them),
the hook started by a `policy` console script written there as pip writes one (`from
policy.cli import command`; `python -m policy` would add runpy's imports, which no
installed hook pays), against that venv's own `python -c pass`. Those are the figures
a user of a released hookpolicy pays.

`PYTHONDONTWRITEBYTECODE` is removed from the runs' environment: an installed
package has its `.pyc` files, and without them every run would compile hookpolicy's
sources again (the cold-cache run writes them for an editable checkout).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from bench_packs import write_pack

PAYLOAD = {
    "session_id": "bench",
    "transcript_path": "/tmp/transcript.jsonl",
    "cwd": "/tmp",
    "permission_mode": "default",
    "hook_event_name": "PreToolUse",
    "tool_name": "Bash",
    "tool_input": {"command": "ls -la"},
    "tool_use_id": "toolu_bench",
}


ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "examples" / "claude-code"
BASE = "python -c pass"
STANDALONE = "standalone (the example's mount)"
INSTALLED = "as installed: "
NEW = "standalone, a call not seen before"
THIN = "thin client (+ --server unix:...)"
LIBRARIES = "libraries alone (no hookpolicy code)"


def _run(
    argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path | None = None
) -> tuple[float, bytes]:
    """Wall time in ms of one process, start to exit, and what it printed."""
    start = time.perf_counter_ns()
    done = subprocess.run(argv, input=stdin, capture_output=True, env=env, check=False, cwd=cwd)
    elapsed = (time.perf_counter_ns() - start) / 1e6
    if done.returncode != 0:
        raise SystemExit(f"{argv[0]} exited {done.returncode}: {done.stderr.decode()[-2000:]}")
    return elapsed, done.stdout


def _libraries(
    argv: list[str], stdin: bytes, env: dict[str, str], cwd: Path, python: Path
) -> list[str]:
    """`python -c` importing the modules the hook `argv` imports that are not
    hookpolicy's, in the order it imports them (its `-X importtime` list, one untimed
    run): what the start costs before any of hookpolicy's own code is read. A module
    the hook only tried (`nt` on Linux) is tried again and skipped the same way."""
    traced = subprocess.run(
        argv,
        input=stdin,
        capture_output=True,
        env={**env, "PYTHONPROFILEIMPORTTIME": "1"},
        check=False,
        cwd=cwd,
    )
    names = []
    for line in traced.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:") and line.count("|") == 2:
            name = line.rsplit("|", 1)[1].strip()
            dotted = all(part.isidentifier() for part in name.split("."))  # (not the header)
            if dotted and name.split(".")[0] != "policy" and name not in names:
                names.append(name)
    if not names:
        raise SystemExit(f"{argv[0]}: no -X importtime list: {traced.stderr.decode()[-500:]}")
    script = (
        "import importlib\n"
        f"for name in {names!r}:\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except ImportError:\n"
        "        pass\n"
    )
    return [str(python), "-c", script]


def _editable() -> bool:
    """Whether this interpreter imports hookpolicy through an editable install's import
    hook (setuptools' `__editable___hookpolicy_*_finder`, loaded by `site`)."""
    return any(
        str(getattr(finder, "__module__", "")).startswith("__editable__")
        for finder in sys.meta_path
    )


#: The console script pip (24 and later) writes for `policy = "policy.cli:command"`.
_CONSOLE_SCRIPT = """\
#!{python}
import sys
from policy.cli import command
if __name__ == '__main__':
    sys.argv[0] = sys.argv[0].removesuffix('.exe')
    sys.exit(command())
"""


def _plain_venv(directory: Path) -> tuple[Path, Path]:
    """The python of a new virtualenv of this interpreter that imports hookpolicy and
    its libraries as a wheel install would — from directories on `sys.path` (one `.pth`),
    through no import hook — and its `policy` console script."""
    venv = directory / "plain-venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, capture_output=True
    )
    python = venv / "bin" / "python"
    found = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    ours = sysconfig.get_paths()["purelib"]
    Path(found.stdout.strip(), "hookpolicy.pth").write_text(f"{ours}\n{ROOT}\n")
    script = venv / "bin" / "policy"
    script.write_text(_CONSOLE_SCRIPT.format(python=python))
    script.chmod(0o755)
    return python, script


def mounted_hook(project: Path, policy: Path) -> list[str]:
    """The PreToolUse command of examples/claude-code/settings.json, as argv."""
    settings = json.loads((EXAMPLE / "settings.json").read_text())
    argv = shlex.split(settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"])
    if argv[0] != "policy":
        raise SystemExit(f"examples/claude-code/settings.json runs {argv[0]!r}, not policy")
    shutil.copytree(ROOT / "rules", project / "rules")
    (project / ".claude").mkdir()
    shutil.copy(EXAMPLE / ".claude" / "hookpolicy.yaml", project / ".claude" / "hookpolicy.yaml")
    return [str(policy), *argv[1:]]


def mount(runs: int, directory: Path, env: dict[str, str], policy: Path) -> None:
    """The example's mount on the shipped packs: standalone and as a thin client."""
    from bench_service import Service, _settings

    project = directory / "project"
    project.mkdir()
    standalone = mounted_hook(project, policy)
    env = {**env, "CLAUDE_PROJECT_DIR": str(project)}
    payload = json.dumps({**PAYLOAD, "cwd": str(project)}).encode()
    service = Service(directory, _settings(directory / "service"))
    service.argv[service.argv.index("--packs") + 1] = str(project / "rules")
    try:
        ready = service.start(env)
        thin = [*standalone, "--server", f"unix:{service.socket}"]
        fresh = itertools.count()

        def unseen() -> bytes:  # the same kind of call, on a path no run asked about
            command = f"ls -la notes-{next(fresh)}"
            asked = {**PAYLOAD, "cwd": str(project), "tool_input": {"command": command}}
            return json.dumps(asked).encode()

        rows: dict[str, tuple[list[str], Callable[[], bytes]]] = {
            BASE: ([sys.executable, "-c", "pass"], lambda: b""),
            STANDALONE: (standalone, lambda: payload),
            NEW: (standalone, unseen),
            THIN: (thin, lambda: payload),
        }
        plain = _plain_venv(directory) if _editable() else None
        if plain is not None:  # the same rows as an installed hookpolicy runs them
            python, script = plain
            as_installed = [str(script)]
            installed = [*as_installed, *standalone[1:]]
            rows[INSTALLED + BASE] = ([str(python), "-c", "pass"], lambda: b"")
            rows[INSTALLED + STANDALONE] = (installed, lambda: payload)
            rows[INSTALLED + NEW] = (installed, unseen)
            rows[INSTALLED + THIN] = ([*as_installed, *thin[1:]], lambda: payload)
        first: dict[str, float] = {}
        answers: dict[str, bytes] = {}
        for label, (argv, stdin) in rows.items():  # untimed: caches, page cache, .pyc
            first[label], answers[label] = _run(argv, stdin(), env, project)
        # (listed from a run with warm caches, as the timed ones are; an editable venv's
        # start loads its import hook, so the row is the installed one's when there is one)
        if plain is not None:
            label, hook, python = INSTALLED + LIBRARIES, installed, plain[0]
        else:
            label, hook, python = LIBRARIES, standalone, Path(sys.executable)
        libraries = _libraries(hook, payload, env, project, python)
        rows[label] = (libraries, lambda: b"")
        first[label], answers[label] = _run(libraries, b"", env, project)
        times: dict[str, list[float]] = {label: [] for label in rows}
        for _ in range(runs):
            for label, (argv, stdin) in rows.items():
                elapsed, again = _run(argv, stdin(), env, project)
                if again != answers[label]:
                    raise SystemExit(f"{label}: the answer changed: {answers[label]!r} / {again!r}")
                times[label].append(elapsed)
    finally:
        service.stop()
    print(f"packs: shipped rules/, mounted as examples/claude-code/settings.json: {standalone[1:]}")
    print(f"policy serve (for the thin client) ready in {ready:.0f} ms")
    print(f"answer: {answers[STANDALONE].decode().strip() or '(none)'}")
    for label, answer in answers.items():
        if label.endswith(THIN) and answer != answers[STANDALONE]:
            print(f"NOTE: {label} answered {answer!r}")
    print(f"{'run':52} {'median ms':>10} {'min ms':>8} {'first ms':>9} {'x base':>7}")
    for label, samples in times.items():
        median = statistics.median(samples)
        base = statistics.median(times[INSTALLED + BASE if label.startswith(INSTALLED) else BASE])
        print(
            f"{label:52} {median:10.1f} {min(samples):8.1f} {first[label]:9.1f} "
            f"{median / base:7.2f}"
        )
    prefix = INSTALLED if plain is not None else ""
    own = statistics.median(times[prefix + STANDALONE]) - statistics.median(
        times[prefix + LIBRARIES]
    )
    base = statistics.median(times[prefix + BASE])
    print(
        f"{prefix}hookpolicy's own share of the standalone start (standalone less its "
        f"libraries alone): {own:.1f} ms, {own / base:.2f}x base"
    )
    print(
        f"python {sys.version.split()[0]}, {runs} runs each, interleaved, each row against "
        "the python -c pass of its own virtualenv; targets (DESIGN §9): standalone x base "
        "<= 6, thin client x base <= 3"
    )
    if plain is not None:
        print(
            "(this virtualenv is an editable install: its python -c pass imports hookpolicy's "
            "import hook and what it needs; the 'as installed' rows are what an installed "
            "hookpolicy costs against its interpreter's own start)"
        )
    print(
        "(the example's mount asks the same call each run: from the second on, its packs "
        "answer from the answers kept on disk; a command not seen before builds its "
        "programs (from their kept shapes) and evaluates them, as the first call of "
        "each kind does)"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15, help="timed runs of each (default 15)")
    parser.add_argument("--pack", type=Path, help="measure this pack instead of the generated one")
    parser.add_argument(
        "--env", action="append", default=[], metavar="NAME=VALUE", help="set for every run"
    )
    parser.add_argument(
        "--config", action="store_true", help="name the pack in a settings file ($POLICY_CONFIG)"
    )
    parser.add_argument(
        "--bypass", action="store_true", help="add a row with both caches off (bypassed)"
    )
    parser.add_argument(
        "--mount",
        action="store_true",
        help="the shipped packs as examples/claude-code mounts the hook: standalone and thin",
    )
    options = parser.parse_args()
    if options.mount and (options.pack or options.config or options.bypass):
        parser.error("--mount runs the example's own command: no --pack, --config or --bypass")
    python = Path(sys.executable)
    policy = python.with_name("policy")
    with tempfile.TemporaryDirectory() as tmp:
        directory = Path(tmp)
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.upper().startswith("POLICY_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env["XDG_DATA_HOME"] = str(directory / "xdg")
        env.update(item.split("=", 1) for item in options.env)
        if options.mount:
            mount(options.runs, directory, env, policy)
            return
        pack = options.pack or write_pack(directory, 100)
        payload = json.dumps(PAYLOAD).encode()
        hook = [str(policy), "hook", "claude"]
        if options.config:
            config = directory / "policy.yaml"
            config.write_text(f"packs: [{json.dumps(str(pack.resolve()))}]\n")
            env["POLICY_CONFIG"] = str(config)
        else:
            hook += ["--packs", str(pack)]
        baseline = [str(python), "-c", "pass"]
        bypass_env = {**env, "POLICY_PACK_CACHE": "false"}

        cold, answer = _run(hook, payload, env)
        base_times: list[float] = []
        hook_times: list[float] = []
        bypass_times: list[float] = []
        for _ in range(options.runs):
            base_times.append(_run(baseline, b"", env)[0])
            elapsed, again = _run(hook, payload, env)
            if again != answer:
                raise SystemExit(f"the answer changed between runs: {answer!r} then {again!r}")
            hook_times.append(elapsed)
            if options.bypass:
                elapsed, again = _run(hook, payload, bypass_env)
                if again != answer:
                    raise SystemExit(f"the caches changed the answer: {answer!r} / {again!r}")
                bypass_times.append(elapsed)
        base = statistics.median(base_times)
        warm = statistics.median(hook_times)
        print(f"pack: {pack} ({'generated, 100 rules' if options.pack is None else 'given'})")
        print(f"settings: {'a settings file (POLICY_CONFIG)' if options.config else 'none'}")
        print(f"answer: {answer.decode().strip() or '(none: no rule decided)'}")
        print(f"{'run':34} {'median ms':>10} {'min ms':>8} {'x base':>7}")
        print(f"{'python -c pass':34} {base:10.1f} {min(base_times):8.1f} {1.0:7.2f}")
        print(f"{'policy hook claude, cold cache':34} {cold:10.1f} {cold:8.1f} {cold / base:7.2f}")
        print(
            f"{'policy hook claude, warm cache':34} {warm:10.1f} {min(hook_times):8.1f} "
            f"{warm / base:7.2f}"
        )
        if bypass_times:
            bypassed = statistics.median(bypass_times)
            print(
                f"{'policy hook claude, caches bypassed':34} {bypassed:10.1f} "
                f"{min(bypass_times):8.1f} {bypassed / base:7.2f}"
            )
        print(f"python {sys.version.split()[0]}, {options.runs} runs each; target: x base <= 4")


if __name__ == "__main__":
    main()
