"""Settings for a one-event process, without importing pydantic when that can be avoided.

`policy hook claude` is started once per tool call, and importing pydantic-settings
(with pydantic) costs ≈ 110 ms, several times the interpreter's own start. Two cases
need no validation in this process:

* nothing configures it — no settings file (`--config`, `$POLICY_CONFIG`) and no
  variable whose name starts with `POLICY_`: every field has its default
  (`unconfigured`);
* the same settings file was validated before by `policy.settings.Settings` and the
  result was kept (`cached` / `remember`), under `<default data_dir>/cache/settings/`,
  keyed by a digest of everything validation reads: the file's path and bytes,
  `POLICY_CONFIG`, what the default `data_dir` comes from (XDG_DATA_HOME, HOME, the
  user), the code of the settings modules and the files of pydantic, pydantic-core,
  pydantic-settings and PyYAML.

Either way the result is a `FastSettings`: a plain object with the fields and helpers
(`model_copy`, `approvals_store_uri`, `audit_key_bytes`) the engine reads. Anything
else — a file not seen before, settings that do not validate, process or command
hooks to host — goes through `Settings` itself, so strictness and error messages are
exactly its own; only successes are kept. Settings holding a secret (`audit_key`, or
a storage URI with credentials) are never written to the cache.

Who may stand behind an entry: it is a file of the effective user, and the agent the
policy governs runs its tools as that user, so an entry may only stand for settings
the user could have written itself (`cacheable_file`). The cache is used — read or
written — only for a settings file the user may change (writable, or in a directory
it may write; `policy._trusted_store.user_controls`) and only when no `POLICY_*`
variable but `POLICY_CONFIG` is set: variables override the file, and who set them
(the user, or an administrator's hook command) cannot be told from here. Settings
from variables alone, a settings file the user may not change, and settings with
`pack_cache: false` (or `POLICY_PACK_CACHE=false`) are validated at every start.
tests/test_hook_cold_start.py holds the defaults here to `Settings()`'s.

The thin client of `policy serve` needs two fields of all this (`server`,
`server_owner`) and must start in about the interpreter's own time, so reading an
entry (`settings_key`, `cached_fields`) imports no `pathlib`, `json` or `hashlib`;
`Path`s are made when a `FastSettings` is (`cached`).
"""

from __future__ import annotations

import os

from policy._env import CONFIG_ENV, ENV_PREFIX, data_home, default_data_dir, read_config

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any, Literal

    from policy._trusted_store import FileAccess
    from policy.settings import Settings

__all__ = [
    "FastSettings",
    "cacheable_file",
    "cached",
    "cached_fields",
    "default_data_dir",
    "is_unconfigured",
    "remember",
    "settings_key",
    "unconfigured",
]

#: Bumped whenever the layout of a settings entry changes.
FORMAT = 5

#: Modules (relative to policy/) and libraries whose code decides what settings validate to.
_SOURCES = (
    "_env.py",
    "_fast_settings.py",
    "_version.py",
    "_yaml.py",
    "durations.py",
    "hooks_config.py",
    "model/__init__.py",
    "model/payloads.py",
    "service_settings.py",
    "settings.py",
)
_LIBRARIES = ("pydantic", "pydantic_core", "pydantic_settings", "yaml")


# Plain classes, not dataclasses: building a dataclass costs ≈ 1 ms at import,
# a noticeable share of a one-event process.


class NoHostedHooks:
    """`hooks:` with no process configured (all `FastSettings` ever holds)."""

    __slots__ = ("enabled",)
    processes: Mapping[str, Any] = {}

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled


