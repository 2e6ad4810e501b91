"""Which calls PicoClaw will ask `hook.approve_tool` about, and what our before_tool
decided for each (`policy hook picoclaw`).

PicoClaw (upstream `pkg/agent/pipeline_execute.go`) runs a turn's tool calls one after
another, and for each one that every interceptor let through it calls
`hook.approve_tool` with the final call, whether or not our `before_tool` asked for
approval. So `before_tool` writes down what it decided here: a call it sent to
approval, with the gates that name who approves, or a call it passed. `approve_tool`
takes one such entry — the same session, turn, iteration and final arguments — and
asks the approvers for an asked call, approves a passed one, and refuses a call it
never saw (another hook changed it after ours, or a host is skipping before_tool).
Identical calls are counted, so each needs its own decision (or a grant).
"""

from __future__ import annotations

import threading
from collections import OrderedDict, deque
from typing import Any

__all__ = ["PASSED_KEPT", "PENDING_MAX", "Key", "Ledger", "TooManyPending", "Turn", "key_of"]

#: Calls waiting for approval (asked by before_tool, not yet decided) at most; past it a
#: call that needs approval is denied at before_tool. Asks are never forgotten to make room.
PENDING_MAX = 1024
#: Calls before_tool passed that are remembered until their approve_tool; past it the
#: oldest are forgotten (their approve_tool is then refused: fail closed).
PASSED_KEPT = 4096

Turn = tuple[str, str, str]  # agent, session, turn
Key = tuple[Turn, int | None, str]  # the turn, its iteration, the final call's digest


class TooManyPending(Exception):
    """More calls wait for approval than PENDING_MAX."""


def _iteration(call: Any) -> int | None:
    value = call.meta.get("Iteration")  # HookMeta has no JSON tags: Go field names
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def key_of(call: Any, tool: str, final: Any) -> Key:
    """`call` as PicoClaw sent it (who, which turn and iteration); `tool` the host's
    name for it; `final` the call that runs (its arguments and directory)."""
    from policy.approvals.store import call_digest

    turn = (call.agent, call.session, call.turn)
    return (turn, _iteration(call), call_digest(tool, final.args, final.cwd))


class _TurnEntries:
    """A turn's keys in the ledger, and the latest iteration it was seen at."""

    __slots__ = ("iteration", "keys")

    def __init__(self, iteration: int | None) -> None:
        self.iteration = iteration
        self.keys: set[Key] = set()


class Ledger:
    """What before_tool decided about the calls PicoClaw will ask approve_tool about.

    Counted, not a set: two identical calls asked twice need two decisions. Asks are
    kept until their approve_tool; passed calls are forgotten oldest first past
    `PASSED_KEPT`. A turn's entries go when the turn moves to a later iteration
    (PicoClaw asks approve_tool within the iteration, so what is left was denied by
    another hook and will never be asked about) or ends (`agent.turn.end`).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._asks: dict[Key, deque[tuple[Any, ...]]] = {}  # key -> gates of each ask
        self._passed: OrderedDict[Key, int] = OrderedDict()
        self._turns: dict[Turn, _TurnEntries] = {}
        self._waiting = 0  # asks not yet taken by approve_tool
        self._deciding = 0  # asks taken, the approvers not done yet

    def ask(self, key: Key, gates: tuple[Any, ...]) -> None:
        with self._lock:
            self._advance(key)
            if self._waiting + self._deciding >= PENDING_MAX:
                raise TooManyPending(self._waiting + self._deciding)
            self._index(key)
            self._asks.setdefault(key, deque()).append(gates)
            self._waiting += 1

    def passed(self, key: Key) -> None:
        with self._lock:
            self._advance(key)
            self._index(key)
            self._passed[key] = self._passed.get(key, 0) + 1
            self._passed.move_to_end(key)
            while len(self._passed) > PASSED_KEPT:
                old, _ = self._passed.popitem(last=False)
                self._settle(old)

    def take(self, key: Key) -> tuple[str, tuple[Any, ...]]:
        """("asked", its gates), ("passed", ()) or ("unseen", ()); one entry used up.
        An asked call counts as pending until `done()`."""
        with self._lock:
            asks = self._asks.get(key)
            if asks:
                gates = asks.popleft()
                if not asks:
                    del self._asks[key]
                self._waiting -= 1
                self._deciding += 1
                self._settle(key)
                return "asked", gates
            count = self._passed.get(key, 0)
            if count:
                if count == 1:
                    del self._passed[key]
                else:
                    self._passed[key] = count - 1
                self._settle(key)
                return "passed", ()
        return "unseen", ()

    def done(self) -> None:
        with self._lock:
            self._deciding -= 1

    def end_turn(self, turn: Turn) -> None:
        with self._lock:
            self._forget(turn, None)

    def _advance(self, key: Key) -> None:
        """`key`'s turn is at `key`'s iteration: forget its earlier iterations' calls."""
        turn, iteration, _ = key
        entries = self._turns.get(turn)
        if entries is None or iteration is None:
            return
        if entries.iteration is None or iteration > entries.iteration:
            self._forget(turn, iteration)
            entries.iteration = iteration

    def _index(self, key: Key) -> None:
        entries = self._turns.get(key[0])
        if entries is None:
            entries = self._turns[key[0]] = _TurnEntries(key[1])
        entries.keys.add(key)

    def _forget(self, turn: Turn, before: int | None) -> None:
        """Drop `turn`'s entries (of iterations before `before`, or all of them)."""
        entries = self._turns.get(turn)
        if entries is None:
            return
        for key in list(entries.keys):
            if before is not None and (key[1] is None or key[1] >= before):
                continue
            dropped = self._asks.pop(key, None)
            if dropped:
                self._waiting -= len(dropped)
            self._passed.pop(key, None)
            entries.keys.discard(key)
        if not entries.keys:
            del self._turns[turn]

    def _settle(self, key: Key) -> None:
        """Unindex `key` once nothing is left under it."""
        if key in self._asks or key in self._passed:
            return
        entries = self._turns.get(key[0])
        if entries is None:
            return
        entries.keys.discard(key)
        if not entries.keys:
            del self._turns[key[0]]
