"""What `policy serve` reads from its settings file under `service:`: where it listens,
and who may change anything.

Reaching the socket or the decision endpoints lets a caller ask for decisions, nothing
more. Everything else — approving, denying, attaching a contract — needs an identity:
a bearer token (kept here only as its SHA-256) or, behind a reverse proxy the operator
trusts, the proxy's user header. Each identity has roles:

* `agent` — may ask for decisions (what anybody reaching the socket may do; useful when
  the HTTP port is reachable by more than the agent);
* `approver` — may list, approve and deny approval requests whose gates name one of its
  `approver_names` (default: its `name`);
* `operator` — may attach and detach contracts, and see every request.

Only pydantic here: `policy.settings` imports this module, and the service (FastAPI)
is imported by `policy serve` alone.
"""

from __future__ import annotations

import hashlib
import ipaddress
import os
import pwd
import re
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

__all__ = [
    "Identity",
    "NotifySink",
    "PolicySet",
    "ServiceSettings",
    "TrustedProxy",
    "default_socket",
    "is_loopback",
    "parse_listen",
    "parse_server",
    "resolve_uid",
    "token_digest",
]

Role = Literal["agent", "approver", "operator"]

_HEX64 = re.compile(r"[0-9a-f]{64}")


def token_digest(token: str) -> str:
    """The SHA-256 (hex) a token is kept as in the settings file."""
    return hashlib.sha256(token.encode()).hexdigest()


class Identity(BaseModel):
    """Somebody the service knows: by a token, by the proxy's user header, or both."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(min_length=1, description="Who: recorded in decisions and the log.")
    token_sha256: str | None = Field(
        None, description="SHA-256 (hex) of the bearer token; `policy token` makes one."
    )
    roles: list[Role] = Field(min_length=1)
    approver_names: list[str] = Field(
        default_factory=list,
        description="Names matched against the approvers a gate names (default: name).",
    )
    os_user: str | None = Field(
        None,
        description="The OS account this person runs agents as: requests that uid filed "
        "are their own, and approving them is self-approval.",
    )
    senders: list[str] = Field(
        default_factory=list,
        description="Globs of the `sender` names a caller with this token may decide for "
        "(default: its name only); any other is refused (403).",
    )

    @field_validator("token_sha256")
    @classmethod
    def _hex(cls, value: str | None) -> str | None:
        if value is not None and not _HEX64.fullmatch(value):
            raise ValueError("must be 64 lowercase hex digits (the SHA-256 of the token)")
        return value


class TrustedProxy(BaseModel):
    """A reverse proxy that authenticates people and names them in a header.

    The proxy proves itself on every request with its own secret
    (`X-Hookpolicy-Proxy-Token`, kept here as its SHA-256), and must connect from one of
    `addresses`: a peer address alone proves nothing on loopback, where every local
    process — the agent's too — connects from 127.0.0.1."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    header: str = Field("X-Forwarded-User", min_length=1)
    token_sha256: str = Field(
        description="SHA-256 (hex) of the secret the proxy sends in X-Hookpolicy-Proxy-Token."
    )
    addresses: list[str] = Field(
        min_length=1, description="Peer addresses of the proxy; requests from others are not."
    )

    @field_validator("token_sha256")
    @classmethod
    def _hex(cls, value: str) -> str:
        if not _HEX64.fullmatch(value):
            raise ValueError("must be 64 lowercase hex digits (the SHA-256 of the secret)")
        return value

    @field_validator("addresses")
    @classmethod
    def _ip(cls, value: list[str]) -> list[str]:
        for address in value:
            ipaddress.ip_address(address)  # ValueError names the bad one
        return value


NotifyEvent = Literal["request", "decision", "expiry"]


def _every_event() -> list[NotifyEvent]:
    return ["request", "decision", "expiry"]