class FastSettings:
    """The fields of `Settings`, as plain attributes; class values are the defaults."""

    packs: list[Path]
    observer_timeout_ms = 500
    interceptor_timeout_ms = 5000
    approval_timeout_ms = 60000
    failure_policy: Literal["fail", "ignore"] = "fail"
    hook_workers = 32
    observer_queue_size = 1024
    data_dir: Path
    audit_path: Path | None = None
    audit_stream: Literal["stdout", "stderr"] = "stderr"
    audit_capture_args = False
    audit_capture_dir: Path | None = None
    audit_capture_retention: float | None = 7 * 86400.0
    audit_rotate_bytes: int | None = None
    audit_rotate_age: float | None = None
    audit_rotate_keep: int | None = None
    audit_key: None = None
    limits_storage_uri: str | None = None
    approvals_store: str | None = None
    approvals_retention: float | None = 30 * 86400.0
    approvers_map: Path | None = None
    cel_engine: Literal["native", "cel-expr-python", "cel-python"] = "native"
    pack_cache = True
    aliases: dict[str, str]
    hooks: NoHostedHooks
    claude_hooks: list[Path]
    claude_hooks_skip_unsupported = False
    claude_hooks_not_json: Literal["skip", "refuse"] = "skip"
    claude_hooks_allow: Literal["pass", "ignore"] = "pass"
    workspace: str | None = None
    protected_paths: list[Path]
    server: str | None = None
    server_owner: str | None = None
    service: None = None

    def __init__(self, **values: Any) -> None:
        unknown = set(values) - set(FIELDS)
        if unknown:
            raise TypeError(f"not settings: {sorted(unknown)}")
        self.packs = []
        self.aliases = {}
        self.hooks = NoHostedHooks()
        self.claude_hooks = []
        self.protected_paths = []
        for name, value in values.items():
            setattr(self, name, value)
        if "data_dir" not in values:
            self.data_dir = default_data_dir()

    @property
    def approvals_store_uri(self) -> str:
        return self.approvals_store or f"sqlite:///{self.data_dir / 'approvals.db'}"

    @property
    def state_store_uri(self) -> str:
        return self.limits_storage_uri or f"sqlite:///{self.data_dir / 'state.db'}"

    @property
    def audit_key_bytes(self) -> bytes | None:
        return None

    def model_copy(self, *, update: Mapping[str, Any] | None = None) -> FastSettings:
        """As pydantic's: a copy with `update` applied, not validated again."""
        values = {name: getattr(self, name) for name in FIELDS}
        values.update(update or {})
        return FastSettings(**values)


#: Every field of `Settings` (the test holds the two lists together).
FIELDS = (
    "packs",
    "observer_timeout_ms",
    "interceptor_timeout_ms",
    "approval_timeout_ms",
    "failure_policy",
    "hook_workers",
    "observer_queue_size",
    "data_dir",
    "audit_path",
    "audit_stream",
    "audit_capture_args",
    "audit_capture_dir",
    "audit_capture_retention",
    "audit_rotate_bytes",
    "audit_rotate_age",
    "audit_rotate_keep",
    "audit_key",
    "limits_storage_uri",
    "approvals_store",
    "approvals_retention",
    "approvers_map",
    "cel_engine",
    "pack_cache",
    "aliases",
    "hooks",
    "claude_hooks",
    "claude_hooks_skip_unsupported",
    "claude_hooks_not_json",
    "claude_hooks_allow",
    "workspace",
    "protected_paths",
    "server",
    "server_owner",
    "service",
)

#: Kept as they are in an entry (JSON scalars), with the type each must have.
_SCALARS: dict[str, tuple[type, ...]] = {
    "observer_timeout_ms": (int,),
    "interceptor_timeout_ms": (int,),
    "approval_timeout_ms": (int,),
    "failure_policy": (str,),
    "hook_workers": (int,),
    "observer_queue_size": (int,),
    "audit_stream": (str,),
    "audit_capture_args": (bool,),
    "audit_capture_retention": (float, type(None)),
    "audit_rotate_bytes": (int, type(None)),
    "audit_rotate_age": (float, type(None)),
    "audit_rotate_keep": (int, type(None)),
    "limits_storage_uri": (str, type(None)),
    "approvals_store": (str, type(None)),
    "approvals_retention": (float, type(None)),
    "cel_engine": (str,),
    "pack_cache": (bool,),
    "claude_hooks_skip_unsupported": (bool,),
    "claude_hooks_not_json": (str,),
    "claude_hooks_allow": (str,),
    "workspace": (str, type(None)),
    "server": (str, type(None)),
    "server_owner": (str, type(None)),
}


def unconfigured(config_file: str | os.PathLike[str] | None) -> FastSettings | None:
    """The defaults when no file and no `POLICY_*` variable configure anything, else None."""
    return FastSettings() if is_unconfigured(config_file) else None


