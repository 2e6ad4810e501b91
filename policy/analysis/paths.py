"""Is this path inside that directory? Asked two ways, because the answers differ.

A rule that compares path strings is fooled by prefixes (`/srv/work2` starts with
`/srv/work`), by `..`, by `~`, by repeated slashes; `normalize` and `within` remove
those tricks without touching the file system, so they are cheap, deterministic and
safe to call from CEL on every tool call.

A lexical answer is still wrong once symlinks exist: `/srv/work/link/x` is lexically
inside `/srv/work` but the OS opens wherever `link` points, and the kernel applies
`..` *after* following a link (`link/..` is the parent of the link's target, not the
workspace). `resolve` walks the path the way the kernel does, and `contained` asks the
question a sandbox really needs answered with it.

Everything fails closed: a path that cannot be judged (NUL byte, symlink loop, too
many links, over `MAX_PATH_BYTES`, a component we may not inspect) raises
`UnsafePathError` rather than returning a guess, and callers deny.

Paths are POSIX strings, and a backslash is an ordinary character. `normalize`,
`within` and `inside` compare them exactly (`café` composed and decomposed are two
different names on Linux): they answer the questions an allow or an exemption asks,
and must not widen on a file system that is not there. The questions a denial asks
(`matches`, `names`, `within_folded`, `inside_folded`) also compare names the way the
file systems most agents run on do (`fold`): macOS folds case and Unicode
normalisation, Windows folds case and drops trailing dots and spaces, so
`~/.SSH/ID_RSA`, `.Claude/settings.json` and `.env.` reach the files they spell
otherwise.
"""

from __future__ import annotations

import bisect
import fnmatch
import functools
import itertools
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from policy.analysis._lazy_re import LazyPattern
from policy.analysis._memo import remember_short
from policy.analysis.environ import home_variable, note_account_lookup
from policy.analysis.viewer import may_search_physical

__all__ = [
    "MAX_PATH_BYTES",
    "UnsafePathError",
    "contained",
    "fold",
    "inside",
    "inside_folded",
    "is_pattern",
    "matches",
    "names",
    "normalize",
    "resolve",
    "within",
    "within_folded",
]

MAX_PATH_BYTES = 4096
"""Linux's PATH_MAX: the kernel refuses longer paths, so we refuse to judge them."""


class UnsafePathError(ValueError):
    """A path whose meaning cannot be established safely; treat it as a denial.

    A `ValueError` so that callers which already guard path helpers against bad
    input (such as the CEL functions) keep failing closed without changes.
    """


def normalize(path: str, cwd: str = "", *, home: str | None = None) -> str:
    """The one spelling of `path` that rules can compare, computed without any I/O.

    `~` and `~/...` use `home` (default: the current user's, as `os.path.expanduser`
    finds it) so that a policy can be evaluated for an agent whose home differs from
    ours. `~user` is looked up with `os.path.expanduser`; an unknown user is left as an
    ordinary relative name, as a shell would leave it, so it can never be mistaken for
    somebody's home. Only a leading `~` is special.

    A relative path is joined to `cwd` when one is given (a relative or `~` cwd is
    normalised first); without one it stays relative, because inventing the process's
    own working directory would judge the wrong path. `..` cannot climb above `/`, but
    in a relative path that has nowhere to climb it is kept (`../x`).

    The empty string stays empty (even with a `cwd`): it names no file, and turning it
    into the working directory would let `""` pass as "inside the workspace".
    """
    if path == "":
        return ""
    if path[0] == "/" and len(path) <= 1024 and path.isascii() and _canonical(path):
        return path  # already the one spelling (the common case, kept cheap)
    return _collapse(_expand(path, cwd, home))


def _canonical(path: str) -> bool:
    """Whether an absolute `path` is spelt as `_collapse` would leave it: no empty, `.`
    or `..` component, no trailing slash (but `/`), no NUL. A hidden name (`/.ssh`) is
    an ordinary one: most paths a policy names have one (`~/.config`, `.git`, `.venv`),
    and the full collapse cost them ≈ 3 µs a call."""
    if path == "/":
        return True
    return (
        "//" not in path
        and "/./" not in path
        and "/../" not in path
        and not path.endswith(("/", "/.", "/.."))
        and "\x00" not in path
    )


def within(path: str, root: str, cwd: str = "") -> bool:
    """True when `path` is `root` or below it, judged lexically after `normalize`.

    Compared component by component, so `/srv/work2` is not inside `/srv/work`. A
    relative `root` is joined to `cwd` like `path` is. When one side is absolute and
    the other relative (e.g. a relative path and no `cwd`) the answer is False: where
    the path lands is unknown, so it is not known to be inside. Two relative paths are
    compared as if against the same unknown directory. Symlinks are not followed;
    use `contained` when they matter.
    """
    return _inside(normalize(path, cwd), normalize(root, cwd))


def within_folded(path: str, root: str, cwd: str = "") -> bool:
    """`within`, or within on a file system that folds names (`fold`): may `path` be
    `root` or below it on the machine the agent runs on? The question a denial asks
    (`/Users/dev/proj/RULES/x` is in `/Users/dev/proj/rules` on macOS); never the one
    an allow asks, which `within` answers exactly."""
    mine, theirs = normalize(path, cwd), normalize(root, cwd)  # (`within`, once)
    return _inside(mine, theirs) or _inside(fold(mine), fold(theirs))


def within_any_folded(path: str, roots: Sequence[str]) -> bool:
    """`within_folded(path, r)` for some `r` of `roots`, in one call: a rule asks it of
    every path a call writes against every protected root, and one call per pair
    (each crossing from CEL into Python) cost more than the question."""
    plain, folded = _prepared_roots(tuple(roots), home_variable())
    if plain.hold(_split_path(normalize(path))):
        return True
    return folded.hold(_split_path(fold(normalize(path))))


def holds_any_folded(path: str, roots: Sequence[str]) -> bool:
    """Some `r` of `roots` is `path` or below it (folded): deleting or moving `path`
    takes `r` with it."""
    plain, folded = _prepared_roots(tuple(roots), home_variable())
    if plain.held_by(_split_path(normalize(path))):
        return True
    return folded.held_by(_split_path(fold(normalize(path))))


_Split = tuple[bool, tuple[str, ...]] | None


