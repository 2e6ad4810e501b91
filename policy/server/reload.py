"""New revisions of the packs, taken by a running service without dropping a call.

Three things ask for a reload — SIGHUP, `POST /v1/packs/reload` (an operator) and,
with `--watch`, a change to a pack file — and all go through `PackReloader.reload`,
one at a time. A set that compiles replaces the one in place in one step
(`Engine.reload_packs`: decisions under way finish on the set they started with, and
their log lines name it) and is kept as the last good set for the next start
(`policy.packs.last_good`). A set that fails changes nothing that decides: the last
good set keeps serving, the error is logged, shown at `/v1/packs` and `/readyz`
(`degraded`: the replica stays in its load balancer) and counted.
"""

from __future__ import annotations

import os
import stat
import threading
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from policy._lazy_dataclass import dataclass, field

__all__ = ["PackReloader", "Reloaded", "foreign_writers", "watch_packs"]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class Reloaded:
    """What one reload did: `error` is "" when the new set is in place."""

    trigger: str
    packs: dict[str, str]
    error: str = ""
    #: The files are those of the set in place, which stays.
    unchanged: bool = False

    def as_json(self) -> dict[str, Any]:
        return {
            "status": "failed" if self.error else "unchanged" if self.unchanged else "reloaded",
            "trigger": self.trigger,
            "packs": self.packs,
            **({"error": self.error} if self.error else {}),
        }


@dataclass(slots=True)
class _Counts:
    reloads: int = 0
    failures: int = 0
    by_trigger: dict[str, int] = field(default_factory=dict)


class PackReloader:
    """The service's packs over time: which sets serve, since when, and why newer ones
    do not (`error`). One reload compiles every engine's packs again — the service's
    own and each team's (`service.policies`) — each keeping its last good set when its
    new one fails."""

    def __init__(
        self,
        engine: Any,
        log: Any,
        *,
        keep: Callable[[Any], object] | None = None,
        error: str = "",
        engines: Callable[[], Iterable[tuple[str, Any]]] | None = None,
    ) -> None:
        """`keep(engine)` keeps the set an engine loaded as its last good one; `error`
        is why a set serving at the start is not the packs on disk (a start from the
        last good set); `engines()` names every engine, ("", `engine`) first (default:
        `engine` alone). `changed` (settable later) is called after a reload that
        changed what an engine serves: the deciding processes are replaced."""
        self._engine = engine
        self._engines = engines if engines is not None else (lambda: [("", engine)])
        self._log = log
        self._keep = keep
        self._lock = threading.Lock()
        self.loaded_at = _now()
        self.error = error
        self.failed_at = self.loaded_at if error else ""
        self.counts = _Counts()
        self.changed: Callable[[], object] | None = None

    @property
    def degraded(self) -> bool:
        return bool(self.error)

    def packs(self) -> dict[str, str]:
        """Every engine's packs: a team's as `team/pack`."""
        return {
            (f"{team}/{name}" if team else name): label
            for team, engine in self._engines()
            for name, label in engine.packs.items()
        }

    def reload(self, trigger: str) -> Reloaded:
        """Compile the packs again and put them in place; never raises: a failure is
        the returned `error`, and the sets in place stay."""
        from policy.errors import PolicyError

        with self._lock:
            before = self.packs()
            errors: list[str] = []
            for team, engine in self._engines():
                try:
                    engine.reload_packs()
                except (PolicyError, OSError) as exc:
                    errors.append(f"policy {team}: {exc}" if team else str(exc))
                except Exception as exc:  # noqa: BLE001 - any failure keeps the last good set
                    failed = f"{type(exc).__name__}: {exc}"
                    errors.append(f"policy {team}: {failed}" if team else failed)
                else:
                    self._kept(engine)
            packs = self.packs()
            if packs != before and self.changed is not None:
                # (a failure may still have changed another team's set)
                self.changed()
            if errors:
                return self._failed(trigger, "\n".join(errors), packs)
            self.error = ""  # what is on disk now serves
            self.failed_at = ""
            if packs == before:
                self._log.info("packs unchanged", trigger=trigger)
                return Reloaded(trigger, packs, unchanged=True)
            self.loaded_at = _now()
            self.counts.reloads += 1
            self.counts.by_trigger[trigger] = self.counts.by_trigger.get(trigger, 0) + 1
            self._log.info("packs reloaded", trigger=trigger, packs=packs)
            self._engine.note("packs_reloaded", {"trigger": trigger, "packs": packs})
            return Reloaded(trigger, packs)

    def kept_at_start(self) -> None:
        """Keep the sets the service started with as the last good ones (not those
        that are themselves last good sets standing in for broken packs)."""
        if not self.error:
            for _team, engine in self._engines():
                self._kept(engine)

    def _kept(self, engine: Any) -> None:
        if self._keep is None or engine.loaded_packs is None:
            return
        try:
            self._keep(engine)
        except Exception as exc:  # noqa: BLE001 - not kept only means no fallback at the next start
            self._log.warning("last good packs not kept", error=f"{type(exc).__name__}: {exc}")

    def _failed(self, trigger: str, error: str, packs: dict[str, str]) -> Reloaded:
        self.error = error
        self.failed_at = _now()
        self.counts.failures += 1
        self._log.error(
            "packs not reloaded; the last good set keeps serving",
            trigger=trigger,
            error=error,
            packs=packs,
        )
        self._engine.note(
            "packs_reload_failed", {"trigger": trigger, "error": error[:4096], "packs": packs}
        )
        return Reloaded(trigger, packs, error)


