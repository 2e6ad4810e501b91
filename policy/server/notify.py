"""Approvers are told: a message on every new approval request, decision and expiry.

Nobody polls `policy approvals list`. When the approval store (through this service)
files a request, records a person's answer or expires a request nobody answered, a
message goes to each configured sink (`service.notify`): a generic webhook (JSON,
signed), a Slack- or Teams-compatible incoming webhook, or a command given the JSON
on its standard input. Each message carries the call masked as in the decision log,
the rules that asked and their message, who asked, the deadline and a link to the
inbox (`service.public_url`), where signed-in approvers see the call in full.

Sending never holds up a decision: the store's listener only queues (a bounded queue
per sink; a full one drops the oldest-to-come message and counts it), and a thread
per sink sends, retrying with exponential backoff — a slow or dead receiver delays
only its own messages.

The webhook signature: `X-Hookpolicy-Timestamp: <unix seconds>` and
`X-Hookpolicy-Signature: sha256=<hex HMAC-SHA256(secret, timestamp + "." + body)>`;
a receiver recomputes it over the raw body and refuses a timestamp too far from its
clock (a replay). docs/service.md#approvers-are-told.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import queue
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from policy import telemetry

__all__ = ["Notifier", "message_of", "sign"]

#: Messages waiting per sink; past it new ones are dropped (and counted).
_QUEUE = 1000


def sign(secret: bytes, timestamp: str, body: bytes) -> str:
    """The `X-Hookpolicy-Signature` value of `body` sent at `timestamp`."""
    mac = hmac.new(secret, timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + mac.hexdigest()


def _iso(seconds: float | None) -> str | None:
    if seconds is None:
        return None
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def message_of(event: str, request: Any, public_url: str | None) -> dict[str, Any]:
    """The JSON every sink is built from: the request as an approver needs it, the
    call's arguments masked as in the decision log."""
    from policy.audit import mask_args

    link = None
    if public_url:
        link = public_url.rstrip("/") + "/requests/" + request.id
    return {
        "event": event,
        "id": request.id,
        "state": request.state,
        "tool": request.tool,
        "args": mask_args(request.args),
        "cwd": request.cwd,
        "rules": list(request.rules),
        "message": request.message,
        "requester": request.requester,
        "principal": request.principal,
        "session": request.session,
        "pack": request.pack,
        "approvers": list(request.approvers),
        "created": _iso(request.created),
        "deadline": _iso(request.deadline),
        "decided_by": request.decided_by or None,
        "decided_at": _iso(request.decided_at),
        "reason": request.reason or None,
        "grant": request.grant if request.state == "approved" else None,
        "link": link,
    }


def _summary(message: dict[str, Any], escape: Callable[[str], str]) -> str:
    """What a person reads in a chat: what, who, until when. Every text the agent or
    its host chose goes through `escape` (the chat's markup) after hidden characters
    are made visible; the link is the service's own."""
    from policy._visible import visible

    def shown(value: object) -> str:
        return escape(visible(str(value)))

    call = orjson.dumps(message["args"]).decode()
    if len(call) > 300:
        call = call[:300] + "…"
    rules = ", ".join(message["rules"]) or message["pack"]
    who = message["requester"] or message["principal"] or "?"
    event = message["event"]
    if event == "request":
        head = f"Approval needed: {shown(message['tool'])} {shown(call)}"
        tail = f"asked by {shown(who)}; rules {shown(rules)}; answer by {message['deadline']}"
    elif event == "decision":
        head = f"Approval {message['state']}: {shown(message['tool'])} {shown(call)}"
        tail = f"by {shown(message['decided_by'] or '?')}"
        if message["reason"]:
            tail += f": {shown(message['reason'])}"
    else:
        head = f"Approval expired unanswered (denied): {shown(message['tool'])} {shown(call)}"
        tail = f"asked by {shown(who)}"
    text = f"{head}\n{tail}"
    if message["message"]:
        text += f"\n{shown(message['message'])}"
    if message["link"]:
        text += f"\n{message['link']}"
    return text


