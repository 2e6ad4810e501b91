"""A hook's `if` filter: Claude Code's permission-rule syntax, read to decide when a
hosted hook runs.

Claude Code (2.1.85+) lets a hook handler carry `"if": "Bash(git push *)"`: the hook
process starts only for calls the rule matches; since 2.1.89 a Bash rule matches any
simple command of a compound line (`ls && git push`) and one behind `VAR=value`
prefixes. The rule forms read here:

* `Tool` — every call of that tool (Claude Code's name: `Bash`, `Edit`, `mcp__x__y`);
* `Bash(spec)` — `*` matches any text; a legacy `prefix:*` matches a command that starts
  with `prefix`;
* `Read|Edit|Write|MultiEdit|NotebookEdit|Glob|Grep(pattern)` — a gitignore-style path
  pattern (`*.py`, `src/**`, `//abs/path`, `~/x`, `./x`) over the call's path;
* `WebFetch(domain:host)` — the URL's host, or a subdomain of it.

Where the reading is uncertain the rule matches, so the hook runs **more** often than
under Claude Code, never less: a guard that runs on a call Claude Code would have let
past it can only refuse more. A spec of a tool not listed matches every call of the
tool. A rule that is no permission rule at all is refused at load (`parse_rule`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

__all__ = ["PermissionRule", "parse_rule"]

_RULE = re.compile(r"^\s*(?P<tool>[A-Za-z][\w-]*)\s*(?:\((?P<spec>.*)\))?\s*$", re.DOTALL)
#: Where a simple command ends in a line (a superset: a separator inside quotes splits
#: too, which can only make a piece match that would not have).
_SEPARATORS = re.compile(r"&&|\|\||[;|&\n]|\$\(|`|\(|\)")
_ASSIGNMENT = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|\"[^\"]*\"|\S*)\s+)+")
_PATH_TOOLS = {
    "Read": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "Write": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("path", "pattern"),
    "Grep": ("path",),
}


def parse_rule(text: str) -> PermissionRule:
    """The rule `text` says; ValueError when it is no permission rule."""
    match = _RULE.match(text)
    if match is None:
        raise ValueError(
            f"{text!r} is no permission rule (like `Bash(git push *)`, `Edit(src/**)`, `Read`)"
        )
    return PermissionRule(text, match["tool"], match["spec"])


@dataclass(frozen=True, slots=True)
class PermissionRule:
    text: str
    tool: str
    spec: str | None

    def matches(self, tool: str, tool_input: Mapping[str, Any], project: str) -> bool:
        """Whether a call of `tool` (Claude Code's name) with `tool_input` (Claude Code's
        argument names) in `project` is one this rule names."""
        if tool != self.tool:
            return False
        spec = self.spec
        if spec is None or spec.strip() in ("", "*"):
            return True
        if tool == "Bash":
            command = tool_input.get("command")
            return not isinstance(command, str) or _command_matches(spec.strip(), command)
        if tool in _PATH_TOOLS:
            paths = [tool_input.get(key) for key in _PATH_TOOLS[tool]]
            given = [p for p in paths if isinstance(p, str) and p]
            return not given or any(_path_matches(spec.strip(), p, project) for p in given)
        if tool == "WebFetch" and spec.startswith("domain:"):
            url = tool_input.get("url")
            return not isinstance(url, str) or _domain_matches(spec[len("domain:") :], url)
        return True  # a spec we do not read: run the hook (module docstring)


def _command_matches(spec: str, command: str) -> bool:
    if spec.endswith((":*", " *")):  # `git push:*` (legacy) or `git push *`: its arguments
        prefix = spec[:-2].rstrip()
        pattern = re.compile(
            ".*".join(re.escape(part) for part in prefix.split("*")) + r"(?:\s.*)?\Z", re.DOTALL
        )
    else:
        pattern = re.compile(
            ".*".join(re.escape(part) for part in spec.split("*")) + r"\Z", re.DOTALL
        )
    pieces = [command, *(_SEPARATORS.split(command))]
    for piece in pieces:
        for variant in _spellings(_ASSIGNMENT.sub("", piece.strip())):
            if variant and pattern.match(variant):
                return True
    return False


def _spellings(piece: str) -> list[str]:
    """`piece`, and what it runs once wrappers (the shell analysis's list: `sudo`,
    `timeout 5`, `env A=1`, ...), a path and a backslash are taken off: a guard's rule
    for `rm` is also asked about `sudo /bin/rm` — more than Claude Code may match,
    never less."""
    from policy.analysis.shell.wrappers import _WRAPPERS

    out = [piece]
    words = piece.split()
    while words:
        first = words[0].lstrip("\\")
        name = first.rsplit("/", 1)[-1]
        if name != words[0]:
            words = [name, *words[1:]]
            out.append(" ".join(words))
        if name not in _WRAPPERS:
            break
        words = words[1:]
        while words and (words[0].startswith("-") or "=" in words[0] or words[0][:1].isdigit()):
            words = words[1:]  # options, assignments (`env A=1`), durations (`timeout 5`)
        out.append(" ".join(words))
    return out


def _path_matches(spec: str, path: str, project: str) -> bool:
    from wcmatch import glob

    home = os.path.expanduser("~")
    if spec.startswith("//"):
        pattern = spec[1:]
    elif spec.startswith("~/"):
        pattern = os.path.join(home, spec[2:])
    elif spec.startswith("/"):
        pattern = os.path.join(project, spec[1:])  # relative to the settings' project
    elif "/" in spec.rstrip("/") and not spec.startswith("**"):
        pattern = os.path.join(project, spec.removeprefix("./"))
    else:
        pattern = "**/" + spec.removeprefix("./")  # a bare name matches at any depth
    target = path if os.path.isabs(path) else os.path.join(project, path)
    target = os.path.normpath(target)
    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.BRACE
    if pattern.startswith("**/"):
        return bool(glob.globmatch(target.lstrip("/"), pattern, flags=flags))
    return bool(glob.globmatch(target, os.path.normpath(pattern), flags=flags))


def _domain_matches(domain: str, url: str) -> bool:
    host = (urlsplit(url).hostname or "").lower().rstrip(".")
    domain = domain.strip().lower().rstrip(".")
    return not host or host == domain or host.endswith("." + domain)
