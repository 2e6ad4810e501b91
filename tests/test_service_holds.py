"""`policy serve` holds against the callers it serves: issue S's findings, each replayed.

The service runs as root; the agents' hooks run as other uids (`daemon`, `nobody`,
through `setpriv`, as an agent's hook should); another local user is a process on the
TCP port; a web page is a request with a foreign `Host` or `Origin`. What each test
shows is what docs/service.md promises under "Who asks" and "Limits".
"""

from __future__ import annotations

import contextlib
import os
import pwd
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.client.transport import ServiceClient
from policy.service_settings import token_digest
from tests.test_service import (
    APPROVER_TOKEN,
    OPERATOR_TOKEN,
    POLICY,
    Running,
    as_uid,
    clean_env,
    hook,
    permission,
    pre_tool,
    start_service,
    stop,
    wait_for_request,
    waiting_hook,
)

DAEMON, NOBODY = 1, 65534
CI_TOKEN = "hp_test_ci_token"

HOLDS_PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: holds
revision: "1"
builtins:
  tool_policy:
    applies_to: [web_fetch]
    rate_limits:
      - {tools: [web_fetch], limit: "2/minute"}
rules:
  - id: deploys-need-secops
    tools: [bash]
    when: args.command.startsWith("./deploy")
    action: ask
    approvers: ["secops-*"]
    grants: [once, "window=1h"]
    timeout: 60s
    message: deploys need secops
"""


def _can_run_as_others() -> bool:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    for uid in (DAEMON, NOBODY):
        probe = subprocess.run(
            [*as_uid(uid), sys.executable, "-c", "import policy, os; print(os.getuid())"],
            capture_output=True,
            check=False,
        )
        if probe.returncode != 0 or probe.stdout.strip() != str(uid).encode():
            return False
    return True


needs_other_uids = pytest.mark.skipif(
    not _can_run_as_others(), reason="needs root and setpriv to run hooks as other uids"
)


def name_of(uid: int) -> str:
    return pwd.getpwuid(uid).pw_name


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One service for the tests that do not stop it: the holds pack, a socket every
    uid may reach, an approvers' socket, a `ci` token limited to `ci-*` senders, and a
    per-caller cap of 4 waits."""
    base = tmp_path_factory.mktemp("holds")
    packs = base / "packs"
    packs.mkdir()
    (packs / "holds.yaml").write_text(HOLDS_PACK)
    extra = (
        f"    - {{name: ci, token_sha256: {token_digest(CI_TOKEN)}, roles: [agent],"
        " senders: ['ci-*']}\n"
        "  max_waits_per_caller: 4\n"
        f"  approver_socket: {base / 'svc' / 'run' / 'approvers.sock'}\n"
        "  approver_socket_mode: '0660'\n"
    )
    running = start_service(base / "svc", packs=packs, socket_mode="0666", settings_extra=extra)
    running.socket.parent.chmod(0o755)
    config = base / "hook.yaml"
    config.write_text(f"server: {running.unix}\nserver_owner: '0'\n")
    config.chmod(0o644)
    yield running
    if running.process.poll() is None:
        stop(running)


def hook_config(running: Running) -> Path:
    return running.settings.parent.parent / "hook.yaml"


def as_hook(uid: int, running: Running, payload: Any, *options: str) -> Any:
    answer, done = hook(
        "claude", payload, *options, config=hook_config(running), prefix=as_uid(uid)
    )
    assert done.returncode == 0, done.stderr
    return answer


def logged(running: Running) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in running.audit.read_text().splitlines()]


def fetch(url: str = "https://example.com") -> dict[str, Any]:
    return {
        "session_id": "s1",
        "cwd": "/",
        "hook_event_name": "PreToolUse",
        "tool_name": "WebFetch",
        "tool_input": {"url": url, "prompt": "read"},
    }


# --------------------------------------------------------------- who asks


@needs_other_uids
@pytest.mark.slow
def test_two_hook_uids_have_their_own_names_budgets_and_grants(shared: Running) -> None:
    """Finding 1: every host event was the service's own user. Now each uid is itself:
    its name in the log, its own per-sender budget, and grants that admit it alone."""
    # Names: the decision log records each hook's own user as the sender.
    as_hook(DAEMON, shared, pre_tool("ls", session="who"))
    as_hook(NOBODY, shared, pre_tool("ls", session="who"))
    senders = {
        (r["sender"], r.get("principal"))
        for r in logged(shared)
        if r.get("session") == "who" and r.get("point") == "before_tool"
    }
    assert senders == {(name_of(DAEMON), f"uid:{DAEMON}"), (name_of(NOBODY), f"uid:{NOBODY}")}

    # Budgets: 2/minute per sender. daemon spends its own; nobody's is untouched.
    spent = [as_hook(DAEMON, shared, fetch(f"https://a.example/{i}")) for i in range(3)]
    assert [a is None or permission(a)[0] != "deny" for a in spent] == [True, True, False]
    assert f"for sender '{name_of(DAEMON)}' (uid:{DAEMON})" in permission(spent[2])[1]
    other = as_hook(NOBODY, shared, fetch("https://a.example/0"))
    assert other is None or permission(other)[0] != "deny"

    # Grants: daemon's deploy approved for a 1 h window runs again for daemon only.
    deferred = as_hook(DAEMON, shared, pre_tool("./deploy prod", session="grant"))
    assert permission(deferred)[0] == "deny" and "pending" in permission(deferred)[1]
    operator = shared.client(token=OPERATOR_TOKEN)
    (request,) = [
        r for r in operator.call("GET", "/v1/approvals")["requests"] if r["session"] == "grant"
    ]
    assert (request["requester"], request["agent_uid"]) == (name_of(DAEMON), DAEMON)
    approver = shared.client(token=APPROVER_TOKEN)
    approver.call("POST", f"/v1/approvals/{request['id']}/approve", {"grant": "window=1h"})
    for _ in range(2):  # the approval itself, then the window grant
        again = as_hook(DAEMON, shared, pre_tool("./deploy prod", session="grant"))
        assert permission(again)[0] == "allow", again
    theirs = as_hook(NOBODY, shared, pre_tool("./deploy prod", session="grant"))
    assert permission(theirs)[0] == "deny" and "pending" in permission(theirs)[1]
    mine = [
        r for r in operator.call("GET", "/v1/approvals")["requests"] if r["session"] == "grant"
    ]
    assert [(r["requester"], r["agent_uid"]) for r in mine] == [(name_of(NOBODY), NOBODY)]


