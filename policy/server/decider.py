"""One deciding process of `policy serve` (`python -m policy.server.decider FD`): see
`policy.server.deciders`, whose frames it reads and writes on the inherited socket FD.

It builds the engines it is handed (the service's settings and compiled sets), says it
is ready, then answers one call at a time until the socket closes: the body parsed,
decided and rendered as a deciding thread would (`policy.server.bodies.decide_body`,
`judge_event` for a host's event: one whose call needs a person goes back to the
service with its Decision), for the caller the service names. What it counted
(`policy.telemetry`) goes with its answers: the decisions with each, the rest with the
answer after which nothing more is asked of it, or with every 64th while it is kept
busy. Past
`service.max_memory_mb` it says, with each answer, that it leaves: the service starts
another and closes this one's socket once its calls are answered. It exits when the
service's end of the socket closes.
"""

from __future__ import annotations

import os
import signal
import socket
import sys
from typing import Any

import orjson

from policy import telemetry
from policy.codec import to_dict
from policy.errors import InputError
from policy.facts import Caller as FactsCaller
from policy.facts import deciding_for
from policy.server.asker import Asker, SenderRefused
from policy.server.auth import Caller
from policy.server.bodies import decide_body, judge_event
from policy.server.deciders import FrameReader, frame


def _router(init: dict[str, Any], entries: list[bytes]) -> Any:
    """The service's engines, rebuilt from what it handed over: its default one and a
    team's for each `service.policies` entry, routed as the service routes them."""
    from policy.aliases import DEFAULT_ALIASES
    from policy.engine import Engine
    from policy.hosts.hosted import build_hosted
    from policy.packs import cache
    from policy.packs.cel import get_engine
    from policy.server.policies import PolicyRouter
    from policy.settings import Settings

    settings = Settings.model_validate(init["settings"])
    cel = get_engine(settings.cel_engine)
    aliases = DEFAULT_ALIASES.extend(settings.aliases)

    def loaded(entry: bytes) -> Any:
        return cache.loads(entry, cel, aliases) if entry else None

    sets = init["sets"]
    default = Engine(settings, hosted=build_hosted, loaded=loaded(entries[0]))
    default.warm()  # (before the first call: see Engine.warm)
    handed = {s["team"]: (s, entry) for s, entry in zip(sets[1:], entries[1:], strict=True)}
    teams = []
    policies = settings.service.policies if settings.service is not None else []
    for policy in policies:
        given, entry = handed[policy.name]
        engine = default.with_packs(given["packs"], loaded=loaded(entry))
        engine.warm()
        teams.append(PolicyRouter.resolve(policy, engine))
    return PolicyRouter(default, teams)


#: A process kept busy tells what it counted with every this many answers.
_TELL_EVERY = 64


def _asked_again(sock: socket.socket, frames: FrameReader) -> bool:
    """Whether the service has written another call (its first bytes are waiting)."""
    if frames.pending:
        return True
    try:
        return bool(sock.recv(1, socket.MSG_PEEK | socket.MSG_DONTWAIT))
    except OSError:  # (nothing waiting; or the socket failed, which the answer meets)
        return False


