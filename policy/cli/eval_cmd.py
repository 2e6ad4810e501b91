"""`policy eval`: decide calls given as JSON, print each Decision as a JSON line."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from policy.cli._output import error
from policy.codec import PART_TYPES, from_dict, to_dict
from policy.engine import Engine
from policy.errors import InputError, PolicyError
from policy.hosts.hosted import build_hosted
from policy.model import POINTS, HookPoint
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


def _documents(raw: bytes) -> Iterator[tuple[str, Any]]:
    """One JSON value, an array of them, or JSON lines; yields (where, value)."""
    text = raw.strip()
    if not text:
        raise InputError("input is empty")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        for number, line in enumerate(raw.splitlines(), 1):
            if not line.strip():
                continue
            try:
                yield f"line {number}", orjson.loads(line)
            except orjson.JSONDecodeError as exc:
                raise InputError(f"line {number}: not valid JSON: {exc}") from None
        return
    if isinstance(value, list):
        for index, item in enumerate(value):
            yield f"item {index}", item
    else:
        yield "input", value


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


def _evaluate(engine: Engine, default_point: str, where: str, value: Any) -> dict[str, Any]:
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
    parts = [part(name, PART_TYPES[name]) for name in names]
    out = to_dict(engine.decide_at(point, *parts))
    return {"point": point, **out}


def run(args: argparse.Namespace) -> int:
    try:
        overrides: dict[str, Any] = {}
        if args.audit_log:
            overrides["audit_path"] = Path(args.audit_log)
        if args.packs:
            overrides["packs"] = [Path(p) for p in args.packs]
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
    option = orjson.OPT_INDENT_2 if args.pretty else 0
    try:
        with Engine(settings, audit_stream=sys.stderr, hosted=build_hosted) as engine:
            for hook in hooks:
                engine.register(hook)
            for where, value in documents:
                decided = _evaluate(engine, args.point, where, value)
                sys.stdout.buffer.write(orjson.dumps(decided, option=option) + b"\n")
                sys.stdout.buffer.flush()
    except PolicyError as exc:
        error(str(exc))
        return 2
    return 0
