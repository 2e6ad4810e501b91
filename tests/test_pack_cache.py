"""The compiled-pack cache: a hit decides as a fresh compile does, and a cache that is
missing, damaged, foreign or unwritable changes nothing but the time it takes."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Engine, LLMRequest, Prompt, ToolCall, ToolResult
from policy import _trusted_store as trusted_store
from policy import packs as packs_module
from policy.aliases import DEFAULT_ALIASES
from policy.packs import PackError, apart, last_good, load_packs
from policy.packs import cache as pack_cache
from policy.settings import Settings

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: guard
revision: "2026-11-30"
priority: 20
on_error: skip
variables:
  cmd: 'has(args.command) ? string(args.command) : ""'
  first: 'vars.cmd.split(" ")[0]'
aliases: {run_in_terminal: bash, deploy_tool: deploy}
builtins:
  autonomy: {mode: supervised, workspace: /srv/work, mutating_tools: [deploy]}
  contract_scope:
    contracts:
      - {id: c, sessions: ["ci-*"], tools: [bash, read_file], expires_at: 2099-01-01T00:00:00Z}
rules:
  - id: deny-rm-root
    tools: [bash]
    when: vars.first == "rm" && vars.cmd.contains(" /")
    action: deny
    message_expr: '"blocked: " + vars.cmd'
  - id: ask-push
    tools: [bash]
    senders: ["!root-*"]
    when: vars.cmd.startsWith("git push")
    action: ask
    message: pushing needs a person
  - id: allow-ls
    tools: ["ba*"]
    when: vars.first in ["ls", "pwd"]
    action: allow
  - id: audit-curl
    tools: [bash]
    enforcement: audit
    when: vars.cmd.contains("curl")
    action: deny
  - id: fails
    tools: [bash]
    when: int(vars.cmd) > 3
    action: deny
  - id: rewrite-deploy
    tools: [deploy]
    sessions: ["prod-*"]
    when: has(args.env)
    action: modify
    set: {args.env: '"staging"'}
  - id: answer-weather
    tools: [get_weather]
    action: respond
    respond: {for_llm: '"sunny in " + string(args.city)'}
  - id: redact
    on: after_tool
    when: result.for_llm.contains("AKIA")
    action: modify
    set: {result.for_llm: 'regex.replace(result.for_llm, "AKIA[0-9A-Z]{16}", "AKIA<redacted>")'}
  - id: model-pin
    on: before_llm
    when: request.model != "small"
    action: modify
    set: {request.model: '"small"'}
  - id: no-secrets-prompt
    on: user_prompt
    channels: [cli]
    when: prompt.contains("password")
    action: abort_turn
    message: no passwords in prompts
  - id: log-everything
    action: log
"""

CALLS = [
    ToolCall(tool="Bash", args={"command": "rm -rf /"}, sender="alice"),
    ToolCall(tool="exec", args={"command": "git push origin main"}, sender="alice"),
    ToolCall(tool="run_in_terminal", args={"command": "git push"}, sender="root-ci"),
    ToolCall(tool="Bash", args={"command": "ls -la"}, sender="bob"),
    ToolCall(tool="Bash", args={"command": "curl https://example.com"}),
    ToolCall(tool="Bash", args={"command": "7"}),
    ToolCall(tool="deploy_tool", args={"env": "prod"}, session="prod-1"),
    ToolCall(tool="deploy", args={"env": "prod"}, session="dev-1"),
    ToolCall(tool="get_weather", args={"city": "Oslo"}),
    ToolCall(tool="read_file", args={"file_path": "/srv/work/a.py"}, session="ci-7"),
    ToolCall(tool="write_file", args={"file_path": "/srv/work/a.py"}, session="ci-7"),
]


def _decisions(engine: Engine) -> list[Any]:
    out: list[Any] = []
    for call in CALLS:
        out.append(engine.before_tool(call)._replace(decision_id=""))
    after = engine.after_tool(
        ToolCall(tool="Bash", args={"command": "env"}), ToolResult(for_llm="AKIAABCDEFGHIJKLMNOP")
    )
    out.append(after._replace(decision_id=""))
    out.append(engine.before_llm(LLMRequest(model="big"))._replace(decision_id=""))
    out.append(
        engine.user_prompt(Prompt(text="my password is x", channel="cli"))._replace(decision_id="")
    )
    out.append(engine.chain_order("before_tool"))
    out.append(engine.aliases.canonical("run_in_terminal"))
    return out


def _pack_rules(engine: Engine) -> list[Any]:
    """The compiled rules of the engine's packs (their `model` is None when cached)."""
    return [
        rule
        for registration in engine._chain.snapshot.ordered
        for rule in getattr(registration.hook, "rules", ())
    ]


def _from_cache(engine: Engine) -> bool:
    rules = _pack_rules(engine)
    assert rules
    return all(rule.model is None for rule in rules)


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    path = tmp_path / "guard.yaml"
    path.write_text(PACK)
    return path


@pytest.fixture
def engines(tmp_path: Path) -> Iterator[Any]:
    made: list[Engine] = []

    def build(packs: list[Path], **values: Any) -> Engine:
        values.setdefault("audit_path", tmp_path / f"decisions{len(made)}.log")
        engine = Engine(Settings(packs=packs, **values))
        made.append(engine)
        return engine

    yield build
    for engine in made:
        engine.close()