def test_anonymous_tcp_callers_get_decisions_as_nobody_in_particular(shared: Running) -> None:
    """Finding 3: anonymous loopback callers filed requests and spent budgets under any
    sender they named. Now a sender from them is ignored and they file nothing."""
    http = shared.client(http=True)
    call = {"tool": "Bash", "args": {"command": "ls"}, "sender": "victim", "session": "anon"}
    status, _, decided = http.request("POST", "/v1/decide/before_tool", call)
    assert status == 200 and decided["action"] == "continue"
    (record,) = [r for r in logged(shared) if r.get("decision_id") == decided["decision_id"]]
    assert record["sender"] == "anonymous"
    assert record["principal"] == "anonymous"
    assert record["peer"].startswith("127.0.0.1:")

    # One budget for all of them, whatever name each gives.
    outcomes = []
    for name in ("a", "b", "c"):
        body = {"tool": "WebFetch", "args": {"url": "https://x.example"}, "sender": name}
        outcomes.append(http.call("POST", "/v1/decide/before_tool", body)["action"])
    assert outcomes == ["continue", "continue", "deny_tool"]

    # No approval requests: not directly, not through a host event.
    deploy = {"tool": "Bash", "args": {"command": "./deploy prod"}, "sender": "victim"}
    status, _, refused = http.request("POST", "/v1/approve_tool", {"call": deploy, "defer": True})
    assert status == 401 and "anonymous" in refused["error"]
    status, _, answer = http.request(
        "POST",
        "/v1/hosts/claude/event?approval=defer",
        pre_tool("./deploy prod", session="anon"),
    )
    assert status == 200
    assert permission(answer["answer"])[0] == "deny"
    assert "anonymous caller may not file" in permission(answer["answer"])[1]
    pending = shared.client(token=OPERATOR_TOKEN).call("GET", "/v1/approvals")["requests"]
    assert not [r for r in pending if r["session"] == "anon"]


def test_a_forwarded_for_header_never_makes_a_tcp_caller_a_unix_socket_uid(
    shared: Running,
) -> None:
    """A loopback TCP caller sent `X-Forwarded-For: [unix-uid:0]`; uvicorn's proxy-header
    support (trusting 127.0.0.1 by default) rewrote its address into the form the Unix
    socket's peer credentials take, and the service took it for uid 0: decisions,
    approval requests, withdrawals as that uid, and past the browser guard. Who calls
    is the kernel's word or a token's, never a header."""
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(shared.http)

    def forged_request(method: str, path: str, body: Any, forged: str) -> tuple[int, Any]:
        # http.client sends the header as written (our own client would quote it).
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
        try:
            headers = {"X-Forwarded-For": forged, "Content-Type": "application/json"}
            raw = orjson.dumps(body) if body is not None else None
            connection.request(method, path, body=raw, headers=headers)
            answer = connection.getresponse()
            return answer.status, orjson.loads(answer.read() or b"null")
        finally:
            connection.close()

    call = {"tool": "Bash", "args": {"command": "ls"}, "session": "xff"}
    deploy = {"tool": "Bash", "args": {"command": "./deploy prod"}}
    for forged in ("[unix-uid:0]", f"[unix-uid:{os.getuid()}]", "[unix-uid:x]", "unix-uid:0"):
        status, decided = forged_request("POST", "/v1/decide/before_tool", call, forged)
        assert status == 200, (forged, decided)  # never a 500 from a malformed one
        (record,) = [r for r in logged(shared) if r.get("decision_id") == decided["decision_id"]]
        assert record["principal"] == "anonymous" and record["peer"].startswith("127.0.0.1:")
        body = {"call": deploy, "defer": True}
        status, refused = forged_request("POST", "/v1/approve_tool", body, forged)
        assert status == 401 and "anonymous" in refused["error"]
        status, _ = forged_request("GET", "/v1/approvals", None, forged)
        assert status == 401


def test_a_token_names_only_its_own_senders(shared: Running) -> None:
    ci = shared.client(token=CI_TOKEN, http=True)
    call = {"tool": "Bash", "args": {"command": "ls"}, "sender": "ci-build-7"}
    status, _, decided = ci.request("POST", "/v1/decide/before_tool", call)
    assert status == 200
    (record,) = [r for r in logged(shared) if r.get("decision_id") == decided["decision_id"]]
    assert (record["sender"], record["principal"]) == ("ci-build-7", "token:ci")
    status, _, refused = ci.request(
        "POST", "/v1/decide/before_tool", {**call, "sender": "alice"}
    )
    assert status == 403 and "may not decide for sender 'alice'" in refused["error"]