def is_unconfigured(config_file: str | os.PathLike[str] | None) -> bool:
    """Whether no settings file and no `POLICY_*` variable configure anything.

    Any variable whose name starts with POLICY_ in any case counts (pydantic-settings
    reads them case-insensitively, and an unknown one must still be an error), and so
    does `POLICY_CONFIG`, even empty.
    """
    if config_file is not None:
        return False
    return not any(name.upper().startswith(ENV_PREFIX) for name in os.environ)


# ------------------------------------------------------------------ the cache


def _cache_dir() -> str | None:
    """Where validated settings are kept; None when there is no home to keep them in
    (a settings file may still name data_dir, so that is no error here)."""
    try:
        return os.path.join(data_home(), "cache", "settings")
    except (RuntimeError, KeyError, OSError):
        return None


def cacheable_file(
    config_file: str | os.PathLike[str] | None, access: FileAccess | None = None
) -> str | None:
    """The settings file an entry may stand for, or None: validate, neither read nor
    write the cache.

    An entry is a file of the effective user, and so is anything the governed agent
    writes; reading one must grant nothing the user could not do already. So: a
    settings file is needed (`config_file`, else `$POLICY_CONFIG`, as policy.settings
    reads it) that the user could change (`policy._trusted_store.user_controls`, asked
    through `access`, the system by default), and no `POLICY_*` variable but
    `POLICY_CONFIG` may be set — variables override the file, and whether the user or
    an administrator's hook command set them cannot be told, so settings they shape
    are validated every time. `POLICY_PACK_CACHE=false` is such a variable, so it
    turns this cache off too.
    """
    if any(name.upper().startswith(ENV_PREFIX) and name != CONFIG_ENV for name in os.environ):
        return None
    if config_file is not None:
        path = os.fspath(config_file)
    else:
        value = os.environ.get(CONFIG_ENV)
        if not value:
            return None
        path = value
    from policy._trusted_store import SYSTEM, user_controls

    return path if user_controls(path, access or SYSTEM) else None


def settings_key(
    config_file: str | os.PathLike[str] | None, access: FileAccess | None = None
) -> str | None:
    """The digest of everything `Settings(config_file)` reads; None if it cannot be had,
    or when the cache may not stand for these settings (see `cacheable_file`)."""
    from policy._hashes import sha256
    from policy._trusted_store import code_stamps, package_stamps

    path = cacheable_file(config_file, access)
    if path is None:
        return None
    try:
        content = read_config(path)
        code = code_stamps(_SOURCES)
        libraries = [package_stamps(name) for name in _LIBRARIES]
    except (OSError, ImportError, ValueError):
        return None
    header = [
        FORMAT,
        code,
        libraries,
        os.fsdecode(path),
        sorted((k, v) for k, v in os.environ.items() if k.upper().startswith(ENV_PREFIX)),
        os.environ.get("XDG_DATA_HOME"),
        os.environ.get("HOME"),
        os.getuid(),
    ]
    digest = sha256(_json(header))
    digest.update(sha256(content).digest())
    return str(digest.hexdigest())


def cached(key: str | None) -> FastSettings | None:
    """The settings validated before under `key` (see `settings_key`), or None."""
    fields = cached_fields(key)
    return None if fields is None else _rebuild(fields)


def cached_fields(key: str | None) -> dict[str, Any] | None:
    """The fields of the settings validated before under `key`, as the entry holds
    them (paths as text, the hooks as `hooks_enabled`), every one checked; None for a
    miss — or an entry that cannot be used, whatever is wrong with it."""
    directory = _cache_dir()
    if key is None or directory is None:
        return None
    from policy._trusted_store import read_entry

    body = read_entry(directory, key)
    if body is None:
        return None
    try:
        return _checked(body, key)
    except Exception:  # noqa: BLE001 - an entry we cannot use is a miss, whatever the reason
        return None