class NotifySink(BaseModel):
    """Where the people who approve are told about approval requests: a new request, a
    person's decision, an expiry. docs/service.md#approvers-are-told."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["webhook", "slack", "teams", "command"] = Field(
        description="webhook: signed JSON; slack / teams: an incoming-webhook message; "
        "command: a program given the JSON on its standard input."
    )
    url: str | None = Field(None, description="http(s) URL (webhook, slack, teams).")
    secret: str | None = Field(
        None, description="webhook: the HMAC-SHA256 key of X-Hookpolicy-Signature."
    )
    secret_file: Path | None = Field(
        None, description="webhook: a file holding that key (kept out of the settings file)."
    )
    command: list[str] | None = Field(
        None, min_length=1, description="command: the program and its arguments (no shell)."
    )
    events: list[NotifyEvent] = Field(
        default_factory=_every_event,
        min_length=1,
        description="Which events this sink is told about.",
    )
    approvers: list[str] | None = Field(
        None,
        description="Approver names this sink reaches (`secops-alice`): it is told only of "
        "requests whose approver globs name one of them (or name nobody). Unset: all.",
    )
    timeout_seconds: float = Field(5.0, gt=0, le=60, description="Per attempt.")
    attempts: int = Field(6, ge=1, le=20, description="Tries before a message is dropped.")

    @model_validator(mode="after")
    def _complete(self) -> NotifySink:
        if self.kind == "command":
            if self.command is None or self.url is not None:
                raise ValueError("a command sink names `command` (and no `url`)")
            return self
        if self.url is None or self.command is not None:
            raise ValueError(f"a {self.kind} sink names `url` (and no `command`)")
        if not re.match(r"https?://[^/\s]", self.url):
            raise ValueError(f"url {self.url!r} is not an http(s) URL")
        if self.kind == "webhook" and (self.secret is None) == (self.secret_file is None):
            raise ValueError("a webhook sink names one of `secret` and `secret_file`: it signs")
        if self.kind != "webhook" and (self.secret or self.secret_file):
            raise ValueError(f"a {self.kind} sink is not signed: no `secret`")
        return self


class PolicySet(BaseModel):
    """One team's packs in a service that governs several (`service.policies`): the
    calls it decides are those whose caller matches every criterion given — the uid
    and its groups as the kernel names them on the Unix socket, the project directory
    the hook reports. The first set that matches decides; no match, the service's own
    `packs`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
    packs: list[Path] = Field(min_length=1)
    uids: list[int | str] = Field(
        default_factory=list, description="Users (names or numbers) whose calls it decides."
    )
    groups: list[str] = Field(
        default_factory=list, description="Groups: a caller in any of them (its primary or "
        "a supplementary group) matches."
    )
    projects: list[str] = Field(
        default_factory=list,
        description="Globs of project directories (`/srv/payments/**`), as the hook reports "
        "them (CLAUDE_PROJECT_DIR).",
    )
    extends: bool = Field(
        True,
        description="The team's packs join the service's own `packs` (the baseline: "
        "self-protection, credentials, ...); false: they replace them, and the team's "
        "packs must protect themselves.",
    )

    @model_validator(mode="after")
    def _something(self) -> PolicySet:
        if not (self.uids or self.groups or self.projects):
            raise ValueError(f"policy {self.name!r} matches nobody: give uids, groups or projects")
        for glob in self.projects:
            if not glob.startswith("/"):
                raise ValueError(f"policy {self.name!r}: project {glob!r} is not absolute")
        if not self.extends and not (self.uids or self.groups):
            # A project is the hook's word: any agent can start another agent in that
            # directory. Leaving the baseline takes the kernel's word on who asks.
            raise ValueError(
                f"policy {self.name!r}: extends: false needs uids or groups (a project "
                "alone is chosen by whoever starts an agent there)"
            )
        return self