def _slack_escape(text: str) -> str:
    """Slack's own escaping: `&`, `<`, `>` (so `<!channel>` and `<url|label>` stay text)."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_MARKDOWN = frozenset("\\`*_{}[]()#+-.!|<>~")


def _markdown_escape(text: str) -> str:
    """Teams' Markdown, escaped character by character (no link, emphasis or heading
    the agent wrote is rendered as one), and its HTML: `&`, `<`, `>` as entities."""
    escaped = "".join("\\" + c if c in _MARKDOWN else c for c in text)
    return escaped.replace("&", "&amp;").replace("\\<", "&lt;").replace("\\>", "&gt;")


def _body_for(kind: str, message: dict[str, Any]) -> bytes:
    if kind == "slack":
        return orjson.dumps({"text": _summary(message, _slack_escape)})
    if kind == "teams":
        return orjson.dumps(
            {
                "@type": "MessageCard",
                "@context": "https://schema.org/extensions",
                "summary": f"hookpolicy: approval {message['event']}",
                "text": _summary(message, _markdown_escape).replace("\n", "\n\n"),
            }
        )
    return orjson.dumps(message)


class _Sink:
    """One configured sink: its queue and the thread that empties it."""

    def __init__(
        self,
        settings: Any,
        log: Any,
        backoff: Callable[[int], float],
        stopping: threading.Event,
    ) -> None:
        self.settings = settings
        self._log = log
        self._backoff = backoff
        self._stopping = stopping
        self.events = frozenset(settings.events)
        self._secret: bytes | None = None
        if settings.kind == "webhook":
            if settings.secret is not None:
                self._secret = settings.secret.encode()
            else:
                from policy.server.secret_files import read_secret

                self._secret = read_secret(settings.secret_file, "notify.secret_file")
                if not self._secret:
                    raise ValueError(f"notify: {settings.secret_file} is empty")
        self.queue: queue.Queue[dict[str, Any] | None] = queue.Queue(_QUEUE)
        self.thread = threading.Thread(
            target=self._run, name=f"hookpolicy-notify-{settings.kind}", daemon=True
        )
        self.thread.start()

    def reaches(self, request: Any) -> bool:
        """Whether this sink's people may decide `request` (its approver globs name one
        of the sink's `approvers`, or name nobody)."""
        names = self.settings.approvers
        if names is None or not request.approvers:
            return True
        from wcmatch import fnmatch as wfnmatch

        patterns = list(request.approvers)
        flags = wfnmatch.BRACE | wfnmatch.DOTMATCH
        return any(wfnmatch.fnmatch(name, patterns, flags=flags) for name in names)

    def put(self, message: dict[str, Any]) -> None:
        try:
            self.queue.put_nowait(message)
        except queue.Full:
            telemetry.NOTIFICATIONS.inc(self.settings.kind, "dropped")
            self._log.error(
                "notification dropped: the sink's queue is full",
                sink=self.settings.kind,
                request=message["id"],
            )

    def _run(self) -> None:
        while True:
            message = self.queue.get()
            if message is None:
                return
            self._deliver(message)

    def _deliver(self, message: dict[str, Any]) -> None:
        kind = self.settings.kind
        for attempt in range(self.settings.attempts):
            if attempt and self._stopping.wait(self._backoff(attempt)):
                break  # stopping: no more waiting between tries
            try:
                self._send(message)
            except Exception as exc:  # noqa: BLE001 - retried, then dropped and logged
                self._log.warning(
                    "notification not delivered",
                    sink=kind,
                    request=message["id"],
                    attempt=attempt + 1,
                    error=f"{type(exc).__name__}: {exc}",
                )
                continue
            telemetry.NOTIFICATIONS.inc(kind, "sent")
            return
        telemetry.NOTIFICATIONS.inc(kind, "failed")
        self._log.error(
            "notification given up", sink=kind, request=message["id"], about=message["event"]
        )

    def _send(self, message: dict[str, Any]) -> None:
        settings = self.settings
        body = _body_for(settings.kind, message)
        if settings.kind == "command":
            done = subprocess.run(
                settings.command,
                input=body,
                capture_output=True,
                timeout=settings.timeout_seconds,
                check=False,
            )
            if done.returncode != 0:
                raise RuntimeError(
                    f"exit status {done.returncode}: {done.stderr[-500:].decode(errors='replace')}"
                )
            return
        headers = {"Content-Type": "application/json", "User-Agent": "hookpolicy"}
        if self._secret is not None:
            stamp = str(int(time.time()))
            headers["X-Hookpolicy-Timestamp"] = stamp
            headers["X-Hookpolicy-Signature"] = sign(self._secret, stamp, body)
            headers["X-Hookpolicy-Event"] = message["event"]
        _post(settings.url, body, headers, settings.timeout_seconds)

    def close(self, wait: float) -> None:
        with contextlib.suppress(queue.Full):  # (full: it ends when the queue does)
            self.queue.put_nowait(None)
        self.thread.join(wait)


