"""`policy eval`: decide calls given as JSON, print each Decision as a JSON line.

With `--explain`, each call's explanation instead (policy.explain): its facts, the
candidate rules and their condition values, what each hook said, the winning rule and
the final decision — as text for people, or one JSON object per call (`--format json`).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from policy.cli._output import error
from policy.codec import PART_TYPES, from_dict, to_dict
from policy.engine import Engine
from policy.errors import InputError, PolicyError
from policy.facts import deciding_for
from policy.hosts.hosted import build_hosted
from policy.model import POINTS, HookPoint
from policy.replay.records import Logged, is_log_record
from policy.settings import load_settings

#: The points `policy eval` decides at: every one that answers (observers do not).
EVAL_POINTS = tuple(str(point) for point in POINTS if point != HookPoint.EVENT)
_WRAPPER_KEYS = frozenset({"point", *(part for p in EVAL_POINTS for part in POINTS[p].parts)})


def _read_input(spec: str) -> bytes:
    if spec == "-":
        return sys.stdin.buffer.read()
    if spec.startswith("@"):
        path = Path(spec[1:])
        try:
            return path.read_bytes()
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror}") from None
    return spec.encode()


def _documents(raw: bytes, source: str | None = None) -> Iterator[tuple[str, Any]]:
    """One JSON value, an array of them, or JSON lines; yields (where, value). `where`
    is `line N`, `item N` or `input`; with a `source` (a file's name), `FILE:N`,
    `FILE[N]` or `FILE`, and so are the errors."""
    text = raw.strip()
    if not text:
        raise InputError(f"{source}: no calls" if source else "input is empty")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            where = f"{source}:{number}" if source else f"line {number}"
            try:
                yield where, orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputError(f"{where}: not valid JSON: {exc}") from None
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield (f"{source}[{index}]" if source else f"item {index}"), item
    else:
        yield source or "input", value


def load_hook(spec: str) -> object:
    """`path/to/file.py:Name` or `package.module:Name`; a class is instantiated."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise InputError(f"--hook {spec!r}: expected FILE.py:NAME or MODULE:NAME")
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise InputError(f"--hook {spec!r}: no such file {path}")
        module_spec = importlib.util.spec_from_file_location(f"_policy_hook_{path.stem}", path)
        if module_spec is None or module_spec.loader is None:
            raise InputError(f"--hook {spec!r}: cannot load {path}")
        module = importlib.util.module_from_spec(module_spec)
        module_spec.loader.exec_module(module)
    else:
        module = importlib.import_module(target)
    try:
        obj = getattr(module, attr)
    except AttributeError:
        raise InputError(f"--hook {spec!r}: {target} has no {attr!r}") from None
    return obj() if isinstance(obj, type) else obj


def _parts(default_point: str, where: str, value: Any) -> tuple[str, list[Any]]:
    """The point an input object is decided at, and the parts `decide_at` takes."""
    if not isinstance(value, dict):
        raise InputError(f"{where}: expected an object")
    wrapped = bool(_WRAPPER_KEYS & value.keys()) and not ("tool" in value or "text" in value)
    point = value.get("point", default_point) if wrapped else default_point
    if wrapped:
        unknown = sorted(set(value) - _WRAPPER_KEYS)
        if unknown:
            raise InputError(
                f"{where}.{unknown[0]}: unknown field (known: {', '.join(sorted(_WRAPPER_KEYS))})"
            )

    def part(name: str, cls: type[Any]) -> Any:
        data = value.get(name) if wrapped else value
        if data is None:
            raise InputError(f"{where}: {point} needs {name!r}")
        return from_dict(cls, data, f"{where}.{name}" if wrapped else where)

    if point not in EVAL_POINTS:
        raise InputError(f"{where}.point: unknown hook point {point!r}")
    names = POINTS[point].parts
    if len(names) > 1 and not wrapped:
        shape = ", ".join(f"{name!r}: ..." for name in names)
        raise InputError(f"{where}: {point} needs {{{shape}}}")
    return point, [part(name, PART_TYPES[name]) for name in names]


def _logged(where: str, value: Any) -> Logged | str:
    """A decision-log line as the call it logged (policy.replay.records), or why the
    log cannot give that call back whole (masked, cut, rewritten, not a decision)."""
    from policy.replay.records import logged_from

    try:
        logged = logged_from(value, 0, where=where)
    except InputError as exc:
        return str(exc).removeprefix(f"{where}: ")
    return logged.skip or logged


def _evaluate(engine: Engine, default_point: str, where: str, value: Any) -> dict[str, Any]:
    if is_log_record(value):
        logged = _logged(where, value)
        if isinstance(logged, str):
            return {"input": where, "not_replayable": logged}
        assert logged.parts is not None
        with deciding_for(logged.caller):
            out = to_dict(engine.decide_at(logged.point, *logged.parts))
        return {"point": logged.point, **out}
    point, parts = _parts(default_point, where, value)
    out = to_dict(engine.decide_at(point, *parts))
    return {"point": point, **out}


def _explained(engine: Engine, default_point: str, where: str, value: Any) -> dict[str, Any]:
    """The explanation of one input call (policy.explain), named by where it was read."""
    from policy.explain import explain

    if is_log_record(value):
        logged = _logged(where, value)
        if isinstance(logged, str):
            raise InputError(f"{where}: not replayable: {logged}")
        assert logged.parts is not None
        with deciding_for(logged.caller):
            return {"input": where, **explain(engine, logged.point, list(logged.parts))}
    point, parts = _parts(default_point, where, value)
    return {"input": where, **explain(engine, point, parts)}


def run(args: argparse.Namespace) -> int:
    try:
        overrides: dict[str, Any] = {}
        if args.audit_log:
            overrides["audit_path"] = Path(args.audit_log)
        if args.packs:
            overrides["packs"] = [Path(p) for p in args.packs]
        # A dry run's calls are not traffic: never in the capture `policy replay` reads.
        overrides.update(audit_capture_dir=None, audit_capture_args=False)
        settings = load_settings(args.config, **overrides)
        if settings.limits_storage_uri is None:
            # A dry run: its calls count in this process only, never against the budgets
            # the agents' hooks share (state.db under data_dir).
            settings = settings.model_copy(update={"limits_storage_uri": "memory://"})
        documents = list(_documents(_read_input(args.input)))
        hooks = [load_hook(spec) for spec in args.hook]
    except PolicyError as exc:
        error(str(exc))
        return 2
    if args.format is not None and not args.explain:
        error("--format: only with --explain (the decisions are JSON lines)")
        return 2
    option = orjson.OPT_INDENT_2 if args.pretty else 0
    text = args.explain and args.format != "json"
    try:
        with Engine(settings, audit_stream=sys.stderr, hosted=build_hosted) as engine:
            for hook in hooks:
                engine.register(hook)
            for number, (where, value) in enumerate(documents):
                if text:
                    report = _explained(engine, args.point, where, value)
                    blank = "\n" if number else ""
                    sys.stdout.write(blank + "\n".join(render_explanation(report)) + "\n")
                    sys.stdout.flush()
                    continue
                if args.explain:
                    decided = _explained(engine, args.point, where, value)
                else:
                    decided = _evaluate(engine, args.point, where, value)
                sys.stdout.buffer.write(orjson.dumps(decided, option=option) + b"\n")
                sys.stdout.buffer.flush()
    except PolicyError as exc:
        error(str(exc))
        return 2
    return 0


# ----------------------------------------------------------------- --explain, as text


def _shown_value(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, dict):
        return "error"
    return "-"


def _said(said: Any) -> str:
    if said is None:
        return "nothing (no objection)"
    if "approved" in said:
        verdict = "approved" if said["approved"] else "refused"
        return f"{verdict}: {said.get('reason', '')}"
    if "hook_failed" in said:
        return f"the hook failed ({said['hook_failed']}): {said['message']}"
    text = str(said.get("action", ""))
    if said.get("needs_approval"):
        text += ", needs approval"
    if said.get("allowed"):
        text += ", allowed"
    if said.get("allowed_by"):
        text += f", allowed by hook {said['allowed_by']}"
    if said.get("rule_ids"):
        text += f" [{', '.join(said['rule_ids'])}]"
    if said.get("reason"):
        text += f": {said['reason']}"
    return text


def _hook_lines(hook: dict[str, Any]) -> list[str]:
    name, kind, status = hook["hook"], hook.get("kind", ""), hook.get("status", "")
    timing = f", {hook['ms']:.1f} ms" if "ms" in hook else ""
    if status == "not reached":
        return [f"  {name} ({kind}): not reached: {hook.get('note', '')}"]
    if status == "not asked":
        lines = [f"  {name} ({kind}): not asked again: {hook.get('note', '')}"]
        if "said" in hook:
            lines.append(f"    said: {_said(hook['said'])}")
        return lines
    candidates = hook.get("candidates")
    if candidates is None:
        lines = [f"  {name} ({kind}{timing}) said: {_said(hook.get('said'))}"]
        if hook.get("note"):
            lines.append(f"    ({hook['note']})")
        return lines
    matched = sum(1 for c in candidates if c.get("value") is True)
    head = (
        f"{len(candidates)} candidate rule(s), {matched} matched"
        if candidates
        else hook.get("note", "no candidate rule")
    )
    lines = [f"  {name} (pack{timing}): {head}; said: {_said(hook.get('said'))}"]
    for rule in candidates:
        value = rule.get("value")
        if value is False:
            continue
        label = f"{rule['rule']} ({rule['action']}{', audit' if rule.get('audit') else ''})"
        where = f"  {rule['at']}" if rule.get("at") else ""
        lines.append(f"    {_shown_value(value):<6}{label}{where}")
        if isinstance(value, dict):
            lines.append(f"          error: {value['error']}")
        if rule.get("verdict"):
            lines.append(f"          -> {rule['verdict']}")
    unmatched = ", ".join(rule["rule"] for rule in candidates if rule.get("value") is False)
    if unmatched:
        lines += textwrap.wrap(
            unmatched,
            96,
            initial_indent="    false ",
            subsequent_indent=" " * 10,
            break_on_hyphens=False,
            break_long_words=False,
        )
    if hook.get("would_action"):
        lines.append(f"    audit mode: would {hook['would_action']}")
    return lines


def render_explanation(report: dict[str, Any]) -> list[str]:
    """The text form of one `policy.explain.explain` report."""
    from policy.cli.facts_cmd import render_facts

    call = report.get("call")
    what = ""
    if call is not None:
        command = call.get("args", {}).get("command")
        what = f": {call['tool']} {command!r}" if isinstance(command, str) else f": {call['tool']}"
    lines = [f"{report['input']} at {report['point']}{what}"]
    facts = report.get("facts")
    if facts is not None:
        lines.append(f"facts ({facts['ms']:.1f} ms):")
        lines += render_facts(facts, "  ")
    hooks = report.get("hooks", [])
    if hooks:
        lines.append("chain, in order:")
        for hook in hooks:
            lines += _hook_lines(hook)
    approval = report.get("approval")
    if approval is not None:
        lines += _approval_lines(approval)
    final = report.get("final", {})
    times = report["ms"]
    if report["point"] == "approve_tool":
        lines.append("final: not decided (explaining asks no approver and no person)")
    else:
        lines.append(f"final ({times['final']:.1f} ms): {_said(final) if final else 'none'}")
    lines.append(f"why: {report['why']}")
    lines.append(
        f"time: facts {times['facts']:.1f} ms, chain {times['hooks']:.1f} ms, "
        f"final {times['final']:.1f} ms, total {times['total']:.1f} ms"
    )
    return lines


def _approval_lines(approval: dict[str, Any]) -> list[str]:
    """Who approve_tool would ask (policy.explain.approval_report), asked of no one."""
    lines = ["approval, as approve_tool would ask it (no one is asked here):"]
    refused = approval.get("refused")
    if refused is not None:
        lines.append(f"  the packs refuse the call: {_said(refused)}")
    gates = approval.get("gates", [])
    if not gates and refused is None:
        lines.append("  gates: none (no pack asks a person about this call)")
    for gate in gates:
        where = f"  {gate['at']}" if gate.get("at") else ""
        lines.append(f"  gate {gate['rule']}{where}")
        lines.append(f"    who:     {gate['who']}")
        lines.append(f"    timeout: {gate['timeout_s']:g} s (from {gate['timeout_from']})")
        lines.append(f"    grants:  {', '.join(gate['grants'])}")
        if gate.get("message"):
            lines.append(f"    message: {gate['message']}")
    approvers = approval.get("approvers", [])
    if not approvers:
        lines.append("  approver hooks: none in the chain")
    for hook in approvers:
        covers = "covers this call" if hook["covers"] else "does not cover this call"
        lines.append(
            f"  approver {hook['hook']} ({hook['kind']}): {covers}, budget {hook['timeout_s']:g} s"
        )
    lines.append(f"  would: {approval['would']}")
    return lines