def _cache_dir(tmp_path: Path) -> Path:
    return tmp_path / "xdg" / "hookpolicy" / "cache" / "packs"


def _entries(tmp_path: Path) -> list[Path]:
    return sorted(_cache_dir(tmp_path).glob("*.entry"))


@pytest.mark.parametrize("cel_engine", ["cel-expr-python", "cel-python"])
def test_a_hit_decides_exactly_as_a_fresh_compile(
    pack: Path, engines: Any, tmp_path: Path, cel_engine: str
) -> None:
    uncached = engines([pack], pack_cache=False, cel_engine=cel_engine)
    assert not _entries(tmp_path)
    first = engines([pack], cel_engine=cel_engine)  # compiles, and writes the entry
    assert not _from_cache(first)
    assert len(_entries(tmp_path)) == 1
    second = engines([pack], cel_engine=cel_engine)
    assert _from_cache(second)
    expected = _decisions(uncached)
    assert _decisions(first) == expected
    assert _decisions(second) == expected
    assert second._packs == uncached._packs  # the revision@digest labels of the log
    assert second.aliases == uncached.aliases
    assert second.aliases.canonical("deploy_tool") == "deploy"


def test_the_default_alias_table_comes_back_as_itself(tmp_path: Path) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules: [{id: r, action: log}]\n"
    )
    cache_dir = tmp_path / "c"
    load_packs([path], cache_dir=cache_dir)
    hit = load_packs([path], cache_dir=cache_dir)
    assert all(rule.model is None for hook in hit.hooks for rule in hook.rules)  # type: ignore[attr-defined]
    assert hit.aliases is DEFAULT_ALIASES


def test_builtins_read_back_as_validation_left_them(pack: Path, tmp_path: Path) -> None:
    # kept as validated, read back without pydantic (policy.builtins.kept_config)
    cache_dir = tmp_path / "c"
    fresh = load_packs([pack], cache_dir=cache_dir)
    hit = load_packs([pack], cache_dir=cache_dir)
    assert [(s.pack, s.name) for s in hit.builtins] == [(s.pack, s.name) for s in fresh.builtins]
    for kept, validated in zip(hit.builtins, fresh.builtins, strict=True):
        assert _fields(kept.config) == _fields(validated.config)
    contract = hit.builtins[1].config.contracts[0]
    assert contract.expires_at.year == 2099 and contract.expires_at.tzinfo is not None


def _fields(config: Any) -> Any:
    """A configuration's fields, deeply, read as the builtins read them: attributes."""
    from pydantic import BaseModel

    if isinstance(config, BaseModel):
        names = list(type(config).model_fields)
    elif hasattr(config, "_fields"):
        names = list(config._fields)
    elif isinstance(config, list):
        return [_fields(v) for v in config]
    elif isinstance(config, dict):
        return {k: _fields(v) for k, v in config.items()}
    else:
        return config
    return {name: _fields(getattr(config, name)) for name in names}


def test_editing_a_pack_misses_the_old_entry(pack: Path, engines: Any, tmp_path: Path) -> None:
    call = ToolCall(tool="Bash", args={"command": "rm -rf /"})
    assert engines([pack]).before_tool(call).reason == "blocked: rm -rf /"
    pack.write_text(PACK.replace('"blocked: " + vars.cmd', '"refused: " + vars.cmd'))
    edited = engines([pack])
    assert not _from_cache(edited)
    assert edited.before_tool(call).reason == "refused: rm -rf /"
    assert len(_entries(tmp_path)) == 2
    assert _from_cache(engines([pack]))


def test_a_new_file_in_a_pack_directory_misses(tmp_path: Path, engines: Any) -> None:
    directory = tmp_path / "packs"
    directory.mkdir()
    (directory / "a.yaml").write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: a\nrules: [{id: r, action: log}]\n"
    )
    engines([directory])
    assert _from_cache(engines([directory]))
    (directory / "b.yaml").write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: b\n"
        "rules: [{id: d, tools: [bash], action: deny}]\n"
    )
    both = engines([directory])
    assert not _from_cache(both)
    assert both.before_tool(ToolCall(tool="Bash", args={})).rule_ids == ("a/r", "b/d")


def test_other_settings_aliases_are_another_entry(pack: Path, engines: Any, tmp_path: Path) -> None:
    engines([pack])
    other = engines([pack], aliases={"sh": "bash"})
    assert not _from_cache(other)
    assert other.aliases.canonical("sh") == "bash"
    assert len(_entries(tmp_path)) == 2


