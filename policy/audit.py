"""The decision log: one hash-chained JSON line per decision.

Each record is stamped (`ts`, ISO UTC) and rendered with orjson; the sink seals
each rendered line into the chain (see `audit_chain`) and writes it with one
`write` under an exclusive `flock`, so several processes can append to one file
(each `policy hook claude` is its own process) without forking the chain. The
pipeline is written out here rather than run through structlog, whose import
alone (≈ 75 ms) was most of a one-event hook's budget (docs/decisions/0011).

Arguments are masked by default: values under secret-looking keys, and
secret-looking substrings (tokens, keys, passwords in commands and URLs) inside
any string, become `***`, and long strings are cut. `audit_capture_args` logs
them verbatim instead. The args digest is always of the real arguments.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import itertools
import os
import re
import sys
import threading
import time
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import IO, Any, BinaryIO

import orjson

from policy.audit_chain import GENESIS, last_hash_of_open, make_digest, seal
from policy.digest import args_digest, json_safe
from policy.errors import AuditError
from policy.model import (
    Action,
    ApprovalDecision,
    Decision,
    HookPoint,
    LLMRequest,
    LLMResponse,
    Prompt,
    ToolCall,
    ToolResult,
)

__all__ = ["MASK", "DecisionLog", "mask_args", "mask_text", "new_decision_id"]

MASK = "***"
_MAX_STRING = 256
_MAX_ITEMS = 64
_MAX_DEPTH = 8

_SECRET_KEY = re.compile(
    r"(?i)(passw(or)?d|passwd|secret|token|api[-_]?key|access[-_]?key|private[-_]?key|"
    r"credential|authorization|cookie|session[-_]?key)"
)
# (prefix kept, secret masked) pairs, one alternation so each string is scanned once.
_SECRET_TEXT = re.compile(
    r"(?P<pem>-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|$))"
    r"|(?P<aws>\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)"
    r"|(?P<gh>\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}))"
    r"|(?P<sk>\bsk-[A-Za-z0-9_-]{16,})"
    r"|(?P<slack>\bxox[abposr]-[A-Za-z0-9-]{10,})"
    r"|(?P<gapi>\bAIza[0-9A-Za-z_-]{35})"
    r"|(?P<jwt>\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,})"
    r"|(?P<bearer_p>(?i:bearer)\s+)(?P<bearer>[A-Za-z0-9._~+/=-]{8,})"
    r"|(?P<url_p>://[^/\s:@]+:)(?P<url>[^@\s/]+)(?=@)"
    r"|(?P<flag_p>--?(?i:password|passwd|token|secret|api[-_]?key)[= ])(?P<flag>\S+)"
    r"|(?P<assign_p>\b[A-Za-z0-9_]*(?i:password|passwd|secret|token|api_?key|access_?key|private_?key)"
    r"[A-Za-z0-9_]*\s*[=:]\s*)(?P<assign>\"[^\"]*\"|'[^']*'|[^\s;&|]+)"
)
_KEEP_PREFIX = {"bearer": "bearer_p", "url": "url_p", "flag": "flag_p", "assign": "assign_p"}


def _mask_match(match: re.Match[str]) -> str:
    for value_group, prefix_group in _KEEP_PREFIX.items():
        if match.group(value_group) is not None:
            return match.group(prefix_group) + MASK
    return MASK


def mask_text(text: str, *, limit: int = _MAX_STRING) -> str:
    """Mask secret-looking substrings and cut the text to `limit` characters."""
    masked = _SECRET_TEXT.sub(_mask_match, text)
    if len(masked) > limit:
        return f"{masked[:limit]}…(+{len(masked) - limit} chars)"
    return masked


def _mask(value: Any, depth: int) -> Any:
    if isinstance(value, str):
        return mask_text(value)
    if isinstance(value, bool | int | float) or value is None:
        return value
    if depth >= _MAX_DEPTH:
        return "…"
    if isinstance(value, Mapping):
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            if index >= _MAX_ITEMS:
                out["…"] = f"+{len(value) - _MAX_ITEMS} keys"
                break
            name = str(key)
            out[name] = MASK if _SECRET_KEY.search(name) else _mask(item, depth + 1)
        return out
    if isinstance(value, list | tuple):
        items = [_mask(item, depth + 1) for item in value[:_MAX_ITEMS]]
        if len(value) > _MAX_ITEMS:
            items.append(f"…(+{len(value) - _MAX_ITEMS} items)")
        return items
    return mask_text(repr(value))


def mask_args(args: Mapping[str, Any]) -> dict[str, Any]:
    """A copy of `args` safe to log: secrets masked, long values cut."""
    masked = _mask(args, 0)
    assert isinstance(masked, dict)
    return masked


_now = _dt.datetime.now
_UTC = _dt.UTC
_id_counter = itertools.count()
_id_prefix = int.from_bytes(os.urandom(3)) << 24
_next_id = _id_counter.__next__
_time_ns = time.time_ns


def new_decision_id() -> str:
    """Time-ordered, unique: ns timestamp, a per-process random prefix, a counter."""
    # 28 hex digits: 16 of time, 6 of prefix, 6 of counter; as one int, since
    # int -> bytes -> hex costs 0.3 µs where string formatting costs 0.5.
    return ((_time_ns() << 48) | _id_prefix | (_next_id() & 0xFFFFFF)).to_bytes(14).hex()


def _fallback(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        return sorted(value, key=repr)
    if isinstance(value, bytes):
        return value.decode("utf-8", "backslashreplace")
    return repr(value)


def _open_own(path: Path) -> BinaryIO:
    """An existing decision log of this process's own uid, never through a symbolic link.

    For a process that runs as somebody else than the agent (an approver, root): the
    log sits where the agent writes, so a link planted there, or a file the agent made,
    must not become a file this process writes — as root, any file on the machine.
    """
    flags = os.O_RDWR | os.O_APPEND | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        # Made here only in a directory nobody else may write (no link can race in).
        parent = os.lstat(path.parent)
        if parent.st_uid != os.geteuid() or parent.st_mode & 0o022:
            raise AuditError(
                f"{path}: no decision log there, and its directory is not this uid's alone; "
                "not creating one"
            ) from None
        fd = os.open(path, flags | os.O_CREAT | os.O_EXCL, 0o600)
    owner = os.fstat(fd).st_uid
    if owner != os.geteuid():
        os.close(fd)
        raise AuditError(
            f"{path}: the decision log belongs to uid {owner}, not to this process's "
            f"uid {os.geteuid()}; not writing to it"
        )
    return open(fd, "a+b", buffering=0, closefd=True)


class _ChainedSink:
    """Seals each rendered record into the chain and writes it."""

    def __init__(
        self,
        path: Path | None,
        stream: IO[Any] | None,
        key: bytes | None,
        own_file_only: bool = False,
    ) -> None:
        self._lock = threading.Lock()
        self._digest = make_digest(key)
        self._fd: int | None = None
        self._stream: IO[Any] | None = None
        self._closed = False
        self.head = GENESIS
        if path is not None:
            try:
                if own_file_only:
                    self._file = _open_own(path)
                else:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    self._file = open(path, "a+b", buffering=0)  # noqa: SIM115 - owned by the sink
            except OSError as exc:
                raise AuditError(f"{path}: cannot open decision log: {exc.strerror}") from None
            self._fd = self._file.fileno()
            self._path = path
            self._size = -1
            # Read the chain's head now, so a damaged log stops the engine at start.
            try:
                with self._lock:
                    self._write_file(None)
            except AuditError:
                self._file.close()
                raise
        else:
            self._stream = stream if stream is not None else sys.stderr

    def msg(self, body: bytes) -> None:
        with self._lock:
            if self._closed:
                raise AuditError("the decision log is closed")
            if self._fd is not None:
                self._write_file(body)
            else:
                self._write_stream(body)

    info = msg

    def _write_file(self, body: bytes | None) -> None:
        """Append `body` sealed into the chain (None: only catch up with the file)."""
        fd = self._fd
        assert fd is not None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            try:
                size = os.fstat(fd).st_size
                if size != self._size:
                    # Another writer appended since our last line: continue from its hash.
                    try:
                        self.head = last_hash_of_open(self._file, size)
                    except ValueError as exc:
                        raise AuditError(
                            f"{self._path}: cannot continue the hash chain: {exc}; "
                            "run `policy audit verify` and move the damaged file aside"
                        ) from None
                if body is None:
                    self._size = size
                    return
                line, line_hash = seal(body, self.head, self._digest)
                data = line + b"\n"
                written = os.write(fd, data)
                if written != len(data):
                    raise AuditError(f"{self._path}: short write to decision log")
                self._size = size + len(data)
                self.head = line_hash
            finally:
                fcntl.flock(fd, fcntl.LOCK_UN)
        except OSError as exc:
            raise AuditError(f"{self._path}: cannot write decision log: {exc.strerror}") from None

    def _write_stream(self, body: bytes) -> None:
        stream = self._stream
        assert stream is not None
        line, line_hash = seal(body, self.head, self._digest)
        try:
            buffer = getattr(stream, "buffer", None)
            if buffer is not None:
                buffer.write(line + b"\n")
                buffer.flush()
            else:
                stream.write(line.decode() + "\n")
                stream.flush()
        except (OSError, ValueError) as exc:
            raise AuditError(f"cannot write decision log to stream: {exc}") from None
        self.head = line_hash

    def close(self) -> None:
        with self._lock:
            self._closed = True
            if self._fd is not None:
                self._file.close()
                self._fd = None


def _render(_logger: Any, _name: str, event_dict: MutableMapping[str, Any]) -> bytes:
    """orjson renderer: `ts` and `event` first, then the record, then anything else.

    Keeps the signature of the structlog processor it was, so the rendered bytes
    (and so every hash in existing logs' chains) stay the same.
    """
    record = event_dict.pop("record", None) or {}
    ts = event_dict.pop("ts", None)
    event = event_dict.pop("event", None)
    document = {"ts": ts, "event": event, **record, **event_dict}
    try:
        return orjson.dumps(document, default=_fallback)
    except (TypeError, orjson.JSONEncodeError):
        # Integers beyond 64 bits, lone surrogates, non-string keys: log them anyway.
        return orjson.dumps(json_safe(document))


class DecisionLog:
    """Writes decision records; thread-safe; one instance per engine."""

    def __init__(
        self,
        *,
        path: Path | None = None,
        stream: IO[Any] | None = None,
        capture_args: bool = False,
        key: bytes | None = None,
        own_file_only: bool = False,
    ) -> None:
        """`own_file_only`: write `path` only if it exists, is no symbolic link and belongs
        to this process's uid (AuditError otherwise) — for processes that are not the
        agent writing where the agent can (`policy approvals`)."""
        self.capture_args = capture_args
        self._sink = _ChainedSink(path, stream, key, own_file_only)

    @property
    def head(self) -> str:
        """Hash of the last line this log wrote (or found at the end of its file)."""
        return self._sink.head

    def write(self, event: str, record: Mapping[str, Any]) -> None:
        """Append one record; raises AuditError when it cannot be written.

        The record is not copied into keyword arguments: expanding thirty keys
        twice cost 6 µs a decision.
        """
        ts = _now(_UTC).isoformat().replace("+00:00", "Z")
        self._sink.msg(_render(None, "info", {"record": record, "event": event, "ts": ts}))

    def close(self) -> None:
        self._sink.close()

    # ------------------------------------------------------------ record builders

    def _args(self, args: Mapping[str, Any]) -> Any:
        return dict(args) if self.capture_args else mask_args(args)

    def decision(
        self,
        point: HookPoint,
        decision: Decision,
        *,
        subject: ToolCall | LLMRequest | LLMResponse | Prompt,
        result: ToolResult | None = None,
        latency_ns: int,
        packs: Mapping[str, str],
    ) -> None:
        fields: dict[str, Any] = {
            "decision_id": decision.decision_id,
            "point": point.value,
            "action": decision.action.value,
            "reason": decision.reason,
            "hook": decision.hook,
            "rule_ids": decision.rule_ids,
        }
        fields.update(_context(subject))
        if isinstance(subject, ToolCall):
            fields.update(self._tool_fields(subject))
            if point is HookPoint.BEFORE_TOOL:
                fields["needs_approval"] = decision.needs_approval
                fields["respond"] = decision.action is Action.RESPOND
        elif isinstance(subject, LLMRequest):
            fields["model"] = subject.model
            fields["messages"] = len(subject.messages)
            fields["tools"] = len(subject.tools)
        elif isinstance(subject, LLMResponse):
            fields["model"] = subject.model
            fields["content_chars"] = len(subject.content)
            fields["tool_calls"] = len(subject.tool_calls)
        elif isinstance(subject, Prompt):
            fields["prompt_chars"] = len(subject.text)
            fields["prompt"] = subject.text if self.capture_args else mask_text(subject.text)
        if result is not None:
            fields["result"] = _result_fields(result)
        if decision.result is not None and point is HookPoint.BEFORE_TOOL:
            fields["result"] = _result_fields(decision.result)
        fields["enforcement"] = "audit" if decision.would_action is not None else "enforce"
        if decision.would_action is not None:
            fields["would_action"] = decision.would_action.value
        if decision.failure:
            fields["failure"] = decision.failure
        if decision.ignored:
            fields["ignored"] = decision.ignored
        fields["packs"] = packs
        fields["latency_us"] = round(latency_ns / 1000, 1)
        self.write("decision", fields)

    def approval(
        self,
        call: ToolCall,
        answer: ApprovalDecision,
        *,
        latency_ns: int,
        packs: Mapping[str, str],
    ) -> None:
        fields: dict[str, Any] = {
            "decision_id": answer.decision_id,
            "point": HookPoint.APPROVE_TOOL.value,
            "action": Action.CONTINUE.value if answer.approved else Action.DENY_TOOL.value,
            "reason": answer.reason,
            "hook": answer.hook,
            "rule_ids": (),
        }
        fields.update(_context(call))
        fields.update(self._tool_fields(call))
        fields["approval"] = {
            "approved": answer.approved,
            "approver": answer.approver,
            "waited_ms": round(answer.waited_ms, 1),
        }
        fields["enforcement"] = "enforce"
        fields["packs"] = packs
        fields["latency_us"] = round(latency_ns / 1000, 1)
        self.write("decision", fields)

    def _tool_fields(self, call: ToolCall) -> dict[str, Any]:
        return {
            "tool": call.tool,
            "tool_raw": call.tool_raw,
            "call_id": call.call_id,
            "args_digest": args_digest(call.args),
            "args": self._args(call.args),
        }


def _context(subject: ToolCall | LLMRequest | LLMResponse | Prompt) -> dict[str, Any]:
    return {
        "host": subject.host,
        "session": subject.session,
        "sender": subject.sender,
        "channel": subject.channel,
        "chat_id": subject.chat_id,
        "agent": subject.agent,
        "turn": subject.turn,
    }


def _result_fields(result: ToolResult) -> dict[str, Any]:
    return {
        "is_error": result.is_error,
        "for_llm_chars": len(result.for_llm),
        "for_user_chars": len(result.for_user),
        "duration_ms": round(result.duration * 1000, 3),
    }