# --------------------------------------------------------------- waits and connections


HOLDER = """
import queue, socket, sys, threading, orjson
path, count, expected = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
payload = orjson.loads(sys.argv[4])
body = orjson.dumps(payload)
answers = queue.Queue()

def ask():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(b"POST /v1/hosts/claude/event?approval=wait&budget=50 HTTP/1.1\\r\\n"
              b"Host: localhost\\r\\nContent-Type: application/json\\r\\nContent-Length: "
              + str(len(body)).encode() + b"\\r\\n\\r\\n" + body)
    data = b""  # read whole, on this thread: the held ones block here until killed
    while b"\\r\\n\\r\\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, rest = data.partition(b"\\r\\n\\r\\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\\r\\n")
                  if line.lower().startswith(b"content-length:"))
    while len(rest) < length:
        rest += s.recv(65536)
    answers.put(orjson.loads(rest)["answer"])

for _ in range(count):
    threading.Thread(target=ask, daemon=True).start()
got = [answers.get(timeout=60) for _ in range(expected)]
print(orjson.dumps(got).decode(), flush=True)
sys.stdin.read()  # hold the rest until told
"""


@needs_other_uids
@pytest.mark.slow
def test_waits_held_by_one_uid_starve_nobody_else(shared: Running) -> None:
    """Finding 4: waits shared the engine's 32 workers, so 33 held waits left another
    agent's deferred call unanswered. Now waits have threads of their own and one caller
    holds at most its cap (4 here); past it, a wait is refused at once."""
    payload = pre_tool("./deploy prod", session="held")
    holder = subprocess.Popen(
        [
            *as_uid(NOBODY),
            *(sys.executable, "-c", HOLDER, str(shared.socket), "40", "36"),
            orjson.dumps(payload).decode(),
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=clean_env(),
    )
    try:
        assert holder.stdout is not None
        refused = orjson.loads(holder.stdout.readline())
        assert len(refused) == 36  # 40 asked, 4 held: the rest refused at once, never queued
        assert {permission(answer) for answer in refused} == {
            (
                "deny",
                f"uid:{NOBODY} has 4 calls waiting for approvers already "
                "(service.max_waits_per_caller: 4): refused, not queued",
            )
        }
        operator = shared.client(token=OPERATOR_TOKEN)
        waiting = [r for r in operator.call("GET", "/v1/approvals")["requests"]
                   if r["session"] == "held"]
        assert len(waiting) == 1  # identical waits share one request (finding 8)

        started = time.monotonic()
        plain = as_hook(DAEMON, shared, pre_tool("ls", session="other"))
        deferred = as_hook(DAEMON, shared, pre_tool("./deploy staging", session="other"))
        assert plain is None or permission(plain)[0] != "deny"
        assert permission(deferred)[0] == "deny" and "pending" in permission(deferred)[1]
        assert time.monotonic() - started < 5  # liveness, not speed: it used to be 14.5 s
        def refusals() -> int:
            return sum(
                str(r.get("event")).startswith("wait refused") for r in shared.stderr.records()
            )

        shared.stderr.wait_until(lambda: refusals() >= 36)  # each one logged
        assert refusals() == 36
    finally:
        holder.kill()
        holder.wait()


def test_identical_concurrent_retries_file_one_request(shared: Running) -> None:
    """Finding 8: 20 concurrent retries filed 6 requests; the docs promise one."""
    payload = pre_tool("./deploy canary", session="retries")

    def retry(_: int) -> str:
        answer, _done = hook("claude", payload, "--server", shared.unix)
        return permission(answer)[1]

    with ThreadPoolExecutor(10) as pool:
        reasons = list(pool.map(retry, range(20)))
    operator = shared.client(token=OPERATOR_TOKEN)
    filed = [
        r for r in operator.call("GET", "/v1/approvals")["requests"] if r["session"] == "retries"
    ]
    assert len(filed) == 1
    assert all(f"approval {filed[0]['id']} pending" in reason for reason in reasons)


@pytest.mark.slow
def test_idle_tcp_connections_cannot_take_the_unix_socket_s_capacity(tmp_path: Path) -> None:
    """Finding 5: idle TCP connections used up every connection, and hooks on the Unix
    socket got a 503 that was not JSON. With the open-files limit at 200, the service
    takes 136 connections, at most 68 over TCP and 17 per TCP address."""
    import resource

    def few_files() -> None:
        resource.setrlimit(resource.RLIMIT_NOFILE, (200, 200))

    running = start_service(tmp_path / "svc", preexec=few_files)
    idle: list[socket.socket] = []
    try:
        host, port = running.http.removeprefix("http://").rsplit(":", 1)
        refused_bodies = []
        for _ in range(40):
            sock = socket.create_connection((host, int(port)))
            sock.settimeout(0.5)
            try:
                answer = sock.recv(4096)
            except TimeoutError:
                idle.append(sock)  # accepted, idle
                continue
            refused_bodies.append(answer)
            sock.close()
        assert len(idle) == 17
        assert refused_bodies, "no connection was refused"
        head, _, body = refused_bodies[0].partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 503")
        assert "TCP peers on loopback hold 17 connections" in orjson.loads(body)["error"]
        # The agents' socket is served all the same.
        answer, _ = hook("claude", pre_tool("rm -rf /"), "--server", running.unix)
        assert permission(answer) == ("deny", "not the root")
        def logged_refusals() -> int:
            return sum(r.get("event") == "connection refused" for r in running.stderr.records())

        running.stderr.wait_until(lambda: logged_refusals() >= len(refused_bodies))
        assert logged_refusals() == len(refused_bodies)  # every 503 logged
    finally:
        for sock in idle:
            sock.close()
        stop(running)


def test_one_caller_s_bodies_in_flight_cannot_take_the_memory_others_need(
    tmp_path: Path,
) -> None:
    """Red team: each connection may carry `max_body_bytes`, and a caller holds 256
    connections — at 64 MiB a body, 16 GiB. Bodies in flight are capped: sixteen of
    the largest in all, four a caller; past that a body is a JSON 503 at once, logged,
    and its call refused. Here 64 KiB bodies: a caller may hold 256 KiB."""
    running = start_service(tmp_path / "svc", settings_extra="  max_body_bytes: 65536\n")
    head = (
        b"POST /v1/decide/before_tool HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n"
    )
    held: list[socket.socket] = []
    client = running.client()
    fifth = orjson.dumps({"tool": "Bash", "args": {"command": "ls " + "a" * 30_000}})

    def fifth_body() -> tuple[int, Any]:
        status, _, answer = client.request("POST", "/v1/decide/before_tool", raw_body=fifth)
        return status, answer

    def until(wanted: int) -> Any:
        ends = time.monotonic() + 30
        while (found := fifth_body())[0] != wanted:
            assert time.monotonic() < ends, f"still {found[0]} after 30 s"
            time.sleep(0.05)
        return found[1]

    try:
        for _ in range(4):  # four bodies of 60 KB, their last bytes never sent
            sock = socket.socket(socket.AF_UNIX)
            sock.connect(str(running.socket))
            sock.sendall(head + b"x" * 60_000)
            held.append(sock)
        answer = until(503)
        assert answer["error"] == (
            "policy serve is at capacity: request bodies of uid:0 hold 262144 bytes; try again"
        )
        # (the log line may reach the test's reader after the answer reached the client)
        running.stderr.wait_until(
            lambda: any(
                r.get("event") == "request refused" and r.get("status") == 503
                for r in running.stderr.records()
            )
        )
        for sock in held:  # hung up on: what they held is let go
            sock.close()
        held.clear()
        assert until(200)["action"] == "continue"
    finally:
        for sock in held:
            sock.close()
        stop(running)


def _answer(sock: socket.socket) -> tuple[bytes, dict[str, str], bytes]:
    """One HTTP answer read off `sock`: (its status, its headers, its body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        assert chunk, f"closed before an answer: {data!r}"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    while len(body) < int(headers.get("content-length", "0")):
        chunk = sock.recv(65536)
        assert chunk, "closed in the middle of an answer"
        body += chunk
    return status_line.split()[1].encode(), headers, body


def _closed(sock: socket.socket) -> bool:
    """Whether the service closed `sock` (waiting up to the socket's timeout)."""
    try:
        return sock.recv(65536) == b""
    except ConnectionResetError:  # (closed with what we sent after the answer unread)
        return True
    except TimeoutError:
        return False


def test_a_body_trickled_in_is_cut_off_and_its_connection_closed(tmp_path: Path) -> None:
    """Red team: bodies in flight are capped, but a body sent a byte at a time held its
    connection and its bytes for as long as the sender liked. A body has
    `service.body_seconds` to arrive: then a 408, logged, and the connection closed —
    even when the sender goes on sending (the rest of the body is not read as a next
    request: red team 2)."""
    running = start_service(
        tmp_path / "svc", settings_extra="  max_body_bytes: 65536\n  body_seconds: 0.5\n"
    )
    head = (
        b"POST /v1/decide/before_tool HTTP/1.1\r\nHost: localhost\r\n"
        b"Content-Type: application/json\r\nContent-Length: 65536\r\n\r\n"
    )
    try:
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(30)
            sock.connect(str(running.socket))
            sock.sendall(head + b"x" * 60_000)  # and the rest only after the answer
            status, headers, body = _answer(sock)
            assert (status, headers["connection"]) == (b"408", "close")
            assert orjson.loads(body) == {"error": "the request body did not arrive within 0.5 s"}
            with contextlib.suppress(OSError):  # (it may be closed already)
                sock.sendall(b"x" * 5_536)
            assert _closed(sock)
        running.stderr.wait_until(
            lambda: any(
                r.get("event") == "request refused" and r.get("status") == 408
                for r in running.stderr.records()
            )
        )
        # a path that reads no body answers, and closes what would be read after it
        with socket.socket(socket.AF_UNIX) as sock:
            sock.settimeout(30)
            sock.connect(str(running.socket))
            sock.sendall(
                b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nContent-Length: 65536\r\n\r\nxx"
            )
            status, headers, _ = _answer(sock)
            assert (status, headers["connection"]) == (b"200", "close")
            with contextlib.suppress(OSError):
                sock.sendall(b"x" * 100)
            assert _closed(sock)
        # the service goes on answering, what the refused body held let go
        status_code, _, answer = running.client().request(
            "POST", "/v1/decide/before_tool", body={"tool": "Bash", "args": {"command": "ls"}}
        )
        assert (status_code, answer["action"]) == (200, "continue")
    finally:
        stop(running)


# --------------------------------------------------------------- browsers


def raw_http(address: str, head: str, body: bytes = b"") -> tuple[int, Any]:
    host, port = address.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=30) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n" + body)
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    status_line, _, rest = data.partition(b"\r\n")
    _, _, payload = rest.partition(b"\r\n\r\n")
    return int(status_line.split()[1]), orjson.loads(payload) if payload else None


def test_a_web_page_cannot_drive_the_loopback_api(shared: Running) -> None:
    """Finding 7: `text/plain` POSTs with a foreign Origin or Host were answered."""
    address = shared.http
    port = address.rsplit(":", 1)[1]
    body = b'{"tool": "Bash", "args": {"command": "ls"}}'

    def post(content_type: str, host: str, origin: str | None = None) -> int:
        head = (
            f"POST /v1/decide/before_tool HTTP/1.1\nHost: {host}\nConnection: close\n"
            f"Content-Type: {content_type}\nContent-Length: {len(body)}\n"
        )
        if origin is not None:
            head += f"Origin: {origin}\n"
        return raw_http(address, head, body)[0]

    own = address.removeprefix("http://")
    assert post("application/json", own) == 200
    assert post("application/json; charset=utf-8", own) == 200
    # `localhost` may be another server: browsers try ::1 first, where any user may
    # listen on this port (a red-team finding: the same origin as the inbox's pages)
    assert post("application/json", f"localhost:{port}") == 421
    assert post("application/json", own, origin=address) == 200
    assert post("text/plain", own) == 415  # a "simple" cross-origin request
    assert post("application/x-www-form-urlencoded", own) == 415
    assert post("application/json", f"attacker.example:{port}") == 421  # DNS rebinding
    assert post("application/json", own, origin="https://attacker.example") == 403
    assert post("application/json", own, origin="null") == 403
    status, _ = raw_http(address, f"GET /v1/packs HTTP/1.1\nHost: evil.test:{port}\n"
                         "Connection: close\n")
    assert status == 421
    # Which copy of a header counts is not the caller's to choose.
    head = (
        f"POST /v1/decide/before_tool HTTP/1.1\nHost: {own}\nConnection: close\n"
        f"Content-Type: text/plain\nContent-Type: application/json\n"
        f"Content-Length: {len(body)}\n"
    )
    status, refused = raw_http(address, head, body)
    assert (status, refused) == (400, {"error": "content-type is sent twice"})
    head = (
        f"GET /v1/packs HTTP/1.1\nHost: {own}\nConnection: close\n"
        "Origin: https://attacker.example\nOrigin: " + address + "\n"
    )
    assert raw_http(address, head)[0] == 400
    # What HTTP itself cannot parse is refused in JSON too.
    status, refused = raw_http(
        address, f"GET /healthz HTTP/1.1\nHost: {own}\nContent-Length: +5\nConnection: close\n"
    )
    assert status == 400 and refused["error"].startswith("malformed request")


# --------------------------------------------------------------- stores off the loop


@pytest.mark.slow
def test_a_locked_state_file_blocks_no_other_caller(tmp_path: Path) -> None:
    """Finding 10: a locked state.db blocked the event loop for 5 s per small decision.
    Now decisions run on threads: while one waits for the lock, others are answered."""
    import sqlite3

    running = start_service(tmp_path / "svc", limits="")  # SQLite under data_dir
    client = running.client()
    fetch_call = {"tool": "WebFetch", "args": {"url": "https://example.com"}}
    client.call("POST", "/v1/decide/before_tool", fetch_call)  # the state file exists now
    (state,) = (tmp_path / "svc" / "data").rglob("state.db")
    holder = sqlite3.connect(state, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    body = orjson.dumps(fetch_call)
    blocked = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        blocked.connect(str(running.socket))
        blocked.sendall(
            b"POST /v1/decide/before_tool HTTP/1.1\r\nHost: localhost\r\n"
            b"Content-Type: application/json\r\nContent-Length: "
            + str(len(body)).encode()
            + b"\r\n\r\n"
            + body
        )
        assert client.call("GET", "/healthz") == {"status": "ok"}
        status, _, answer = client.request(
            "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": "rm -rf /"}}
        )
        assert (status, answer["action"]) == (200, "deny_tool")
        blocked.settimeout(0.2)
        with pytest.raises(TimeoutError):
            blocked.recv(1)  # still waiting for the lock, and nobody else was
    finally:
        holder.execute("ROLLBACK")
        holder.close()
        blocked.settimeout(30)
        assert blocked.recv(65536).startswith(b"HTTP/1.1 200")
        blocked.close()
        stop(running)