class _Roots:
    """Roots split by `_split_path`, found by a path's own components: a path lies in a
    root when a leading run of its components is the root's and no `..` follows (as
    `_inside` has it); it holds one when it is such a run of the root's. The
    protected roots are two dozen, asked path after path: each pair compared cost
    ≈ 20 µs a path and a question."""

    __slots__ = ("_lengths", "_roots", "_runs")

    def __init__(self, roots: Iterable[_Split]) -> None:
        self._roots: set[tuple[bool, tuple[str, ...]]] = set()
        #: each root's leading runs that no `..` of it follows
        self._runs: set[tuple[bool, tuple[str, ...]]] = set()
        for root in roots:
            if root is None:
                continue  # (the empty path: inside nothing, holds nothing)
            absolute, parts = root
            self._roots.add(root)
            for end in range(len(parts), -1, -1):
                self._runs.add((absolute, parts[:end]))
                if end and parts[end - 1] == "..":
                    break
        self._lengths = sorted({len(parts) for _, parts in self._roots})

    def hold(self, path: _Split) -> bool:
        """Some root is `path` or above it."""
        if path is None:
            return False
        absolute, parts = path
        # (the root must take in the last `..` of the path: none may follow it)
        after = len(parts) - parts[::-1].index("..") if ".." in parts else 0
        for length in self._lengths:
            if length > len(parts):
                break
            if length >= after and (absolute, parts[:length]) in self._roots:
                return True
        return False

    def held_by(self, path: _Split) -> bool:
        """Some root is `path` or below it."""
        return path is not None and path in self._runs


@functools.lru_cache(maxsize=64)
def _prepared_roots(roots: tuple[str, ...], home: str | None) -> tuple[_Roots, _Roots]:
    """`roots` normalised and split, plain and folded: the protected roots are asked
    about path after path, call after call. `home` (the environment's, which
    `normalize` reads for `~`) is part of the key."""
    plain = tuple(normalize(root) for root in roots)
    return (
        _Roots(_split_path(root) for root in plain),
        _Roots(_split_path(fold(root)) for root in plain),
    )


def _split_path(path: str) -> _Split:
    """What `_inside` compares of a path: whether it is absolute, and its components
    (None for the empty path, which is inside nothing and holds nothing)."""
    if not path:
        return None
    return path.startswith("/"), tuple(name for name in path.split("/") if name not in ("", "."))


# What file systems fold. macOS (APFS, HFS+): Unicode case folding and canonical
# decomposition (NFD), not compatibility forms (fullwidth U+FF53 stays its own
# letter); HFS+ also ignores the zero-width and direction marks below (git's
# `is_hfs_dotgit` list). Windows (NTFS through Win32): its upcase table, which also
# takes dotless i (U+0131) and long s (U+017F) to `I` and `S`, and names lose
# trailing dots and spaces (`.env.` opens `.env`); `name::$DATA` opens the file's own
# stream. Folding more than one system does is safe here: only denials use it.
_IGNORABLE = LazyPattern("[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]")
_WINDOWS_TAIL = LazyPattern(r"(?<=[^/. ])[. ]+(?=/|$)")
_DATA_STREAM = LazyPattern(r"::\$data(?=/|$)")


#: The longest path (or glob, or one of their components) whose answers the memos
#: below keep: they are keyed by what calls name, and a path may be 1 MiB long.
_KEPT_PATH = 512


@remember_short(8192, _KEPT_PATH)
def fold(path: str) -> str:
    """`path` as a case- and normalisation-insensitive file system compares it: two
    spellings of one file there fold to one string. (Memoised: the same paths are
    folded rule after rule.)"""
    folded = path.lower() if path.isascii() else _fold_letters(path)
    if "." in folded or " " in folded:
        folded = _WINDOWS_TAIL.sub("", folded)
    if "::$" in folded:
        folded = _DATA_STREAM.sub("", folded)
    return folded


@remember_short(4096, _KEPT_PATH)
def _fold_letters(text: str) -> str:
    """Case and normalisation folded, nothing else (for globs, whose `*.` must stay):
    upper case first so that what NTFS's upcase table joins (U+0131, U+017F) is
    joined too."""
    if text.isascii():
        return text.lower()
    import unicodedata  # (only names outside ASCII need it: ≈ 0.3 ms to load)

    text = _IGNORABLE.sub("", text)
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", decomposed.upper().casefold())


def resolve(
    path: str,
    cwd: str = "",
    *,
    home: str | None = None,
    max_links: int = 40,
    budget: list[int] | None = None,
    known: dict[str, bool] | None = None,
) -> str:
    """The absolute path the OS would reach for `path`, following symlinks as it goes.

    Like `os.path.realpath` but with kernel semantics and no guessing: each `..` is
    applied to the physical directory reached so far, so `/a/link/..` with
    `link -> /x/y` is `/x`, not `/a`. A relative link target is taken from the link's
    own directory. Components that do not exist (yet) are kept as written, because a
    file about to be created must still be judged by where it would appear; any later
    component that does exist is still inspected.

    More than `max_links` link expansions (the kernel allows 40), a link loop, or a
    component that cannot be inspected (permission denied, name too long, ...) raises
    `UnsafePathError`. So does a path that is still relative after joining `cwd`,
    because resolving it against this process's working directory would judge some
    other file. With `budget` (a one-item list, shared by the caller's lookups), each
    component walked spends one; none left raises `UnsafePathError` too. With `known`
    (a dict the caller shares between the lookups of one decision), what `lstat` said of
    a path is kept — True: it is there and no link, False: nothing is there — and not
    asked again: the paths a glob expands to share their directories (`/proc/*/environ`
    is ≈ 70 paths under one `/proc`).
    """
    raw = _expand(path, cwd, home) if path else ""
    if not raw.startswith("/"):
        raise UnsafePathError(
            f"cannot resolve {path!r}: it is not absolute and there is no absolute cwd"
        )
    done: list[str] = []
    todo = raw.split("/")[::-1]  # a stack: the next component is at the end
    links = 0
    seen: set[tuple[str, tuple[str, ...]]] = set()
    # How many of the last components of `done` are, or lie below, one that does not
    # exist (or is no directory): nothing can exist below it, so they are not looked
    # at (a path of thousands of missing components costs one lstat, not thousands).
    missing = 0
    while todo:
        name = todo.pop()
        if name in ("", "."):
            continue
        if name == "..":
            if done:
                done.pop()
                missing = max(0, missing - 1)
            continue
        if budget is not None:
            budget[0] -= 1
            if budget[0] < 0:
                raise UnsafePathError(f"too many lookups on disk resolving {path[:200]!r}")
        if missing:
            done.append(name)
            missing += 1
            continue
        here = "/" + "/".join([*done, name])
        if not may_search_physical("/" + "/".join(done)):
            # `policy serve` deciding for a uid that could not look here (viewer.py):
            # what is there is not for that uid to learn from the answer.
            raise UnsafePathError(
                f"cannot inspect {here!r} while resolving {path!r}: permission denied"
            )
        try:
            there = looked_up(here, known)
        except OSError as exc:
            raise UnsafePathError(
                f"cannot inspect {here!r} while resolving {path!r}: {exc.strerror or exc}"
            ) from exc
        if there is not None:
            done.append(name)
            missing = 0 if there else 1
            continue
        links += 1
        if links > max_links:
            raise UnsafePathError(
                f"too many symbolic links (more than {max_links}) resolving {path!r}"
            )
        # (link, what is left to walk) fixes the rest of the walk; seeing it twice
        # means the walk can never end.
        state = (here, tuple(todo))
        if state in seen:
            raise UnsafePathError(f"symbolic link loop at {here!r} resolving {path!r}")
        seen.add(state)
        try:
            target = os.readlink(here)
        except OSError as exc:
            raise UnsafePathError(
                f"cannot inspect {here!r} while resolving {path!r}: {exc.strerror or exc}"
            ) from exc
        if target.startswith("/"):
            done = []
        todo.extend(target.split("/")[::-1])
    result = "/" + "/".join(done)
    _check(result)
    return result


