"""The custom functions both CEL engines offer (`glob`, `path.*`, `shell.*`,
`regex.*`), the table that declares them, and cel-go's string members that the
cel-python engine emulates.

One implementation per function, shared by the engines: cel-expr-python calls them
as overload implementations, cel-python through its activation. A `shell.*`
function that meets a line whose analysis gave up notes it here (`take_gave_up`).
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Callable
from typing import Any

from policy.analysis._lazy_re import LazyPattern
from policy.analysis._memo import remember_short

__all__ = ["UNPORTABLE", "take_gave_up"]

#: The longest value whose answer an engine remembers (a whole command line may be
#: 1 MiB: asked again rather than kept thousands of times).
REMEMBERED_LENGTH = 1024
#: The longest pattern kept compiled (a glob, a regular expression): a pattern can come
#: from the call itself (`"policy serve".matches(a)`), and one kept is one compiled
#: program held; a longer one is compiled for its call alone, as CEL does.
_KEPT_PATTERN = 256


@remember_short(4096, _KEPT_PATTERN)
def _glob_matcher(pattern: str) -> Callable[[str], bool]:
    from wcmatch import glob as wglob

    flags = wglob.GLOBSTAR | wglob.BRACE | wglob.DOTGLOB | wglob.NEGATE | wglob.EXTGLOB
    matcher = wglob.compile(pattern, flags=flags)
    match: Callable[[str], bool] = matcher.match
    return match


def fn_glob(value: str, pattern: str) -> bool:
    return _glob_matcher(pattern)(value)


# policy.analysis is imported by the functions that use it, on their first call:
# the shell analyser alone costs ≈ 13 ms to import, and most decisions of a
# one-event `policy hook` never call it. Kept once imported (`_LOADED`): an `import`
# statement in a function costs an import-system call at each of the ≈ 10 calls a
# decision makes.
_LOADED: tuple[Any, Callable[[], str]] | None = None


def _loaded() -> tuple[Any, Callable[[], str]]:
    """policy.analysis.paths and policy.facts.home_dir, imported now."""
    global _LOADED
    from policy.analysis import paths
    from policy.facts import home_dir

    _LOADED = (paths, home_dir)
    return _LOADED


def fn_path_normalize(path: str) -> str:
    return str((_LOADED or _loaded())[0].normalize(path))


def fn_path_within(path: str, root: str) -> bool:
    return bool((_LOADED or _loaded())[0].within(path, root))


def fn_path_within_any_folded(path: str, roots: list[str]) -> bool:
    return bool((_LOADED or _loaded())[0].within_any_folded(path, roots))


def fn_path_holds_any_folded(path: str, roots: list[str]) -> bool:
    return bool((_LOADED or _loaded())[0].holds_any_folded(path, roots))


def fn_path_within_folded(path: str, root: str) -> bool:
    # for denials: also within on a file system that folds case and normalisation
    return bool((_LOADED or _loaded())[0].within_folded(path, root))


def fn_path_resolve(path: str) -> str:
    # Reads the file system (lstat/readlink per component); an UnsafePathError (a
    # relative path, a loop, NUL) is a runtime error, so the pack's on_error decides.
    return str((_LOADED or _loaded())[0].resolve(path))


def fn_path_contained(path: str, root: str) -> bool:
    return bool((_LOADED or _loaded())[0].contained(path, root))


def fn_path_matches(path: str, patterns: list[str]) -> bool:
    paths, home_dir = _LOADED or _loaded()
    return bool(paths.matches(path, patterns, home_dir()))


def fn_path_names(path: str, patterns: list[str]) -> bool:
    paths, home_dir = _LOADED or _loaded()
    return bool(paths.names(path, patterns, home_dir()))


def fn_path_inside(path: str, patterns: list[str]) -> bool:
    paths, home_dir = _LOADED or _loaded()
    return bool(paths.inside(path, patterns, home_dir()))


def fn_path_inside_folded(path: str, patterns: list[str]) -> bool:
    paths, home_dir = _LOADED or _loaded()
    return bool(paths.inside_folded(path, patterns, home_dir()))


def fn_path_inside_any_folded(path: str, roots: list[str]) -> bool:
    paths, home_dir = _LOADED or _loaded()
    return bool(paths.inside_any_folded(path, roots, home_dir()))


def fn_path_base(path: str) -> str:
    return path.rstrip("/").rsplit("/", 1)[-1]


def fn_path_is_pattern(path: str) -> bool:
    return bool((_LOADED or _loaded())[0].is_pattern(path))


# A `shell.*` function on a line whose analysis gave up (a cap, policy.analysis.shell)
# has no answer: it fails, and notes why here, so that the pack refuses the call
# whatever its `on_error` says (the engines turn the exception into an error value,
# which `on_error: skip` would skip). Per thread: a program runs on its caller's.
class _GaveUp(threading.local):
    #: (a class default: a thread that never set it reads "" without the
    #: AttributeError `getattr(local, name, default)` raises inside, ≈ 6x dearer —
    #: read twice a pack, every decision)
    limit = ""


_gave_up = _GaveUp()


def _refuse(function: str, limit: str) -> None:
    reason = f"{function}: the command cannot be analysed: {limit}"
    _gave_up.limit = reason
    raise ValueError(reason)


def take_gave_up() -> str:
    """Why a `shell.*` function run since the last call could not answer ("" if none
    could not); forgotten once read. The pack runtime reads it after each program."""
    limit = _gave_up.limit
    if limit:
        _gave_up.limit = ""
    return limit


def fn_shell_commands(command: str) -> list[dict[str, Any]]:
    # A command line with no call around it: its working directory is not known, so
    # relative paths stay relative (inside no workspace); `commands` has them located.
    from policy.analysis import effects
    from policy.facts import home_dir

    line = effects.analyze(command, "", home_dir())
    if line.limit:
        _refuse("shell.commands", line.limit)
    return line.to_cel()


def fn_shell_has_substitution(command: str) -> bool:
    from policy.analysis import shell

    analysis = shell.analyze(command)
    if analysis.limit:
        _refuse("shell.has_substitution", analysis.limit)
    return analysis.has_substitution


def fn_shell_parse_error(command: str) -> str:
    from policy.analysis import shell

    analysis = shell.analyze(command)
    if analysis.limit:
        _refuse("shell.parse_error", analysis.limit)
    return analysis.parse_error


@remember_short(1024, _KEPT_PATTERN)
def _regex(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern)


def fn_regex_replace(value: str, pattern: str, replacement: str) -> str:
    return _regex(pattern).sub(replacement, value)


def fn_regex_matches(value: str, pattern: str) -> bool:
    """CEL's `matches`, with the pattern compiled once per process. cel-expr-python
    compiles a `matches` pattern on every call — literal or not — which for the long
    alternations packs use (credential-printing commands, backup names of secrets)
    costs more than the rest of the decision."""
    return _regex(pattern).search(value) is not None


def _compile_re2(pattern: str) -> Any:
    import re2  # google-re2: the RE2 cel-cpp's own `matches` runs

    try:
        return re2.compile(pattern)
    except re2.error as exc:
        raise ValueError(f"matches: invalid regular expression {pattern!r}: {exc}") from None


_re2 = remember_short(512, _KEPT_PATTERN)(_compile_re2)

#: A pack's own patterns, kept compiled however long they are: their number is the
#: packs', whatever the calls bring (`fn_re2_matches_constant`).
_re2_constant = functools.lru_cache(maxsize=1024)(_compile_re2)


def fn_re2_matches(value: str, pattern: str) -> bool:
    """CEL's own `value.matches(pattern)` — RE2, a partial match, linear in the text —
    with the pattern compiled once per process. cel-expr-python compiles the pattern
    at every call (13-64 µs for the shipped packs' patterns; ≈ 1-10 µs here)."""
    return _re2(pattern).search(value) is not None


def fn_re2_matches_constant(value: str, pattern: str) -> bool:
    """`fn_re2_matches` of a pattern a pack holds (a literal, or a pack variable that
    is one), never one a call brings: kept compiled whatever its length. `_re2` keeps
    only patterns of up to `_KEPT_PATTERN` characters (a call may bring any number of
    long ones), so a pack's long alternation — the credentials pack's commands that
    print a secret, 6,322 characters — was compiled at every call that asked it."""
    return _re2_constant(pattern).search(value) is not None


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_ASCII_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def fn_lower_ascii(value: str) -> str:
    return value.translate(_ASCII_LOWER)


def fn_upper_ascii(value: str) -> str:
    return value.translate(_ASCII_UPPER)


def fn_trim(value: str) -> str:
    return value.strip()


def fn_split(value: str, separator: str, limit: int = -1) -> list[str]:
    if limit == 0:
        return []
    if separator == "":
        parts = list(value)
        return parts if limit < 0 else [*parts[: limit - 1], "".join(parts[limit - 1 :])]
    return value.split(separator, limit - 1 if limit > 0 else -1)


def fn_replace(value: str, old: str, new: str, limit: int = -1) -> str:
    return value.replace(old, new, limit)


def fn_substring(value: str, start: int, end: int | None = None) -> str:
    stop = len(value) if end is None else end
    if start < 0 or stop < start or stop > len(value):
        raise ValueError(f"substring({start}, {stop}) out of range for a string of {len(value)}")
    return value[start:stop]


def fn_index_of(value: str, needle: str, start: int = 0) -> int:
    if start < 0 or start > len(value):
        raise ValueError(f"indexOf start {start} out of range for a string of {len(value)}")
    return value.find(needle, start)


def fn_last_index_of(value: str, needle: str, end: int | None = None) -> int:
    if end is None:
        return value.rfind(needle)
    if end < 0 or end >= len(value) + 1:
        raise ValueError(f"lastIndexOf end {end} out of range for a string of {len(value)}")
    return value.rfind(needle, 0, end + len(needle))


def fn_char_at(value: str, index: int) -> str:
    if index < 0 or index > len(value):
        raise ValueError(f"charAt({index}) out of range for a string of {len(value)}")
    return value[index : index + 1]


def fn_join(values: list[str], separator: str = "") -> str:
    return separator.join(values)


# (name, parameter types, return type, implementation, member function?)
# Member functions take their receiver as the first parameter.
_FUNCTIONS: tuple[tuple[str, tuple[str, ...], str, Callable[..., Any], bool], ...] = (
    ("glob", ("string", "string"), "bool", fn_glob, False),
    ("path.normalize", ("string",), "string", fn_path_normalize, False),
    ("path.within", ("string", "string"), "bool", fn_path_within, False),
    ("path.within_folded", ("string", "string"), "bool", fn_path_within_folded, False),
    (
        "path.within_any_folded",
        ("string", "list_of_strings"),
        "bool",
        fn_path_within_any_folded,
        False,
    ),
    (
        "path.holds_any_folded",
        ("string", "list_of_strings"),
        "bool",
        fn_path_holds_any_folded,
        False,
    ),
    ("path.resolve", ("string",), "string", fn_path_resolve, False),
    ("path.contained", ("string", "string"), "bool", fn_path_contained, False),
    ("path.matches", ("string", "list_of_strings"), "bool", fn_path_matches, False),
    ("path.inside", ("string", "list_of_strings"), "bool", fn_path_inside, False),
    ("path.inside_folded", ("string", "list_of_strings"), "bool", fn_path_inside_folded, False),
    (
        "path.inside_any_folded",
        ("string", "list_of_strings"),
        "bool",
        fn_path_inside_any_folded,
        False,
    ),
    ("path.names", ("string", "list_of_strings"), "bool", fn_path_names, False),
    ("path.is_pattern", ("string",), "bool", fn_path_is_pattern, False),
    ("path.base", ("string",), "string", fn_path_base, False),
    ("shell.commands", ("string",), "list_of_commands", fn_shell_commands, False),
    ("shell.has_substitution", ("string",), "bool", fn_shell_has_substitution, False),
    ("shell.parse_error", ("string",), "string", fn_shell_parse_error, False),
    ("regex.replace", ("string", "string", "string"), "string", fn_regex_replace, False),
    ("regex.matches", ("string", "string"), "bool", fn_regex_matches, False),
)

#: The functions whose answer is not fixed by their arguments: they read the file
#: system (links, a git directory), and the `shell.*` ones run the analysis, which can
#: give up. Every other function of `_FUNCTIONS` answers from its arguments alone (and
#: the user's home, for `~`): tests/test_recall.py calls each with a file system that
#: refuses every look. What a program calling one of these answers is never recalled
#: (policy.packs.recall), nor taken for a constant (`policy check`).
READ_BEYOND_ARGUMENTS = frozenset(
    {
        "path.resolve",
        "path.contained",
        "shell.commands",
        "shell.has_substitution",
        "shell.parse_error",
    }
)


#: The functions taking a list whose answer reads, besides their arguments, the user's
#: home (`~` in a pattern: `home_dir()`), and those that read `$HOME` (they normalise
#: `~` in their arguments): what an engine's memory of their answers is keyed on, with
#: the value and the list. The other list-taking functions answer from those alone.
READS_HOME = frozenset(
    {"path.matches", "path.names", "path.inside", "path.inside_folded", "path.inside_any_folded"}
)
READS_ENV_HOME = frozenset({"path.within_any_folded", "path.holds_any_folded"})


#: CEL's `matches` as both engines call it: a search through google-re2's Python
#: wrapper costs ≈ 2.5 µs whatever the text (its match objects and offsets), a
#: remembered answer ≈ 0.1 µs — and `c.name.matches(...)` asks the same few names.
re2_matches_remembered = remember_short(4096, REMEMBERED_LENGTH)(fn_re2_matches)


def _marking_names() -> frozenset[str]:
    """The identifiers that mark a source as possibly calling one of
    `READ_BEYOND_ARGUMENTS`: a namespace all of whose functions are in it (`shell`),
    else the function's own name (`resolve`, `contained`)."""
    names = set()
    for function in READ_BEYOND_ARGUMENTS:
        namespace, _, name = function.rpartition(".")
        siblings = {n for n, *_ in _FUNCTIONS if n.rpartition(".")[0] == namespace}
        names.add(namespace if siblings <= READ_BEYOND_ARGUMENTS else name)
    return frozenset(names)


#: Identifiers (outside string literals) whose presence in a source means it may call
#: a function of `READ_BEYOND_ARGUMENTS`.
IMPURE_NAMES = _marking_names()

# cel-go's strings extension: native in cel-expr-python (ExtStrings, no Python
# callback), emulated for cel-python by the functions below. The shared corpus
# checks that both agree. ExtStrings' other functions (format, quote, reverse)
# have no emulation, so `policy check` refuses them (see `UNPORTABLE`).
_STRING_MEMBERS: dict[str, Callable[..., Any]] = {
    "lowerAscii": fn_lower_ascii,
    "upperAscii": fn_upper_ascii,
    "trim": fn_trim,
    "split": fn_split,
    "replace": fn_replace,
    "substring": fn_substring,
    "indexOf": fn_index_of,
    "lastIndexOf": fn_last_index_of,
    "charAt": fn_char_at,
    "join": fn_join,
}

#: Functions cel-expr-python knows that the cel-python engine cannot run.
#: `cel.bind` too: cel-python has no bindings extension, and cel-cpp's lazily bound
#: value can read a stale slot after a comprehension that stopped early (a red team's
#: finding): a pack names a value as a variable instead.
UNPORTABLE = LazyPattern(
    r"\.\s*(format|quote|reverse)\s*\(|\bstrings\s*\.\s*quote\s*\(|\b(cel\s*\.\s*bind)\s*\("
)
