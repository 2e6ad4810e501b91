"""Path containment: what `normalize`, `within`, `resolve` and `contained` promise.

The tables are the lexical contract rules rely on (no file system involved); the
symlink tests build real links in `tmp_path` and show where lexical answers stop
being enough.
"""

from __future__ import annotations

import json
import os
import pwd
import random
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from policy.analysis import paths
from policy.analysis.paths import (
    MAX_PATH_BYTES,
    UnsafePathError,
    contained,
    normalize,
    resolve,
    within,
)

HOME = "/home/agent"

# --------------------------------------------------------------------------- normalize

NORMALIZE_CASES = [
    # (path, cwd, expected)
    ("/srv/work/a.txt", "", "/srv/work/a.txt"),
    ("/a//b/./c/../d", "", "/a/b/d"),
    ("//etc/passwd", "", "/etc/passwd"),
    ("///etc//passwd", "", "/etc/passwd"),
    ("/./etc/./passwd", "", "/etc/passwd"),
    ("/srv/work/", "", "/srv/work"),
    ("/srv/work///", "", "/srv/work"),
    ("/", "", "/"),
    ("//", "", "/"),
    ("/..", "", "/"),
    ("/../../etc/shadow", "", "/etc/shadow"),
    ("/srv/work/../../../../root/.ssh", "", "/root/.ssh"),
    ("/srv/work/./../work2/x", "", "/srv/work2/x"),
    ("/srv/wörk/naïve café.txt", "", "/srv/wörk/naïve café.txt"),
    ("/srv/日本語/../ファイル", "", "/srv/ファイル"),
    ("/srv/my documents/ a b /c", "", "/srv/my documents/ a b /c"),
    ("/srv/work/...", "", "/srv/work/..."),
    ("/srv/work/..hidden", "", "/srv/work/..hidden"),
    ("/srv/work\\..\\etc", "", "/srv/work\\..\\etc"),
    ("/srv/a~b/~", "", "/srv/a~b/~"),
    ("notes.txt", "", "notes.txt"),
    ("./src//main.py", "", "src/main.py"),
    ("src/../../secret", "", "../secret"),
    ("../../x", "", "../../x"),
    ("a/..", "", "."),
    (".", "", "."),
    ("src/", "", "src"),
    ("notes.txt", "/srv/work", "/srv/work/notes.txt"),
    ("../work2/x", "/srv/work", "/srv/work2/x"),
    ("../../../../../etc", "/srv/work", "/etc"),
    ("./a/./b/", "/srv/work/", "/srv/work/a/b"),
    ("/etc/hosts", "/srv/work", "/etc/hosts"),
    ("x", "/srv/../tmp//w", "/tmp/w/x"),
    ("x", "sub/../other", "other/x"),
    ("x", "~/proj", f"{HOME}/proj/x"),
    ("~", "", HOME),
    ("~/", "", HOME),
    ("~/.ssh/id_rsa", "", f"{HOME}/.ssh/id_rsa"),
    ("~/../../etc/passwd", "", "/etc/passwd"),
    ("~/x", "/srv/work", f"{HOME}/x"),
    ("~~/x", "", "~~/x"),
    ("", "", ""),
    ("", "/srv/work", ""),
]


@pytest.mark.parametrize(("path", "cwd", "expected"), NORMALIZE_CASES)
def test_normalize(path: str, cwd: str, expected: str) -> None:
    assert normalize(path, cwd, home=HOME) == expected


def test_normalize_keeps_the_old_positional_call_shape() -> None:
    """`path.normalize(p)` in CEL calls `normalize(p)`, with no cwd and no home."""
    assert normalize("/srv/work/../work/a.txt") == "/srv/work/a.txt"


def test_tilde_defaults_to_the_current_users_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert normalize("~/x") == "/home/someone/x"
    assert normalize("~") == "/home/someone"


def test_an_explicit_home_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    assert normalize("~/x", home="/home/agent/") == "/home/agent/x"


def test_tilde_user_expands_to_that_users_home() -> None:
    root_home = pwd.getpwnam("root").pw_dir.rstrip("/")
    assert normalize("~root/.ssh/../.bashrc") == f"{root_home}/.bashrc"