def looked_up(path: str, known: dict[str, bool] | None = None) -> bool | None:
    """What `lstat(path)` says, as `resolve` reads it: True (there, and no link), False
    (nothing there, or a part of it is no directory), None (a link: it must be read).
    An answer other than a link's is kept in `known` (one decision's) and not asked
    again; any other failure is an OSError."""
    there = known.get(path) if known is not None else None
    if there is not None:
        return there
    try:
        mode = os.lstat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        there = False
    else:
        if stat.S_ISLNK(mode):
            return None
        there = True
    if known is not None:
        known[path] = there
    return there


def contained(
    path: str,
    root: str,
    cwd: str = "",
    *,
    follow_symlinks: bool = True,
    home: str | None = None,
) -> bool:
    """Would the OS, opening `path`, stay inside `root`? The question a sandbox asks.

    With `follow_symlinks` both sides are `resolve`d, so a link in the workspace that
    points outside is caught, and a workspace that is itself reached through a link
    (`/tmp` on macOS) still contains its own files. Without it the answer is the
    lexical `within`, for callers that know no links are involved or that open with
    `O_NOFOLLOW`. `UnsafePathError` propagates: a path that cannot be judged is not
    contained, and the caller should deny.
    """
    if follow_symlinks:
        return _inside(resolve(path, cwd, home=home), resolve(root, cwd, home=home))
    return _inside(normalize(path, cwd, home=home), normalize(root, cwd, home=home))


def _check(path: str) -> None:
    """Refuse what the kernel would refuse, before any answer is built on it."""
    if "\x00" in path:
        raise UnsafePathError(f"path contains a NUL byte: {path!r}")
    try:
        size = len(os.fsencode(path))
    except UnicodeEncodeError as exc:
        raise UnsafePathError(f"path cannot be encoded for the OS: {path!r}") from exc
    if size > MAX_PATH_BYTES:
        raise UnsafePathError(f"path is {size} bytes, longer than {MAX_PATH_BYTES}")


def _expand(path: str, cwd: str, home: str | None) -> str:
    """`path` with `~` expanded and `cwd` prefixed, but `..` untouched.

    `..` is left alone because `resolve` must apply it physically, after links.
    """
    _check(path)
    if path == "~" or path.startswith("~/"):
        if home is None:
            note_account_lookup()  # (without `$HOME`, expanduser asks the database)
        base = os.path.expanduser("~") if home is None else home
        if base != "~":  # no home could be found: keep `~` as a plain name
            path = (base.rstrip("/") + path[1:]) or "/"
    elif path.startswith("~"):
        note_account_lookup()
        path = os.path.expanduser(path)  # unchanged when the user is unknown
    if cwd and not path.startswith("/"):
        base = _expand(cwd, "", home)
        path = base + "/" + path
    _check(path)
    return path


def _collapse(path: str) -> str:
    """Lexical `.`, `..` and `//` removal; unlike `posixpath.normpath`, `//x` -> `/x`."""
    absolute = path.startswith("/")
    if "//" not in path and "/." not in path and not path.startswith("."):
        # no empty, `.` or `..` component (the common case, and a long path's cost is
        # that of a scan): only a trailing slash to drop
        return path.rstrip("/") or ("/" if absolute else ".")
    parts: list[str] = []
    for name in path.split("/"):
        if name in ("", "."):
            continue
        if name == "..":
            if parts and parts[-1] != "..":
                parts.pop()
            elif not absolute:
                parts.append(name)
            continue
        parts.append(name)
    if absolute:
        return "/" + "/".join(parts)
    return "/".join(parts) or "."


def _inside(path: str, root: str) -> bool:
    """Component-wise containment of two already normalised (or resolved) paths."""
    if not path or not root or path.startswith("/") != root.startswith("/"):
        return False
    if path[0] == "/" and _canonical(path) and _canonical(root):
        # (each component spelt once: a prefix of whole components is a prefix of text
        # that ends where a component does; `fold` may leave an odd spelling, compared
        # component by component below)
        return path == root or root == "/" or path.startswith(root + "/")
    p = [name for name in path.split("/") if name not in ("", ".")]
    r = [name for name in root.split("/") if name not in ("", ".")]
    # Below a relative root made only of `..`, a further `..` climbs out of it.
    return p[: len(r)] == r and ".." not in p[len(r) :]


# ------------------------------------------------------------- path globs

_WILD = LazyPattern(r"[*?\[]")


