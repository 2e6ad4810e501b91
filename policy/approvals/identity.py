"""Who is deciding an approval: the OS user, never a name somebody typed.

`policy approvals approve` runs as an OS user, and that user is the one fact about
the approver the operating system vouches for. So it is the identity: the user's
name (`pwd`, from the real uid — not `$USER`, which the caller sets), mapped to
approver names through the `approvers_map` file:

```yaml
alice: [secops-alice]
bob: [secops-bob, dba-bob]
```

A mapping is only as trustworthy as the file: one the agent could write would let
the agent name itself an approver. So it is honoured only when the agent's uid (the
`agent_uid` the request recorded) can write neither the file nor any directory
above it — judged from owners, mode bits and the groups that uid belongs to
(`writable_by`); otherwise it is refused, with the reason, and the identity is the
bare OS user name. `--as NAME` is root acting for somebody: refused for anybody else.

The HTTP inbox (later) authenticates in its own way and builds an `Identity` too;
`policy.approvals.rules.decide` takes it from either.
"""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Callable
from pathlib import Path

from policy._lazy_dataclass import dataclass
from policy.errors import PolicyError

__all__ = [
    "SYSTEM",
    "ApproversMapError",
    "FileInfo",
    "Identity",
    "IdentityError",
    "IdentityRefused",
    "Writer",
    "load_approvers_map",
    "os_user",
    "resolve",
    "writable_by",
    "writable_by_self",
]


class IdentityError(PolicyError):
    """The approver's identity cannot be established; nothing is decided (exit 2)."""


class IdentityRefused(IdentityError):
    """`--as NAME` from somebody who is not root."""


class ApproversMapError(IdentityError):
    """The approvers_map file cannot be read, or is not a mapping of user: [names]."""


@dataclass(frozen=True, slots=True)
class Identity:
    """An authenticated approver: the OS user, and the approver names it stands for.

    `names` empty means the user's own name is the only one (no mapping, a mapping
    refused, or a user the mapping does not list).
    """

    user: str
    names: tuple[str, ...] = ()
    #: The uid the OS vouches for (None for root acting `--as` somebody else, and for
    #: identities from other channels): a request filed by this uid is its own.
    uid: int | None = None
    #: What vouches for `user`, as decisions record it: the OS, or `policy serve`'s
    #: `token` / `proxy`.
    channel: str = "os user"
    #: Who `policy serve` says is asking (`uid:1001` from the socket's peer
    #: credentials, `token:ci`), as a request filed through it records its filer
    #: (`ApprovalRequest.principal`); "" for an identity from the OS (the CLI).
    principal: str = ""

    @property
    def candidates(self) -> tuple[str, ...]:
        """The names matched against a request's approver globs, in order."""
        return self.names or (self.user,)

    def label(self, name: str | None = None) -> str:
        """How a decision records `name` (the first candidate by default):
        `secops-alice (os user alice)`, or `alice` when the name is the user's own."""
        chosen = self.candidates[0] if name is None else name
        return chosen if chosen == self.user else f"{chosen} ({self.channel} {self.user})"

    def __str__(self) -> str:
        names = ", ".join(self.candidates)
        return names if self.candidates == (self.user,) else f"{names} ({self.channel} {self.user})"


def os_user(uid: int | None = None) -> str:
    """The name of `uid` (the real uid by default), or the number when it has none."""
    uid = os.getuid() if uid is None else uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


# ------------------------------------------------------------------ who may write


@dataclass(frozen=True, slots=True)
class Writer:
    """A uid and the groups it belongs to: whom `writable_by` asks about.

    `groups` None means they cannot be known (a uid with no passwd entry): then any
    group-writable file counts as writable by it.
    """

    uid: int
    groups: frozenset[int] | None

    @classmethod
    def of(cls, uid: int) -> Writer:
        try:
            entry = pwd.getpwuid(uid)
        except KeyError:
            return cls(uid, None)
        return cls(uid, frozenset(os.getgrouplist(entry.pw_name, entry.pw_gid)))


