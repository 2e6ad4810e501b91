"""A hook's `if` filter: Claude Code's permission-rule syntax, read to decide when a
hosted hook runs — and whether what it says may grant.

Claude Code (2.1.85+) lets a hook handler carry `"if": "Bash(git push *)"`: the hook
process starts only for calls the rule matches; since 2.1.89 a Bash rule matches any
simple command of a compound line (`ls && git push`) and one behind `VAR=value`
prefixes. The rule forms read here:

* `Tool` — every call of that tool (Claude Code's name: `Bash`, `Edit`); `mcp__server`
  and `mcp__server__*` every tool of that MCP server;
* `Bash(spec)` — `*` matches any text; `prefix *` and the legacy `prefix:*` a command
  that is `prefix` or starts with it and a space;
* `Read|Edit|Write|MultiEdit|NotebookEdit|Glob|Grep(pattern)` — a gitignore-style path
  pattern (`*.py`, `src/**`, `//abs/path`, `~/x`, `./x`; a directory covers what is in
  it); an `Edit` rule covers the other editing tools and a `Read` rule `Grep` and
  `Glob`, as Claude Code's permission rules do;
* `WebFetch(domain:host)` — the URL's host, or a subdomain of it (`domain:*.host` too).

Two readings, because a hook is started for two kinds of answer (`matches`):

* **exact** — the call is one the rule names as Claude Code reads it: a single simple
  command, an absolute path, a plain URL. Whatever the hook says counts, `allow` too.
* **maybe** — only a wide reading matches: the rule's words anywhere in the line (behind
  `sudo`, in `bash -c '…'`, after `if …; then`, with odd spacing or quotes), a relative
  or linked path, an editing tool under an `Edit` rule, a URL Node's parser may read
  otherwise, a spec this module does not read. The hook is started — a guard run too
  often can only refuse more — but its `allow` is dropped: a grant needs the exact
  reading, so no line Claude Code would have asked about is waved through.

A rule that is no permission rule at all is refused at load (`parse_rule`). Matching
is linear in the line's length (`_in_order`), whatever the rule's `*`s.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urlsplit

from policy._lazy_dataclass import dataclass

__all__ = ["Match", "PermissionRule", "parse_rule"]

#: How a call reads against a rule (module docstring).
Match = Literal["exact", "maybe", "no"]

_RULE = re.compile(r"^\s*(?P<tool>[A-Za-z][\w-]*\*?)\s*(?:\((?P<spec>.*)\))?\s*$", re.DOTALL)
#: What makes a line more than one simple command, or a command other than its words.
_COMPLEX = re.compile(
    r"[;&|<>()$`\\\n'\"{}!#*?\[\]~]"
    r"|(?:^|\s)(?:if|then|else|elif|fi|do|done|while|until|for|case|esac|in|function"
    r"|select|coproc|time|sudo|doas|env|command|builtin|exec|eval|nohup|xargs)(?:\s|$)"
)
_ASSIGNMENTS = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+")
_EDITING = frozenset({"Edit", "Write", "MultiEdit", "NotebookEdit"})
_READING = frozenset({"Read", "Grep", "Glob"})
_PATH_ARGS = {
    "Read": ("file_path",),
    "Edit": ("file_path",),
    "MultiEdit": ("file_path",),
    "Write": ("file_path",),
    "NotebookEdit": ("notebook_path",),
    "Glob": ("path", "pattern"),
    "Grep": ("path",),
}
_GLOB_CHARS = frozenset("*?[{")


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

    def matches(
        self,
        tool: str,
        tool_input: Mapping[str, Any],
        *,
        project: str,
        cwd: str = "",
        home: str = "",
    ) -> Match:
        """How a call of `tool` (Claude Code's name) with `tool_input` (Claude Code's
        argument names) reads against this rule; `project` and `cwd` place relative
        paths, `home` is what `~` means for the caller."""
        family = self._tool_reading(tool)
        if family == "no":
            return "no"
        spec = (self.spec or "").strip()
        if not spec or spec == "*":
            return family
        reading: Match
        if self.tool == "Bash":
            command = tool_input.get("command")
            reading = _command(spec, command) if isinstance(command, str) else "maybe"
        elif self.tool in _PATH_ARGS:
            given = [tool_input.get(key) for key in _PATH_ARGS.get(tool, ("file_path", "path"))]
            paths = [p for p in given if isinstance(p, str) and p]
            places = _Places(project, cwd, home or os.path.expanduser("~"))
            reading = _paths(spec, paths, places) if paths else "maybe"
        elif self.tool == "WebFetch" and spec.startswith("domain:"):
            url = tool_input.get("url")
            reading = _domain(spec[len("domain:") :], url) if isinstance(url, str) else "maybe"
        else:
            reading = "maybe"  # a spec this module does not read: run the hook, grant nothing
        return _weaker(family, reading)

    def _tool_reading(self, tool: str) -> Match:
        rule = self.tool
        if tool == rule:
            return "exact"
        if rule.startswith("mcp__"):
            server = rule.removesuffix("*").removesuffix("__")
            if rule.count("__") == 1 or rule.endswith("__*"):
                return "exact" if tool.startswith(server + "__") else "no"
            return "no"
        if (rule == "Edit" and tool in _EDITING) or (rule == "Read" and tool in _READING):
            return "maybe"
        return "no"


def _weaker(a: Match, b: Match) -> Match:
    order = {"no": 0, "maybe": 1, "exact": 2}
    return a if order[a] <= order[b] else b


# ------------------------------------------------------------------------- Bash


def _command(spec: str, command: str) -> Match:
    with_args = spec.endswith((" *", ":*"))
    words = spec[:-2].rstrip() if with_args else spec
    parts = words.split("*")
    simple = _ASSIGNMENTS.sub("", " ".join(command.split()))
    if not _COMPLEX.search(simple):
        whole = _anchored(parts, simple)
        if whole or (with_args and _anchored([*parts[:-1], parts[-1] + " ", ""], simple)):
            return "exact"
    # The wide reading: the rule's words, in order, anywhere in the line once line
    # continuations, quotes and runs of blanks are taken out (a subcommand, a wrapper,
    # a nested shell, a compound statement).
    flat = " ".join(command.replace("\\\n", "").replace("'", "").replace('"', "").split())
    return "maybe" if _in_order(parts, flat, word_end=with_args) else "no"


def _anchored(parts: list[str], text: str) -> bool:
    """`text` is the wildcard pattern `'*'.join(parts)`, whole."""
    if len(parts) == 1:
        return text == parts[0]
    first, last = parts[0], parts[-1]
    if not text.startswith(first) or not text.endswith(last):
        return False
    position, end = len(first), len(text) - len(last)
    if end < position:
        return False
    for middle in parts[1:-1]:
        found = text.find(middle, position, end)
        if found < 0:
            return False
        position = found + len(middle)
    return True


def _in_order(parts: list[str], text: str, *, word_end: bool = False) -> bool:
    """The literal parts of the pattern occur in `text` in order, the first at the start
    of a word (and, with `word_end`, the last at the end of one: `git push *` is not
    `git pushy`). Linear: if the rest is not found after the first place the first part
    is, it is found after no later place either."""
    literals = [part for part in parts if part.strip()]
    if not literals:
        return True
    first = literals[0].strip()
    position = 0
    while True:
        found = text.find(first, position)
        if found < 0:
            return False
        if found == 0 or not (text[found - 1].isalnum() or text[found - 1] == "_"):
            break
        position = found + 1
    position = found + len(first)
    for literal in literals[1:]:
        found = text.find(literal.strip(), position)
        if found < 0:
            return False
        position = found + len(literal.strip())
    if not word_end:
        return True
    last = literals[-1].strip()
    end = position  # just after the earliest place of the last literal
    while end <= len(text):
        if end == len(text) or not (text[end].isalnum() or text[end] == "_"):
            return True
        found = text.find(last, end - len(last) + 1)
        if found < 0:
            return False
        end = found + len(last)
    return False


# ------------------------------------------------------------------------ paths


@dataclass(frozen=True, slots=True)
class _Places:
    project: str
    cwd: str
    home: str


def _paths(spec: str, paths: list[str], places: _Places) -> Match:
    pattern, anywhere = _pattern(spec, places)
    best: Match = "no"
    for path in paths:
        candidates: list[tuple[str, Match]] = []
        if os.path.isabs(path):
            candidates.append((os.path.normpath(path), "exact"))
        else:
            for base in (places.cwd, places.project):
                if base:
                    candidates.append((os.path.normpath(os.path.join(base, path)), "maybe"))
        for candidate, _strength in list(candidates):
            real = os.path.realpath(candidate)
            if real != candidate:
                candidates.append((real, "maybe"))  # a link to what the rule names
        for candidate, strength in candidates:
            if _path_match(pattern, anywhere, candidate):
                if strength == "exact":
                    return "exact"
                best = "maybe"
    return best


def _pattern(spec: str, places: _Places) -> tuple[str, bool]:
    """The absolute glob `spec` names, and whether it matches at any depth."""
    spec = spec.removeprefix("./") if spec.startswith("./") else spec
    if spec.startswith("//"):
        return spec[1:], False
    if spec.startswith("~/"):
        return os.path.join(places.home, spec[2:]), False
    if spec.startswith("/"):
        return os.path.join(places.project, spec[1:]), False  # from the settings' project
    if "/" in spec.rstrip("/"):
        return os.path.join(places.project, spec), False
    return spec, True  # a bare name (`*.env`) matches at any depth, as in gitignore


def _path_match(pattern: str, anywhere: bool, path: str) -> bool:
    from wcmatch import glob

    flags = glob.GLOBSTAR | glob.DOTGLOB | glob.BRACE
    patterns = [pattern.rstrip("/") or "/"]
    if not _GLOB_CHARS.intersection(pattern):
        patterns.append(patterns[0].rstrip("/") + "/**")  # a directory covers its contents
    if anywhere:
        patterns = [f"**/{p}" for p in patterns]
        path = path.lstrip("/")
    return bool(glob.globmatch(path, patterns, flags=flags))


# ------------------------------------------------------------------------ WebFetch


def _domain(domain: str, url: str) -> Match:
    domain = domain.strip().lower().rstrip(".").removeprefix("*.")
    netloc = urlsplit(url).netloc
    # A URL two parsers read alike: ASCII, no `\`, no user part, no escapes in the host.
    plain = url.isascii() and "\\" not in url and "@" not in netloc and "%" not in netloc
    hosts = {(urlsplit(url).hostname or "").lower().rstrip(".")}
    # Node's WHATWG parser reads `\` as `/` and folds the host (`。` is a dot).
    whatwg = unicodedata.normalize("NFKC", url.replace("\\", "/")).replace("\u3002", ".")
    hosts.add((urlsplit(whatwg).hostname or "").lower().rstrip("."))
    hits = [h for h in hosts if h and (h == domain or h.endswith("." + domain))]
    if not hits:
        return "no" if plain and all(hosts) else "maybe"
    return "exact" if plain and len(hosts) == 1 else "maybe"