# --------------------------------------------------------------- the approvers' socket


def test_approvers_have_a_socket_of_their_own_and_see_agent_text_escaped(
    shared: Running, tmp_path: Path
) -> None:
    """Finding 11: approvers were not in the agents' socket group, and `policy
    approvals` refuses http://; raw JSON showed U+202E and ESC as they were."""
    approvers = shared.socket.parent / "approvers.sock"
    assert approvers.is_socket() and oct(approvers.stat().st_mode & 0o777) == "0o660"
    sneaky = "./deploy prod # \u202e\x1b[2J\u200b harmless"
    hook("claude", pre_tool(sneaky, session="escape"), "--server", shared.unix)
    token = tmp_path / "token"
    token.write_text(APPROVER_TOKEN)
    base = [POLICY, "approvals", "--server", f"unix:{approvers}", "--token-file", str(token)]
    for fmt in ("json", "text"):
        listed = subprocess.run(
            [*base[:2], "list", *base[2:], "--format", fmt], capture_output=True, env=clean_env()
        )
        assert listed.returncode == 0, listed.stderr
        out = listed.stdout.decode()
        assert "\u202e" not in out and "\x1b" not in out and "\u200b" not in out  # raw
        assert "\\u202e" in out and "\\u200b" in out  # escaped, visibly
        if fmt == "json":
            requests = orjson.loads(listed.stdout)
            assert any(r["args"]["command"] == sneaky for r in requests)  # reads back whole
    # Decisions are not served there.
    status, _, refused = ServiceClient(f"unix:{approvers}").request(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": "ls"}}
    )
    assert status == 404 and "approvals only" in refused["error"]