def _damage_cases() -> dict[str, Any]:
    def truncate(path: Path) -> None:
        path.write_bytes(path.read_bytes()[:-40])

    def flip(path: Path) -> None:
        data = bytearray(path.read_bytes())
        data[-10] ^= 0x01
        path.write_bytes(bytes(data))

    def reseal(path: Path, body: bytes) -> None:
        import hashlib

        path.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)

    def foreign_key(path: Path) -> None:
        body = path.read_bytes().partition(b"\n")[2]
        entry = orjson.loads(body)
        entry["key"] = "0" * 64
        reseal(path, orjson.dumps(entry))

    def old_format(path: Path) -> None:
        entry = orjson.loads(path.read_bytes().partition(b"\n")[2])
        entry["format"] = pack_cache.FORMAT + 1
        reseal(path, orjson.dumps(entry))

    def wrong_shape(path: Path) -> None:
        entry = orjson.loads(path.read_bytes().partition(b"\n")[2])
        entry["packs"][0]["rules"][0]["action"] = "obliterate"
        reseal(path, orjson.dumps(entry))

    def not_json(path: Path) -> None:
        reseal(path, b"{not json")

    def empty(path: Path) -> None:
        path.write_bytes(b"")

    def writable_by_others(path: Path) -> None:
        path.chmod(0o666)

    def symlink(path: Path) -> None:
        real = path.with_name("elsewhere")
        os.replace(path, real)
        path.symlink_to(real)

    def directory(path: Path) -> None:
        path.unlink()
        path.mkdir()

    return {
        "truncated": truncate,
        "bit flipped": flip,
        "another key": foreign_key,
        "another format": old_format,
        "unknown action": wrong_shape,
        "not json": not_json,
        "empty": empty,
        "writable by others": writable_by_others,
        "a symlink": symlink,
        "a directory": directory,
    }


@pytest.mark.parametrize("damage", list(_damage_cases()))
def test_a_damaged_or_foreign_entry_is_a_miss(
    damage: str, pack: Path, engines: Any, tmp_path: Path
) -> None:
    expected = _decisions(engines([pack], pack_cache=False))
    engines([pack])
    (entry,) = _entries(tmp_path) or [_cache_dir(tmp_path) / "missing"]
    _damage_cases()[damage](entry)
    engine = engines([pack])
    assert not _from_cache(engine)
    assert _decisions(engine) == expected


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file to another user")
def test_an_entry_owned_by_another_user_is_a_miss(pack: Path, engines: Any, tmp_path: Path) -> None:
    engines([pack])
    (entry,) = _entries(tmp_path)
    os.chown(entry, 65534, 65534)
    assert not _from_cache(engines([pack]))


def test_an_unwritable_cache_directory_still_decides(
    pack: Path, engines: Any, tmp_path: Path
) -> None:
    expected = _decisions(engines([pack], pack_cache=False))
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the data directory should be")
    for _ in range(2):
        # Counters in memory: this test is about the pack cache, not the state store.
        engine = engines([pack], data_dir=blocker, limits_storage_uri="memory://")
        assert not _from_cache(engine)
        assert _decisions(engine) == expected
    assert blocker.read_text() == "a file where the data directory should be"


def test_pack_cache_false_writes_nothing(pack: Path, engines: Any, tmp_path: Path) -> None:
    engines([pack], pack_cache=False)
    assert not _cache_dir(tmp_path).exists()


def test_a_failing_pack_reports_the_same_errors_and_is_never_cached(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        textwrap.dedent(
            """\
            apiVersion: hookpolicy/v1
            kind: RulePack
            name: bad
            rules:
              - id: r
                when: args.x ==
                action: deny
              - {id: r, action: lol}
            """
        )
    )
    cache_dir = tmp_path / "c"
    with pytest.raises(PackError) as uncached:
        load_packs([bad])
    for _ in range(2):
        with pytest.raises(PackError) as cached:
            load_packs([bad], cache_dir=cache_dir)
        assert str(cached.value) == str(uncached.value)
        assert cached.value.diagnostics == uncached.value.diagnostics
    assert f"{bad}:8:21:" in str(uncached.value)
    assert not list(cache_dir.glob("*.entry"))


