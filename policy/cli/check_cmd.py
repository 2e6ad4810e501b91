"""`policy check`: validate and lint rule packs; the CI gate.

One run reports every problem of every layer (YAML, schema, CEL, builtins, the
packs' `tests:` entries, lint; policy.packs.lint.check_paths). On a terminal (or with
`--snippets`) each text diagnostic shows its source line with a caret under the column.
SARIF locations are relative to the repository root, as GitHub code scanning wants.

A directory given may hold other tools' YAML beside the packs (a service's settings,
a CI workflow): a file found by walking one whose top-level mapping has none of
`apiVersion`, `kind`, `rules`, `builtins`, nor a key a slip away from one (`Kind:`,
`rule:`), is skipped, and said so on one line (a
note in JSON, SARIF and GitHub output, never an error). A file named on the command
line is always checked as a pack (policy.packs.load.discover_walked).

With `--host claude|agentao --settings FILE` it also checks how the packs are mounted
in that host's hooks file (policy.hosts.claude.mount): deadlines against hook timeouts, and
approval gates against `--approval`.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import asdict as dataclass_dict
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from policy._version import __version__
from policy.cli._output import error
from policy.errors import PolicyError
from policy.hosts.claude.dialect import DIALECTS
from policy.packs.diagnostics import Diagnostic


def _github_escape(text: str, *, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


#: A YAML file under a walked directory that is not a pack: (path, why).
Skipped = tuple[str, str]


def _text(
    diagnostics: Sequence[Diagnostic],
    files: int,
    skipped: Sequence[Skipped] = (),
    *,
    snippets: bool = False,
) -> str:
    lines = [f"{path}: skipped, {why}" for path, why in skipped]
    sources: dict[str, list[str] | None] = {}
    for d in diagnostics:
        lines.append(str(d))
        if snippets:
            lines.extend(_snippet(d, sources))
    errors = sum(d.severity == "error" for d in diagnostics)
    warnings = len(diagnostics) - errors
    summary = f"{files} file(s) checked: {errors} error(s), {warnings} warning(s)"
    lines.append(summary + (f", {len(skipped)} skipped (not packs)" if skipped else ""))
    return "\n".join(lines) + "\n"


def _snippet(d: Diagnostic, sources: dict[str, list[str] | None]) -> list[str]:
    """The diagnostic's source line with a caret under its column, as rustc prints it."""
    if d.path not in sources:
        try:
            sources[d.path] = Path(d.path).read_text(encoding="utf-8").splitlines()
        except (OSError, UnicodeDecodeError):
            sources[d.path] = None
    text = sources[d.path]
    if text is None or not 1 <= d.line <= len(text):
        return []
    line = text[d.line - 1].expandtabs(1)
    gutter = " " * len(str(d.line))
    caret = " " * (min(max(d.col, 1), len(line) + 1) - 1) + "^"
    return [f"{gutter} |", f"{d.line} | {line}", f"{gutter} | {caret}"]


def _repository_root() -> Path:
    """The nearest directory at or above the current one holding `.git`, else the
    current directory: what SARIF locations are relative to."""
    here = Path.cwd().resolve()
    for directory in (here, *here.parents):
        if (directory / ".git").exists():
            return directory
    return here