def is_pattern(path: str) -> bool:
    """True when `path` stands for many files: a shell glob (`/etc/sh*`) or a
    recursive read (`DIR/**`). Such a path *may* match a glob; it is not known to."""
    known = _known(path)
    return "*" in known or "?" in known or "[" in known  # (`_WILD`'s characters)


_UNKNOWN_PART = "$?"  # a word's part whose value the analysis could not know


def _known(path: str) -> str:
    """`path` without the unknown-place marker, its unknown parts (`$?`) made a name
    no glob matches: what cannot be known is not taken for a wildcard."""
    text = path.lstrip("?")
    return text.replace(_UNKNOWN_PART, "\x00") if _UNKNOWN_PART in text else text


def matches(path: str, patterns: Sequence[str], home: str = "") -> bool:
    """Does `path` match, or may it match, one of the glob `patterns`?

    Patterns are wcmatch globs (`**` crosses directories, dotfiles match, braces
    expand, `~` is `home`); one ending in `/**` also matches the directory itself.
    `path` may itself be a pattern the shell or a tool expands later
    (`/e?c/sh*`, `~/.ss*/id_*`, a recursive read `DIR/**`): then the question is
    whether the two can name a common file, answered component by component
    (two wildcards meet unless their literal ends disagree). A path of unknown
    place (`?/x/.env`, see policy.analysis.effects) is matched on what is known of it.
    """
    if not path or not patterns:
        return False
    text = _known(path)
    compiled = _globs_of(patterns, home, folded=True)
    kept = type(patterns) is tuple and len(text) <= _KEPT_PATH
    if kept:
        # (a rule's list is one tuple, whose index `_globs_of` keeps: the index stands
        # for the list and the home. Several rules ask the same path of one list — a
        # pack's writes and deletes, `path.names` of a literal path — and the engines'
        # memories of answers are each program's own)
        found = _MATCHED.get((text, compiled))
        if found is not None:
            return found
    folded = fold(text)
    # (folded globs match what the exact ones do, but for a few constructs: then the
    # exact spelling is tried too — against those patterns only, so that a list
    # matches exactly when one of its patterns does)
    apart = compiled.exact_too
    found = _matches(folded, compiled) or (
        bool(apart) and folded != text and _matches(text, _compiled_globs(apart, home))
    )
    if kept:
        if len(_MATCHED) >= _MATCHED_KEPT:
            _MATCHED.clear()  # (one call: safe while another thread reads)
        _MATCHED[(text, compiled)] = found
    return found


#: `matches`' answers for lists kept by identity, by (the path as known, the list's
#: index): at most `_MATCHED_KEPT` of paths of at most `_KEPT_PATH` characters.
_MATCHED: dict[tuple[str, _Globs], bool] = {}
_MATCHED_KEPT = 4096


def _matches(text: str, compiled: _Globs) -> bool:
    if not _WILD.search(text):
        return compiled.match(text)
    parts = _components(text)
    return any(_meets(parts, _components(p)) for p in compiled.near(text))


def names(path: str, patterns: Sequence[str], home: str = "") -> bool:
    """Does `path` name a file the name patterns (`**/.env`, `**/id_rsa`) describe?

    For patterns that say what a file is called wherever it lies. A literal path
    is matched; a pattern only when its last component spells part of the name
    (`.env*`, `id_*`, `*.pem`): `src/*.py` or a recursive `DIR/**` *may* reach a
    `.env` somewhere, but does not name one, so they do not count."""
    if not path or not patterns:
        return False
    text = _known(path)
    if not _WILD.search(text):
        return matches(text, patterns, home)
    # (the literal parts are compared as `matches` compares names: folded)
    base = fold(text).rstrip("/").rsplit("/", 1)[-1]
    spelled = _longest_literal(base)
    if len(spelled) < 2:
        return False  # `*`, `**`, `?`: any name, so none in particular
    suffix_only = spelled.startswith(".") and base.endswith(spelled) and _WILD.match(base[0])
    parts: tuple[str, ...] | None = None
    for wanted, last_wild, expanded in _name_keys(tuple(patterns), home):
        if suffix_only and not last_wild:
            continue  # `*.py` names no file in particular, `sitecustomize.py` least of all
        if spelled in wanted or wanted in spelled:
            parts = parts or _components(fold(text))
            if any(_meets(parts, _components(one)) for one in expanded):
                return True
    return False


@functools.lru_cache(maxsize=64)
def _name_keys(
    patterns: tuple[str, ...], home: str
) -> tuple[tuple[str, bool, tuple[str, ...]], ...]:
    """Per name pattern that spells a name: its longest literal run, whether its
    last component has a wildcard, and its folded expansions (`names` of a path
    that is itself a pattern, judged on these without a pass over the list each)."""
    found = []
    for pattern in patterns:
        expanded = tuple(_expanded((pattern,), home, folded=True)[0])
        parts = _fold_letters(pattern).split("/")
        wanted = max((_longest_literal(part) for part in parts), key=len)
        if len(wanted) >= 2:
            last_wild = bool(_WILD.search(pattern.rsplit("/", 1)[-1]))
            found.append((wanted, last_wild, expanded))
    return tuple(found)


def _longest_literal(glob: str) -> str:
    """The longest run of ordinary characters in a glob component (`id_*` -> `id_`)."""
    runs = re.split(r"[*?]|\[[^\]]*\]|\{[^}]*\}", glob)
    return max(runs, key=len) if runs else ""


def inside(path: str, patterns: Sequence[str], home: str = "") -> bool:
    """Does every file `path` may name match one of `patterns`? For a literal path
    the same as `matches`; for a pattern (`/tmp/build-*`, `DIR/**`) the question an
    exemption must ask, where `matches` answers "may it". Answered with a probe: each
    wildcard component replaced by a name no pattern mentions, `**` by two of them,
    once as a hidden name (`.\x01`) and once as a plain one (`\x01`), so only a
    pattern that takes any name there, dotfiles and others, agrees (`/root/.*` does
    not hold `/root/**`). A path of unknown place (`?...`) is inside nothing."""
    if not path or not patterns or path.startswith("?"):
        return False
    return _inside_globs(_known(path), _globs_of(patterns, home))