# --------------------------------------------------------------- stopping


@pytest.mark.slow
def test_a_stop_gives_up_waits_at_once_and_an_approver_socket_from_the_command_line_holds(
    tmp_path: Path,
) -> None:
    """A stop (SIGTERM, `max_requests`) used to wait for every hook waiting on a person
    until its deadline, holding the restart every other agent waits for. Now the waits
    are abandoned as the stop starts: each hook is refused, its request expired."""
    approvers = tmp_path / "approvers.sock"
    running = start_service(
        tmp_path / "svc", options=("--approver-socket", str(approvers))
    )
    # The socket named on the command line (not in the settings) serves approvals only.
    status, _, refused = ServiceClient(f"unix:{approvers}").request(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": "ls"}}
    )
    assert status == 404 and "approvals only" in refused["error"]
    status, _, _ = ServiceClient(f"unix:{approvers}").request("GET", "/docs")
    assert status == 404
    waiting = waiting_hook(running, "./deploy prod")
    assert waiting.stdout is not None
    operator = running.client(token=OPERATOR_TOKEN)
    wait_for_request(operator)  # (the hook filed its request)
    started = time.monotonic()
    err = stop(running)  # SIGTERM; the gate's timeout is 60 s
    assert time.monotonic() - started < 20  # liveness: not the 60 s of the wait
    answer = orjson.loads(waiting.stdout.read())
    waiting.wait(timeout=30)
    assert permission(answer)[0] == "deny"
    assert '"abandoned_approvals": 1' in err and '"stopping"' in err
    abandoned = [r for r in logged(running) if r.get("point") == "approve_tool"]
    assert abandoned and "policy serve is stopping" in abandoned[0]["reason"]