def _sarif_location(path: str, root: Path) -> dict[str, str]:
    """A relative `uri` (what GitHub code scanning maps to the repository's files); a
    file outside the root keeps the path it was named by."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return {"uri": path}
    return {"uri": relative.as_posix(), "uriBaseId": "%SRCROOT%"}


def _github(diagnostics: Sequence[Diagnostic], skipped: Sequence[Skipped] = ()) -> str:
    notes = "".join(
        f"::notice file={_github_escape(path, prop=True)},line=1,col=1,"
        f"title={_NOT_A_PACK}::{_github_escape(f'skipped, {why}')}\n"
        for path, why in skipped
    )
    return notes + "".join(
        f"::{d.severity} file={_github_escape(d.path, prop=True)},line={d.line},col={d.col},"
        f"title={_github_escape(d.code, prop=True)}::{_github_escape(d.message)}\n"
        for d in diagnostics
    )


#: The code of a skipped file's note.
_NOT_A_PACK = "not-a-pack"


def _notes(skipped: Sequence[Skipped]) -> list[dict[str, Any]]:
    """The skipped files as note-level entries (JSON's `diagnostics` shape)."""
    return [
        {
            "path": path,
            "line": 1,
            "col": 1,
            "severity": "note",
            "code": _NOT_A_PACK,
            "message": f"skipped, {why}",
        }
        for path, why in skipped
    ]


def _json(
    diagnostics: Sequence[Diagnostic], files: Sequence[str], skipped: Sequence[Skipped] = ()
) -> str:
    payload = {
        "files": list(files),
        "skipped": [path for path, _ in skipped],
        "errors": sum(d.severity == "error" for d in diagnostics),
        "warnings": sum(d.severity == "warning" for d in diagnostics),
        "diagnostics": [
            *_notes(skipped),
            *(
                {
                    "path": d.path,
                    "line": d.line,
                    "col": d.col,
                    "severity": d.severity,
                    "code": d.code,
                    "message": d.message,
                }
                for d in diagnostics
            ),
        ],
    }
    return orjson.dumps(payload, option=orjson.OPT_INDENT_2).decode() + "\n"


def _sarif(diagnostics: Sequence[Diagnostic], skipped: Sequence[Skipped] = ()) -> str:
    entries = [*_notes(skipped), *(dataclass_dict(d) for d in diagnostics)]
    codes = sorted({entry["code"] for entry in entries})
    root = _repository_root()
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "hookpolicy",
                "version": __version__,
                "informationUri": "https://github.com/hookpolicy/hookpolicy",
                "rules": [{"id": code, "shortDescription": {"text": code}} for code in codes],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": root.as_uri() + "/"}},
        "results": [
            {
                "ruleId": d["code"],
                "level": d["severity"],
                "message": {"text": d["message"]},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": _sarif_location(d["path"], root),
                            "region": {"startLine": d["line"], "startColumn": d["col"]},
                        }
                    }
                ],
            }
            for d in entries
        ],
    }
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    }
    return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode() + "\n"


def _hosted_findings(settings: Any) -> list[Diagnostic]:
    """What the hooks files the settings host (`claude_hooks`) guard in their own host
    but not here: hooks of events that can refuse there (PermissionRequest, ...) and
    have no point in our chain. A file that does not load is an error here too."""
    from policy.errors import SettingsError
    from policy.hosts.claude.hooks_file import HooksFileNotJson, read_hooks_file

    found = []
    for path in settings.claude_hooks:
        try:
            read = read_hooks_file(path, skip_unsupported=settings.claude_hooks_skip_unsupported)
        except HooksFileNotJson as exc:
            # An error although the engine starts (`claude_hooks_not_json: skip`): the
            # operator listed the file for its hooks and none of them runs.
            runs = (
                "the engine refuses to start (claude_hooks_not_json: refuse)"
                if settings.claude_hooks_not_json == "refuse"
                else "none of its hooks run, here as in Claude Code"
            )
            found.append(
                Diagnostic(
                    str(path),
                    exc.line,
                    exc.column,
                    "error",
                    "hosted-hooks-not-json",
                    f"{str(exc).removeprefix('invalid settings:').strip()}: {runs}",
                )
            )
            continue
        except SettingsError as exc:
            found.append(Diagnostic(str(path), 1, 1, "error", "hosted-hooks-invalid", str(exc)))
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for event, count in read.unguarded.items():
            line, col = _key_position(text, event)
            found.append(
                Diagnostic(
                    str(path),
                    line,
                    col,
                    "warning",
                    "hosted-guard-not-run",
                    f"{event} lists {count} hook(s) that can refuse in the host, and hookpolicy "
                    f"has no point to run them at: what they would refuse is decided without "
                    "them. Keep them in the host's own settings, or write the check as a pack "
                    "rule",
                )
            )
        if read.ignored:
            # Claude Code ignores them too; a misspelt `matcher` or `timeout` is among them.
            found.append(
                Diagnostic(
                    str(path),
                    1,
                    1,
                    "warning",
                    "hosted-field-ignored",
                    f"fields Claude Code ignores, and so does hookpolicy: "
                    f"{'; '.join(read.ignored)}",
                )
            )
    return found