def _memory_mb() -> float:
    with open("/proc/self/statm", "rb") as statm:
        pages = int(statm.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / (1 << 20)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    # The service's Ctrl-C reaches its whole process group; the service ends us by
    # closing the socket (and SIGTERM, as a supervisor does, ends us at once).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    sock = socket.socket(fileno=int(args[0]))
    frames = FrameReader(sock)
    header = frames.frame()
    if header is None:
        return 0
    init = orjson.loads(header)
    entries = []
    for _ in init["sets"]:
        entry = frames.frame()
        if entry is None:
            return 1
        entries.append(entry)
    try:
        router = _router(init, entries)
    except Exception as exc:  # noqa: BLE001 - told to the service, which refuses to start
        sock.sendall(frame(orjson.dumps({"error": f"{type(exc).__name__}: {exc}"})))
        return 1
    service = router.default.settings.service
    cap = service.max_memory_mb if service is not None else None
    sock.sendall(frame(orjson.dumps({"ready": True, "pid": os.getpid()})))
    try:
        _serve(sock, frames, router, cap)
    finally:
        for _team, engine in reversed(list(router.engines())):
            engine.close()
    return 0


def _serve(sock: socket.socket, frames: FrameReader, router: Any, cap: int | None) -> None:
    tally = telemetry.Tally()
    answered = 0
    leaving = False
    while True:
        header = frames.frame()
        if header is None:
            return
        body = frames.frame()
        if body is None:
            return
        status, rendered, decision_id, handed_back = answer(router, header, body)
        answered += 1
        # The decisions counted go with every answer: the service has the count of
        # every decision it has an answer for, whatever becomes of this process. The
        # rest (latencies, denials by a limit) goes with the answer after which it has
        # nothing to do, or with every `_TELL_EVERY`th.
        whole = answered % _TELL_EVERY == 0 or not _asked_again(sock, frames)
        changed = tally.take(None if whole else telemetry.EXACT)
        # Past the memory cap it says it leaves: the service writes it nothing more,
        # starts another (as it restarts itself at its own cap), and closes its end
        # once the calls already written are answered — then this ends.
        if not leaving and cap is not None and answered % 64 == 0:
            leaving = _memory_mb() > cap
        told = {
            "status": status,
            "decision_id": decision_id,
            "handed_back": handed_back,
            "telemetry": changed,
            "leaving": leaving,
        }
        sock.sendall(frame(orjson.dumps(told), rendered))


def answer(router: Any, header: bytes, body: bytes) -> tuple[int, bytes, str, bool]:
    """One call the service wrote (its header: for whom, and what; its body as the
    caller sent it), decided: (HTTP status, the rendered answer, the decision id,
    whether it goes back to the service's approvers)."""
    asked = orjson.loads(header)
    facts, who = _who(asked["caller"], asked["asker"])
    status, rendered, decision_id, handed_back = 200, b"", "", False
    try:
        with deciding_for(facts):
            engine = router.engine_for(facts)
            if "host" in asked:  # a host's hook event
                said, decision = judge_event(
                    engine, who, asked["host"], asked["approval"], asked["budget"], body
                )
                if decision is not None:  # (the approvers are the service's part)
                    handed_back, rendered = True, orjson.dumps(to_dict(decision))
                out = None if decision is not None else (said or b"", "")
            else:
                out = decide_body(engine, who, asked["point"], body)
    except InputError as exc:
        return 400, orjson.dumps({"error": str(exc)}), "", False
    except SenderRefused as exc:
        return 403, orjson.dumps({"error": str(exc)}), "", False
    except Exception as exc:  # noqa: BLE001 - the service's 500, as its own handler words it
        message = f"the service failed: {type(exc).__name__}: {exc}"
        return 500, orjson.dumps({"error": message}), "", False
    if out is not None:
        rendered, decision_id = out
    elif not handed_back:
        status, rendered = 202, orjson.dumps({"accepted": True})
    return status, rendered, decision_id, handed_back


def _who(caller: dict[str, Any], fields: dict[str, Any]) -> tuple[FactsCaller, Asker]:
    """(policy.facts.Caller, policy.server.asker.Asker) as the service named them."""
    facts = FactsCaller(
        home=caller["home"],
        workspace=caller["workspace"],
        uid=caller["uid"],
        protected=tuple(caller["protected"]),
        principal=caller["principal"],
        peer=caller["peer"],
        may_file=caller["may_file"],
    )
    identity = fields["identity"]
    who = Asker(
        principal=fields["principal"],
        user=fields["user"],
        uid=fields["uid"],
        peer=fields["peer"],
        identity=None
        if identity is None
        else Caller(
            identity["name"],
            frozenset(identity["roles"]),
            tuple(identity["approver_names"]),
            identity["via"],
            identity["uid"],
            tuple(identity["senders"]),
        ),
    )
    return facts, who


if __name__ == "__main__":
    raise SystemExit(main())
