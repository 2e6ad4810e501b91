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

Paths are POSIX strings compared exactly: no case folding and no Unicode
normalisation (`café` composed and decomposed are two different names on Linux), and
a backslash is an ordinary character.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
import stat
from collections.abc import Callable, Sequence
from typing import Any

from policy.analysis.viewer import may_search_physical

__all__ = [
    "MAX_PATH_BYTES",
    "UnsafePathError",
    "contained",
    "inside",
    "is_pattern",
    "matches",
    "names",
    "normalize",
    "resolve",
    "within",
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
    if (
        path[0] == "/"
        and len(path) <= 1024
        and path.isascii()
        and "//" not in path
        and "/." not in path
        and "\x00" not in path
        and (path == "/" or path[-1] != "/")
    ):
        return path  # already the one spelling (the common case, kept cheap)
    return _collapse(_expand(path, cwd, home))


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


def resolve(
    path: str,
    cwd: str = "",
    *,
    home: str | None = None,
    max_links: int = 40,
    budget: list[int] | None = None,
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
    component walked spends one; none left raises `UnsafePathError` too.
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
            mode = os.lstat(here).st_mode
        except (FileNotFoundError, NotADirectoryError):
            done.append(name)
            missing = 1
            continue
        except OSError as exc:
            raise UnsafePathError(
                f"cannot inspect {here!r} while resolving {path!r}: {exc.strerror or exc}"
            ) from exc
        if not stat.S_ISLNK(mode):
            done.append(name)
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
        base = os.path.expanduser("~") if home is None else home
        if base != "~":  # no home could be found: keep `~` as a plain name
            path = (base.rstrip("/") + path[1:]) or "/"
    elif path.startswith("~"):
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
    p = [name for name in path.split("/") if name not in ("", ".")]
    r = [name for name in root.split("/") if name not in ("", ".")]
    # Below a relative root made only of `..`, a further `..` climbs out of it.
    return p[: len(r)] == r and ".." not in p[len(r) :]


# ------------------------------------------------------------- path globs

_WILD = re.compile(r"[*?\[]")


def is_pattern(path: str) -> bool:
    """True when `path` stands for many files: a shell glob (`/etc/sh*`) or a
    recursive read (`DIR/**`). Such a path *may* match a glob; it is not known to."""
    return bool(_WILD.search(_known(path)))


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
    compiled = _compiled_globs(tuple(patterns), home)
    if not _WILD.search(text):
        return compiled.match(text)
    parts = _components(text)
    return any(_meets(parts, _components(p)) for p in compiled.expanded)


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
    base = text.rstrip("/").rsplit("/", 1)[-1]
    spelled = _longest_literal(base)
    if len(spelled) < 2:
        return False  # `*`, `**`, `?`: any name, so none in particular
    suffix_only = spelled.startswith(".") and base.endswith(spelled) and _WILD.match(base[0])
    for pattern in patterns:
        wanted = max((_longest_literal(part) for part in pattern.split("/")), key=len)
        if len(wanted) < 2:
            continue
        last = pattern.rsplit("/", 1)[-1]
        if suffix_only and not _WILD.search(last):
            continue  # `*.py` names no file in particular, `sitecustomize.py` least of all
        if (spelled in wanted or wanted in spelled) and matches(text, [pattern], home):
            return True
    return False


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
    path = _known(path)
    compiled = _compiled_globs(tuple(patterns), home)
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
    __slots__ = ("expanded", "match")

    def __init__(self, match: Callable[[str], bool], expanded: tuple[str, ...]) -> None:
        self.match = match
        self.expanded = expanded


@functools.lru_cache(maxsize=512)
def _compiled_globs(patterns: tuple[str, ...], home: str) -> _Globs:
    import bracex

    expanded: list[str] = []
    for pattern in patterns:
        if pattern.startswith("~") and home:
            pattern = home.rstrip("/") + pattern[1:] if pattern[1:2] in ("", "/") else pattern
        for one in bracex.expand(pattern, limit=1000) if "{" in pattern else (pattern,):
            expanded.append(one)
            if one.endswith("/**"):
                expanded.append(one[:-3] or "/")
    # Each pattern is compiled when a path first gets past its literal start (most
    # lists are long and most of their patterns begin `/home/dev/.x/`): a one-event
    # hook compiles the few its call can reach, not the hundreds a pack lists.
    needs = tuple((_literal_parts(one), one) for one in expanded)

    def match(path: str) -> bool:
        for (start, end, runs), one in needs:
            if (
                path.startswith(start)
                and path.endswith(end)
                and all(run in path for run in runs)
                and _single_glob(one)(path)
            ):
                return True
        return False

    return _Globs(match, tuple(expanded))


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


_CLASS = re.compile(r"\[[^\]]*\]")
_WILDCARDS = re.compile(r"[*?{}()!@+\x00]+")


@functools.lru_cache(maxsize=8192)
def _single_glob(pattern: str) -> Callable[[str], bool]:
    from wcmatch import glob as wglob

    flags = wglob.GLOBSTAR | wglob.DOTGLOB | wglob.EXTGLOB
    return wglob.compile(pattern, flags=flags).match


@functools.lru_cache(maxsize=4096)
def _components(path: str) -> tuple[str, ...]:
    # (memoised: the policy's globs are split call after call)
    return tuple(part for part in path.split("/") if part not in ("", "."))


@functools.lru_cache(maxsize=16384)
def _meets(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Can the glob components `a` (a path that may hold shell wildcards) and `b` (a
    policy glob) name one path? `**` on either side spans any number of components.

    Worked out over the (len(a) + 1) x (len(b) + 1) table of suffixes, without
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


@functools.lru_cache(maxsize=16384)
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


@functools.lru_cache(maxsize=4096)
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
