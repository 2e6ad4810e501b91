"""One Settings object: defaults < YAML file < `POLICY_*` environment < arguments.

Invalid settings stop the engine at start with the field named and where the bad
value came from (env variable, or file:line:col). An unknown `POLICY_*` variable
is an error too: a typo such as `POLICY_PAKCS` would otherwise start an engine
with no rule packs, which allows everything.
"""

from __future__ import annotations

import difflib
import json
import os
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic.fields import FieldInfo
from pydantic_settings import (
    BaseSettings,
    NoDecode,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

from policy._env import CONFIG_ENV, ENV_PREFIX, default_data_dir, read_config
from policy._yaml import YamlDocument, YamlError, load_yaml
from policy.errors import SettingsError
from policy.hooks_config import HooksConfig
from policy.service_settings import ServiceSettings, parse_server

__all__ = ["ENV_PREFIX", "Settings", "default_data_dir", "load_settings"]


_LIMITS_SCHEMES = (
    "sqlite",
    "memory",
    "redis",
    "rediss",
    "redis+unix",
    "redis+cluster",
    "redis+sentinel",
    "memcached",
    "mongodb",
)
_APPROVAL_SCHEMES = ("memory", "sqlite", "redis", "rediss")

# The YAML file of the Settings being built on this thread/task.
_config_file: ContextVar[Path | None] = ContextVar("policy_config_file", default=None)
_config_doc: ContextVar[YamlDocument | None] = ContextVar("policy_config_doc", default=None)


class _YamlSource(PydanticBaseSettingsSource):
    """Settings from the strict YAML loader (duplicate keys rejected, positions kept)."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path | None) -> None:
        super().__init__(settings_cls)
        self._data: dict[str, Any] = {}
        if path is None:
            return
        try:
            text = read_config(path)
        except OSError as exc:
            raise SettingsError(f"{path}: cannot read settings file: {exc.strerror}") from None
        try:
            doc = load_yaml(text, path)
        except YamlError as exc:
            raise SettingsError(str(exc)) from None
        _config_doc.set(doc)
        if doc.data is None:
            return
        if not isinstance(doc.data, dict):
            raise SettingsError(f"{path}:1:1: a settings file must be a mapping of field: value")
        self._data = doc.data

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return self._data.get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(self._data)


#: The longest retention a setting may name: dates beyond it overflow the calendar.
_LONGEST_RETENTION = 100 * 365 * 86400.0


class Settings(BaseSettings):
    """Everything the engine reads at start. Fields are documented in docs/settings.md."""

    model_config = SettingsConfigDict(
        env_prefix=ENV_PREFIX,
        env_nested_delimiter="__",
        extra="forbid",
        frozen=True,
        validate_default=True,
    )

    packs: Annotated[list[Path], NoDecode] = Field(
        default_factory=list, description="Rule pack files or directories."
    )
    observer_timeout_ms: int = Field(500, gt=0, description="Budget of one observer call.")
    interceptor_timeout_ms: int = Field(5000, gt=0, description="Budget of one interceptor call.")
    approval_timeout_ms: int = Field(60000, gt=0, description="Budget of one approver call.")
    failure_policy: Literal["fail", "ignore"] = Field(
        "fail", description="Failure policy of hooks that do not set their own."
    )
    hook_workers: int = Field(32, ge=1, le=4096, description="Threads for hooks run with timeouts.")
    observer_queue_size: int = Field(1024, ge=1, description="Events buffered for observers.")
    data_dir: Path = Field(default_factory=default_data_dir, description="State directory.")
    audit_path: Path | None = Field(None, description="Decision-log file (JSON lines).")
    audit_stream: Literal["stdout", "stderr"] = Field(
        "stderr", description="Where the decision log goes when audit_path is unset."
    )
    audit_capture_args: bool = Field(
        False,
        description="Deprecated: the decision log is always masked; true turns capture on "
        "in <data_dir>/capture when audit_capture_dir is unset.",
    )
    audit_capture_dir: Path | None = Field(
        None,
        description="Directory where each decision's parts are kept whole, as asked "
        "(capture-YYYY-MM-DD.jsonl, 0600, for `policy replay`); unset: no capture.",
    )
    audit_capture_retention: float | None = Field(
        7 * 86400.0,
        description="How long capture files are kept after their day (a duration: 7d, "
        "12h; held in seconds); null: until deleted by hand.",
    )
    audit_rotate_bytes: int | None = Field(
        None,
        ge=4096,
        description="Start a new decision-log file once the live one would pass this many "
        "bytes; the hash chain goes on across files (`policy audit verify` proves the set).",
    )
    audit_rotate_age: float | None = Field(
        None,
        description="Start a new decision-log file once the live one's first record is this "
        "old (a duration: 1d, 12h; held in seconds).",
    )
    audit_rotate_keep: int | None = Field(
        None, ge=1, description="Rotated decision-log files kept (the oldest go first); unset: all."
    )
    audit_key: SecretStr | None = Field(
        None, description="HMAC key for the log's hash chain (plain SHA-256 when unset)."
    )
    limits_storage_uri: str | None = Field(
        None,
        description="Rate-limit counters and contract usage; default sqlite under data_dir.",
    )
    approvals_store: str | None = Field(
        None, description="Approval store URI; default sqlite under data_dir."
    )
    approvals_retention: float | None = Field(
        30 * 86400.0,
        description="How long ended approval requests and grants stay in the store "
        "(a duration: 30d, 12h; held in seconds); null: until `policy approvals purge`.",
    )
    approvers_map: Path | None = Field(
        None,
        description="YAML file mapping OS user names to approver names; honoured only "
        "when the agent's uid cannot write it.",
    )
    cel_engine: Literal["native", "cel-expr-python", "cel-python"] = Field(
        "native",
        description="CEL implementation for rule conditions: `native` (conditions "
        "compiled to Python, cel-expr-python for what they do not cover), "
        "`cel-expr-python` alone, or `cel-python` (portable, slow).",
    )
    pack_cache: bool = Field(
        True,
        description="Keep compiled packs (and validated settings) on disk for the next start.",
    )
    aliases: dict[str, str] = Field(
        default_factory=dict, description="Extra tool spellings: {host_name: canonical_name}."
    )
    hooks: HooksConfig = Field(
        default_factory=HooksConfig,
        description="PicoClaw-style process hooks run in the chain (hooks.processes.<name>).",
    )
    claude_hooks: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="Claude Code / Agentao hooks.json files whose command hooks run in the chain.",
    )
    claude_hooks_skip_unsupported: bool = Field(
        False,
        description="Skip claude_hooks hooks of a type hookpolicy cannot run (prompt, agent, "
        "http, mcp_tool) at the events it runs, instead of refusing the file.",
    )
    claude_hooks_not_json: Literal["skip", "refuse"] = Field(
        "skip",
        description="A claude_hooks file that is not JSON (a comment, a trailing comma): "
        "`skip` runs none of its hooks, as Claude Code does, with an error on the log; "
        "`refuse` stops the engine.",
    )
    claude_hooks_allow: Literal["pass", "ignore"] = Field(
        "pass",
        description="What a claude_hooks hook's PreToolUse `allow` does: `pass` it on to the "
        "host when nothing denies or asks (an auto-approver answers the permission prompt); "
        "`ignore` it, so only your own packs grant.",
    )
    workspace: str | None = Field(
        None,
        description="The directory the agent works in; default: CLAUDE_PROJECT_DIR, else the "
        "call's cwd.",
    )
    protected_paths: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="More paths the agent may not change, besides the policy's own files.",
    )

    server: str | None = Field(
        None,
        description="The `policy serve` that decides for hooks: unix:/path or http://HOST:PORT. "
        "Set, a hook never decides alone: an unreachable service is a refusal.",
    )
    server_owner: str | None = Field(
        None,
        description="User (name or uid) the service behind a unix `server` must run as; "
        "default: the hook's own user.",
    )
    service: ServiceSettings | None = Field(
        None, description="What `policy serve` listens on and who may approve (docs/service.md)."
    )

    _reserved_env: ClassVar[frozenset[str]] = frozenset({CONFIG_ENV})

    def __init__(self, config_file: Path | str | None = None, **values: Any) -> None:
        path = Path(config_file) if config_file is not None else _env_config_file()
        token = _config_file.set(path)
        doc_token = _config_doc.set(None)
        try:
            _check_unknown_env()
            super().__init__(**values)
        except ValidationError as exc:
            raise SettingsError(_describe(exc, _config_doc.get(), set(values))) from None
        finally:
            _config_file.reset(token)
            _config_doc.reset(doc_token)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings, env_settings, _YamlSource(settings_cls, _config_file.get()))

    @field_validator("packs", "claude_hooks", "protected_paths", mode="before")
    @classmethod
    def _split_paths(cls, value: Any) -> Any:
        if isinstance(value, str):
            text = value.strip()
            if text.startswith("["):
                return json.loads(text)
            return [p for p in text.replace(os.pathsep, ",").split(",") if p.strip()]
        return value

    @field_validator("workspace")
    @classmethod
    def _absolute_workspace(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("/", "~")):
            raise ValueError("the workspace must be an absolute path (or start with ~)")
        return value

    @field_validator("limits_storage_uri")
    @classmethod
    def _limits_scheme(cls, value: str | None) -> str | None:
        if value is None:
            return None
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if scheme not in _LIMITS_SCHEMES:
            raise ValueError(
                f"scheme must be one of {', '.join(s + '://' for s in _LIMITS_SCHEMES)}"
            )
        if scheme == "sqlite" and (
            len(value) <= len("sqlite:///")
            or not value.startswith("sqlite:///")
            or value[len("sqlite:///") :] == ":memory:"
        ):
            raise ValueError("the state file is written sqlite:///PATH (memory:// for none)")
        return value

    @field_validator("approvals_store")
    @classmethod
    def _approvals_scheme(cls, value: str | None) -> str | None:
        if value is None:
            return None
        scheme = value.split("://", 1)[0] if "://" in value else ""
        if scheme not in _APPROVAL_SCHEMES:
            raise ValueError(
                f"scheme must be one of {', '.join(s + '://' for s in _APPROVAL_SCHEMES)}"
            )
        if scheme == "sqlite" and not value.startswith("sqlite:///"):
            raise ValueError("sqlite stores are written sqlite:///PATH")
        return value

    @field_validator(
        "approvals_retention", "audit_capture_retention", "audit_rotate_age", mode="before"
    )
    @classmethod
    def _retention_duration(cls, value: Any) -> Any:
        if value is None:
            return None
        from policy.durations import parse_duration

        seconds = parse_duration(value)
        if not seconds <= _LONGEST_RETENTION:  # also NaN and infinity
            raise ValueError("a retention of at most 100 years (use null to keep forever)")
        return seconds

    @field_validator("server")
    @classmethod
    def _server_address(cls, value: str | None) -> str | None:
        if value is not None:
            parse_server(value)
        return value

    @field_validator("server_owner", mode="before")
    @classmethod
    def _owner(cls, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str) and not value.strip():
            raise ValueError("name the user (or uid) the service runs as")
        return value

    @field_validator("aliases")
    @classmethod
    def _no_empty_alias(cls, value: dict[str, str]) -> dict[str, str]:
        for spelling, canonical in value.items():
            if not spelling or not canonical:
                raise ValueError("tool aliases need a non-empty name and target")
        return value

    @property
    def approvals_store_uri(self) -> str:
        """The approval store to use: the setting, or a SQLite file in data_dir."""
        return self.approvals_store or f"sqlite:///{self.data_dir / 'approvals.db'}"

    @property
    def state_store_uri(self) -> str:
        """Where rate-limit counters and contract usage live: the setting, or a SQLite
        file in data_dir that every hook process of the machine shares (policy.state)."""
        return self.limits_storage_uri or f"sqlite:///{self.data_dir / 'state.db'}"

    @property
    def audit_key_bytes(self) -> bytes | None:
        return self.audit_key.get_secret_value().encode() if self.audit_key else None


def _env_config_file() -> Path | None:
    value = os.environ.get(CONFIG_ENV)
    return Path(value) if value else None


def _env_names() -> dict[str, str]:
    """Known top-level env names -> field names."""
    return {ENV_PREFIX + name.upper(): name for name in Settings.model_fields}


def _check_unknown_env() -> None:
    known = _env_names()
    for var in os.environ:
        upper = var.upper()
        if not upper.startswith(ENV_PREFIX) or upper in Settings._reserved_env:
            continue
        top = upper.split("__", 1)[0]
        if top in known:
            continue
        guess = difflib.get_close_matches(top, list(known), n=1)
        hint = f" (did you mean {guess[0]}?)" if guess else ""
        raise SettingsError(f"unknown setting in environment: {var}{hint}")


def _describe(exc: ValidationError, doc: YamlDocument | None, given: set[str]) -> str:
    lines = ["invalid settings:"]
    for error in exc.errors():
        loc = tuple(error["loc"])
        field = ".".join(str(p) for p in loc) or "(settings)"
        message = error["msg"]
        top_var = ENV_PREFIX + str(loc[0]).upper() if loc else ""
        from_env = bool(top_var) and any(
            v.upper() == top_var or v.upper().startswith(top_var + "__") for v in os.environ
        )
        if loc and loc[0] in given:
            where = f"{field} (from arguments)"
        elif from_env:
            where = f"{field} (from environment {top_var})"
        elif doc is not None and loc and (loc in doc.values or loc[:1] in doc.values):
            mark = doc.key_mark(loc) if error["type"] == "extra_forbidden" else doc.mark(loc)
            where = f"{doc.source}:{mark.line}:{mark.col}: {field}" if mark else field
        else:
            where = field
        lines.append(f"  {where}: {message}")
    return "\n".join(lines)


def load_settings(config_file: Path | str | None = None, **overrides: Any) -> Settings:
    """Settings from `config_file` (or $POLICY_CONFIG), the environment and overrides."""
    return Settings(config_file, **overrides)