def inside_folded(path: str, patterns: Sequence[str], home: str = "") -> bool:
    """`inside`, or inside on a file system that folds names (`fold`): for a denial
    that asks whether a path lies in a place (`ls ~/.SSH` lists `~/.ssh` on macOS).
    An exemption asks `inside`, which does not widen on a file system that is not
    there."""
    if inside(path, patterns, home):
        return True
    if not path or not patterns or path.startswith("?"):
        return False
    text = _known(path)
    folded = fold(text)
    compiled = _globs_of(patterns, home, folded=True)
    return _inside_globs(folded, compiled)


def inside_any_folded(path: str, roots: Sequence[str], home: str = "") -> bool:
    """`inside_folded(path, [r + "/**"])` for some `r` of `roots`, in one call: a rule
    asks it of every pattern a line writes or deletes against every protected root,
    and one call per pair cost ≈ 1 ms a line (`rm -rf *`, `find . -delete`).

    The roots with no glob syntax are asked as one list: a probe (`inside`) lies below
    a literal root only where the path's own leading components are literal, and
    those the probes share, so a list of them holds the path exactly when one of them
    does. A root with glob syntax (`/srv/*/x`, or `~` in a home that has some) could
    hold one probe and another root the other: those are asked one by one."""
    if not path or not roots or path.startswith("?"):
        return False
    literal, globbed = _below_roots(tuple(roots), home)
    if literal and inside_folded(path, literal, home):
        return True
    return any(inside_folded(path, (one,), home) for one in globbed)


