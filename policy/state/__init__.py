"""State that must outlive one hook process: rate-limit counters and contract usage.

Claude Code and Agentao start `policy hook claude|agentao` once per event, so nothing
a policy must remember between calls may live in that process's memory (DESIGN §8).
By default it lives in one SQLite file under the data dir, `<data_dir>/state.db`,
that every process of the machine shares without a daemon:

* `sqlite:///PATH` is a storage backend of the `limits` library
  (`policy.state.sqlite_limits.SQLiteStorage`, registered under the scheme `sqlite`),
  so `tool_policy`'s three strategies run on it unchanged;
* contract usage (calls admitted and the first call's time per session and contract)
  is a table of the same file (`policy.state.contracts`);
* each operation is one `BEGIN IMMEDIATE` transaction, so two processes never both
  take the last call of a budget.

`memory://` stays for one long-lived process (the Python API, `policy hook picoclaw`,
`policy hook openclaw`); a one-event hook refuses it when a pack needs state
(`check_per_event`), rather than let every counter reset with every event.
`redis://` shares both across machines.

This module imports nothing heavy: `sqlite3` and `limits` wait for the first call that
meets a rate limit or a counted contract.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from policy.errors import PolicyError, SettingsError

if TYPE_CHECKING:
    from policy.state.contracts import UsageStore

__all__ = [
    "MemoryStateError",
    "StateError",
    "check_per_event",
    "contract_usage",
    "limits_storage",
    "path_from_uri",
    "state_needs",
]

#: Stores that keep contract usage atomically besides SQLite (policy.state.contracts).
_REDIS_SCHEMES = ("redis", "rediss", "redis+unix")


class StateError(PolicyError):
    """The shared state cannot be opened, read or written (the governed call is denied)."""


class MemoryStateError(SettingsError):
    """A one-event hook was configured to keep its state in its own memory."""


def path_from_uri(uri: str) -> Path:
    """The file `sqlite:///PATH` names (`sqlite:////abs/x.db`, `sqlite:///rel/x.db`)."""
    prefix = "sqlite:///"
    raw = uri[len(prefix) :] if uri.startswith(prefix) else ""
    if not raw:
        raise StateError(
            f"state store {uri!r}: expected sqlite:///PATH "
            "(sqlite:////abs/path.db or sqlite:///relative/path.db)"
        )
    if raw == ":memory:" or raw.startswith("file:"):
        raise StateError(f"state store {uri!r}: use memory:// for state in one process")
    return Path(raw)


def limits_storage(uri: str, clock: Callable[[], float] | None = None) -> Any:
    """The `limits` storage at `uri`: ours for `sqlite:///`, limits' own for the rest.

    `clock` (epoch seconds) replaces the system clock; only our SQLite storage takes
    one (limits' own read `time.time()`), so any other store with a clock is refused
    rather than counting in a time the caller did not ask for."""
    if uri.startswith("sqlite:"):
        from policy.state.sqlite_limits import SQLiteStorage

        return SQLiteStorage(uri, clock=clock)
    if clock is not None:
        scheme = uri.split("://", 1)[0]
        raise StateError(
            f"limits_storage_uri {scheme}:// cannot count in a given clock "
            "(policy replay, a pack test's `now:`); use sqlite:///PATH"
        )
    from limits.storage import storage_from_string

    return storage_from_string(uri)


def contract_usage(uri: str, clock: Callable[[], float] | None = None) -> UsageStore | None:
    """Where contract usage is kept for the state store `uri`; None for `memory://`
    (the registry keeps it itself) and for stores that cannot keep it atomically
    (memcached, mongodb, redis cluster and sentinel: see `unsupported_usage`)."""
    scheme = uri.split("://", 1)[0] if "://" in uri else ""
    if scheme == "sqlite":
        from policy.state.contracts import SQLiteUsage
        from policy.state.db import shared_state

        return SQLiteUsage(shared_state(path_from_uri(uri)), clock)
    if scheme in _REDIS_SCHEMES:
        from policy.state.contracts import RedisUsage

        return RedisUsage(uri, clock)
    return None


def unsupported_usage(uri: str, contract_id: str) -> str:
    """Why a contract with max_tool_calls or max_runtime cannot be counted in `uri`."""
    scheme = uri.split("://", 1)[0] if "://" in uri else uri
    return (
        f"contract {contract_id!r}: limits_storage_uri is {scheme}://, which cannot keep "
        "contract usage (max_tool_calls, max_runtime) atomically; use the default "
        "(sqlite under data_dir), redis:// or memory:// (one process)"
    )


def state_needs(hooks: Iterable[object]) -> list[str]:
    """What the builtins among `hooks` must remember from one call to the next, each
    said as "the rate limit 10/minute in pack 'gate'" (their `state_needed`)."""
    needs: list[str] = []
    for hook in hooks:
        needed = getattr(hook, "state_needed", "")
        if isinstance(needed, str) and needed:
            needs.append(needed)
    return needs


def check_per_event(engine: Any) -> None:
    """Refuse an engine of a one-event hook whose state would die with the process.

    `policy hook claude|agentao` runs once per event: with `limits_storage_uri:
    memory://` every counter starts from zero at every call, so a rate limit or a
    contract's max_tool_calls / max_runtime would never hold. MemoryStateError names
    the setting and what it would break; the hook answers every call with it.
    """
    uri = str(engine.settings.state_store_uri)
    if not uri.startswith("memory:"):
        return
    needs = state_needs(engine.hooks)
    if not needs:
        return
    what = "; ".join(needs)
    raise MemoryStateError(
        f"limits_storage_uri is memory://: counters would reset with every hook process, "
        f"so {what} would never hold; use the default (sqlite under data_dir) or redis://"
    )
