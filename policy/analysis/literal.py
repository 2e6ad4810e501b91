"""What a pipeline of plain producers and decoders prints, worked out without running it.

`echo cm0gLXJmIH4= | base64 -d | sh`, `$(printf %s fi8u... | base64 --decode)`,
`xxd -r -p <<< 726d...`, `rev <<< '/ fr- mr'`: obfuscation by encoding is a pipeline
of literal text through decoders. When every stage is one this module knows — `echo`,
`printf`, `cat` of a here-document or here-string, a here-string itself, `base64 -d`,
`base32 -d`, `xxd -r -p`, `rev`, `tr SET1 SET2`, `mktemp` (a name in the temporary
directory) — the output is known, and what consumes it (a shell, `xargs`, a
command substitution) is analysed on that text. Anything else: None, and the
consumer stays unknown.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from policy.analysis._lazy_re import LazyPattern

if TYPE_CHECKING:
    from policy.analysis.shell import SimpleCommand

__all__ = ["output_of"]

_MAX_OUTPUT = 64 * 1024


def output_of(stages: Sequence[SimpleCommand]) -> str | None:
    """The text the pipeline `stages` writes, or None when it cannot be known."""
    text: str | None = None
    for position, stage in enumerate(stages):
        if any(r.startswith((">", "1>", "&>")) for r in stage.redirects):
            return None  # its output goes to a file, not down the pipe
        given = stage.stdin if stage.stdin is not None else text
        if position == 0 and stage.stdin is None:
            given = None
        text = _run(stage, given)
        if text is None or len(text) > _MAX_OUTPUT:
            return None
    return text


def _known(args: Sequence[str]) -> bool:
    return all("$?" not in a for a in args)


def _mktemp(args: Sequence[str]) -> str:
    """The name `mktemp ARGS` prints, as the glob of the names it may print: its
    template's trailing `X`s are random characters (`/tmp/tmp.??????????`), so a
    later `rm -rf "$d"` is judged on every file that name may be."""
    directory = "/tmp"
    template = "tmp.XXXXXXXXXX"
    skip = False
    for position, arg in enumerate(args):
        if skip:
            skip = False
        elif arg in ("-p", "--tmpdir"):
            directory = args[position + 1] if position + 1 < len(args) else directory
            skip = True
        elif arg.startswith("--tmpdir="):
            directory = arg.split("=", 1)[1]
        elif not arg.startswith("-"):
            template = arg
    random = len(template) - len(template.rstrip("X"))
    name = template[: len(template) - random] + "?" * random
    return name if name.startswith("/") else directory.rstrip("/") + "/" + name


def _run(stage: SimpleCommand, given: str | None) -> str | None:
    name, args = stage.name, list(stage.args)
    if not _known(args):
        return None
    if name == "echo":
        newline = "\n"
        words = list(args)
        escapes = False
        while words and re.fullmatch(r"-[neE]+", words[0]):
            flags = words.pop(0)
            newline = "" if "n" in flags else newline
            escapes = escapes or "e" in flags
        body = " ".join(words)
        return (_escapes(body) if escapes else body) + newline
    if name == "printf":
        if not args:
            return None
        fmt, values = args[0], args[1:]
        return _printf(fmt, values)
    if name in ("cat", "tee") and not [a for a in args if a not in ("-",)]:
        return given
    if name == "mktemp":
        return _mktemp(args) + "\n"
    if name in ("dirname", "basename") and args and not any(a.startswith("-") for a in args):
        if name == "dirname":
            return "\n".join(posixpath.dirname(a.rstrip("/")) or "." for a in args) + "\n"
        suffix = args[1] if len(args) == 2 else ""
        base = posixpath.basename(args[0].rstrip("/"))
        return (base[: -len(suffix)] if suffix and base.endswith(suffix) else base) + "\n"
    if given is None:
        return None
    if name in ("base64", "base32") and any(a in ("-d", "--decode", "-D") for a in args):
        return _decode(name, given)
    if name == "xxd" and "-r" in args and any(a in ("-p", "-ps", "-plain") for a in args):
        import binascii  # (here: only a line that decodes hex gets here)

        try:
            return binascii.unhexlify(re.sub(r"\s+", "", given)).decode("utf-8", "replace")
        except (binascii.Error, ValueError):
            return None
    if name == "rev":
        return "\n".join(line[::-1] for line in given.split("\n"))
    if name == "tr" and len(args) == 2 and not any(a.startswith("-") for a in args):
        return _tr(given, args[0], args[1])
    return None


def _decode(name: str, text: str) -> str | None:
    import base64  # (here: only a line that decodes base64 or base32 gets here)
    import binascii

    data = re.sub(r"\s+", "", text)
    try:
        if name == "base64":
            raw = base64.b64decode(data + "=" * (-len(data) % 4), validate=False)
        else:
            raw = base64.b32decode(data + "=" * (-len(data) % 8))
    except (binascii.Error, ValueError):
        return None
    return raw.decode("utf-8", "replace")


_ESCAPE = LazyPattern(r"\\(x[0-9A-Fa-f]{1,2}|0[0-7]{0,3}|[0-7]{1,3}|[abefnrtv\\])")
_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
}


def _escapes(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code[0] == "x":
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8) & 0xFF)
        return _SIMPLE[code]

    return _ESCAPE.sub(one, text)


def _printf(fmt: str, values: list[str]) -> str | None:
    """`printf FORMAT ARGS` for %s, %b, %c and %% (the format reused as printf does)."""
    if re.search(r"%[^sbc%]", fmt):
        return None
    out: list[str] = []
    pending = list(values)
    for _ in range(64):

        def fill(match: re.Match[str]) -> str:
            spec = match.group(0)
            if spec == "%%":
                return "%"
            value = pending.pop(0) if pending else ""
            if spec == "%b":
                return _escapes(value)
            if spec == "%c":
                return value[:1]
            return value

        out.append(_escapes(re.sub(r"%[sbc%]", fill, fmt)))
        if not pending:
            break
    return "".join(out)


def _expand_set(text: str) -> str | None:
    if "[:" in text or "\\" in text:
        return None
    out: list[str] = []
    index = 0
    while index < len(text):
        if index + 2 < len(text) and text[index + 1] == "-":
            low, high = text[index], text[index + 2]
            if ord(high) < ord(low):
                return None
            out.extend(chr(c) for c in range(ord(low), ord(high) + 1))
            index += 3
        else:
            out.append(text[index])
            index += 1
    return "".join(out)


def _tr(text: str, first: str, second: str) -> str | None:
    source, target = _expand_set(first), _expand_set(second)
    if not source or not target:
        return None
    target = target + target[-1] * max(0, len(source) - len(target))
    return text.translate(str.maketrans(source, target[: len(source)]))