@functools.lru_cache(maxsize=64)
def _below_roots(roots: tuple[str, ...], home: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """`r/**` for each of `roots`: those of literal roots, and the others."""
    literal: list[str] = []
    globbed: list[str] = []
    home_has_syntax = _GLOB_SYNTAX.search(home) is not None
    for root in roots:
        below = root + "/**"  # (as the rule spelt it: `r + "/**"`)
        plain = not (
            _GLOB_SYNTAX.search(root)
            or "\x00" in root
            or "\x01" in root
            or (root.startswith("~") and home_has_syntax)
        )
        (literal if plain else globbed).append(below)
    return tuple(literal), tuple(globbed)


def _inside_globs(path: str, compiled: _Globs) -> bool:
    if not _WILD.search(path):
        return compiled.match(path)
    for name in (".\x01", "\x01"):
        probe: list[str] = []
        for part in path.split("/"):
            if part == "**":
                probe += [name, name]
            elif _WILD.search(part):
                probe.append(name)
            else:
                probe.append(part)
        if not compiled.match("/".join(probe)):
            return False
    return True


class _Globs:
    """A list of globs, found by what a path can match (`match`) or meet (`near`).

    Each glob is compiled when a path first gets past its literal parts (most lists
    are long and most of their globs begin `/home/dev/.x/`): a one-event hook compiles
    the few its call can reach, not the hundreds a pack lists. The globs are kept by
    the first components of their literal start (`/home/dev/.ssh`) and, for
    `**/NAME`, by their last component, so a path looks at the few that can be its
    own, however long the list is."""

    __slots__ = ("_lead_index", "by_start", "exact_too", "expanded", "literals", "tails")

    def __init__(self, expanded: list[str], *, exact_too: tuple[str, ...] = ()) -> None:
        self.expanded = tuple(expanded)
        #: (of a folded list, the patterns that may match a path exactly and not folded,
        #: such as a class `[^a-z]`: the exact spelling is tried against them too)
        self.exact_too = exact_too
        self.literals: frozenset[str] = frozenset(
            one for one in expanded if not _GLOB_SYNTAX.search(one)
        )
        self.tails: dict[str, list[str]] = {}
        starts: list[dict[str, list[_Need]]] = [{} for _ in range(_DEPTH + 1)]
        for one in expanded:
            if _named(one):
                tail = one[3:]
                self.tails.setdefault(tail.rsplit("/", 1)[-1], []).append(tail)
                continue
            start, end, runs = _literal_parts(one)
            depth, key = _start_key(start)
            starts[depth].setdefault(key, []).append((start, end, runs, one))
        self.by_start = [
            {key: _Bucket(needs) for key, needs in bucket.items()} for bucket in starts
        ]
        self._lead_index: _Leads | None = None

    def parts(self) -> dict[str, Any]:
        """This index as JSON (`from_parts` reads it back): what building it worked out
        from the globs, so that reading it back does none of that work."""
        return {
            "expanded": list(self.expanded),
            "exact_too": list(self.exact_too),
            "literals": sorted(self.literals),
            "tails": self.tails,
            "by_start": [
                {
                    key: [[start, end, list(runs), one] for start, end, runs, one in bucket.needs]
                    for key, bucket in depth.items()
                }
                for depth in self.by_start
            ],
        }

    @classmethod
    def from_parts(cls, value: Any) -> _Globs | None:
        """The index `parts` gave `value` as, or None when `value` is not one (a miss:
        the index is built again), each field checked for its kind."""
        try:
            if type(value) is not dict or set(value) != _PARTS:
                return None
            strings = (_strings(value["expanded"]), _strings(value["exact_too"]))
            literals = _strings(value["literals"])
            tails = value["tails"]
            depths = value["by_start"]
            if type(tails) is not dict or type(depths) is not list:
                return None
            if len(depths) != _DEPTH + 1 or not all(type(d) is dict for d in depths):
                return None
            index = cls.__new__(cls)
            index.expanded, index.exact_too = strings
            index.literals = frozenset(literals)
            index.tails = {_string(k): list(_strings(v)) for k, v in tails.items()}
            index.by_start = [
                {_string(key): _Bucket([_need(n) for n in needs]) for key, needs in d.items()}
                for d in depths
            ]
            index._lead_index = None
        except Exception:  # noqa: BLE001 - not an index (`_NotParts`, or worse): a miss
            return None
        return index

    def match(self, path: str) -> bool:
        if path in self.literals:
            return True
        if self.tails:
            for tail in self.tails.get(path[path.rfind("/") + 1 :], ()):
                if path == tail or (path.endswith(tail) and path[-len(tail) - 1] == "/"):
                    return True
        # (the buckets a literal path reaches, walked in place: a path is asked about
        # against a dozen lists, most of which hold nothing near it)
        by_start = self.by_start
        for unrooted in by_start[0].values():
            if unrooted.matches(path):
                return True
        if not path.startswith("/"):
            return False
        end = 0
        for depth in range(1, min(path.count("/") - 1, _DEPTH) + 1):
            end = path.find("/", end + 1)
            table = by_start[depth]
            if table:
                same = table.get(path[:end] if end >= 0 else path)
                if same is not None and same.matches(path):
                    return True
        return False

    def near(self, path: str) -> list[str]:
        """The globs a pattern `path` may meet: those whose literal start agrees with
        its own literal leading components."""
        if not path.startswith("/"):
            return list(self.expanded)  # (compared component by component, as if rooted)
        parts = path.split("/")
        known = next((i for i, part in enumerate(parts) if _WILD.search(part)), len(parts)) - 1
        wild = _WILD.search(path)
        lead = path[: wild.start()] if wild else path
        # (a name both spell begins with both literal starts: one is the other's start)
        found: list[str] = []
        for bucket in self._buckets(path, known):
            found += bucket.near(lead)
        leads = self._lead_index
        if leads is None:
            # (the literals, and the `**/NAME` globs, which every pattern may meet)
            named = ["**/" + tail for tails in self.tails.values() for tail in tails]
            leads = self._lead_index = _Leads(((one, one) for one in self.literals), named)
        found += leads.near(lead)
        return found

    def _buckets(self, path: str, known: int) -> list[_Bucket]:
        """The lists of globs a pattern `path` may meet, given that its first `known`
        components (after the leading `/`) are literal."""
        found: list[_Bucket] = list(self.by_start[0].values())
        if not path.startswith("/"):
            return found
        end = 0  # (the slash after the components a depth's key holds)
        for depth in range(1, _DEPTH + 1):
            bucket = self.by_start[depth]
            if known >= depth:
                end = path.find("/", end + 1)
                if bucket:
                    same = bucket.get(path[:end] if end >= 0 else path)
                    if same is not None:
                        found.append(same)
            elif bucket:
                found.extend(bucket.values())
        return found


_Need = tuple[str, str, tuple[str, ...], str]


class _Leads:
    """Globs by their literal start, for `near`: those whose start a pattern's literal
    lead begins or is begun by, found without a pass over them all (a new `mv DIR
    ...` asks about `DIR/**` against every list its rules name, and a list's literals
    and buckets hold dozens to hundreds), and those `always` near. Built at the first
    pattern that asks."""

    __slots__ = ("_by_start", "_lengths", "_ordered", "always")

    def __init__(self, pairs: Iterable[tuple[str, str]], always: list[str]) -> None:
        self._by_start: dict[str, list[str]] = {}
        for start, one in pairs:
            self._by_start.setdefault(start, []).append(one)
        self._ordered = sorted(self._by_start)
        self._lengths = sorted({len(start) for start in self._by_start})
        self.always = always

    def near(self, lead: str) -> list[str]:
        """The globs whose start begins with `lead` or begins `lead`, and `always`."""
        by_start = self._by_start
        found = list(self.always)
        ordered = self._ordered
        for start in itertools.islice(ordered, bisect.bisect_left(ordered, lead), None):
            if not start.startswith(lead):
                break  # (sorted: the starts that begin with `lead` come together, from it)
            found += by_start[start]
        # A shorter start that `lead` begins with: looked up at each length a start has.
        # (It may end inside a name, where its glob goes on with a wildcard: `/root/.*`
        # starts `/root/.`, which `/root/.ssh/*` begins with.)
        for length in self._lengths:
            if length >= len(lead):
                break  # (one as long as `lead` that it begins with is `lead`: found above)
            shorter = by_start.get(lead[:length])
            if shorter is not None:
                found += shorter
        return found


class _Bucket:
    """Globs of one literal start: the path's end rules most out at once (one
    `endswith` of them all), and the literal text inside the rest (one search).

    The search is compiled when a path first gets that far: a list's index is built
    whole at its first use, and a one-event hook, which asks one or two of its
    buckets, would otherwise compile the searches of all of them."""

    __slots__ = ("_inner", "_leads", "_texts", "ends", "needs", "unended")

    def __init__(self, needs: list[_Need]) -> None:
        self.needs = needs
        self.ends = tuple(end for _, end, _, _ in needs if end)
        self.unended = [need for need in needs if not need[1]]
        inner = [runs[0] for _, _, runs, _ in self.unended if runs]
        #: The literal texts one of which every unended glob holds; () when some
        #: unended glob holds none (then no search rules any out).
        self._texts = tuple(inner) if inner and len(inner) == len(self.unended) else ()
        self._inner: re.Pattern[str] | None = None
        self._leads: _Leads | None = None

    def near(self, lead: str) -> list[str]:
        """The globs whose literal start agrees with a pattern's literal `lead` (see
        `_Globs.near`); a glob whose start is not rooted (`**/x/**`) always does."""
        leads = self._leads
        if leads is None:
            rooted = [(start, one) for start, _, _, one in self.needs if start[:1] == "/"]
            unrooted = [one for start, _, _, one in self.needs if start[:1] != "/"]
            leads = self._leads = _Leads(rooted, unrooted)
        return leads.near(lead)

    def matches(self, path: str) -> bool:
        """Whether `path` (literal) matches one of this bucket's globs."""
        for start, end, runs, one in self.candidates(path):
            if (
                path.startswith(start)
                and path.endswith(end)
                and (not runs or all(run in path for run in runs))
                and _single_glob(one)(path)
            ):
                return True
        return False

    def candidates(self, path: str) -> list[_Need]:
        if self.ends and path.endswith(self.ends):
            return self.needs
        if self._texts:
            inner = self._inner
            if inner is None:
                # (two threads may both compile it: either pattern is the same search)
                inner = self._inner = re.compile("|".join(map(re.escape, self._texts)))
            if not inner.search(path):
                return []
        return self.unended


_DEPTH = 3

#: The fields of an index's parts (`_Globs.parts`).
_PARTS = frozenset({"expanded", "exact_too", "literals", "tails", "by_start"})


class _NotParts(Exception):
    """A value that is not part of an index (`_Globs.from_parts`)."""


def _string(value: Any) -> str:
    if type(value) is not str:
        raise _NotParts
    return value


def _strings(value: Any) -> tuple[str, ...]:
    if type(value) is not list or not all(type(item) is str for item in value):
        raise _NotParts
    return tuple(value)


def _need(value: Any) -> _Need:
    if type(value) is not list or len(value) != 4:
        raise _NotParts
    start, end, runs, one = value
    return _string(start), _string(end), _strings(runs), _string(one)


def _start_key(start: str) -> tuple[int, str]:
    """How many whole components (up to `_DEPTH`) the absolute literal start of a glob
    holds, and those components: `/home/dev/.ssh/` -> (3, "/home/dev/.ssh")."""
    if not start.startswith("/"):
        return 0, ""
    whole = start[1:].split("/")[:-1]
    depth = min(_DEPTH, len(whole))
    return depth, "/" + "/".join(whole[:depth]) if depth else ""


def _globs_of(patterns: Sequence[str], home: str, *, folded: bool = False) -> _Globs:
    """`_compiled_globs` of `patterns`, found by the tuple's identity first: a rule's
    list is the same tuple at every call (a pack's constant), and hashing its ≈ 150
    globs to look it up cost ≈ 1.3 µs of a 4.5 µs `matches`. Only a tuple is kept by
    identity (a list may change under the same identity); the entry holds it, so its
    identity is not reused while kept."""
    entry = _BY_LIST.get((id(patterns), folded))
    if entry is not None and entry[0] is patterns and entry[1] == home:
        return entry[2]
    compiled = _compiled_globs(tuple(patterns), home, folded=folded)
    if type(patterns) is tuple:
        if len(_BY_LIST) >= _BY_LIST_SIZE:
            _BY_LIST.clear()
        _BY_LIST[(id(patterns), folded)] = (patterns, home, compiled)
    return compiled


#: The lists `_globs_of` found last, by identity: (the tuple, the home, its globs).
_BY_LIST: dict[tuple[int, bool], tuple[Sequence[str], str, _Globs]] = {}
_BY_LIST_SIZE = 256


@functools.lru_cache(maxsize=512)
def _compiled_globs(patterns: tuple[str, ...], home: str, *, folded: bool = False) -> _Globs:
    """`patterns` compiled (see `_Globs`); `folded`: their letters folded (`fold`), to
    be matched against folded paths. A long list's index is read back from the store
    a one-event hook keeps them in (`kept_indexes`), and kept there once built."""
    store = kept_indexes if _worth_keeping(patterns) else None
    if store is not None:
        found = _Globs.from_parts(store.get(patterns, home, folded))
        if found is not None:
            return found
    expanded, exact_too = _expanded(patterns, home, folded=folded)
    index = _Globs(expanded, exact_too=exact_too)
    if store is not None:
        store.keep(patterns, home, folded, index.parts())
    return index


class IndexStore(Protocol):
    """Where glob lists' indexes are kept for the next process, as `_Globs.parts`
    (policy.packs.glob_store.KeptGlobIndexes); `get` answers None for a miss."""

    def get(self, patterns: tuple[str, ...], home: str, folded: bool) -> Any: ...

    def keep(self, patterns: tuple[str, ...], home: str, folded: bool, parts: Any) -> None: ...


#: The store this process reads long lists' indexes from and keeps them in
#: (`keep_indexes_in`). None: built in each process.
kept_indexes: IndexStore | None = None

#: The shortest list whose index is kept: reading an entry back (≈ 0.1 ms) costs what
#: building the index of a few dozen globs does. The packs' long lists (a pack's
#: credential places, startup files: 30 to 250 globs each) take ≈ 5 ms a one-event
#: hook to index: bracex's import, each glob's braces, folding and literal parts.
KEPT_INDEX_PATTERNS = 24


def _worth_keeping(patterns: tuple[str, ...]) -> bool:
    """Whether a list's index is kept (`kept_indexes`): a long one, or one with a brace,
    whose expansion imports bracex (≈ 1.4 ms) however short the list."""
    return len(patterns) >= KEPT_INDEX_PATTERNS or any("{" in one for one in patterns)


def keep_indexes_in(store: IndexStore | None) -> None:
    """Keep the indexes of the long glob lists this process builds in `store` for the
    next process, and read them back from there (None: no longer)."""
    global kept_indexes
    kept_indexes = store


def _expanded(
    patterns: Sequence[str], home: str, *, folded: bool
) -> tuple[list[str], tuple[str, ...]]:
    """`patterns` with `~` and braces expanded (and `DIR/**` also as `DIR`), folded
    when asked; and those of `patterns` that, folded, may miss a spelling they match."""
    expanded: list[str] = []
    exact_too: list[str] = []
    for given in patterns:
        pattern = given
        if pattern.startswith("~") and home:
            pattern = home.rstrip("/") + pattern[1:] if pattern[1:2] in ("", "/") else pattern
        if folded:
            if _FOLDS_APART.search(pattern) is not None:
                exact_too.append(given)
            pattern = _fold_letters(pattern)
        for one in _braces_expanded(pattern) if "{" in pattern else (pattern,):
            expanded.append(one)
            if one.endswith("/**"):
                expanded.append(one[:-3] or "/")
    return expanded, tuple(exact_too)


def _braces_expanded(pattern: str) -> list[str]:
    """`pattern`'s braces expanded; bracex is imported only for a list that has one (a
    one-event hook whose short lists have none does not pay its ≈ 1.4 ms import)."""
    import bracex

    expanded: list[str] = bracex.expand(pattern, limit=1000)
    return expanded


#: What in a glob may match a spelling exactly but not once both are folded: a class,
#: a name that ends in a dot or a blank, a stream name, letters outside ASCII.
_FOLDS_APART = LazyPattern(r"[\[\\]|[. ](?:/|$)|::|[^\x00-\x7f]")


def _named(pattern: str) -> bool:
    """`**/` and a literal rest: a pattern that matches by the path's last parts."""
    return pattern.startswith("**/") and not _GLOB_SYNTAX.search(pattern, 3)


_GLOB_SYNTAX = LazyPattern(r"[*?\[\]{}()!@+\\]")


def _literal_parts(pattern: str) -> tuple[str, str, tuple[str, ...]]:
    """What every path `pattern` matches begins with, ends with and holds (its
    literal text around the wildcards): checks that cost nothing to compile."""
    plain = _CLASS.sub("\x00", pattern)
    runs = _WILDCARDS.split(plain)
    if len(runs) == 1:  # no wildcard: the path must be the pattern
        return pattern, pattern, ()
    # (`**/x` also matches a bare `x`: the text after a wildcard is matched without
    # its leading slash)
    middle = tuple(run.lstrip("/") for run in runs[1:-1] if len(run.lstrip("/")) > 1)
    return runs[0], runs[-1].lstrip("/"), middle


_CLASS = LazyPattern(r"\[[^\]]*\]")
_WILDCARDS = LazyPattern(r"[*?{}()!@+\x00]+")


@functools.lru_cache(maxsize=8192)
def _single_glob(pattern: str) -> Callable[[str], bool]:
    from wcmatch import glob as wglob

    flags = wglob.GLOBSTAR | wglob.DOTGLOB | wglob.EXTGLOB
    return wglob.compile(pattern, flags=flags).match


@remember_short(4096, _KEPT_PATH)
def _components(path: str) -> tuple[str, ...]:
    # (memoised: the policy's globs are split call after call)
    return tuple(part for part in path.split("/") if part not in ("", "."))


def _meets(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Can the glob components `a` (a path that may hold shell wildcards) and `b` (a
    policy glob) name one path? `**` on either side spans any number of components.

    Before the first `**` of either, and after the last, each component of one names
    the component of the other in its place; two there that cannot meet rule the pair
    out at once (`~/project/src/x/**` against `/home/*/.ssh/**`: `project` is not
    `.ssh`; `src/*.py` against `**/.claude`). Most of a list's globs are ruled out so,
    and a new path's pairs are not worked out in full (`_meets_table`, remembered per
    pair) — a new `mv`, `cp -r`, `rm -rf` or `sed -i ... *.py` asks about its patterns
    against every list its rules name."""
    for ends in ((a, b), (a[::-1], b[::-1])):  # (after the last `**`, the same from the end)
        for shell, policy in zip(*ends, strict=False):
            if shell == "**" or policy == "**":
                break
            if shell != policy and (
                (_plain(shell) and _plain(policy)) or not _component_meets(shell, policy)
            ):
                return False
    if "**" not in a:
        # each component of `b` but `**` names one of `a`'s (`~/x/*.py` meets no
        # `**/.claude/**`: none of its names can be `.claude`; a plain name of `b` is
        # one of `a`'s, or a glob of `a`'s takes it)
        globs = [shell for shell in a if not _plain(shell)]
        for policy in b:
            if policy == "**" or (_plain(policy) and policy in a):
                continue
            takers = globs if _plain(policy) else a
            if not any(_component_meets(shell, policy) for shell in takers):
                return False
    return _meets_table(a, b)


def _plain(component: str) -> bool:
    """Whether a component is a name and no glob (on either side, whatever the flags):
    two plain components meet when they are the same name."""
    return _GLOB_SYNTAX.search(component) is None


@remember_short(16384, _KEPT_PATH)
def _meets_table(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """`_meets`, worked out over the (len(a) + 1) x (len(b) + 1) table of suffixes, without
    recursion: a path of thousands of components must not exhaust Python's stack
    (an error a rule could skip), and each pair costs a few operations."""
    rows, cols = len(a), len(b)
    # below[j]: do a[i + 1:] and b[j:] meet; here[j]: do a[i:] and b[j:]
    below = [False] * (cols + 1)
    below[cols] = True  # both ends reached
    for j in range(cols - 1, -1, -1):  # a exhausted: only `**`s of b may remain
        below[j] = b[j] == "**" and below[j + 1]
    for i in range(rows - 1, -1, -1):
        here = [False] * (cols + 1)
        star = a[i] == "**"
        for j in range(cols, -1, -1):
            if star:
                here[j] = below[j] or (j < cols and here[j + 1])
            elif j < cols and b[j] == "**":
                here[j] = here[j + 1] or below[j]
            elif j == cols:
                here[j] = False
            else:
                here[j] = below[j + 1] and _component_meets(a[i], b[j])
        below = here
    return below[0]


@remember_short(16384, _KEPT_PATH)
def _component_meets(shell: str, policy: str) -> bool:
    """Can one file name match both the shell glob `shell` and the policy glob `policy`?
    (Memoised: a policy's components meet the same names call after call.)"""
    shell_wild = bool(_WILD.search(shell))
    if not shell_wild:
        return bool(_component_glob(policy).match(shell))
    if shell.startswith(("*", "?", "[")) and policy.startswith("."):
        return False  # the shell's wildcards do not match a leading dot
    if "(" in policy or "{" in policy:
        return True  # an extended glob: assume the two meet
    return _globs_meet(_tokens(shell), _tokens(policy))


@remember_short(4096, _KEPT_PATH)
def _component_glob(policy: str) -> Any:
    """One component of a policy glob, compiled (dotfiles match, extended globs)."""
    from wcmatch import fnmatch as wfnmatch

    return wfnmatch.compile(policy, flags=wfnmatch.DOTMATCH | wfnmatch.EXTMATCH)


def _tokens(pattern: str) -> tuple[str, ...]:
    """`a*[bc]?` -> ("a", "*", "[bc]", "?"): one token per character or wildcard."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "[":
            end = pattern.find("]", index + 2)
            if end > 0:
                out.append(pattern[index : end + 1])
                index = end + 1
                continue
        if char == "*" and out and out[-1] == "*":
            index += 1
            continue
        out.append(char)
        index += 1
    return tuple(out)


def _char_meets(a: str, b: str) -> bool:
    if a == "?" or b == "?":
        return True
    if a.startswith("[") and b.startswith("["):
        return True  # two classes: assume they share a character
    if a.startswith("["):
        return fnmatch.fnmatchcase(b, a)
    if b.startswith("["):
        return fnmatch.fnmatchcase(a, b)
    return a == b


def _globs_meet(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Is some string matched by both token sequences? (`*` is any run, `?` one
    character, `[...]` one of a set.)"""

    @functools.cache
    def go(i: int, j: int) -> bool:
        if i == len(a) and j == len(b):
            return True
        if i < len(a) and a[i] == "*" and (go(i + 1, j) or (j < len(b) and go(i, j + 1))):
            return True
        if j < len(b) and b[j] == "*" and (go(i, j + 1) or (i < len(a) and go(i + 1, j))):
            return True
        if i < len(a) and j < len(b) and a[i] != "*" and b[j] != "*":
            return _char_meets(a[i], b[j]) and go(i + 1, j + 1)
        return False

    return go(0, 0)