class ServiceSettings(BaseModel):
    """`service:` in the settings file of `policy serve`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    socket: Path | None = Field(None, description="Unix socket (default: default_socket()).")
    http: str | None = Field(None, description="HOST:PORT for HTTP; loopback unless told.")
    allow_remote_http: bool = Field(
        False, description="Let `http` listen on an address other than loopback."
    )
    identities: list[Identity] = Field(default_factory=list)
    trusted_proxy: TrustedProxy | None = None
    max_body_bytes: int = Field(
        64 << 20,
        gt=0,
        description="Largest request body accepted (a tool's output comes whole, to be "
        "redacted: Claude Code's own limits keep them far below this).",
    )
    body_seconds: float = Field(
        30.0,
        gt=0,
        le=3600,
        description="Seconds a request's body may take to arrive, counted from the "
        "request's start; past them a 408 and the connection closed (a body sent a byte "
        "at a time would hold its connection and its share of the bodies in flight).",
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description="More `Host` header values (HOST or HOST:PORT) the HTTP listener "
        "answers besides its own address and localhost:PORT; any other is a 421.",
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="More `Origin` values (scheme://host:port) whose requests the HTTP "
        "listener accepts besides its own; a request from any other origin is a 403.",
    )
    max_waits_per_caller: int = Field(
        8,
        gt=0,
        description="Calls one caller (a uid, a token) may have waiting for approvers at "
        "once; more are refused at once (a denial before anything is filed), never queued.",
    )
    approver_socket: Path | None = Field(
        None,
        description="A second Unix socket for approvers (`policy approvals --server`), "
        "with its own mode and group: approvals and health only, no decisions.",
    )
    approver_socket_mode: str = Field("0660", pattern=r"^0?[0-7]{3}$")
    approver_socket_group: str | None = Field(
        None, description="The group that owns the approver socket (approvers are in it)."
    )
    deciders: int = Field(
        0,
        ge=0,
        le=64,
        description="Processes that decide `/v1/decide/{point}` calls and host events, "
        "each on its own interpreter (no GIL shared with the event loop): about twice the "
        "decisions a second of the deciding threads. 0: the threads decide. Needs the "
        "decision log in a file and the state and approval stores on disk or in Redis "
        "(docs/service.md#deciding-processes).",
    )
    max_memory_mb: int | None = Field(
        None,
        gt=0,
        description="Exit (for a supervisor to restart) once the service's resident memory "
        "passes this many MiB: cel-expr-python keeps what each decision hands it, in "
        "proportion to the call's size (docs/service.md).",
    )
    max_requests: int | None = Field(
        None,
        gt=0,
        description="Exit after this many requests, for a supervisor (systemd) to restart: "
        "cel-expr-python 0.1.3 keeps ≈ 11 KB per decision on the shipped packs "
        "(docs/service.md).",
    )

    public_url: str | None = Field(
        None,
        description="Where approvers reach this service's inbox (https://...): the link "
        "each notification carries.",
    )
    session_secret_file: Path | None = Field(
        None,
        description="The key that signs the inbox's session cookies (32 bytes or more): "
        "replicas behind one load balancer share it. Unset: a new key each start (the "
        "approvers sign in again after a restart).",
    )
    session_hours: float = Field(
        12, gt=0, le=24 * 30, description="How long an inbox sign-in lasts."
    )
    notify: list[NotifySink] = Field(
        default_factory=list, description="Where approvers are told about approval requests."
    )
    policies: list[PolicySet] = Field(
        default_factory=list,
        description="Packs per team, chosen by the caller's uid, groups or project; "
        "the first that matches decides, else `packs`.",
    )
    watch: bool = Field(
        False,
        description="Reload the packs when their files change (inotify, debounced; as "
        "`policy serve --watch`). SIGHUP and `POST /v1/packs/reload` reload them too.",
    )
    strict_start: bool = Field(
        False,
        description="Refuse to start when the packs on disk fail to compile. By default "
        "the service serves the last good set they compiled to instead, degraded "
        "(`/readyz` says so), so one broken file is not an outage of every agent.",
    )

    @field_validator("http")
    @classmethod
    def _listen(cls, value: str | None) -> str | None:
        if value is not None:
            parse_listen(value)
        return value

    @model_validator(mode="after")
    def _checked(self) -> ServiceSettings:
        if self.http is not None and not self.allow_remote_http:
            host, _ = parse_listen(self.http)
            if not is_loopback(host):
                raise ValueError(
                    f"http {self.http!r} is not a loopback address: set allow_remote_http: "
                    "true to serve decisions beyond this machine"
                )
        names = [policy.name for policy in self.policies]
        if len(names) != len(set(names)):
            raise ValueError("two policies share a name")
        seen: set[str] = set()
        for identity in self.identities:
            if identity.name in seen:
                raise ValueError(f"identity {identity.name!r} is listed twice")
            seen.add(identity.name)
        digests = [i.token_sha256 for i in self.identities if i.token_sha256]
        if len(digests) != len(set(digests)):
            raise ValueError("two identities share one token")
        return self


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_listen(value: str) -> tuple[str, int]:
    """`HOST:PORT` (`[::1]:8181` for IPv6) → (host, port); ValueError otherwise."""
    host, sep, port = value.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{value!r} is not HOST:PORT")
    return host, int(port)


def parse_server(value: str) -> tuple[Literal["unix", "http"], str]:
    """Where a client finds the service: `unix:/abs/path` or `http://HOST:PORT`."""
    if value.startswith("unix:"):
        path = value[len("unix:") :]
        if not path.startswith("/"):
            raise ValueError("a unix socket is written unix:/absolute/path")
        return "unix", path
    if value.startswith("http://"):
        address = value[len("http://") :].rstrip("/")
        parse_listen(address)
        return "http", address
    raise ValueError("the server is written unix:/absolute/path or http://HOST:PORT")


def resolve_uid(owner: str | int) -> int:
    """A user name or uid → uid; ValueError for a name the system does not know."""
    if isinstance(owner, int) or owner.isdigit():
        return int(owner)
    try:
        return pwd.getpwnam(owner).pw_uid
    except KeyError:
        raise ValueError(f"no such user: {owner!r}") from None


def default_socket(data_dir: Path) -> Path:
    """Where `policy serve` listens when not told: `/run/hookpolicy/policy.sock` for
    root, else `$XDG_RUNTIME_DIR/hookpolicy/policy.sock`, else under data_dir."""
    if os.geteuid() == 0:
        return Path("/run/hookpolicy/policy.sock")
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return Path(runtime) / "hookpolicy" / "policy.sock"
    return data_dir / "policy.sock"