class FileInfo:
    """What `writable_by` reads about a path. The system's answers by default; a class
    so that tests (which run as root) can pose questions about other owners and modes."""

    def stat(self, path: str) -> os.stat_result:
        return os.stat(path)

    def has_acl(self, path: str) -> bool:
        """Whether `path` carries a POSIX access ACL (whose entries the mode bits hide)."""
        try:
            return "system.posix_acl_access" in os.listxattr(path)
        except OSError:
            return False

    def realpath(self, path: str) -> str:
        return os.path.realpath(path)


#: The system's answers.
SYSTEM = FileInfo()


def _chain(path: str) -> list[str]:
    """`path` and every directory above it, up to `/`."""
    found = [path]
    while True:
        parent = os.path.dirname(found[-1])
        if parent == found[-1]:
            return found
        found.append(parent)


def _why_writable(info: os.stat_result, writer: Writer, acl: bool) -> str | None:
    mode = stat.S_IMODE(info.st_mode)
    if info.st_uid == writer.uid:
        return f"is owned by uid {writer.uid}"
    if stat.S_ISDIR(info.st_mode) and mode & stat.S_ISVTX:
        # In a sticky directory, the writer may replace only entries it owns; the entry
        # below this one is judged on its own, owner included.
        return None
    if mode & stat.S_IWOTH:
        return f"is writable by everyone (mode {mode:04o})"
    if mode & stat.S_IWGRP:
        group = f"is writable by group {info.st_gid} (mode {mode:04o})"
        if writer.groups is None:
            return f"{group}, and uid {writer.uid}'s groups are unknown"
        if info.st_gid in writer.groups:
            return f"{group}, one of uid {writer.uid}'s"
        if acl:
            return f"has an ACL that may let uid {writer.uid} write it (mode {mode:04o})"
    return None


def writable_by(path: Path, writer: Writer, info: FileInfo = SYSTEM) -> str | None:
    """Why `writer` could change what `path` holds, or None if it could not.

    Judged for the file and every directory above it — as written and with symbolic
    links resolved, since whoever may write a directory may replace what is in it:
    owned by the writer's uid (an owner may chmod), writable by everyone, writable by
    a group the uid belongs to, or group bits that admit writing under an ACL (whose
    entries are not read). A sticky directory protects the entries the uid does not
    own. Root may write anything. OSError (a missing file) propagates.
    """
    if writer.uid == 0:
        return "uid 0 may write anything"
    absolute = os.path.abspath(path)
    seen: set[str] = set()
    for component in [*_chain(absolute), *_chain(info.realpath(absolute))]:
        if component in seen:
            continue
        seen.add(component)
        status = info.stat(component)
        why = _why_writable(status, writer, info.has_acl(component))
        if why is not None:
            return f"{component} {why}"
    return None


# ------------------------------------------------------------------ the map


def _printable_name(value: object) -> bool:
    return (
        isinstance(value, str)
        and bool(value)
        and all(c.isprintable() and not c.isspace() for c in value)
    )


