"""A one-event hook keeps the indexes of the packs' long glob lists for the next process
(policy.analysis.paths `keep_indexes_in`, policy.packs.glob_store): an index read back
matches every path as the index built from the globs does, and an entry that is not
exactly what was kept, for this list, this home and this code, is a miss."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import orjson
import pytest
import yaml

from policy.analysis import paths
from policy.packs.glob_store import KeptGlobIndexes
from tests.test_hook_cold_start import _hook as hook_process
from tests.test_kept_lines import (
    _rewrite,  # (an entry's body changed, its checksum good)
    pack_sets,
)

ROOT = Path(__file__).resolve().parent.parent
HOME = "/home/dev"
PACKS = ("credentials", "self-protection", "persistence", "destruction", "exfiltration")


def _shipped_lists() -> list[tuple[str, tuple[str, ...]]]:
    """Every glob list of the shipped packs, by pack and variable."""
    found = []
    for pack in sorted(p.stem for p in (ROOT / "rules").glob("*.yaml")):
        variables = yaml.safe_load((ROOT / "rules" / f"{pack}.yaml").read_text()).get("variables")
        for name, source in (variables or {}).items():
            text = source.strip()
            if not text.startswith("[") or "/" not in text:
                continue
            try:
                value = json.loads(text)
            except ValueError:
                continue  # (a CEL list, not a JSON one)
            if all(type(item) is str for item in value):
                found.append((f"{pack}.{name}", tuple(value)))
    return found


LISTS = _shipped_lists()
KEPT = [(name, globs) for name, globs in LISTS if paths._worth_keeping(globs)]


def _paths_for(globs: tuple[str, ...], seed: str) -> list[str]:
    """Paths spelt from the globs' own words (so that many reach a bucket), the globs
    themselves with their wildcards filled in, and patterns a line may hold."""
    chosen = random.Random(seed)
    words = sorted({part for g in globs for part in g.replace("~", HOME).split("/") if part})
    tried = [g.replace("~", HOME).replace("*", "x").replace("?", "y") for g in globs]
    tried += [g.replace("~", HOME) for g in globs[:20]]  # (a pattern meets a pattern)
    for _ in range(150):
        tried.append("/" + "/".join(chosen.choice(words) for _ in range(chosen.randint(1, 6))))
    tried += [HOME + "/" + p.lstrip("/").upper() for p in tried[-40:]]
    return tried


@pytest.fixture
def store(tmp_path: Path) -> KeptGlobIndexes:
    return KeptGlobIndexes(tmp_path / "globs")


def _built(globs: tuple[str, ...], folded: bool) -> paths._Globs:
    expanded, exact_too = paths._expanded(globs, HOME, folded=folded)
    return paths._Globs(expanded, exact_too=exact_too)


def _read_back(store: KeptGlobIndexes, globs: tuple[str, ...], folded: bool) -> paths._Globs:
    store.keep(globs, HOME, folded, _built(globs, folded).parts())
    found = paths._Globs.from_parts(store.get(globs, HOME, folded))
    assert found is not None
    return found


# ------------------------------------------------------------------ what is kept


def test_the_shipped_packs_have_long_lists_worth_keeping() -> None:
    assert len(KEPT) >= 6, [name for name, _ in KEPT]
    assert sum(len(globs) for _, globs in KEPT) > 500


@pytest.mark.parametrize(("name", "globs"), KEPT, ids=[name for name, _ in KEPT])
def test_an_index_read_back_matches_as_the_index_built_from_its_globs(
    store: KeptGlobIndexes, name: str, globs: tuple[str, ...]
) -> None:
    for folded in (True, False):
        made = _built(globs, folded)
        read = _read_back(store, globs, folded)
        assert read.parts() == made.parts()
        for path in _paths_for(globs, name):
            probe = paths.fold(path) if folded else path
            assert read.match(probe) == made.match(probe), (name, path)
            if paths._WILD.search(probe):
                assert sorted(read.near(probe)) == sorted(made.near(probe)), (name, path)


def test_another_list_home_or_folding_is_another_entry(store: KeptGlobIndexes) -> None:
    globs = KEPT[0][1]
    store.keep(globs, HOME, True, {"kept": 1})
    assert store.get(globs, HOME, True) == {"kept": 1}
    assert store.get(globs, "/home/other", True) is None
    assert store.get(globs, HOME, False) is None
    assert store.get(globs[:-1], HOME, True) is None
    assert store.get((*globs[1:], globs[0]), HOME, True) is None  # (order is the list's)


# ------------------------------------------------------------------ what is not


def _entry(store: KeptGlobIndexes, globs: tuple[str, ...]) -> Path:
    return Path(store._directory) / f"globs-{store._key(globs, HOME, True).hex()}.entry"


def _first_need(data: dict[str, Any]) -> list[Any]:
    return next(needs for depth in data["by_start"] for needs in depth.values())[0]


@pytest.mark.parametrize(
    "change",
    [
        lambda data: data.pop("literals"),  # a field too few
        lambda data: data.__setitem__("extra", []),  # a field too many
        lambda data: data.__setitem__("expanded", "/etc/*"),  # a string, not a list
        lambda data: data["expanded"].append(7),  # a glob that is no string
        lambda data: data.__setitem__("by_start", data["by_start"][:-1]),  # a depth short
        lambda data: data["by_start"].__setitem__(0, []),  # a depth that is no map
        lambda data: _first_need(data).pop(),  # a need too short
        lambda data: _first_need(data).__setitem__(2, "runs"),  # runs not a list
        lambda data: _first_need(data).__setitem__(3, None),  # a glob that is no string
        lambda data: data.__setitem__("tails", [["id_rsa", ["x"]]]),  # tails not a map
        lambda data: data["tails"].__setitem__("id_rsa", "**/id_rsa"),  # not a list
    ],
)
def test_an_entry_that_is_not_an_index_is_a_miss(store: KeptGlobIndexes, change: Any) -> None:
    globs = dict(KEPT)["credentials.files"]
    _read_back(store, globs, True)
    _rewrite(_entry(store, globs), change)
    assert paths._Globs.from_parts(store.get(globs, HOME, True)) is None


def test_a_damaged_renamed_or_foreign_entry_is_a_miss(
    store: KeptGlobIndexes, tmp_path: Path
) -> None:
    places, files = dict(KEPT)["credentials.places"], dict(KEPT)["credentials.files"]
    _read_back(store, places, True)
    path = _entry(store, places)
    path.write_bytes(path.read_bytes().replace(b".ssh", b".ssx"))  # (checksum now wrong)
    assert store.get(places, HOME, True) is None
    _read_back(store, places, True)
    _read_back(store, files, True)
    os.replace(_entry(store, places), _entry(store, files))  # (another list's name)
    assert store.get(files, HOME, True) is None
    _read_back(store, places, True)
    other = KeptGlobIndexes(tmp_path / "globs")
    other._salt = b"other code"  # (an entry written by other code is never found)
    assert other.get(places, HOME, True) is None
    os.unlink(_entry(store, places))
    os.mkfifo(_entry(store, places))  # (refused by its type, never waited on)
    assert store.get(places, HOME, True) is None


# ------------------------------------------------------------------ in the matching


def test_a_list_is_indexed_once_and_read_back_by_the_next_process(
    store: KeptGlobIndexes, monkeypatch: pytest.MonkeyPatch
) -> None:
    places = dict(KEPT)["credentials.places"]
    secret = f"{HOME}/.ssh/id_rsa"
    monkeypatch.setattr(paths, "kept_indexes", store)
    paths._compiled_globs.cache_clear()
    assert paths.matches(secret, places, HOME)
    assert len(list(Path(store._directory).glob("globs-*.entry"))) == 1

    def not_again(*_: Any, **__: Any) -> Any:
        raise AssertionError("the index was built again")

    paths._compiled_globs.cache_clear()  # (as the next process: nothing in memory)
    paths._BY_LIST.clear()
    monkeypatch.setattr(paths, "_expanded", not_again)
    assert paths.matches(secret, places, HOME)
    assert not paths.matches(f"{HOME}/project/README.md", places, HOME)
    paths._compiled_globs.cache_clear()
    paths._BY_LIST.clear()


def test_a_short_list_without_braces_is_not_kept(
    store: KeptGlobIndexes, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(paths, "kept_indexes", store)
    paths._compiled_globs.cache_clear()
    assert paths.matches("/etc/shadow", ("/etc/shadow", "/etc/gshadow"), HOME)
    assert not list(Path(store._directory).glob("globs-*.entry"))
    assert paths.matches("/x/id_rsa.bak", ("**/id_rsa.{bak,old}",), HOME)  # (bracex's)
    assert len(list(Path(store._directory).glob("globs-*.entry"))) == 1
    paths._compiled_globs.cache_clear()


def test_a_store_that_fails_is_a_miss_never_a_refusal(
    store: KeptGlobIndexes, monkeypatch: pytest.MonkeyPatch
) -> None:
    places = dict(KEPT)["credentials.places"]
    monkeypatch.setattr(paths, "kept_indexes", store)
    monkeypatch.setattr(store, "_salt", None)
    monkeypatch.setattr("policy.packs.glob_store.analysis_salt", _raises)
    paths._compiled_globs.cache_clear()
    assert paths.matches(f"{HOME}/.ssh/id_rsa", places, HOME)  # (built: kept nowhere)
    assert not list(Path(store._directory).glob("globs-*.entry"))
    paths._compiled_globs.cache_clear()


def _raises(*_: Any) -> Any:
    raise OSError("no stamps")


def test_indexes_are_kept_only_where_every_pack_is_kept(tmp_path: Path) -> None:
    """The store is the packs' cache's, for packs the user controls, on the terms of
    the lines' facts (test_kept_lines): a set with a pack that has no program store
    keeps and reads no index, whatever an engine before it in the process set."""
    from policy.packs import answer_across_processes

    kept, unkept = pack_sets(tmp_path)
    answer_across_processes(kept)
    assert isinstance(paths.kept_indexes, KeptGlobIndexes)
    answer_across_processes(unkept)
    assert paths.kept_indexes is None


def test_the_hook_reads_back_the_indexes_another_start_built(tmp_path: Path) -> None:
    """Two starts of the real hook, as Claude Code runs it, each on a call not seen
    before: the second builds no index the first kept, and both decide as they must."""
    project = tmp_path / "project"
    project.mkdir()
    env = {"XDG_DATA_HOME": str(tmp_path / "xdg")}

    def decide(command: str) -> str:
        payload = {
            "session_id": "s1",
            "transcript_path": "/tmp/t.jsonl",
            "cwd": str(project),
            "permission_mode": "default",
            "hook_event_name": "PreToolUse",
            "tool_name": "Bash",
            "tool_input": {"command": command},
            "tool_use_id": "t1",
        }
        out, _, _ = hook_process(payload, "--packs", str(ROOT / "rules"), env=env)
        return str(orjson.loads(out)["hookSpecificOutput"]["permissionDecision"])

    def kept() -> dict[str, int]:
        return {p.name: p.stat().st_mtime_ns for p in (tmp_path / "xdg").rglob("globs-*.entry")}

    assert decide("cat ~/.ssh/id_rsa") == "deny"
    first = kept()
    assert first
    assert decide("cat ~/.ssh/id_ed25519") == "deny"
    assert decide("ls -la notes") == "allow"
    # (each index the first start kept was read back, not built and kept again)
    assert {name: kept()[name] for name in first} == first
    for entry in (tmp_path / "xdg").rglob("globs-*.entry"):
        assert entry.stat().st_mode & 0o077 == 0  # (private to the user)
