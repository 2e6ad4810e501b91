"""Policies per team in one service (`service.policies`): which engine decides a call.

Each set names its packs and whom it governs — uids and groups as the kernel names the
Unix socket's peer, project directories as the hook reports them — and gets an engine
of its own (`Engine.with_packs`), sharing the service's decision log, approval store
and attached contracts. A call goes to the first set whose every given criterion
matches its caller; otherwise to the engine of the service's own `packs`. A token
caller has no uid: only a set that names projects alone can match it.

The uid and groups are the kernel's word; the project is the hook's, which is enough:
a caller that names another project only changes the decision of its own call, never
the host's hook, which reports the project the host runs in. Every engine protects
every set's pack files (`protected_paths`), so no team's agent may write another's.
"""

from __future__ import annotations

import os
import posixpath
import threading
import time
from collections.abc import Iterator
from typing import Any

from policy._lazy_dataclass import dataclass

__all__ = ["PolicyRouter", "Team"]

#: Seconds a uid's groups are kept (group changes show within that), and how many uids.
_GROUPS_TTL = 60.0
_GROUPS_LIMIT = 4096


@dataclass(frozen=True, slots=True)
class Team:
    """One set of `service.policies`, resolved: numeric uids and gids."""

    name: str
    engine: Any
    uids: frozenset[int]
    gids: frozenset[int]
    projects: tuple[str, ...]
    settings: Any

    def matches(self, uid: int | None, gids: frozenset[int], project: str | None) -> bool:
        if self.uids and (uid is None or uid not in self.uids):
            return False
        if self.gids and not (gids & self.gids):
            return False
        if self.projects:
            if not project:
                return False
            from wcmatch import glob

            where = posixpath.normpath(project)
            flags = glob.GLOBSTAR | glob.BRACE | glob.DOTGLOB
            # (`/srv/payments/**` is the project too, not only what is below it)
            roots = [p[:-3] for p in self.projects if p.endswith("/**")]
            if where not in roots and not glob.globmatch(where, list(self.projects), flags=flags):
                return False
        return True


def _uid(value: int | str) -> int:
    from policy.service_settings import resolve_uid

    return value if isinstance(value, int) else resolve_uid(value)


def _gid(name: str) -> int:
    import grp

    if name.isdigit():
        return int(name)
    try:
        return grp.getgrnam(name).gr_gid
    except KeyError:
        raise ValueError(f"no group {name!r} on this machine") from None


class PolicyRouter:
    """The service's engines: its own (`default`) and one per team."""

    def __init__(self, default: Any, teams: list[Team]) -> None:
        self.default = default
        self.teams = teams
        self._groups: dict[int, tuple[float, frozenset[int]]] = {}
        self._lock = threading.Lock()

    @classmethod
    def resolve(cls, policy: Any, engine: Any) -> Team:
        """`policy` (a PolicySet) with its users and groups looked up; ValueError
        naming one that does not exist."""
        return Team(
            name=policy.name,
            engine=engine,
            uids=frozenset(_uid(u) for u in policy.uids),
            gids=frozenset(_gid(g) for g in policy.groups),
            projects=tuple(posixpath.normpath(p) if "*" not in p else p for p in policy.projects),
            settings=policy,
        )

    def engines(self) -> Iterator[tuple[str, Any]]:
        """("", the default engine), then (name, engine) of each team."""
        yield "", self.default
        for team in self.teams:
            yield team.name, team.engine

    def engine_for(self, caller: Any) -> Any:
        """The engine that decides for `caller` (a policy.facts.Caller)."""
        if not self.teams:
            return self.default
        uid = caller.uid if caller is not None else None
        project = caller.workspace if caller is not None else None
        gids = self._gids(uid) if uid is not None else frozenset()
        for team in self.teams:
            if team.matches(uid, gids, project):
                return team.engine
        return self.default

    def _gids(self, uid: int) -> frozenset[int]:
        """The uid's primary and supplementary groups (kept `_GROUPS_TTL` seconds)."""
        now = time.monotonic()
        with self._lock:
            kept = self._groups.get(uid)
            if kept is not None and now - kept[0] < _GROUPS_TTL:
                return kept[1]
        import pwd

        try:
            account = pwd.getpwuid(uid)
        except KeyError:
            found: frozenset[int] = frozenset()  # no account: in no group
        else:
            # (an OSError of the account database propagates: the call is refused rather
            # than decided without the team's rules the groups would have chosen)
            found = frozenset(os.getgrouplist(account.pw_name, account.pw_gid))
        with self._lock:
            if len(self._groups) >= _GROUPS_LIMIT:
                self._groups.clear()
            self._groups[uid] = (now, found)
        return found