def test_a_cached_pack_that_breaks_fails_as_broken(pack: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "c"
    load_packs([pack], cache_dir=cache_dir)
    pack.write_text(PACK.replace("action: allow", "action: allowed"))
    with pytest.raises(PackError, match=r"guard\.yaml:\d+:\d+: error: rules\.2\.action"):
        load_packs([pack], cache_dir=cache_dir)


def test_a_missing_pack_is_the_same_error(tmp_path: Path) -> None:
    missing = tmp_path / "nope.yaml"
    with pytest.raises(PackError) as uncached:
        load_packs([missing])
    with pytest.raises(PackError) as cached:
        load_packs([missing], cache_dir=tmp_path / "c")
    assert str(cached.value) == str(uncached.value)


def test_old_entries_are_pruned(tmp_path: Path) -> None:
    cache_dir = tmp_path / "c"
    path = tmp_path / "p.yaml"
    for index in range(trusted_store.KEEP + 5):
        path.write_text(
            f"apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrevision: '{index}'\n"
            "rules: [{id: r, action: log}]\n"
        )
        load_packs([path], cache_dir=cache_dir)
    assert len(list(cache_dir.glob("*.entry"))) == trusted_store.KEEP
    assert not list(cache_dir.glob("*.tmp"))


def test_entries_are_private_files(pack: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "c"
    load_packs([pack], cache_dir=cache_dir)
    (entry,) = cache_dir.glob("*.entry")
    assert entry.stat().st_mode & 0o077 == 0
    assert cache_dir.stat().st_mode & 0o077 == 0
    checksum, _, body = entry.read_bytes().partition(b"\n")
    document = orjson.loads(body)
    assert document["format"] == pack_cache.FORMAT
    assert document["key"] == entry.stem
    assert len(checksum) == 64


@pytest.mark.parametrize("library", ["pydantic", "pydantic_core", "yaml"])
def test_the_key_changes_with_the_parsing_libraries(
    library: str, pack: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pydantic, pydantic-core and PyYAML decide what a pack parses and validates to:
    another install of any of them is another entry."""
    before = pack_cache.environment("cel-expr-python")
    assert before is not None
    files = pack_cache.read_files([pack])
    key = pack_cache.cache_key(files, before, DEFAULT_ALIASES)
    real = pack_cache.package_stamps
    asked: list[str] = []

    def reinstalled(name: str) -> list[Any]:
        asked.append(name)
        stamps = real(name)
        return [*stamps, ["upgraded"]] if name == library else stamps

    monkeypatch.setattr(pack_cache, "package_stamps", reinstalled)
    after = pack_cache.environment("cel-expr-python")
    assert library in asked
    assert after is not None and after != before
    assert pack_cache.cache_key(files, after, DEFAULT_ALIASES) != key


def test_a_process_reads_a_packages_stamps_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The settings cache and the pack cache both key on pydantic's and PyYAML's files:
    a process lists and stats them once, and keys its entries on the code it found."""
    from policy import _trusted_store

    monkeypatch.setattr(_trusted_store, "_PACKAGE_STAMPS", {})
    listed: list[str] = []
    listdir = os.listdir
    monkeypatch.setattr(os, "listdir", lambda path: listed.append(path) or listdir(path))
    first = _trusted_store.package_stamps("yaml")
    assert first[0] == "yaml" and any(entry[0] == "__init__.py" for entry in first[1:])
    assert len(listed) == 1
    assert _trusted_store.package_stamps("yaml") == first
    assert len(listed) == 1


# ------------------------------------------------------------------ whose packs may be cached


class _Files(trusted_store.FileAccess):
    """A made-up file system seen by a user other than root (CI may run the tests as
    root, to whom `os.access` says yes to everything): `writable` are the paths the
    user may write, `owners` who owns what (which, alone, grants nothing)."""

    def __init__(
        self,
        *writable: str,
        owners: dict[str, int] | None = None,
        euid: int = 1000,
    ) -> None:
        self.writable = {Path(p) for p in writable}
        self.owners = {Path(p): uid for p, uid in (owners or {}).items()}
        self.user = euid

    def euid(self) -> int:
        return self.user

    def may(self, path: Path, mode: int) -> bool:
        return not mode & os.W_OK or Path(path) in self.writable


@pytest.mark.parametrize(
    ("files", "controlled"),
    [
        (_Files(), False),  # a root-owned pack in a root-owned directory
        (_Files(euid=0), True),  # root could edit it anyway
        (_Files("/etc/policy/p.yaml"), True),  # the user may write the file
        # A directory the user may write is not enough: the file may be a read-only
        # bind mount there, which cannot be unlinked or renamed (strict).
        (_Files("/etc/policy"), False),
        (_Files("/etc"), False),
        (_Files(owners={"/etc/policy/p.yaml": 1000}), False),  # the user's, made read-only
    ],
)
def test_who_controls_a_pack_file(files: _Files, controlled: bool) -> None:
    assert trusted_store.user_controls(Path("/etc/policy/p.yaml"), files) is controlled


def test_who_controls_a_pack_directory() -> None:
    top, sub = Path("/srv/rules"), Path("/srv/rules/team")
    found = [top / "a.yaml", sub / "b.yaml"]
    everything = ("/srv/rules", "/srv/rules/team", *map(str, found))
    assert pack_cache.user_controls_packs([top], found, _Files(*everything))
    # Every file the user may write, but not the directory that says which files
    # there are (an entry could leave one out).
    assert not pack_cache.user_controls_packs([top], found, _Files(*map(str, found)))
    # The top directory is the user's (through /srv), a directory on the way is not
    # (strict: only a path's own directory counts, not its parent's parent) ...
    assert not pack_cache.user_controls_packs([top], found, _Files("/srv", *map(str, found)))
    # ... nor does a subdirectory count for being in a directory the user may write.
    assert not pack_cache.user_controls_packs([top], found, _Files("/srv/rules", *map(str, found)))
    # One file the user cannot change (nor replace in its directory) is enough to
    # bypass the cache.
    assert not pack_cache.user_controls_packs([top], found, _Files("/srv/rules", str(found[0])))
    # A pack file named by itself needs only itself.
    assert pack_cache.user_controls_packs([found[1]], [found[1]], _Files(str(found[1])))
    assert pack_cache.user_controls_packs([top], found, _Files(euid=0))


def _forge_empty(entry: Path) -> None:
    """What the governed agent's bash can do to its own user's cache: drop every rule
    and builtin from an entry and seal it again (reviewer's /tmp/rv/forge.py)."""
    import hashlib

    document = orjson.loads(entry.read_bytes().partition(b"\n")[2])
    for hook in document["packs"]:
        hook["rules"] = []
    document["builtins"] = []
    body = orjson.dumps(document)
    entry.write_bytes(hashlib.sha256(body).hexdigest().encode() + b"\n" + body)


class _Posing(trusted_store.FileAccess):
    """A user other than root, on the real files, who may write only `writable`."""

    def __init__(self, *writable: Path) -> None:
        self.writable = set(writable)

    def euid(self) -> int:
        return 1000

    def may(self, path: Path, mode: int) -> bool:
        return not mode & os.W_OK or Path(path) in self.writable


def _rules(loaded: Any) -> list[Any]:
    return [rule for hook in loaded.hooks for rule in hook.rules]


def test_a_forged_entry_is_never_served_for_packs_the_user_cannot_write(
    pack: Path, tmp_path: Path
) -> None:
    cache_dir = tmp_path / "c"
    owner = _Posing(pack)  # while the pack is the user's, its entry is the user's to write
    load_packs([pack], cache_dir=cache_dir, access=owner)
    (entry,) = cache_dir.glob("*.entry")
    _forge_empty(entry)
    assert _rules(load_packs([pack], cache_dir=cache_dir, access=owner)) == []
    forged = entry.read_bytes()
    # The same pack once neither it nor its directory is the user's: compiled from the
    # file, every rule there, and the cache neither read nor written.
    for given in ([pack], [tmp_path]):
        loaded = load_packs(given, cache_dir=cache_dir, access=_Posing())
        rules = _rules(loaded)
        assert len(rules) == 11 and all(rule.model is not None for rule in rules)
        assert list(cache_dir.glob("*.entry")) == [entry] and entry.read_bytes() == forged
    # A directory the user may write is not enough (the file may be a read-only mount):
    # compiled from the file again.
    assert len(_rules(load_packs([tmp_path], cache_dir=cache_dir, access=_Posing(tmp_path)))) == 11


@pytest.mark.skipif(
    os.geteuid() == 0,
    reason="root may write every file whatever its mode, so chmod cannot take a pack from it; "
    "test_a_forged_entry_is_never_served_for_packs_the_user_cannot_write covers this for root",
)
def test_a_read_only_pack_is_compiled_even_with_a_forged_entry(pack: Path, tmp_path: Path) -> None:
    cache_dir = tmp_path / "c"
    load_packs([pack], cache_dir=cache_dir)
    (entry,) = cache_dir.glob("*.entry")
    _forge_empty(entry)
    assert _rules(load_packs([pack], cache_dir=cache_dir)) == []
    pack.chmod(0o444)
    pack.parent.chmod(0o555)
    try:
        rules = _rules(load_packs([pack], cache_dir=cache_dir))
    finally:
        pack.parent.chmod(0o755)
        pack.chmod(0o644)
    assert len(rules) == 11 and all(rule.model is not None for rule in rules)


# ------------------------------------------------------- large sets, read back


def test_a_large_compiled_set_is_the_set_its_entry_reads_back_to(
    pack: Path, engines: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (a large set is rebuilt from its own entry once compiled, so what the compile
    # left among its objects is freed; the threshold lowered so this pack is large)
    expected = _decisions(engines([pack], pack_cache=False))
    monkeypatch.setattr(packs_module, "COMPACT_FROM", 1)
    compacted = engines([pack], pack_cache=False)
    assert _from_cache(compacted) and compacted.loaded_packs.entry is not None
    assert _decisions(compacted) == expected
    assert not _entries(tmp_path)  # (without the pack cache nothing is written)
    written = engines([pack])  # compiled, written, and read back from what was written
    assert _from_cache(written) and _decisions(written) == expected
    (entry,) = _entries(tmp_path)
    assert written.loaded_packs.entry == entry.read_bytes().partition(b"\n")[2]
    assert _decisions(engines([pack])) == expected  # the next start's hit


def test_a_large_set_whose_entry_does_not_read_back_is_compiled_again(
    pack: Path, engines: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    expected = _decisions(engines([pack], pack_cache=False))
    monkeypatch.setattr(packs_module, "COMPACT_FROM", 1)

    def unreadable(*_args: Any, **_kwargs: Any) -> Any:
        raise ValueError("not an entry of this code's format")

    monkeypatch.setattr(pack_cache, "loads", unreadable)
    compiled = engines([pack], pack_cache=False)
    assert not _from_cache(compiled) and compiled.loaded_packs.entry is None
    assert _decisions(compiled) == expected


# ------------------------------------------------- large sets, compiled apart


def test_a_large_set_is_compiled_apart_and_decides_as_one_compiled_here(
    pack: Path, engines: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = engines([pack], pack_cache=False, aliases={"shell_exec": "bash"})
    expected = _decisions(here)
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)

    def not_here(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("compiled in the engine's process")

    monkeypatch.setattr(packs_module, "_compiled", not_here)
    for cached in (False, True, True):  # (without the cache; written; the next start's hit)
        engine = engines([pack], pack_cache=cached, aliases={"shell_exec": "bash"})
        assert _from_cache(engine) and engine.loaded_packs.entry is not None
        assert _decisions(engine) == expected
        assert engine.aliases.canonical("shell_exec") == "bash"
        assert engine.loaded_packs.revisions == here.loaded_packs.revisions
        assert engine.loaded_packs.warnings == here.loaded_packs.warnings
        assert len(_entries(tmp_path)) == int(cached)


def test_the_errors_of_a_set_compiled_apart_name_their_file_line_and_column(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(PACK + "  - id: x\n  - {id: y, action: explode}\n")
    with pytest.raises(PackError) as here:
        load_packs([bad])
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)
    monkeypatch.setattr(packs_module, "_compiled", None)  # (not called: the child compiles)
    with pytest.raises(PackError) as apart_error:
        load_packs([bad])
    assert len(here.value.diagnostics) >= 2
    assert apart_error.value.diagnostics == here.value.diagnostics
    assert str(apart_error.value) == str(here.value)


@pytest.mark.parametrize(
    "child",
    [
        "/nonexistent/python",  # (cannot start)
        "/bin/false",  # (exits 1 without an answer)
        "/bin/true",  # (exits 0 with no entry)
    ],
)
def test_a_set_no_child_compiles_is_compiled_here(
    pack: Path, engines: Any, monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    expected = _decisions(engines([pack], pack_cache=False))
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)
    monkeypatch.setattr(apart.sys, "executable", child)
    engine = engines([pack], pack_cache=False)
    assert not _from_cache(engine) and _decisions(engine) == expected


_WARNING = '[["p.yaml", 1, 1, "warning", "c", "m"]]'


@pytest.mark.parametrize(
    "answer",
    [
        "printf '[{\"path\": 1}]'; exit 2",  # (the errors' code, no diagnostics that read back)
        f"printf '{_WARNING}'; exit 2",  # (the errors' code, not one error among them)
        "printf '{\"format\": 4, \"key\": \"\", \"packs\": ['; exit 0",  # (cut short)
        "sleep 60",  # (no answer in time)
    ],
)
def test_a_child_answer_that_is_not_a_set_or_its_errors_is_not_taken_for_either(
    pack: Path, engines: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, answer: str
) -> None:
    # (killed part way, another program, a child gone wrong: no answer, and the set is
    # compiled here — never an empty or partial set, never errors the packs do not have)
    fake = tmp_path / "fake-python"
    fake.write_text(f"#!/bin/sh\ncat >/dev/null; {answer}\n")
    fake.chmod(0o755)
    expected = _decisions(engines([pack], pack_cache=False))
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)
    monkeypatch.setattr(apart, "TIMEOUT", 1.0)
    monkeypatch.setattr(apart.sys, "executable", str(fake))
    engine = engines([pack], pack_cache=False)
    assert not _from_cache(engine) and _decisions(engine) == expected


def test_a_process_with_no_interpreter_to_start_compiles_here(
    pack: Path, engines: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (red team: `sys.executable` may be None in an embedded interpreter, and a
    # `sys.path` entry may be any object; the engine failed to start on either)
    expected = _decisions(engines([pack], pack_cache=False))
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)
    monkeypatch.setattr(sys, "path", [*sys.path, Path("/nonexistent/plugins")])
    monkeypatch.setattr(packs_module, "_compiled", None)  # (not called: the child compiles)
    assert _from_cache(engines([pack], pack_cache=False))
    monkeypatch.undo()
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)
    monkeypatch.setattr(apart.sys, "executable", None)
    compiled = load_packs([pack])
    monkeypatch.undo()  # (the engine itself needs an interpreter's path: facts.protected_paths)
    assert compiled.entry is None  # (compiled here)
    with Engine(Settings(packs=[pack], audit_path=tmp_path / "d.log"), loaded=compiled) as engine:
        assert _decisions(engine) == expected


@pytest.mark.parametrize(
    "other",
    [
        # (red team: `-I` drops PYTHONUTF8 and PYTHONCOERCECLOCALE, so a child could
        # name a pack file, in its errors and rule locations, otherwise than this does)
        ("_filesystem_encoding", lambda: ["ebcdic", "strict"]),
        # (red team 2: `sys.executable` may be another Python than the one running)
        ("_interpreter", lambda: ["2.7.18", "cpython-27"]),
    ],
)
def test_a_child_that_would_compile_otherwise_does_not_answer(
    pack: Path, engines: Any, monkeypatch: pytest.MonkeyPatch, other: tuple[str, Any]
) -> None:
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)
    monkeypatch.setattr(apart, *other)  # (what the caller says of itself; the child differs)
    engine = engines([pack], pack_cache=False)
    assert not _from_cache(engine)  # (compiled here)


def test_a_frozen_application_compiles_here(
    pack: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # (red team 2: in a PyInstaller build `sys.executable` is the application itself)
    monkeypatch.setattr(apart, "APART_FROM_BYTES", 1)
    monkeypatch.setattr(apart.sys, "frozen", True, raising=False)
    started: list[Any] = []
    monkeypatch.setattr(apart.subprocess, "run", lambda *args, **_: started.append(args))
    assert load_packs([pack]).entry is None  # (compiled here)
    assert not started


def test_the_child_never_imports_a_policy_package_from_the_working_directory(
    pack: Path, tmp_path: Path
) -> None:
    # (red team: `python -c`, a REPL or a notebook put '' first on sys.path; the child
    # read it against the working directory — an agent's workspace — and ran the
    # `policy/packs/apart.py` there, which answered an empty set)
    workspace = tmp_path / "workspace"
    fake = workspace / "policy" / "packs"
    fake.mkdir(parents=True)
    marker = tmp_path / "imported"
    (workspace / "policy" / "__init__.py").write_text("")
    (fake / "__init__.py").write_text("")
    (fake / "apart.py").write_text(f"open({str(marker)!r}, 'w').close()\ndef main(): pass\n")
    script = textwrap.dedent(
        f"""
        import os, sys
        assert sys.path[0] == ""
        from policy import Engine, ToolCall
        from policy.packs import apart
        from policy.settings import Settings
        apart.APART_FROM_BYTES = 1
        os.chdir({str(workspace)!r})
        engine = Engine(Settings(packs=[{str(pack)!r}], audit_path="d.log", pack_cache=False))
        print(engine.before_tool(ToolCall(tool="Bash", args={{"command": "rm -rf /"}})).action)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=tmp_path
    )
    assert done.stdout.strip() == "deny_tool"
    assert not marker.exists()


def test_the_child_searches_no_directory_the_caller_does_not(pack: Path, tmp_path: Path) -> None:
    # (red team 2: as an editable install's finder does, `policy` is loaded from a
    # directory that is not on sys.path; searching that directory first in the child
    # would import a `base64.py` planted beside `policy/` there)
    root = tmp_path / "root"
    root.mkdir()
    (root / "policy").symlink_to(Path(packs_module.__file__).parent.parent)
    marker = tmp_path / "imported"
    (root / "base64.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    script = textwrap.dedent(
        f"""
        import importlib.util, sys
        init = {str(root / "policy" / "__init__.py")!r}
        spec = importlib.util.spec_from_file_location(
            "policy", init, submodule_search_locations=[{str(root / "policy")!r}])
        module = importlib.util.module_from_spec(spec)
        sys.modules["policy"] = module
        spec.loader.exec_module(module)
        from policy import Engine, ToolCall
        from policy.packs import apart
        from policy.settings import Settings
        assert {str(root)!r} not in sys.path
        apart.APART_FROM_BYTES = 1
        engine = Engine(Settings(packs=[{str(pack)!r}], audit_path="d.log", pack_cache=False))
        assert all(rule.model is None for hook in engine.loaded_packs.hooks for rule in hook.rules)
        print(engine.before_tool(ToolCall(tool="Bash", args={{"command": "rm -rf /"}})).action)
        """
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", script], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "deny_tool"
    assert not marker.exists()


def test_the_child_searches_not_the_directory_python_m_put_first(
    pack: Path, tmp_path: Path
) -> None:
    # (red team 2: `python -m` puts the working directory first on sys.path; the caller
    # imports nothing of the compiler, the child did — a `yaml.py` planted there ran)
    workspace = tmp_path / "workspace"
    (workspace / "tool").mkdir(parents=True)
    marker = tmp_path / "imported"
    (workspace / "yaml.py").write_text(f"open({str(marker)!r}, 'w').close()\n")
    (workspace / "tool" / "__init__.py").write_text("")
    (workspace / "tool" / "__main__.py").write_text(
        textwrap.dedent(
            f"""
            import os, sys
            from policy.packs import apart, load_packs
            assert sys.path[0] == os.getcwd()
            apart.APART_FROM_BYTES = 1
            loaded = load_packs([{str(pack)!r}])
            print("yaml" in sys.modules, loaded.entry is not None, len(loaded.hooks))
            """
        )
    )
    done = subprocess.run(
        [sys.executable, "-m", "tool"], capture_output=True, text=True, cwd=workspace
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["False", "True", "1"]  # (compiled apart, not here)
    assert not marker.exists()


def test_a_child_ends_with_the_process_that_asked(tmp_path: Path) -> None:
    # (a caller killed mid-compile — a host's hook timeout — leaves no compile running)
    script = textwrap.dedent(
        """
        import os, subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", (
            "import os, sys, time; from policy.packs.apart import _end_with; "
            "_end_with(os.getppid()); print('watching', flush=True); time.sleep(60)"
        )], stdout=subprocess.PIPE, text=True)
        assert child.stdout.readline() == "watching\\n"
        print(child.pid, flush=True)
        os._exit(0)
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout)
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_an_engine_on_a_set_compiled_apart_never_loads_the_compiler(
    pack: Path, tmp_path: Path
) -> None:
    # (what keeps its memory down: the schema's models, the checker and the compile's
    # objects live and die in the child)
    script = textwrap.dedent(
        """
        import sys
        from policy import Engine, ToolCall
        from policy.packs import apart
        from policy.settings import Settings
        apart.APART_FROM_BYTES = 1
        engine = Engine(Settings(packs=[sys.argv[1]], audit_path=sys.argv[2], pack_cache=False))
        assert engine.before_tool(ToolCall(tool="Bash", args={"command": "rm -rf /"})).blocked
        print(sorted(m for m in ("policy.packs.compile", "policy.packs.schema") if m in sys.modules))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(pack), str(tmp_path / "d.log")],
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == "[]"


@pytest.mark.parametrize("pack_cache", [True, False])
def test_a_set_json_cannot_hold_exactly_is_enforced_as_compiled(
    tmp_path: Path, engines: Any, monkeypatch: pytest.MonkeyPatch, pack_cache: bool
) -> None:
    # (red team: an integer past 64 bits, which orjson refuses, stopped the engine from
    # starting; an infinite timeout, which JSON writes as null, was read back as the
    # engine's default — neither is written as an entry, nor read back)
    monkeypatch.setattr(packs_module, "COMPACT_FROM", 1)
    path = tmp_path / "odd.yaml"
    path.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: odd\n"
        "priority: 100000000000000000000\n"
        "rules:\n"
        "  - {id: no-rm, tools: [bash], when: 'args.command == \"rm\"', action: deny}\n"
        f"  - {{id: wait, tools: [deploy], action: ask, timeout: '1{'0' * 400}s'}}\n"
    )
    for _ in range(2):  # (compiled, then what a second start finds)
        engine = engines([path], pack_cache=pack_cache)
        assert not _from_cache(engine)
        assert engine.before_tool(ToolCall(tool="bash", args={"command": "rm"})).blocked
        (gate,) = engine.before_tool(ToolCall(tool="deploy", args={})).gates
        assert gate.timeout == float("inf")
    assert not _entries(tmp_path)


def test_a_last_good_set_that_cannot_be_written_is_not_said_to_be_kept(
    pack: Path, engines: Any, tmp_path: Path
) -> None:
    loaded = engines([pack], pack_cache=False).loaded_packs
    blocked = tmp_path / "a-file"
    blocked.write_text("")
    assert not last_good.keep([pack], "native", blocked / "cache", loaded)
    assert last_good.keep([pack], "native", tmp_path / "cache", loaded)


def test_a_set_read_back_from_the_cache_is_kept_as_the_last_good_set(
    pack: Path, engines: Any, tmp_path: Path
) -> None:
    # (`policy serve` keeps the set it serves as its last good one; one read back from
    # the pack cache holds no sources to write an entry from, and was silently not kept)
    engines([pack])
    hit = engines([pack])
    assert _from_cache(hit)
    directory = _cache_dir(tmp_path)
    assert last_good.keep([pack], "native", directory, hit.loaded_packs)
    recalled = last_good.recall([pack], "native", directory, DEFAULT_ALIASES)
    assert recalled is not None
    assert recalled.revisions == hit.loaded_packs.revisions
    assert len(recalled.hooks) == len(hit.loaded_packs.hooks)


# ------------------------------------------------------- compiled CEL programs


def _programs(tmp_path: Path) -> list[Path]:
    return sorted((_cache_dir(tmp_path) / "cel").glob("cel-*.entry"))


def test_compiled_programs_are_kept_and_read_back(
    pack: Path, engines: Any, tmp_path: Path
) -> None:
    expected = _decisions(engines([pack], pack_cache=False))
    assert _decisions(engines([pack])) == expected  # compiles them, and keeps them
    kept = _programs(tmp_path)
    assert kept
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in kept)
    mtimes = [p.stat().st_mtime_ns for p in kept]
    assert _decisions(engines([pack])) == expected  # reads them back
    assert [p.stat().st_mtime_ns for p in kept] == mtimes


def test_a_damaged_program_is_compiled_again(pack: Path, engines: Any, tmp_path: Path) -> None:
    expected = _decisions(engines([pack], pack_cache=False))
    engines([pack])
    for kept in _programs(tmp_path):
        body = b"not a program"
        kept.write_bytes(pack_cache.hashlib.sha256(body).hexdigest().encode() + b"\n" + body)
    assert _decisions(engines([pack])) == expected
    for kept in _programs(tmp_path):
        kept.write_bytes(b"0" * 64 + b"\nx")  # a wrong checksum
    assert _decisions(engines([pack])) == expected


def test_a_kept_entry_stands_only_for_its_own_program(tmp_path: Path) -> None:
    # (names, shapes and programs are looked up by a digest of their sources: an entry
    # renamed or copied over another's name must not stand for that other program)
    store = pack_cache.ProgramStore(tmp_path / "cel", b"salt")
    store.put("names:before_tool", '["args.a == 1"]', b'["a", "args"]')
    (pure,) = (tmp_path / "cel").glob("cel-*.entry")
    store.put("names:before_tool", '["path.resolve(args.p) == 1"]', b'["args", "p", "path"]')
    (impure,) = set((tmp_path / "cel").glob("cel-*.entry")) - {pure}
    assert store.get("names:before_tool", '["args.a == 1"]') == b'["a", "args"]'
    impure.write_bytes(pure.read_bytes())
    assert store.get("names:before_tool", '["path.resolve(args.p) == 1"]') is None
    assert store.get("names:before_tool", '["args.a == 1"]') == b'["a", "args"]'
    # the same bytes under another salt (older code) or at another point: not this entry
    assert pack_cache.ProgramStore(tmp_path / "cel", b"other").get(
        "names:before_tool", '["args.a == 1"]'
    ) is None
    assert store.get("names:after_tool", '["args.a == 1"]') is None


def test_no_program_is_kept_for_packs_the_cache_does_not_serve(
    pack: Path, engines: Any, tmp_path: Path
) -> None:
    _decisions(engines([pack], pack_cache=False))
    assert not _programs(tmp_path)