def _post(url: str, body: bytes, headers: dict[str, str], seconds: float) -> None:
    """POST `body` to `url`; raise unless the answer is 2xx. The whole attempt —
    connecting, sending, the answer's status and headers — is cut at `seconds` (a
    receiver that answers a byte at a time does not hold the sink longer)."""
    import http.client
    import ssl
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection: http.client.HTTPConnection
    if parts.scheme == "https":
        connection = http.client.HTTPSConnection(
            parts.hostname or "", parts.port, timeout=seconds,
            context=ssl.create_default_context(),
        )
    else:
        connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=seconds)
    finished = threading.Event()
    timers: list[threading.Timer] = []

    def cut() -> None:
        if finished.is_set():
            return
        sock = connection.sock
        if sock is not None:  # (shutdown wakes a recv blocked in the sending thread)
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        # Not connected yet (or again): try again soon, until the attempt is over.
        later = threading.Timer(0.05, cut)
        later.daemon = True
        timers.append(later)
        later.start()

    deadline = threading.Timer(seconds, cut)
    deadline.daemon = True
    timers.append(deadline)
    deadline.start()
    try:
        path = parts.path or "/"
        if parts.query:
            path += "?" + parts.query
        connection.request("POST", path, body=body, headers=headers)
        answer = connection.getresponse()
        if not 200 <= answer.status < 300:
            raise RuntimeError(f"{answer.status} {answer.reason}")
    finally:
        finished.set()
        for timer in timers:
            timer.cancel()
        connection.close()


def _default_backoff(attempt: int) -> float:
    return min(30.0, 0.5 * 2.0 ** (attempt - 1))


class Notifier:
    """The sinks of `service.notify`; `tell` is the approval store's listener."""

    def __init__(
        self,
        sinks: Sequence[Any],
        public_url: str | None,
        log: Any,
        *,
        backoff: Callable[[int], float] = _default_backoff,
    ) -> None:
        """`backoff(attempt)`: seconds before try number `attempt` + 1 (tests pass a
        short one)."""
        self._public_url = public_url
        self._stopping = threading.Event()
        self._sinks = [_Sink(s, log, backoff, self._stopping) for s in sinks]

    def tell(self, event: str, request: Any) -> None:
        """Queue the message about `event` for every sink that wants it; returns at once."""
        wanted = [sink for sink in self._sinks if event in sink.events and sink.reaches(request)]
        if not wanted:
            return
        message = message_of(event, request, self._public_url)
        for sink in wanted:
            sink.put(message)

    def close(self, wait: float = 5.0) -> None:
        """Send what is queued (no more retries), for at most `wait` seconds a sink."""
        self._stopping.set()
        for sink in self._sinks:
            sink.close(wait)