def load_approvers_map(path: Path) -> dict[str, tuple[str, ...]]:
    """OS user name -> approver names, read strictly from `path` (policy._yaml): a
    mapping whose values are a name or a list of names; anything else is an
    ApproversMapError at its file:line:col. An empty file maps nobody."""
    from policy._yaml import YamlError, load_yaml

    try:
        text = path.read_bytes()
    except OSError as exc:
        raise ApproversMapError(f"approvers_map {path}: cannot read it: {exc.strerror}") from None
    try:
        doc = load_yaml(text, path)
    except YamlError as exc:
        raise ApproversMapError(f"approvers_map {exc}") from None

    def fail(where: tuple[str | int, ...], message: str, *, key: bool = False) -> ApproversMapError:
        mark = doc.key_mark(where) if key else doc.mark(where)
        place = f"{doc.source}:{mark.line}:{mark.col}" if mark else doc.source
        return ApproversMapError(f"approvers_map {place}: {message}")

    if doc.data is None:
        return {}
    if not isinstance(doc.data, dict):
        raise fail((), "expected a mapping of OS user name: [approver names]")
    mapping: dict[str, tuple[str, ...]] = {}
    for user, value in doc.data.items():
        if not _printable_name(user):
            raise fail((user,), f"{user!r} is not an OS user name (a string)", key=True)
        names = [value] if isinstance(value, str) else value
        if not isinstance(names, list) or not names:
            raise fail((user,), f"{user}: expected an approver name or a non-empty list of them")
        for index, name in enumerate(names):
            if not _printable_name(name):
                raise fail(
                    (user, index) if isinstance(value, list) else (user,),
                    f"{user}: {name!r} is not an approver name (a string without spaces)",
                )
        mapping[user] = tuple(names)
    return mapping


# ------------------------------------------------------------------ the identity


def resolve(
    *,
    as_name: str | None = None,
    approvers_map: Path | None = None,
    agent_uid: int | None = None,
    uid: int | None = None,
    info: FileInfo = SYSTEM,
    writer: Callable[[int], Writer] = Writer.of,
    warn: Callable[[str], None] | None = None,
) -> Identity:
    """The identity of the person running this process (real uid `uid`, the
    process's by default) deciding a request filed by `agent_uid`.

    * `as_name`: root acting for somebody — `Identity(root, (as_name,))`; anybody
      else gets IdentityRefused, since their identity is their OS user.
    * `approvers_map`: the user's approver names, if `agent_uid` (this process's uid
      when None) can write neither the file nor a directory above it; otherwise
      `warn` is told why the mapping was refused and the identity is the bare user.
    * neither: the bare OS user.

    ApproversMapError when the file is missing, unreadable or malformed.
    """
    uid = os.getuid() if uid is None else uid
    user = os_user(uid)
    if as_name is not None:
        if uid != 0:
            raise IdentityRefused(
                f"--as is for root acting for somebody; the approver's identity comes from "
                f"the OS user ({user!r}), mapped through the approvers_map setting"
            )
        if not _printable_name(as_name):
            raise IdentityRefused(f"--as {as_name!r}: not an approver name")
        return Identity(user, (as_name,))
    if approvers_map is None:
        return Identity(user, uid=uid)
    agent = uid if agent_uid is None else agent_uid
    try:
        why = writable_by(approvers_map, writer(agent), info)
    except OSError as exc:
        raise ApproversMapError(
            f"approvers_map {approvers_map}: cannot read it: {exc.strerror}"
        ) from None
    if why is not None:
        if warn is not None:
            warn(
                f"approvers_map {approvers_map} is writable by uid {agent} (the agent's: "
                f"{why}): mapping refused; deciding as OS user {user!r}"
            )
        return Identity(user, uid=uid)
    return Identity(user, load_approvers_map(approvers_map).get(user, ()), uid=uid)


def writable_by_self(paths: list[Path]) -> list[tuple[Path, str]]:
    """Those of `paths` this process's uid could rewrite, with why: the path, or
    any directory above it (whoever may write a directory may replace what is in it) —
    owner, mode bits and groups, as `writable_by` judges the
    approvers map. A path that does not exist yet is judged by where it would be made.

    What `policy hook` warns about when a policy names approvers: whatever the agent's
    own uid can write, a same-uid agent can forge (docs/approvals.md, trust model).
    """
    writer = Writer.of(os.getuid())
    found: list[tuple[Path, str]] = []
    for path in paths:
        target = path
        while not target.exists() and target != target.parent:
            target = target.parent
        try:
            why = writable_by(target, writer)
        except OSError:
            continue
        if why is not None:
            found.append((path, why))
    return found