def test_tilde_of_an_unknown_user_is_an_ordinary_relative_name() -> None:
    user = "no-such-user-hookpolicy"
    with pytest.raises(KeyError):
        pwd.getpwnam(user)
    assert normalize(f"~{user}/x") == f"~{user}/x"
    assert normalize(f"~{user}/x", "/srv/work") == f"/srv/work/~{user}/x"
    assert not within(f"~{user}/x", "/")


def test_a_nul_byte_is_refused_not_truncated() -> None:
    with pytest.raises(UnsafePathError, match="NUL"):
        normalize("/srv/work/ok.txt\x00/../../etc/passwd")
    with pytest.raises(UnsafePathError):
        normalize("x", "/srv/wo\x00rk")
    with pytest.raises(UnsafePathError):
        within("/srv/work/a\x00", "/srv/work")
    # Callers that already catch ValueError (the CEL functions) stay fail-closed.
    assert issubclass(UnsafePathError, ValueError)


def test_paths_longer_than_the_kernel_allows_are_refused() -> None:
    fits = "/" + "a" * (MAX_PATH_BYTES - 1)
    assert normalize(fits) == fits
    with pytest.raises(UnsafePathError, match="longer"):
        normalize(fits + "b")
    # Bytes, not characters: "é" is two bytes in UTF-8.
    with pytest.raises(UnsafePathError):
        normalize("/" + "é" * (MAX_PATH_BYTES // 2))
    # The joined path counts, not just the argument.
    with pytest.raises(UnsafePathError):
        normalize("a" * 100, "/" + "w" * (MAX_PATH_BYTES - 50))


# ------------------------------------------------------------------------------ within

WITHIN_CASES = [
    # (path, root, cwd, expected)
    ("/srv/work", "/srv/work", "", True),
    ("/srv/work/", "/srv/work", "", True),
    ("/srv/work", "/srv/work/", "", True),
    ("/srv/work/a/b/c.txt", "/srv/work", "", True),
    ("/srv/work2", "/srv/work", "", False),
    ("/srv/work2/a", "/srv/work", "", False),
    ("/srv/work.bak/a", "/srv/work", "", False),
    ("/srv/work/../work2", "/srv/work", "", False),
    ("/srv/work/../work/x", "/srv/work", "", True),
    ("/etc/../srv/work/x", "/srv/work", "", True),
    ("/srv/work/../../etc/passwd", "/srv/work", "", False),
    ("//srv/work/x", "/srv/work", "", True),
    ("/srv", "/srv/work", "", False),
    ("/", "/srv/work", "", False),
    ("/etc/passwd", "/", "", True),
    ("/", "/", "", True),
    ("/../..", "/", "", True),
    ("/srv/wörk/café", "/srv/wörk", "", True),
    ("/srv/wörk/café", "/srv/work", "", False),
    ("/srv/my work/x", "/srv/my", "", False),
    ("notes.txt", "/srv/work", "", False),
    ("notes.txt", "/", "", False),
    ("notes.txt", "/srv/work", "/srv/work", True),
    ("../work2/notes.txt", "/srv/work", "/srv/work", False),
    ("sub/../../work/x", "/srv/work", "/srv/work", True),
    ("/srv/work/x", "work", "/srv", True),
    ("/srv/work/x", "work", "", False),
    ("src/a.py", "src", "", True),
    ("src2/a.py", "src", "", False),
    ("../x", ".", "", False),
    ("x", ".", "", True),
    ("../../x", "..", "", False),
    ("../a/b", "../a", "", True),
    ("", "/srv/work", "", False),
    ("", "/", "/srv/work", False),
    ("/srv/work/x", "", "", False),
]


@pytest.mark.parametrize(("path", "root", "cwd", "expected"), WITHIN_CASES)
def test_within(path: str, root: str, cwd: str, expected: bool) -> None:
    assert within(path, root, cwd) is expected


def test_within_keeps_the_old_positional_call_shape() -> None:
    """`path.within(p, root)` in CEL calls `within(p, root)`."""
    assert within("/srv/work/../work/a.txt", "/srv/work")
    assert not within("/srv/work2/a", "/srv/work")


def test_every_table_path_is_distinct_and_there_are_enough() -> None:
    seen = {c[0] for c in NORMALIZE_CASES} | {c[0] for c in WITHIN_CASES}
    assert len(seen) >= 40


# ---------------------------------------------------------------- symlinks on disk


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """tmp/ws is the workspace; tmp/outside and tmp/etc are not."""
    (tmp_path / "ws" / "sub").mkdir(parents=True)
    (tmp_path / "ws" / "sub" / "file.txt").write_text("in")
    (tmp_path / "outside" / "deep" / "dir").mkdir(parents=True)
    (tmp_path / "outside" / "secret").write_text("out")
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "passwd").write_text("root:x:0:0")
    return tmp_path.resolve()


def test_a_link_in_the_workspace_pointing_outside_is_an_escape(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(tree / "outside", ws / "out")
    escape = str(ws / "out" / "secret")
    assert within(escape, str(ws)), "lexically it looks inside..."
    assert resolve(escape) == str(tree / "outside" / "secret")
    assert not contained(escape, str(ws)), "...but the OS opens a file outside"
    assert contained(escape, str(ws), follow_symlinks=False), "lexical mode cannot see links"


def test_a_link_that_stays_inside_is_contained(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(ws / "sub", ws / "alias")
    assert resolve(str(ws / "alias" / "file.txt")) == str(ws / "sub" / "file.txt")
    assert contained(str(ws / "alias" / "file.txt"), str(ws))


def test_a_relative_link_is_resolved_from_the_links_directory(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink("../../etc", ws / "sub" / "etc")
    path = str(ws / "sub" / "etc" / "passwd")
    assert resolve(path) == str(tree / "etc" / "passwd")
    assert not contained(path, str(ws))
    assert contained("sub/etc/passwd", str(tree), str(ws))


def test_a_chain_of_links_is_followed_to_its_end(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink("b", ws / "a")
    os.symlink("sub/../c", ws / "b")
    os.symlink(tree / "outside", ws / "c")
    assert resolve(str(ws / "a" / "secret")) == str(tree / "outside" / "secret")
    assert not contained(str(ws / "a" / "secret"), str(ws))

    os.symlink("y", ws / "x")
    os.symlink("sub", ws / "y")
    assert contained(str(ws / "x" / "file.txt"), str(ws))


def test_dotdot_after_a_link_climbs_from_the_links_target(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(tree / "outside" / "deep" / "dir", ws / "deep")
    path = f"{ws}/deep/.."
    assert normalize(path) == str(ws)
    assert resolve(path) == str(tree / "outside" / "deep")
    assert within(path, str(ws))
    assert not contained(path, str(ws))


def test_dotdot_from_a_cwd_that_is_a_link_is_physical(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(tree / "outside" / "deep", ws / "deep")
    assert resolve("../secret", str(ws / "deep")) == str(tree / "outside" / "secret")
    assert not contained("../secret", str(ws), str(ws / "deep"))


def test_a_link_loop_is_refused(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink("b", ws / "a")
    os.symlink("a", ws / "b")
    with pytest.raises(UnsafePathError, match="loop") as info:
        resolve(str(ws / "a" / "x"))
    assert str(ws / "a" / "x") in str(info.value)
    with pytest.raises(UnsafePathError):
        contained(str(ws / "a"), str(ws))


def test_a_link_to_itself_is_refused(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink("self", ws / "self")
    with pytest.raises(UnsafePathError, match="loop"):
        resolve(str(ws / "self"))


def test_a_loop_through_dotdot_is_refused(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink("sub/../round", ws / "round")
    with pytest.raises(UnsafePathError, match="loop"):
        resolve(str(ws / "round"))


def _chain(directory: Path, length: int) -> Path:
    """l0 -> l1 -> ... -> l{length-1} -> sub: `length` links to reach `sub`."""
    for i in range(length):
        target = f"l{i + 1}" if i + 1 < length else "sub"
        os.symlink(target, directory / f"l{i}")
    return directory / "l0"


def test_more_links_than_max_links_are_refused(tree: Path) -> None:
    ws = tree / "ws"
    start = str(_chain(ws, 5))
    assert resolve(start, max_links=5) == str(ws / "sub")
    with pytest.raises(UnsafePathError, match="too many") as info:
        resolve(start, max_links=4)
    assert start in str(info.value)


def test_the_default_link_limit_is_the_kernels_forty(tree: Path) -> None:
    ws = tree / "ws"
    forty = str(_chain(ws, 40))
    assert resolve(forty) == str(ws / "sub")
    os.symlink("l0", ws / "one-more")
    with pytest.raises(UnsafePathError, match="too many"):
        resolve(str(ws / "one-more"))


def test_the_same_link_may_be_crossed_more_than_once(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(ws / "sub", ws / "s")
    assert resolve(f"{ws}/s/../s/../s/file.txt") == str(ws / "sub" / "file.txt")


def test_a_dangling_link_pointing_outside_counts_as_outside(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(tree / "outside" / "not-yet", ws / "dangle")
    assert not (ws / "dangle").exists()
    assert resolve(str(ws / "dangle")) == str(tree / "outside" / "not-yet")
    assert not contained(str(ws / "dangle"), str(ws)), "writing to it creates a file outside"


def test_a_missing_tail_keeps_the_direction_of_the_link_before_it(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(tree / "outside", ws / "out")
    new = str(ws / "out" / "new-dir" / "new.txt")
    assert resolve(new) == str(tree / "outside" / "new-dir" / "new.txt")
    assert not contained(new, str(ws))
    assert contained(str(ws / "sub" / "new-dir" / "new.txt"), str(ws))


def test_an_existing_link_after_a_missing_component_is_still_followed(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(tree / "outside", ws / "out")
    path = f"{ws}/missing/../out/secret"
    assert resolve(path) == str(tree / "outside" / "secret")
    assert not contained(path, str(ws))


def test_a_workspace_reached_through_a_link_contains_its_files(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(ws, tree / "ws-link")
    assert contained(str(ws / "sub" / "file.txt"), str(tree / "ws-link"))
    assert contained(str(tree / "ws-link" / "sub"), str(ws))
    assert not within(str(ws / "sub" / "file.txt"), str(tree / "ws-link"))


def test_relative_paths_resolve_against_cwd_only(tree: Path) -> None:
    ws = tree / "ws"
    assert resolve("sub/file.txt", str(ws)) == str(ws / "sub" / "file.txt")
    with pytest.raises(UnsafePathError, match="not absolute"):
        resolve("sub/file.txt")
    with pytest.raises(UnsafePathError):
        contained("sub/file.txt", str(ws))
    with pytest.raises(UnsafePathError):
        resolve("")
    assert not contained("sub/file.txt", str(ws), follow_symlinks=False)


def test_tilde_is_resolved_with_the_given_home(tree: Path) -> None:
    ws = tree / "ws"
    os.symlink(tree / "outside", ws / "out")
    assert resolve("~/out/secret", home=str(ws)) == str(tree / "outside" / "secret")
    assert contained("~/sub/file.txt", "~", home=str(ws))
    assert not contained("~/out/secret", "~", home=str(ws))


def test_a_nul_byte_is_refused_before_touching_the_disk(tree: Path) -> None:
    with pytest.raises(UnsafePathError, match="NUL"):
        resolve(f"{tree}/ws/sub/file.txt\x00")
    with pytest.raises(UnsafePathError, match="NUL"):
        contained(f"{tree}/ws\x00/../etc", str(tree / "ws"))


def test_a_component_that_cannot_be_inspected_is_refused(
    tree: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    locked = str(tree / "ws" / "locked")
    real_lstat: Callable[..., os.stat_result] = os.lstat

    def lstat(path: str) -> os.stat_result:
        if path == locked:
            raise PermissionError(13, "Permission denied", path)
        return real_lstat(path)

    monkeypatch.setattr(paths.os, "lstat", lstat)
    with pytest.raises(UnsafePathError, match="cannot inspect"):
        resolve(f"{locked}/x")
    with pytest.raises(UnsafePathError):
        contained(f"{locked}/x", str(tree / "ws"))
    assert resolve(str(tree / "ws" / "sub")) == str(tree / "ws" / "sub")


@pytest.mark.skipif(os.geteuid() == 0, reason="root is never denied permission")
def test_an_unreadable_directory_is_refused(tree: Path) -> None:
    locked = tree / "ws" / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        with pytest.raises(UnsafePathError, match="cannot inspect"):
            resolve(str(locked / "x"))
    finally:
        locked.chmod(0o700)


# ------------------------------------------------------------- folded names

# (path, root, within, within_folded): the exact answer for allows, the folded one
# for denials. macOS folds case and normal forms, Windows case, trailing dots and
# spaces; HFS+ ignores zero-width joiners; no file system folds fullwidth letters.
FOLDED_WITHIN_CASES = [
    ("/p/RULES/x.yaml", "/p/rules", False, True),
    ("/P/rules", "/p/rules", False, True),
    ("/p/rules/x", "/p/rules", True, True),
    ("/p/rules2/x", "/p/rules", False, False),
    ("/srv/cafe\u0301/rules", "/srv/caf\u00e9", False, True),
    ("/srv/CAF\u00c9/x", "/srv/caf\u00e9", False, True),
    ("/p/ru\u200cles/x", "/p/rules", False, True),
    ("/p/rules./x", "/p/rules", False, True),
    ("/p/rules /x", "/p/rules", False, True),
    ("/p/\uff52ules/x", "/p/rules", False, False),
    ("/p/../p/RULES", "/p/rules", False, True),
]


@pytest.mark.parametrize(("path", "root", "exact", "folded"), FOLDED_WITHIN_CASES)
def test_within_is_exact_and_within_folded_is_not(
    path: str, root: str, exact: bool, folded: bool
) -> None:
    assert within(path, root) is exact
    assert paths.within_folded(path, root) is folded


@pytest.mark.parametrize(
    ("path", "patterns", "expected"),
    [
        ("/home/agent/.SSH/ID_RSA", ["~/.ssh/**"], True),
        ("/home/agent/library/launchagents/x.plist", ["~/Library/LaunchAgents/**"], True),
        ("/w/.ENV", ["**/.env"], True),
        ("/w/.env.", ["**/.env"], True),
        ("/w/.env::$DATA", ["**/.env"], True),
        ("/home/agent/.\u017fsh/id_rsa", ["~/.ssh/**"], True),  # NTFS: long s is S
        ("/w/credent\u0131als", ["**/credentials"], True),  # NTFS: dotless i is I
        ("/w/.\uff45nv", ["**/.env"], False),  # fullwidth: its own letter everywhere
        ("/w/.E*", ["**/.env"], True),
        ("/w/.environment", ["**/.env"], False),
        ("/w/a.kube/config", ["**/.kube/config"], False),
    ],
)
def test_matches_compares_names_as_folding_file_systems_do(
    path: str, patterns: list[str], expected: bool
) -> None:
    assert paths.matches(path, patterns, HOME) is expected


def test_inside_stays_exact_for_exemptions() -> None:
    """An exemption (`!path.inside(p, public)`) must not widen: `.ENV.EXAMPLE` is not
    excused as `.env.example` would be, though it is denied as `.env.*`."""
    assert not paths.inside("/w/.ENV.EXAMPLE", ["**/.env.example"], HOME)
    assert paths.inside_folded("/w/.ENV.EXAMPLE", ["**/.env.example"], HOME)
    assert paths.inside_folded("/home/agent/.SSH/*", ["~/.ssh/**"], HOME)
    assert not paths.inside_folded("/home/agent/*", ["~/.ssh/**"], HOME)


def test_names_spelled_in_another_case_are_names() -> None:
    assert paths.names("/w/.ENV", ["**/.env"], HOME)
    assert paths.names("/w/ID_RSA*", ["**/id_rsa"], HOME)
    assert not paths.names("/w/*.PY", ["**/sitecustomize.py"], HOME)


# ------------------------------------- many roots at once (the protected paths)

_ROOTS = (
    "/srv/app/rules",
    "/Users/dev/Project/.claude",
    "~/.config/hookpolicy",
    "/srv/app/\u017fettings.yaml",  # a long s: NTFS folds it to S
    "relative/dir",
    "",
    "/",
    "/srv/app/data.",
)
_PATHS = (
    "/srv/app/rules/a.yaml",
    "/srv/app/RULES/a.yaml",
    "/srv/app/rules./x",
    "/users/dev/project/.CLAUDE/settings.json",
    "~/.config/hookpolicy/policy.yaml",
    "/srv/app/Settings.yaml",
    "/srv/app/data",
    "/srv/app/x/../rules/b",
    "relative/dir/file",
    "relative/../dir",
    "/srv",
    "/",
    "",
    "/srv/app/rules2",
    # what the shipped self-protection pack asks it of since it stopped asking root by
    # root: places a line leaves unknown, `~` alone, doubled and trailing slashes
    "?/unknown/rules",
    "?",
    "~",
    "//srv/app/rules",
    "/srv/app/rules/",
)


@pytest.mark.parametrize("path", _PATHS)
def test_within_any_folded_is_within_folded_of_some_root(path: str) -> None:
    # (the roots are prepared once per list; the answer must be the one-by-one answer)
    assert paths.within_any_folded(path, list(_ROOTS)) == any(
        paths.within_folded(path, root) for root in _ROOTS
    )


@pytest.mark.parametrize("path", _PATHS)
def test_holds_any_folded_is_some_root_within_folded_of_the_path(path: str) -> None:
    assert paths.holds_any_folded(path, list(_ROOTS)) == any(
        paths.within_folded(root, path) for root in _ROOTS
    )


# A pattern against every root in one call, as rules/self-protection.yaml asks it of each
# path a line writes or deletes: the same answer as root by root, whatever mix of
# literal and glob roots, folded spellings, hidden names and homes.
_PARTS = (
    "srv", "SRV", "app", "App", "rules", ".claude", ".c*", "*", "?", "**", "[a-z]*", ".*",
    "x.yaml", "a\u0130*", "[^a-z]pp", "\u00fcber",
)  # fmt: skip
_MANY_ROOTS = (
    "/srv/app/rules",
    "/SRV/app",
    "/srv/app/rules/",
    "/srv/.*",
    "/srv/[!.]*",
    "/srv/*/rules",
    "~/.claude",
    "~",
    "/",
    "relative/app",
    "/srv/app/\u017fettings",
    "/srv/{app,x}",
    "/srv/a?b",  # (red team: a root with glob syntax beside one folding apart, `über`)
    "/srv/\u00fcber",
)


def _generated(seed: int, count: int) -> list[tuple[str, list[str], str]]:
    chosen = random.Random(seed)
    cases = []
    for _ in range(count):
        depth = chosen.randint(1, 5)
        path = "/" + "/".join(chosen.choice(_PARTS) for _ in range(depth))
        if chosen.random() < 0.15:
            path = "~/" + path.lstrip("/")
        roots = chosen.sample(_MANY_ROOTS, chosen.randint(1, 5))
        home = chosen.choice(("/srv", "/home/a[b]", "/SRV/app"))
        cases.append((path, roots, home))
    return cases


@pytest.mark.parametrize("seed", range(4))
def test_inside_any_folded_is_inside_folded_below_some_root(seed: int) -> None:
    for path, roots, home in _generated(seed, 1500):
        one_by_one = any(paths.inside_folded(path, [root + "/**"], home) for root in roots)
        assert paths.inside_any_folded(path, roots, home) == one_by_one, (path, roots, home)


@pytest.mark.parametrize("seed", range(4))
def test_a_path_matches_a_list_of_roots_when_it_matches_one_of_them(seed: int) -> None:
    # (the pack asks `path.matches(p, protected)` where it asked root by root)
    for path, roots, home in _generated(seed, 1500):
        one_by_one = any(paths.matches(path, [root], home) for root in roots)
        assert paths.matches(path, roots, home) == one_by_one, (path, roots, home)


def _shipped_list(pack: str, name: str) -> tuple[str, ...]:
    import yaml

    text = yaml.safe_load((Path(__file__).parent.parent / "rules" / f"{pack}.yaml").read_text())
    return tuple(json.loads(text["variables"][name]))


def test_a_glob_list_searches_only_the_buckets_a_path_reaches() -> None:
    # A list's index is built whole at its first use; the search that rules a bucket's
    # globs out is compiled only when a path gets to that bucket: a one-event hook asks
    # one or two of a list's buckets.
    places = _shipped_list("credentials", "places")
    home = "/home/lazy-buckets"
    index = paths._compiled_globs(places, home, folded=True)
    buckets = [bucket for depth in index.by_start for bucket in depth.values()]
    searched = [bucket for bucket in buckets if bucket._texts]
    assert searched, "the shipped places no longer have a bucket with a search"
    assert all(bucket._inner is None for bucket in buckets)

    paths.matches(f"{home}/project/README.md", places, home)
    compiled = [bucket for bucket in buckets if bucket._inner is not None]
    assert len(compiled) < len(searched)


@pytest.mark.parametrize(("pack", "name"), [("credentials", "places"), ("persistence", "startup")])
def test_a_shipped_glob_list_matches_when_one_of_its_globs_does(pack: str, name: str) -> None:
    globs = _shipped_list(pack, name)
    home = "/home/dev"
    chosen = random.Random(f"{pack}.{name}")
    # paths spelt from the globs' own words, so that many reach a bucket and its search
    words = sorted({part for g in globs for part in g.replace("~", home).split("/") if part})
    tried = [g.replace("~", home).replace("*", "x").replace("?", "y") for g in globs]
    for _ in range(300):
        depth = chosen.randint(1, 6)
        tried.append("/" + "/".join(chosen.choice(words) for _ in range(depth)))
    tried += [home + "/" + p.lstrip("/") for p in tried[-100:]]
    for path in tried:
        one_by_one = any(paths.matches(path, [g], home) for g in globs)
        assert paths.matches(path, globs, home) == one_by_one, path


# A pattern the shell or a tool expands later (`DIR/**`, `src/*.py`, `~/.ss*/id_*`) is
# matched against a list's globs by `near` (the globs whose literal start agrees with
# the pattern's) and `_meets` (a pair ruled out at its first two names that differ,
# else worked out in full). Neither may lose a glob the pattern meets: the answer is
# the full comparison's against every glob of the list.
def _shipped_glob_lists() -> list[tuple[str, str]]:
    """(pack, variable) of every shipped variable that is a list of path globs."""
    import yaml

    found = []
    for pack in sorted((Path(__file__).parent.parent / "rules").glob("*.yaml")):
        for name, value in (yaml.safe_load(pack.read_text()).get("variables") or {}).items():
            try:
                listed = json.loads(value)
            except ValueError:
                continue
            if isinstance(listed, list) and any(
                isinstance(one, str) and one.startswith(("/", "~", "**")) for one in listed
            ):
                found.append((pack.stem, name))
    return found


_SHIPPED_LISTS = _shipped_glob_lists()
_WILD_PARTS = ("*", "?", "**", ".*", "[a-z]*", "x*", "*.py", ".ss*", "id_*", "*rc")


def _pattern_paths(globs: tuple[str, ...], home: str, seed: str, count: int) -> list[str]:
    chosen = random.Random(seed)
    words = sorted({part for g in globs for part in g.replace("~", home).split("/") if part})
    words += ["project", "src", "dev", "home", "etc"]
    tried = []
    for glob in globs[:60]:  # each glob's own start, then a wildcard where it goes on
        parts = glob.replace("~", home).split("/")
        cut = chosen.randint(1, max(1, len(parts) - 1))
        tried.append("/".join(parts[:cut]) + "/" + chosen.choice(_WILD_PARTS))
        tried.append("/".join(parts[:cut]) + chosen.choice(("*", "?", "**")))
    for glob in globs:  # its literal text, which may stop inside a name (`/root/.*`), run on
        start = re.split(r"[*?\[{(!@+]", glob.replace("~", home), maxsplit=1)[0]
        more = chosen.choice(("ssh", "x", "d", "conf.d", ""))
        tried.append(start + more + chosen.choice(("/*", "*", "/x*", "?/y")))
    for _ in range(count):
        depth = chosen.randint(1, 6)
        parts = [chosen.choice(words) for _ in range(depth)]
        for _ in range(chosen.randint(1, 2)):
            parts[chosen.randrange(depth)] = chosen.choice(_WILD_PARTS)
        if chosen.random() < 0.5:
            parts.append("**")
        tried.append("/" + "/".join(parts))
    return tried


@pytest.mark.parametrize(("pack", "name"), _SHIPPED_LISTS)
def test_a_pattern_meets_a_shipped_list_when_it_meets_one_of_its_globs(
    pack: str, name: str
) -> None:
    globs = _shipped_list(pack, name)
    home = "/home/dev"
    compiled = paths._globs_of(globs, home, folded=True)
    every = [paths._components(one) for one in compiled.expanded]
    met = 0
    for path in _pattern_paths(globs, home, f"{pack}.{name}", 150):
        folded = paths.fold(path)
        parts = paths._components(folded)
        expected = any(paths._meets_table(parts, one) for one in every)
        assert paths._matches(folded, compiled) == expected, path
        met += expected
    assert met >= 5  # (the generated patterns reach the globs, not only miss them)


@pytest.mark.parametrize("seed", range(3))
def test_a_pair_ruled_out_at_its_leading_names_is_one_that_does_not_meet(seed: int) -> None:
    chosen = random.Random(seed)
    parts = [*_PARTS, "home", "dev", ".ssh", "id_rsa", "src"]
    for _ in range(3000):
        a = tuple(chosen.choice(parts) for _ in range(chosen.randint(0, 6)))
        b = tuple(chosen.choice(parts) for _ in range(chosen.randint(0, 6)))
        assert paths._meets(a, b) == paths._meets_table(a, b), (a, b)


@pytest.mark.parametrize("seed", range(3))
def test_a_set_of_roots_answers_as_each_root_would(seed: int) -> None:
    # `within_any_folded` and `holds_any_folded` find a path's roots by its components
    # (`_Roots`), not root by root: the same answers as `_inside` of each pair, with
    # `..` anywhere, relative and absolute spellings, the root itself and `/`.
    chosen = random.Random(seed)
    names = ("srv", "app", "rules", "..", ".", "x", "")

    def spelt() -> str:
        lead = chosen.choice(("/", "", "/", "../"))
        return lead + "/".join(chosen.choice(names) for _ in range(chosen.randint(0, 4)))

    for _ in range(400):
        roots = [spelt() for _ in range(chosen.randint(1, 6))]
        found = paths._Roots(paths._split_path(root) for root in roots)
        for _ in range(10):
            path = spelt()
            split = paths._split_path(path)
            assert found.hold(split) == any(paths._inside(path, r) for r in roots), (path, roots)
            assert found.held_by(split) == any(paths._inside(r, path) for r in roots), (
                path,
                roots,
            )


def _inside_by_components(path: str, root: str) -> bool:
    if not path or not root or path.startswith("/") != root.startswith("/"):
        return False
    p = [name for name in path.split("/") if name not in ("", ".")]
    r = [name for name in root.split("/") if name not in ("", ".")]
    return p[: len(r)] == r and ".." not in p[len(r) :]


@pytest.mark.parametrize("seed", range(3))
def test_a_spelling_taken_as_it_is_is_the_one_the_full_collapse_gives(seed: int) -> None:
    # `normalize` and `_inside` take a path with hidden names (`/.ssh`, `..x`, `...`)
    # as it is spelt; with an empty, `.` or `..` component, or a trailing slash, they
    # work it out in full. Either way, the answer of the full work.
    chosen = random.Random(seed)
    names = ("a", "ab", ".ssh", ".sshx", "..x", "...", "x.", ".", "..", "", "\u00e9", "\u200d")

    def spelt() -> str:
        return "/" + "/".join(chosen.choice(names) for _ in range(chosen.randint(0, 5)))

    for _ in range(3000):
        path, root = spelt(), spelt()
        assert paths.normalize(path) == paths._collapse(paths._expand(path, "", None)), path
        assert paths._inside(path, root) == _inside_by_components(path, root), (path, root)
        assert paths._inside(root, root) == _inside_by_components(root, root), root


def test_an_answer_kept_for_a_list_is_that_lists_and_homes_own() -> None:
    # `matches` keeps its answers by the list's index, which stands for the list and
    # the home: the same path asked of another list, or of the same list for another
    # home, is worked out for that one; a list that is not a tuple is never kept.
    secrets = ("~/.ssh/**",)
    other = ("~/.aws/**",)
    path = "/home/kept/.ssh/id_rsa"
    assert paths.matches(path, secrets, "/home/kept")
    assert not paths.matches(path, other, "/home/kept")
    assert not paths.matches(path, secrets, "/home/elsewhere")
    assert paths.matches(path, secrets, "/home/kept")  # (the kept answer, unchanged)
    before = len(paths._MATCHED)
    assert paths.matches(path, list(secrets), "/home/kept")
    assert len(paths._MATCHED) == before
