"""Approvers are told (issue 25): a message on each new approval request, decision and
expiry, to a signed webhook, a Slack/Teams incoming webhook and a command — received
here by a server on loopback and a script, as an operator's would."""

from __future__ import annotations

import hashlib
import hmac
import http.server
import queue
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import telemetry
from policy.approvals.store import ApprovalRequest
from policy.server.notify import Notifier, sign
from policy.service_settings import NotifySink
from tests.test_service import APPROVER_TOKEN, Running, start_service, stop

SECRET = "s3cret-for-tests"


class Receiver:
    """An HTTP server on loopback that keeps every POST (path, headers, body) and
    answers each with the next status of `statuses` (then 200)."""

    def __init__(self, statuses: tuple[int, ...] = ()) -> None:
        self.posts: queue.Queue[tuple[str, dict[str, str], bytes]] = queue.Queue()
        self.statuses = list(statuses)
        self.hold = threading.Event()
        self.hold.set()
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                receiver.hold.wait(30)
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                if status == 200:
                    receiver.posts.put((self.path, dict(self.headers), body))
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def next(self, path: str) -> tuple[dict[str, str], bytes]:
        """The next POST to `path` (others are kept for later)."""
        skipped = []
        try:
            while True:
                got = self.posts.get(timeout=30)
                if got[0] == path:
                    return got[1], got[2]
                skipped.append(got)
        finally:
            for item in skipped:
                self.posts.put(item)

    def close(self) -> None:
        self.hold.set()
        self.server.shutdown()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    made = Receiver()
    yield made
    made.close()


def verified(headers: dict[str, str], body: bytes) -> dict[str, Any]:
    """The message, once its signature holds as a receiver would check it."""
    stamp = headers["X-Hookpolicy-Timestamp"]
    mac = hmac.new(SECRET.encode(), stamp.encode() + b"." + body, hashlib.sha256).hexdigest()
    assert hmac.compare_digest(headers["X-Hookpolicy-Signature"], "sha256=" + mac)
    message: dict[str, Any] = orjson.loads(body)
    return message


def file_approval(running: Running, command: str, timeout: float) -> threading.Thread:
    """A call waiting for approvers through the service, as a thin hook's would."""

    def ask() -> None:
        running.client().call(
            "POST",
            "/v1/approve_tool",
            {"call": {"tool": "Bash", "args": {"command": command}}, "timeout": timeout},
            timeout=timeout + 30,
        )

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    return thread


def test_approvers_are_told_of_a_request_its_decision_and_an_expiry(
    tmp_path: Path, receiver: Receiver
) -> None:
    told = tmp_path / "told.jsonl"
    script = tmp_path / "tell.py"
    script.write_text(
        "import sys\n"
        f"with open({str(told)!r}, 'ab') as out:\n"
        "    out.write(sys.stdin.buffer.read() + b'\\n')\n"
    )
    running = start_service(
        tmp_path / "svc",
        settings_extra=(
            "  public_url: https://approvals.example.org/\n"
            "  notify:\n"
            f"    - {{kind: webhook, url: '{receiver.url}/hook', secret: {SECRET}}}\n"
            f"    - {{kind: slack, url: '{receiver.url}/slack', events: [request]}}\n"
            f"    - {{kind: command, command: ['{sys.executable}', '{script}']}}\n"
        ),
    )
    try:
        waiting = file_approval(running, "./deploy prod --token ghp_" + "a" * 36, 60)
        request = verified(*receiver.next("/hook"))
        assert request["event"] == "request" and request["state"] == "pending"
        assert request["args"] == {"command": "./deploy prod --token ***"}  # masked
        assert request["rules"] == ["svc/deploys-need-secops"]
        assert request["message"] == "deploys need secops"
        assert request["approvers"] == ["secops-*"]
        assert request["principal"].startswith("uid:") and request["deadline"]
        assert request["link"] == f"https://approvals.example.org/requests/{request['id']}"
        _, slack = receiver.next("/slack")
        text = orjson.loads(slack)["text"]
        assert "Approval needed: bash" in text and request["link"] in text
        assert "ghp_" not in text

        approver = running.client(token=APPROVER_TOKEN)
        approver.call("POST", f"/v1/approvals/{request['id']}/approve", {"reason": "ok"})
        decision = verified(*receiver.next("/hook"))
        assert (decision["event"], decision["id"], decision["state"]) == (
            "decision",
            request["id"],
            "approved",
        )
        assert decision["decided_by"] == "secops-alice (token alice)"
        waiting.join(30)

        file_approval(running, "./deploy staging", 1).join(40)
        expiry = verified(*receiver.next("/hook"))
        while expiry["event"] == "request":
            expiry = verified(*receiver.next("/hook"))
        assert (expiry["event"], expiry["state"]) == ("expiry", "expired")
    finally:
        stop(running)
    lines = [orjson.loads(line) for line in told.read_bytes().splitlines()]
    assert [m["event"] for m in lines][:2] == ["request", "decision"]
    assert "expiry" in [m["event"] for m in lines]
    left = []
    while not receiver.posts.empty():
        left.append(receiver.posts.get())
    slack = [orjson.loads(body)["text"] for path, _, body in left if path == "/slack"]
    assert len(slack) == 1 and slack[0].startswith("Approval needed")  # requests only


def _request(request_id: str = "r1") -> ApprovalRequest:
    return ApprovalRequest(
        id=request_id,
        tool="bash",
        digest="d" * 64,
        args={"command": "./deploy"},
        requester="dev",
        session="s",
        pack="p",
        created=1_700_000_000.0,
        deadline=1_700_000_060.0,
    )