# ------------------------------------------------------------------ watching


def foreign_writers(paths: Iterable[Path]) -> list[str]:
    """The pack files and directories at `paths` that a user other than this process's
    could write: whoever can write them can change what the service enforces."""
    me = os.geteuid()
    found: list[str] = []
    for top in paths:
        candidates = [top]
        if top.is_dir():
            candidates.extend(
                p for p in top.rglob("*") if p.suffix in (".yaml", ".yml") or p.is_dir()
            )
        for path in candidates:
            try:
                st = path.lstat()
            except OSError:
                continue
            others = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
            owner = st.st_uid != me and st.st_mode & stat.S_IWUSR
            if others or owner:
                found.append(str(path))
    return found


#: Quiet time after the last change before a reload (ms): an editor's save is several
#: events (write, rename, chmod), a `git pull` many.
_DEBOUNCE_MS = 200
#: How often the watching thread wakes without a change (ms): the first wake says the
#: watches are in place; the others look at `stop`.
_WAKE_MS = 200
#: How long a start waits for the watches to be in place (seconds).
_ARMING_SECONDS = 10.0


def watch_packs(
    paths: Sequence[Path], reload: Callable[[str], object], stop: threading.Event, log: Any
) -> bool:
    """Reload (`reload("watch")`) after the pack files at `paths` change — written,
    replaced, added or removed — on a daemon thread, until `stop` is set; whether the
    watches were in place within `_ARMING_SECONDS`. Directories are watched whole; a
    file given by name through its directory, so an editor that saves by renaming a
    new file into place is seen too. Once the watches are in place the packs are
    compared with the set loaded once (a change made while the service was starting
    is not missed); an unchanged set is left as it is."""
    import watchfiles

    files = {p.resolve() for p in paths if not p.is_dir()}
    dirs = [p.resolve() for p in paths if p.is_dir()]
    roots = sorted({*dirs, *(f.parent for f in files)})
    armed = threading.Event()

    def relevant(_change: Any, name: str) -> bool:
        path = Path(name)
        if path in files:
            return True
        return any(path.is_relative_to(d) for d in dirs) and path.suffix in (".yaml", ".yml")

    def run() -> None:
        try:
            watching()
        except Exception as exc:
            log.exception("the pack watch stopped", error=f"{type(exc).__name__}: {exc}")

    def watching() -> None:
        for changes in watchfiles.watch(
            *roots,
            watch_filter=relevant,
            debounce=_DEBOUNCE_MS,
            step=50,
            stop_event=stop,
            rust_timeout=_WAKE_MS,
            yield_on_timeout=True,
            raise_interrupt=False,
        ):
            if not armed.is_set():
                armed.set()
                reload("watch")
            elif changes:
                reload("watch")

    threading.Thread(target=run, name="hookpolicy-watch", daemon=True).start()
    return armed.wait(_ARMING_SECONDS)