def _key_position(text: str, key: str) -> tuple[int, int]:
    """1-based line and column of `"key"` in a JSON text (1:1 if not found)."""
    at = text.find(f'"{key}"')
    if at < 0:
        return 1, 1
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def _test_findings(
    packs: Sequence[Any], aliases: Any, paths: Sequence[str]
) -> tuple[list[Diagnostic], list[str]]:
    """The packs' `tests:` entries and the `*_test.yaml` files under `paths`, checked
    without running them (policy.pack_tests.lint; running them is `policy test`)."""
    from policy.pack_tests.lint import check_tests
    from policy.pack_tests.suite import discover_test_files

    test_files = discover_test_files(paths)
    return check_tests(packs, aliases, test_files), [str(p) for p in test_files]


def run(args: argparse.Namespace) -> int:
    from policy.aliases import DEFAULT_ALIASES, AliasConflictError

    # (the hooks' reader: the defaults, or a settings file validated before, without
    # pydantic-settings' ≈ 40 ms of imports; anything else is validated as ever)
    from policy.hosts._settings import read_settings
    from policy.packs.diagnostics import PackError
    from policy.packs.lint import check_paths

    host: str | None = getattr(args, "host", None)
    settings_file: str | None = getattr(args, "settings", None)
    if host is not None and settings_file is None:
        error(
            f"--host {host} needs --settings FILE: the host's settings/hooks file whose "
            "`policy hook` commands to check (e.g. .claude/settings.json)"
        )
        return 2
    if settings_file is not None and host is None:
        error(f"--settings needs --host {'|'.join(DIALECTS)}: which host reads the file")
        return 2
    try:
        settings = read_settings(args.config, cached=True)
        mount = None
        if host is not None and settings_file is not None:
            from policy.cli.commands import parser
            from policy.hosts.claude.mount import mount_pack_paths, read_mount

            mount = read_mount(settings_file, host, parser())
        paths = args.paths or [str(p) for p in settings.packs]
        service = getattr(settings, "service", None)
        if not args.paths and service is not None:
            # `policy serve`'s settings: every team's packs too (service.policies)
            teams = [str(p) for team in service.policies for p in team.packs]
            paths += [p for p in dict.fromkeys(teams) if p not in paths]
        if not paths and mount is not None:
            paths = mount_pack_paths(mount)  # the packs the hooks themselves load
        if not paths:
            error("no PATHS given and the packs setting is empty")
            return 2
        aliases = DEFAULT_ALIASES.extend(settings.aliases)
        from policy.packs.load import discover_walked

        pack_files, walked_past = discover_walked(paths)
        skipped = [(str(path), why) for path, why in walked_past]
        report = check_paths(
            pack_files,
            cel_engine=args.cel_engine or settings.cel_engine,
            aliases=aliases,
            lenient=bool(getattr(args, "lenient", False)),
        )
        tested, test_files = _test_findings(report.packs, aliases, paths)
    except PackError as exc:
        for diagnostic in exc.diagnostics:
            error(f"{diagnostic.path}: {diagnostic.message}")
        return 2
    except (PolicyError, AliasConflictError) as exc:
        error(str(exc))
        return 2
    if not report.files:
        for path, why in skipped:
            error(f"{path}: skipped, {why}")
        error(f"no rule packs (*.yaml, *.yml) found in {', '.join(paths)}")
        return 2
    diagnostics = sorted(set(report.diagnostics) | set(tested))
    files = [*report.files, *test_files]
    if settings.claude_hooks:
        diagnostics = sorted(set(diagnostics) | set(_hosted_findings(settings)))
        files.extend(str(path) for path in settings.claude_hooks)
    if mount is not None:
        from policy.hosts.claude.mount import check_mount

        found = check_mount(
            mount, packs=paths, approval_timeout=settings.approval_timeout_ms / 1000
        )
        diagnostics = sorted(set(diagnostics) | set(found))
        files.append(mount.path)
    if args.strict:
        diagnostics = [replace(d, severity="error") for d in diagnostics]
    snippets = bool(getattr(args, "snippets", False)) or sys.stdout.isatty()
    output = {
        "text": lambda: _text(diagnostics, len(files), skipped, snippets=snippets),
        "json": lambda: _json(diagnostics, files, skipped),
        "github": lambda: _github(diagnostics, skipped),
        "sarif": lambda: _sarif(diagnostics, skipped),
    }[args.format]()
    sys.stdout.write(output)
    return 1 if any(d.severity == "error" for d in diagnostics) else 0