class _Log:
    def __init__(self) -> None:
        self.lines: list[tuple[str, dict[str, Any]]] = []

    def warning(self, event: str, **fields: Any) -> None:
        self.lines.append((event, fields))

    error = warning


def test_a_failing_receiver_is_retried_with_backoff() -> None:
    receiver = Receiver(statuses=(500, 503))
    sink = NotifySink(kind="webhook", url=receiver.url + "/hook", secret=SECRET)
    waits: list[int] = []
    log = _Log()
    notifier = Notifier([sink], None, log, backoff=lambda attempt: waits.append(attempt) or 0.0)
    before = dict(telemetry.NOTIFICATIONS.samples()).get(("webhook", "sent"), 0)
    try:
        notifier.tell("request", _request())
        headers, body = receiver.next("/hook")
        assert verified(headers, body)["id"] == "r1"
    finally:
        notifier.close()
        receiver.close()
    assert waits == [1, 2]  # two failures, two waits, then delivered
    assert [event for event, _ in log.lines] == ["notification not delivered"] * 2
    assert dict(telemetry.NOTIFICATIONS.samples())[("webhook", "sent")] == before + 1


def test_an_attempt_is_cut_at_its_timeout_however_slowly_the_receiver_answers() -> None:
    import socket as sockets

    server = sockets.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    stop = threading.Event()

    def drip() -> None:  # accepts, then answers one byte a second, forever
        connection, _ = server.accept()
        connection.recv(65536)
        while not stop.wait(1.0):
            try:
                connection.sendall(b"H")
            except OSError:
                return

    threading.Thread(target=drip, daemon=True).start()
    port = server.getsockname()[1]
    sink = NotifySink(
        kind="webhook", url=f"http://127.0.0.1:{port}/", secret=SECRET,
        timeout_seconds=1, attempts=1,
    )
    log = _Log()
    notifier = Notifier([sink], None, log)
    try:
        notifier.tell("request", _request())
        notifier.close(wait=20)  # returns once the one attempt gave up
        assert [event for event, _ in log.lines][-1] == "notification given up"
    finally:
        stop.set()
        server.close()


def test_telling_never_waits_for_a_receiver() -> None:
    receiver = Receiver()
    receiver.hold.clear()  # the receiver does not answer until told
    sink = NotifySink(kind="webhook", url=receiver.url + "/hook", secret=SECRET)
    notifier = Notifier([sink], None, _Log(), backoff=lambda attempt: 0.0)
    try:
        for n in range(5):
            notifier.tell("request", _request(f"r{n}"))  # returns with the receiver stuck
        receiver.hold.set()
        seen = {orjson.loads(receiver.next("/hook")[1])["id"] for _ in range(5)}
        assert seen == {f"r{n}" for n in range(5)}
    finally:
        notifier.close()
        receiver.close()


def test_a_sink_is_told_only_of_requests_its_approvers_may_decide() -> None:
    receiver = Receiver()
    secops = NotifySink(
        kind="webhook", url=receiver.url + "/secops", secret=SECRET, approvers=["secops-alice"]
    )
    release = NotifySink(
        kind="webhook", url=receiver.url + "/release", secret=SECRET, approvers=["release-bob"]
    )
    notifier = Notifier([secops, release], None, _Log(), backoff=lambda attempt: 0.0)
    try:
        from dataclasses import replace

        notifier.tell("request", replace(_request("for-secops"), approvers=("secops-*",)))
        notifier.tell("request", replace(_request("for-anyone"), approvers=()))
        got = {receiver.next("/secops")[1], receiver.next("/secops")[1]}
        assert {orjson.loads(body)["id"] for body in got} == {"for-secops", "for-anyone"}
        assert orjson.loads(receiver.next("/release")[1])["id"] == "for-anyone"
    finally:
        notifier.close()
        receiver.close()
    assert receiver.posts.empty()


def test_chat_messages_show_the_agents_markup_as_text() -> None:
    from dataclasses import replace

    from policy.server.notify import _body_for, message_of

    sneaky = "ls <!channel> <https://evil.example/x|Approve here> [Approve](https://evil.example) \u202eexe"
    request = replace(_request(), args={"command": sneaky}, message="*urgent* <!here>")
    message = message_of("request", request, "https://inbox.example/")
    slack = orjson.loads(_body_for("slack", message))["text"]
    assert "<!channel>" not in slack and "<https://evil" not in slack and "<!here>" not in slack
    assert "&lt;!channel&gt;" in slack and "\u202e" not in slack and "\\u202e" in slack
    assert slack.endswith("https://inbox.example/requests/r1")  # our own link stays a link
    teams = orjson.loads(_body_for("teams", message))["text"]
    assert "[Approve](https" not in teams and "\\[Approve\\]\\(https" in teams
    assert "\\*urgent\\*" in teams


def test_the_signature_is_hmac_sha256_over_timestamp_dot_body() -> None:
    body = b'{"event":"request"}'
    expected = hmac.new(b"k", b"1700000000." + body, hashlib.sha256).hexdigest()
    assert sign(b"k", "1700000000", body) == "sha256=" + expected


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"kind": "webhook", "url": "https://x.example"}, "signs"),
        ({"kind": "webhook", "url": "file:///etc/passwd", "secret": "k"}, "http"),
        ({"kind": "slack", "url": "https://x.example", "secret": "k"}, "not signed"),
        ({"kind": "command", "url": "https://x.example"}, "command"),
        ({"kind": "teams"}, "url"),
    ],
)
def test_sinks_that_cannot_work_are_settings_errors(fields: dict[str, Any], error: str) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=error):
        NotifySink(**fields)