def _checked(body: bytes, key: str) -> dict[str, Any]:
    from policy._plain_json import loads

    entry = loads(body)
    if entry["format"] != FORMAT or entry["key"] != key:
        raise ValueError("another entry")
    fields = entry["fields"]
    for name, kinds in _SCALARS.items():
        value = fields[name]
        if type(value) not in kinds:
            raise TypeError(f"{name}: {type(value).__name__}")
    packs, data_dir, audit_path, aliases = (
        fields["packs"],
        fields["data_dir"],
        fields["audit_path"],
        fields["aliases"],
    )
    protected = fields["protected_paths"]
    for name, listed in (("packs", packs), ("protected_paths", protected)):
        if not (isinstance(listed, list) and all(isinstance(p, str) for p in listed)):
            raise TypeError(name)
    approvers_map = fields["approvers_map"]
    capture_dir = fields["audit_capture_dir"]
    if not isinstance(data_dir, str) or not all(
        isinstance(p, str | None) for p in (audit_path, approvers_map, capture_dir)
    ):
        raise TypeError("paths")
    if not (
        isinstance(aliases, dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in aliases.items())
    ):
        raise TypeError("aliases")
    if type(fields["hooks_enabled"]) is not bool:
        raise TypeError("hooks_enabled")
    if fields["pack_cache"] is not True:
        raise ValueError("pack_cache: false is never kept")  # see _plain
    return dict(fields)


def _rebuild(fields: dict[str, Any]) -> FastSettings:
    """The settings `cached_fields` checked, with their paths as `Path`s."""
    from pathlib import Path

    audit_path, approvers_map = fields["audit_path"], fields["approvers_map"]
    capture_dir = fields["audit_capture_dir"]
    return FastSettings(
        packs=[Path(p) for p in fields["packs"]],
        protected_paths=[Path(p) for p in fields["protected_paths"]],
        data_dir=Path(fields["data_dir"]),
        audit_path=None if audit_path is None else Path(audit_path),
        audit_capture_dir=None if capture_dir is None else Path(capture_dir),
        approvers_map=None if approvers_map is None else Path(approvers_map),
        aliases=dict(fields["aliases"]),
        hooks=NoHostedHooks(fields["hooks_enabled"]),
        **{name: fields[name] for name in _SCALARS},
    )


def remember(
    config_file: str | os.PathLike[str] | None,
    key: str | None,
    settings: Settings,
    access: FileAccess | None = None,
) -> None:
    """Keep `settings`, just validated from `config_file` and the environment, under
    `key` (taken before validating) for the next process.

    Kept only if the inputs still give `key` (a file edited meanwhile is not paired
    with settings read from another version of it, nor one whose owner or mode
    changed), and never with a secret, with hooks to host or with `pack_cache: false`.
    """
    fields = _plain(settings)
    directory = _cache_dir()
    if (
        fields is None
        or key is None
        or directory is None
        or settings_key(config_file, access) != key
    ):
        return
    from policy._trusted_store import write_entry

    write_entry(directory, key, _json({"format": FORMAT, "key": key, "fields": fields}))


def _json(value: Any) -> bytes:
    """`value` as JSON bytes, with the standard library's C encoder (policy._plain_json):
    the thin client (`policy.hosts.claude.thin`) reads its settings through this module,
    and orjson's import (dataclasses, inspect, uuid, datetime), or even `json`'s (`re`
    and what it imports), would be a large part of its start. ASCII only (a lone
    surrogate, as `os.environ` can hold, is escaped)."""
    from policy._plain_json import dumps

    return dumps(value).encode()



def _plain(settings: Settings) -> dict[str, Any] | None:
    if set(type(settings).model_fields) != set(FIELDS):
        return None  # a field this module does not know: keep nothing
    if settings.audit_key is not None or settings.hooks.processes or settings.claude_hooks:
        return None
    if settings.service is not None:
        return None  # the service's own settings: read once per start, never per event
    if not settings.pack_cache:
        return None  # the switch that turns the pack cache off turns this one off too
    uris = (settings.limits_storage_uri or "", settings.approvals_store or "")
    if any("@" in uri for uri in uris):  # user:password@host
        return None
    fields: dict[str, Any] = {name: getattr(settings, name) for name in _SCALARS}
    fields["packs"] = [os.fspath(p) for p in settings.packs]
    fields["protected_paths"] = [os.fspath(p) for p in settings.protected_paths]
    fields["data_dir"] = os.fspath(settings.data_dir)
    fields["audit_path"] = None if settings.audit_path is None else os.fspath(settings.audit_path)
    fields["audit_capture_dir"] = (
        None if settings.audit_capture_dir is None else os.fspath(settings.audit_capture_dir)
    )
    fields["approvers_map"] = (
        None if settings.approvers_map is None else os.fspath(settings.approvers_map)
    )
    fields["aliases"] = dict(settings.aliases)
    fields["hooks_enabled"] = settings.hooks.enabled
    return fields