_STOPPED_AS_IT_STARTS = """
import os, signal, sys
from pathlib import Path
from policy.hosts._hook_process import read_settings
from policy.server.logs import configure
from policy.server.run import serve

configure(json_lines=True)
sock = Path(sys.argv[2])
stopped = False


def ready(addresses):
    # the supervisor's stop (or an operator's Ctrl-C) at the moment it says it listens,
    # before uvicorn has put in its own handlers
    global stopped
    stopped = True
    os.kill(os.getpid(), getattr(signal, sys.argv[3]))


if len(sys.argv) > 4:  # and again while it cleans up after the first
    import policy.server.run as run

    abandon = run._abandon_all

    def again(router, reason):
        os.kill(os.getpid(), getattr(signal, sys.argv[4]))
        sum(range(1000))  # (bytecodes, where the handler runs)
        return abandon(router, reason)

    run._abandon_all = again

code = serve(read_settings(sys.argv[1]), socket_path=sock, http=None, ready=ready)
print(code, stopped, sock.exists(), flush=True)
"""


@pytest.mark.parametrize(
    "signals",
    [("SIGTERM",), ("SIGINT",), ("SIGTERM", "SIGTERM"), ("SIGTERM", "SIGHUP")],
    ids="-then-".join,
)
def test_a_stop_as_the_service_says_it_listens_is_a_graceful_one(
    tmp_path: Path, signals: tuple[str, ...]
) -> None:
    """The stop handler used to be put in after the service said it was listening (a
    supervisor's SIGTERM then killed it, its socket left behind), and it raised an
    exception from the signal handler, which the import system drops when the signal
    lands in one of its callbacks: the service then served on, deaf to the stop. Now
    the handler is there before the sockets are bound and only asks the server to
    stop: the run returns, the socket is removed. It stays until the cleanup is done:
    a second SIGTERM (a supervisor's impatience) or a SIGHUP then used to kill the
    service half cleaned up."""
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "holds.yaml").write_text(HOLDS_PACK)
    settings = tmp_path / "serve.yaml"
    settings.write_text(
        f"data_dir: {tmp_path / 'data'}\n"
        f"audit_path: {tmp_path / 'decisions.jsonl'}\n"
        f"packs: [{tmp_path / 'packs'}]\n"
        "limits_storage_uri: memory://\napprovals_store: memory://\n"
    )
    sock = tmp_path / "run" / "policy.sock"
    done = subprocess.run(
        [sys.executable, "-c", _STOPPED_AS_IT_STARTS, str(settings), str(sock), *signals],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["0", "True", "False"], done.stderr
    assert '"stopping"' in done.stderr and '"stopped"' in done.stderr


_HELD_APPROVER = """
import json, os, sys, time
from pathlib import Path

here = Path(sys.argv[1])
for line in sys.stdin:
    message = json.loads(line)
    if message["method"] == "hook.approve_tool":
        (here / "asked").touch()
        while not (here / "go").exists():  # held until the test lets it answer
            time.sleep(0.02)
        result = {"approved": True}
    else:
        result = {"name": "held", "protocol_version": 1}
    print(json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": result}), flush=True)
"""


@pytest.mark.slow
def test_a_client_gone_while_a_teams_call_waits_has_its_request_expired(tmp_path: Path) -> None:
    """Under `service.policies` a call is decided by its team's engine, whose approval
    stage holds its requests; the hang-up was handed to the service's own engine,
    which found nothing to expire, and the team's request stayed approvable for its
    whole budget after the hook had refused the call and gone."""
    (tmp_path / "team").mkdir()
    (tmp_path / "team" / "holds.yaml").write_text(HOLDS_PACK)
    extra = f"  policies: [{{name: ops, packs: [{tmp_path / 'team'}], uids: [0]}}]\n"
    running = start_service(
        tmp_path / "svc", settings_extra=extra, approvals=f"sqlite:///{tmp_path / 'approvals.db'}"
    )
    try:
        operator = running.client(token=OPERATOR_TOKEN)
        client = waiting_hook(running, "./deploy prod", stdout=subprocess.DEVNULL)
        wait_for_request(operator)  # (the team's gate filed its request)
        client.kill()
        client.wait(timeout=30)
        hung_up = running.stderr.wait_for(
            lambda line: orjson.loads(line) if b'"client hung up"' in line else None
        )
        assert operator.call("GET", "/v1/approvals")["requests"] == []  # none pending
        expired = operator.call("GET", "/v1/approvals?state=expired")["requests"]
        assert hung_up["expired"] == len(expired) >= 1
        assert "holds" in {request["pack"] for request in expired}  # the team's pack's
    finally:
        stop(running)


@pytest.mark.slow
def test_a_client_gone_before_its_call_reaches_the_gate_files_nothing(tmp_path: Path) -> None:
    """The service expired what a call had filed when it saw its client hang up; a
    call still in a slow approver ahead of the gate then filed its request afterwards,
    pending and approvable for the whole of its budget though its hook had refused it
    and gone. Now nothing is filed for a call once its client has hung up."""
    gate = tmp_path / "held_approver.py"
    gate.write_text(_HELD_APPROVER)
    (tmp_path / "packs").mkdir()
    (tmp_path / "packs" / "holds.yaml").write_text(HOLDS_PACK)
    extra = (
        "hooks:\n  processes:\n    held:\n      enabled: true\n"
        f"      command: [{sys.executable}, {gate}, {tmp_path}]\n"
        "      intercept: [approve_tool]\n      timeout_ms: 60000\n"
    )
    running = start_service(tmp_path / "svc", packs=tmp_path / "packs", settings_extra=extra)
    try:
        client = waiting_hook(running, "./deploy prod", stdout=subprocess.DEVNULL)
        for _ in range(3000):
            if (tmp_path / "asked").exists():
                break
            time.sleep(0.01)
        else:
            raise AssertionError("the approver ahead of the gate was never asked")
        client.kill()  # its host gave up on it: the connection closes
        client.wait(timeout=30)
        running.stderr.wait_for(lambda line: True if b'"client hung up"' in line else None)
        (tmp_path / "go").touch()  # the approver answers; the gate is reached now
        running.stderr.wait_until(
            lambda: any(
                r.get("point") == "approve_tool" and "the client hung up" in r["reason"]
                for r in logged(running)
            )
        )
        everything = running.client(token=OPERATOR_TOKEN).call("GET", "/v1/approvals?state=all")
        assert everything["requests"] == []  # nothing was filed, so nothing is approvable
    finally:
        stop(running)


# --------------------------------------------------------------- whose eyes


def test_the_analysis_looks_at_the_disk_with_the_callers_permissions(tmp_path: Path) -> None:
    """Resolving links and expanding globs as the service's user told an agent what is
    in directories it cannot read (a link into /etc/shadow denied as a credential, its
    neighbour allowed). Looking as the caller, all of it is equally out of sight."""
    from policy.analysis import paths
    from policy.analysis.effects import resolve_all
    from policy.analysis.viewer import looking_as

    secret = tmp_path / "secret"
    secret.mkdir(mode=0o700)
    (secret / "l").symlink_to("/etc/shadow")
    (secret / "m").write_text("x")
    assert paths.resolve(str(secret / "l")) == "/etc/shadow"  # this process may look
    assert str(secret / "l") in resolve_all((str(secret / "*"),), "")
    with looking_as(NOBODY):
        for name in ("l", "m", "nothing-here"):
            with pytest.raises(paths.UnsafePathError, match="permission denied"):
                paths.resolve(str(secret / name))
        expanded = resolve_all((str(secret / "*"),), "")
        assert not any(p.endswith(("/l", "/m", "shadow")) for p in expanded)
    # A directory the caller may search is looked at as before.
    with looking_as(NOBODY):
        assert paths.resolve("/tmp/hookpolicy-none/x") == "/tmp/hookpolicy-none/x"


@needs_other_uids
@pytest.mark.slow
def test_the_service_answers_alike_about_files_the_caller_cannot_reach(tmp_path: Path) -> None:
    import tempfile

    from tests.test_service import ROOT

    public = Path(tempfile.mkdtemp(dir="/tmp"))  # searchable by the agent: /tmp/x, 0755
    public.chmod(0o755)
    secret = public / "secret"
    secret.mkdir(mode=0o700)
    (secret / "l").symlink_to("/etc/shadow")
    (secret / "m").write_text("x")
    running = start_service(tmp_path / "svc", packs=ROOT / "rules", socket_mode="0666")
    try:
        running.socket.parent.chmod(0o755)
        config = tmp_path / "hook.yaml"
        config.write_text(f"server: {running.unix}\nserver_owner: '0'\n")
        config.chmod(0o644)
        def answer_to(command: str) -> bytes:
            answer, done = hook(
                "claude",
                pre_tool(command) | {"cwd": str(public)},
                config=config,
                prefix=as_uid(NOBODY),
            )
            assert done.returncode == 0, done.stderr
            return orjson.dumps(answer)

        # A link into /etc/shadow, a plain file, nothing at all: nothing tells them apart.
        named = {answer_to(f"cat {secret / name}") for name in ("l", "m", "missing")}
        assert len(named) == 1, named
        globbed = {answer_to(f"cat {secret / pattern}") for pattern in ("*", "l*", "zz*")}
        assert len(globbed) == 1, globbed
    finally:
        stop(running)
        shutil.rmtree(public)


# --------------------------------------------------------------- a command built to blow up


def _rss_peak(pid: int) -> int:
    """The process's peak resident memory so far, in KiB (VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def doubling(times: int) -> str:
    steps = " ".join(f"v{i}=$v{i - 1}$v{i - 1};" for i in range(1, times))
    return f"a=xxxxxxxx; v0=$a$a; {steps} rm -rf $v{times - 1}"


@pytest.mark.slow
def test_a_command_that_doubles_a_word_forty_times_is_refused_and_nobody_waits(
    tmp_path: Path,
) -> None:
    """Finding 2: 40 doublings in a 560-byte command took the service down (24 GB, the
    OOM killer); a variant the analysis gave up on was allowed. Now it is refused,
    naming the cap, in the memory it had, while other calls are answered."""
    from tests.test_service import ROOT

    running = start_service(tmp_path / "svc", packs=ROOT / "rules")
    try:
        client = running.client()
        warm = {"tool": "Bash", "args": {"command": "ls -la"}, "cwd": "/srv/app"}
        client.call("POST", "/v1/decide/before_tool", warm)
        before = _rss_peak(running.process.pid)
        order: list[str] = []

        def blow_up() -> None:
            answer, _ = hook("claude", pre_tool(doubling(40)), "--server", running.unix)
            order.append("doubling")
            assert permission(answer)[0] == "deny"
            assert "analysis.max_word_bytes" in permission(answer)[1]

        with ThreadPoolExecutor(2) as pool:
            bomb = pool.submit(blow_up)
            started = time.monotonic()
            answer, _ = hook("claude", pre_tool("rm -rf /"), "--server", running.unix)
            assert permission(answer)[0] == "deny"
            assert time.monotonic() - started < 5  # liveness, on a loaded machine too
            bomb.result(timeout=60)
        for times in (22, 30, 40):  # the same answer, whatever the size it would reach
            status, _, decided = client.request(
                "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": doubling(times)}}
            )
            assert (status, decided["action"]) == (200, "deny_tool")
            assert decided["reason"].endswith("(cap: analysis.max_word_bytes)")
        grown = _rss_peak(running.process.pid) - before
        assert grown < 200 * 1024, f"peak RSS grew {grown} KiB"
    finally:
        stop(running)


def test_a_link_the_agent_made_does_not_carry_the_analysis_past_a_directory_it_cannot_search(
) -> None:
    """Checking the written path's prefixes let `/tmp/x/l1 -> /root-only/proj` through:
    only `proj`'s own mode was looked at, never the 0700 directory above it."""
    import tempfile

    from policy.analysis import git
    from policy.analysis.effects import resolve_all
    from policy.analysis.viewer import looking_as, may_read, may_search

    public = Path(tempfile.mkdtemp(dir="/tmp"))
    try:
        public.chmod(0o755)
        hidden = public / "hidden"
        hidden.mkdir(mode=0o700)
        for name in ("proj", "other"):
            (hidden / name).mkdir(mode=0o755)
        (hidden / "proj" / "id_rsa").write_text("key")
        for name in ("objects", "refs"):  # a repository, as git tells one
            (hidden / "proj" / ".git" / name).mkdir(parents=True)
        (hidden / "proj" / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
        (hidden / "proj" / ".git" / "config").write_text("[core]\n\tfsmonitor = ./x\n")
        agent = public / "agent"
        agent.mkdir(mode=0o777)
        (agent / "l1").symlink_to(hidden / "proj")
        (agent / "l2").symlink_to(hidden / "other")
        assert git.repo_code(str(agent / "l1"), "")  # this process sees the fsmonitor
        with looking_as(NOBODY):
            for link in ("l1", "l2"):
                assert not may_search(str(agent / link))
                assert not may_read(str(agent / link / "id_rsa"))
                expanded = resolve_all((str(agent / link / "*"),), "")
                assert not any("id_rsa" in path for path in expanded)
                assert git.repo_code(str(agent / link), "") == ""
    finally:
        shutil.rmtree(public)
