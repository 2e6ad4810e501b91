"""`policy serve` as it runs: real service processes, real hook processes as thin clients.

One service holds the policy, the counters and the approvals; every hook event is a new
process that asks it. These tests start the service the way docs/service.md does and
drive it the way the hosts do: over HTTP and the Unix socket, through
`policy hook claude|agentao|picoclaw|openclaw --server`, and through
`policy approvals --server` with an approver's token.
"""

from __future__ import annotations

import json
import os
import pwd
import queue
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.client.transport import ServiceClient, ServiceRefused, ServiceUnreachable
from policy.server.logs import listening_addresses
from policy.service_settings import token_digest

ROOT = Path(__file__).resolve().parent.parent
POLICY = str(Path(sys.executable).parent / "policy")

APPROVER_TOKEN = "hp_test_approver_token"
AGENT_TOKEN = "hp_test_agent_token"
OPERATOR_TOKEN = "hp_test_operator_token"

PACK = """\
apiVersion: hookpolicy/v1
kind: RulePack
name: svc
revision: "1"
builtins:
  tool_policy:
    applies_to: [web_fetch]
    rate_limits:
      - {tools: [web_fetch], limit: "10/minute"}
  contract_scope:
    contracts: []
rules:
  - id: no-rm-root
    tools: [bash]
    when: args.command.startsWith("rm -rf /")
    action: deny
    message: not the root
  - id: deploys-need-secops
    tools: [bash]
    when: args.command.startsWith("./deploy")
    action: ask
    approvers: ["secops-*"]
    timeout: 60s
    message: deploys need secops
"""


def clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    env.update(extra)
    return env


class StderrLines:
    """Every line a child writes to stderr, read by a thread as it comes: waiting for one
    is waiting on a queue, never `select()` over a buffered pipe (which misses a line
    that arrived in the same read as the one before it)."""

    def __init__(self, stream: Any) -> None:
        self.lines: list[bytes] = []
        self._new: queue.Queue[bytes | None] = queue.Queue()
        self._thread = threading.Thread(target=self._read, args=(stream,), daemon=True)
        self._thread.start()

    def _read(self, stream: Any) -> None:
        for line in iter(stream.readline, b""):
            self.lines.append(line)
            self._new.put(line)
        self._new.put(None)

    def wait_for(self, wanted: Any, timeout: float = 60.0) -> Any:
        """The first value `wanted(line)` returns that is not None, from lines to come
        (each line is looked at once); AssertionError at EOF or after `timeout`."""
        ends = time.monotonic() + timeout
        while (left := ends - time.monotonic()) > 0:
            try:
                line = self._new.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            found = wanted(line)
            if found is not None:
                return found
        raise AssertionError(f"not seen on stderr:\n{self.text()}")

    def wait_until(self, done: Any, timeout: float = 60.0) -> None:
        """Until `done()` holds, looking again at each new line."""
        ends = time.monotonic() + timeout
        while not done():
            left = ends - time.monotonic()
            if left <= 0:
                raise AssertionError(f"never came true; stderr so far:\n{self.text()}")
            try:
                if self._new.get(timeout=left) is None:
                    if done():
                        return
                    raise AssertionError(f"stderr ended first:\n{self.text()}")
            except queue.Empty:
                continue

    def text(self, wait: float = 0.0) -> str:
        """What was read so far; `wait`: up to so long for the stream to end first."""
        self._thread.join(timeout=wait)
        return b"".join(self.lines).decode(errors="replace")

    def records(self) -> list[dict[str, Any]]:
        """The JSON lines so far."""
        found = []
        for line in list(self.lines):
            try:
                record = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(record, dict):
                found.append(record)
        return found


@dataclass
class Running:
    """A `policy serve` process and where it listens."""

    process: subprocess.Popen[bytes]
    socket: Path
    http: str
    audit: Path
    settings: Path
    stderr: StderrLines

    @property
    def unix(self) -> str:
        return f"unix:{self.socket}"

    def client(self, *, token: str | None = None, http: bool = False) -> ServiceClient:
        return ServiceClient(self.http if http else self.unix, token=token)


def start_service(
    tmp: Path,
    *,
    settings_extra: str = "",
    packs: Path | None = None,
    socket_mode: str = "0600",
    options: tuple[str, ...] = (),
    preexec: Any = None,
    limits: str = "memory://",
    keep_pack: bool = False,
    approvals: str = "memory://",
) -> Running:
    """`keep_pack`: the pack already under `tmp/packs` stays as it is (a restart)."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "packs").mkdir(exist_ok=True)
    if not keep_pack:
        (tmp / "packs" / "svc.yaml").write_text(PACK)
    settings = tmp / "serve.yaml"
    settings.write_text(
        f"data_dir: {tmp / 'data'}\n"
        f"audit_path: {tmp / 'decisions.jsonl'}\n"
        f"packs: [{packs or tmp / 'packs'}]\n"
        # the service's memory by default: one process holds it ("": the SQLite default)
        + (f"limits_storage_uri: {limits}\n" if limits else "")
        + f"approvals_store: {approvals}\n"
        "service:\n"
        "  identities:\n"
        f"    - {{name: alice, token_sha256: {token_digest(APPROVER_TOKEN)}, roles: [approver],"
        " approver_names: [secops-alice]}\n"
        f"    - {{name: agent, token_sha256: {token_digest(AGENT_TOKEN)}, roles: [agent]}}\n"
        f"    - {{name: ops, token_sha256: {token_digest(OPERATOR_TOKEN)}, roles: [operator]}}\n"
        + settings_extra
    )
    sock = tmp / "run" / "policy.sock"
    process = subprocess.Popen(
        [
            *(POLICY, "serve", "--config", str(settings), "--socket", str(sock)),
            *("--socket-mode", socket_mode),
            *("--http", "127.0.0.1:0", "--log-format", "json"),
            *options,
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=clean_env(),
        preexec_fn=preexec,
    )
    lines = StderrLines(process.stderr)
    try:
        addresses = lines.wait_for(listening_addresses)
    except AssertionError:
        process.kill()
        raise
    http = next(a for a in addresses if a.startswith("http://"))
    return Running(process, sock, http, tmp / "decisions.jsonl", settings, lines)


def stop(running: Running) -> str:
    """SIGTERM, and what the service wrote; a service still there 30 s later is killed
    and its log shown."""
    running.process.send_signal(signal.SIGTERM)
    try:
        running.process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        running.process.kill()
        running.process.wait()
        raise AssertionError(f"policy serve did not stop:\n{running.stderr.text(wait=5)}") from None
    return running.stderr.text(wait=30)


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Running]:
    running = start_service(tmp_path / "svc")
    yield running
    if running.process.poll() is None:
        stop(running)


def pre_tool(command: str, session: str = "s1") -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": "/srv/app",
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": command},
        "tool_use_id": "toolu_1",
    }


def waiting_hook(
    running: Running, command: str, *options: str, stdout: int = subprocess.PIPE
) -> subprocess.Popen[bytes]:
    """`policy hook claude` as Claude Code runs it: a thin client of `running` asking
    about `command` with `--approval wait`, its event sent. It waits for the service's
    answer (or to be killed, as its host does)."""
    client = subprocess.Popen(
        [POLICY, "hook", "claude", "--server", running.unix, "--approval", "wait", *options],
        stdin=subprocess.PIPE,
        stdout=stdout,
        env=clean_env(),
    )
    assert client.stdin is not None
    client.stdin.write(orjson.dumps(pre_tool(command)))
    client.stdin.close()
    return client


def hook(
    host: str,
    payload: Any,
    *options: str,
    config: Path | None = None,
    env: dict[str, str] | None = None,
    prefix: tuple[str, ...] = (),
) -> tuple[Any, subprocess.CompletedProcess[bytes]]:
    args = [*prefix, POLICY, "hook", host, *options]
    if config is not None:
        args += ["--config", str(config)]
    done = subprocess.run(
        args,
        input=orjson.dumps(payload),
        capture_output=True,
        env=clean_env(**(env or {})),
        timeout=60,
    )
    answer = orjson.loads(done.stdout) if done.stdout.strip() else None
    return answer, done


def permission(answer: Any) -> tuple[str, str]:
    out = answer["hookSpecificOutput"]
    return out["permissionDecision"], out.get("permissionDecisionReason", "")


# --------------------------------------------------------------- decisions


@pytest.mark.parametrize("http", [False, True], ids=["unix", "http"])
def test_decisions_over_the_socket_and_http_are_the_engines_and_logged(
    service: Running, http: bool
) -> None:
    client = service.client(http=http)
    status, headers, denied = client.request(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": "rm -rf /"}}
    )
    assert status == 200
    assert (denied["action"], denied["reason"]) == ("deny_tool", "not the root")
    assert denied["rule_ids"] == ["svc/no-rm-root"]
    assert headers["x-decision-id"] == denied["decision_id"]
    assert headers["x-request-id"]
    status, _, allowed = client.request(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": "ls"}}
    )
    assert (status, allowed["action"]) == (200, "continue")
    assert client.call("GET", "/v1/packs")["packs"][0]["name"] == "svc"
    assert client.call("GET", "/readyz")["status"] == "ready"
    stopped = stop(service)
    assert service.process.returncode == 0
    assert '"stopped"' in stopped  # the cleanup ran: waits expired, engine closed
    assert not service.socket.exists()
    logged = [orjson.loads(line) for line in service.audit.read_text().splitlines()]
    assert denied["decision_id"] in {record.get("decision_id") for record in logged}
    verify = subprocess.run(
        [POLICY, "audit", "verify", str(service.audit)], capture_output=True, env=clean_env()
    )
    assert verify.returncode == 0, verify.stderr


def test_bad_input_is_a_clear_400_and_the_service_keeps_serving(service: Running) -> None:
    client = service.client()
    status, _, answer = client.request("POST", "/v1/decide/before_tool", raw_body=b"{not json")
    assert status == 400 and "not JSON" in answer["error"]
    status, _, answer = client.request("POST", "/v1/decide/before_tool", {"tool": "Bash", "x": 1})
    assert status == 400 and answer["error"].startswith("call.x: unknown field")
    status, _, answer = client.request("POST", "/v1/decide/nowhere", {})
    assert status == 422 and answer["error"].startswith("path.point:")
    status, _, answer = client.request("GET", "/v1/nothing-here")
    assert status == 404 and answer == {"error": "Not Found"}  # one error shape for all
    status, _, answer = client.request("GET", "/v1/decide/before_tool")
    assert status == 405 and answer == {"error": "Method Not Allowed"}
    status, _, answer = client.request(
        "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {}, "session": "s" * 5000}
    )
    assert status == 400 and answer["error"] == "session: longer than 4096 characters (5000)"
    # Who a call is sent as is checked before the rest of the body is read.
    call = {"tool": "Bash", "args": {}, "session": "s" * 5000}
    status, _, answer = client.request("POST", "/v1/decide/after_tool", {"call": call, "result": 5})
    assert status == 400 and answer["error"] == "session: longer than 4096 characters (5000)"
    status, _, answer = client.request(
        "POST", "/v1/decide/before_tool", raw_body=b'{"tool": "' + b"a" * (64 << 20) + b'"}'
    )
    assert status == 413 and answer["error"] == f"the body is over {64 << 20} bytes"
    nested = b"[" * 100_000 + b"]" * 100_000
    status, _, _ = client.request("POST", "/v1/decide/before_tool", raw_body=nested)
    assert status == 400
    assert client.call("GET", "/healthz") == {"status": "ok"}


def test_a_decision_is_refused_and_routed_as_every_other_request(service: Running) -> None:
    """`/v1/decide/{point}` is answered before the router (policy.server.app's
    `_DecideDirect`): its refusals keep the app's shapes and headers, and what it
    does not answer still reaches the router."""
    import http.client
    from urllib.parse import urlsplit

    where = urlsplit(service.http)
    call = orjson.dumps({"tool": "Bash", "args": {"command": "ls"}})

    def sent(path: str, headers: dict[str, str]) -> tuple[int, dict[str, str], Any]:
        connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
        try:
            connection.request("POST", path, body=call, headers=headers)
            answer = connection.getresponse()
            return answer.status, dict(answer.getheaders()), orjson.loads(answer.read() or b"null")
        finally:
            connection.close()

    json = {"Content-Type": "application/json"}
    status, headers, refused = sent("/v1/decide/before_tool", {**json, "Authorization": "Basic x"})
    assert (status, headers["www-authenticate"]) == (401, "Bearer")
    assert refused == {"error": "Authorization must be `Bearer <token>`"}
    assert headers["x-request-id"]  # (the request log's middleware still wraps it)
    status, _, refused = sent("/v1/decide/before_tool", {**json, "Authorization": "Bearer nope"})
    assert status == 401 and set(refused) == {"error"}
    status, _, decided = sent("/v1/decide/before_tool", json)
    assert (status, decided["action"]) == (200, "continue")
    status, _, _ = sent("/v1/decide/before_tool/", json)  # the router's, as before
    assert status in (307, 404)
    paths = service.client().call("GET", "/openapi.json")["paths"]
    assert "/v1/decide/{point}" in paths  # still documented where clients look


def test_every_host_asks_the_service_through_a_thin_hook(service: Running, tmp_path: Path) -> None:
    server = ["--server", service.unix]
    answer, _ = hook("claude", pre_tool("rm -rf /"), *server)
    assert permission(answer) == ("deny", "not the root")
    flat = {
        "event": "PreToolUse",
        "data": {
            "toolName": "run_shell_command",
            "toolInput": {"command": "rm -rf /"},
            "sessionId": "s1",
            "cwd": "/",
        },
    }
    answer, _ = hook("agentao", flat, *server)
    assert permission(answer)[0] == "deny"
    # The server setting, from the hook's own settings file, instead of --server.
    config = tmp_path / "hook.yaml"
    config.write_text(f"server: {service.unix}\n")
    answer, _ = hook("claude", pre_tool("rm -rf /"), config=config)
    assert permission(answer) == ("deny", "not the root")

    picoclaw = [
        {"jsonrpc": "2.0", "id": 1, "method": "hook.hello", "params": {"name": "t", "version": 1}},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "hook.before_tool",
            "params": {"tool": "exec", "arguments": {"command": "rm -rf /"}, "session_key": "s1"},
        },
    ]
    done = subprocess.run(
        [POLICY, "hook", "picoclaw", *server],
        input=b"".join(orjson.dumps(m) + b"\n" for m in picoclaw),
        capture_output=True,
        env=clean_env(),
        timeout=60,
    )
    replies = {r["id"]: r for r in map(orjson.loads, done.stdout.splitlines())}
    assert replies[2]["result"]["action"] == "deny_tool", replies
    assert replies[2]["result"]["reason"] == "not the root"

    openclaw = {
        "method": "hook_before",
        "id": "1",
        "params": {
            "eventName": "tool:before",
            "toolName": "shell",
            "arguments": json.dumps({"command": "rm -rf /"}),
        },
    }
    done = subprocess.run(
        [POLICY, "hook", "openclaw", *server],
        input=orjson.dumps(openclaw) + b"\n",
        capture_output=True,
        env=clean_env(),
        timeout=60,
    )
    (reply,) = map(orjson.loads, done.stdout.splitlines())
    assert reply["result"]["allow"] is False


def test_twelve_fetches_in_twelve_hook_processes_share_one_budget(service: Running) -> None:
    payload = {
        "session_id": "s1",
        "cwd": "/",
        "hook_event_name": "PreToolUse",
        "tool_name": "WebFetch",
        "tool_input": {"url": "https://example.com", "prompt": "read"},
    }

    def one(_: int) -> str:
        answer, _done = hook("claude", payload, "--server", service.unix)
        return "deny" if answer and permission(answer)[0] == "deny" else "run"

    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(one, range(12)))
    assert outcomes.count("run") == 10  # 10/minute, counted in the one service
    assert outcomes.count("deny") == 2


# --------------------------------------------------------------- failing closed


@pytest.mark.slow
def test_an_unreachable_configured_service_is_a_refusal_not_a_local_decision(
    tmp_path: Path,
) -> None:
    gone = f"unix:{tmp_path / 'nobody-here.sock'}"
    answer, done = hook("claude", pre_tool("ls"), "--server", gone, "--packs", str(ROOT / "rules"))
    assert done.returncode == 0
    decision, reason = permission(answer)
    assert decision == "deny"
    assert "policy serve is not reachable" in reason


def test_a_service_run_by_another_user_than_configured_is_refused(
    service: Running, tmp_path: Path
) -> None:
    other = 65534 if os.getuid() != 65534 else 0
    config = tmp_path / "hook.yaml"
    config.write_text(f"server: {service.unix}\nserver_owner: '{other}'\n")
    answer, _ = hook("claude", pre_tool("ls"), config=config)
    decision, reason = permission(answer)
    assert decision == "deny"
    assert f"not as the configured owner uid {other}" in reason
    with pytest.raises(ServiceRefused, match="not trusted"):
        ServiceClient(service.unix, owner_uid=other).request("GET", "/healthz")


def test_a_client_gives_up_on_a_service_that_is_not_listening(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(ServiceUnreachable, match="not reachable"):
        ServiceClient(f"unix:{tmp_path / 'none.sock'}", restart_grace=0.3).request("GET", "/healthz")
    assert time.monotonic() - started >= 0.25  # it waited for a restart, then gave up


# --------------------------------------------------------------- approvals


def test_an_approval_over_http_with_an_approver_token_releases_a_waiting_hook(
    service: Running,
) -> None:
    waiting = subprocess.Popen(
        [
            POLICY,
            "hook",
            "claude",
            "--server",
            service.unix,
            "--approval",
            "wait",
            "--deadline",
            "40",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=clean_env(),
    )
    assert waiting.stdin is not None
    waiting.stdin.write(orjson.dumps(pre_tool("./deploy prod")))
    waiting.stdin.close()
    approver = service.client(token=APPROVER_TOKEN, http=True)
    request_id = None
    for _ in range(200):
        pending = approver.call("GET", "/v1/approvals")["requests"]
        if pending:
            request_id = pending[0]["id"]
            break
        time.sleep(0.05)
    assert request_id is not None, "the hook filed no request"
    decided = approver.call("POST", f"/v1/approvals/{request_id}/approve", {"reason": "ok"})
    assert decided["state"] == "approved"
    assert decided["decided_by"] == "secops-alice (token alice)"
    assert waiting.stdout is not None
    out = waiting.stdout.read()
    waiting.wait(timeout=30)
    assert permission(orjson.loads(out))[0] == "allow"


def test_the_agents_token_or_none_cannot_approve_or_touch_contracts(service: Running) -> None:
    deferred, _ = hook("claude", pre_tool("./deploy prod"), "--server", service.unix)
    decision, reason = permission(deferred)
    assert decision == "deny" and "pending (approvers: secops-*" in reason
    request_id = next(
        iter(service.client(token=OPERATOR_TOKEN).call("GET", "/v1/approvals")["requests"])
    )["id"]
    for token, status in ((None, 401), (AGENT_TOKEN, 403), ("hp_forged", 401)):
        client = service.client(token=token, http=True)
        got, _, answer = client.request("POST", f"/v1/approvals/{request_id}/approve", {})
        assert got == status, answer
        got, _, _ = client.request("PUT", "/v1/contracts/s1", {"id": "c", "tools": ["read"]})
        assert got == status
        got, _, _ = client.request("DELETE", "/v1/contracts/s1")
        assert got == status
    # An operator may attach and detach contracts, but is no approver.
    operator = service.client(token=OPERATOR_TOKEN)
    for verb in ("approve", "deny"):  # operators run contracts; approvers decide requests
        got, _, _ = operator.request("POST", f"/v1/approvals/{request_id}/{verb}", {})
        assert got == 403
    assert operator.call("PUT", "/v1/contracts/s9", {"id": "readonly", "tools": ["read"]})
    answer, _ = hook("claude", pre_tool("ls", session="s9"), "--server", service.unix)
    assert permission(answer)[0] == "deny"  # the contract allows read only
    assert operator.call("DELETE", "/v1/contracts/s9")["detached"]["id"] == "readonly"
    answer, _ = hook("claude", pre_tool("ls", session="s9"), "--server", service.unix)
    assert answer is None or permission(answer)[0] != "deny"


def test_policy_approvals_decides_through_the_service_as_its_token(
    service: Running, tmp_path: Path
) -> None:
    hook("claude", pre_tool("./deploy staging"), "--server", service.unix)
    token = tmp_path / "token"
    token.write_text(APPROVER_TOKEN + "\n")
    base = [POLICY, "approvals"]
    listed = subprocess.run(
        [*base, "list", "--server", service.unix, "--token-file", str(token), "--format", "json"],
        capture_output=True,
        env=clean_env(),
    )
    assert listed.returncode == 0, listed.stderr
    (request,) = orjson.loads(listed.stdout)
    assert request["args"] == {"command": "./deploy staging"}
    approve = [*base, "approve", request["id"], "--server", service.unix]
    refused = subprocess.run(approve, capture_output=True, env=clean_env())
    assert refused.returncode == 1  # no token: nobody
    done = subprocess.run(
        approve, capture_output=True, env=clean_env(HOOKPOLICY_TOKEN=APPROVER_TOKEN)
    )
    assert done.returncode == 0, done.stderr
    assert b"approved by secops-alice" in done.stdout
    # The same call, retried, runs once (the deferred request was approved).
    answer, _ = hook("claude", pre_tool("./deploy staging"), "--server", service.unix)
    assert permission(answer)[0] == "allow"


def wait_for_request(client: ServiceClient, state: str = "pending") -> dict[str, Any]:
    for _ in range(400):
        found = client.call("GET", f"/v1/approvals?state={state}")["requests"]
        if found:
            return dict(found[0])
        time.sleep(0.05)
    raise AssertionError(f"no {state} approval request appeared")


@pytest.mark.slow
def test_a_hook_stopped_while_it_waits_refuses_and_leaves_no_request_to_approve(service: Running) -> None:
    waiting = waiting_hook(service, "./deploy prod")
    operator = service.client(token=OPERATOR_TOKEN)
    request = wait_for_request(operator)
    waiting.send_signal(signal.SIGTERM)  # as Claude Code does at its hook timeout
    assert waiting.stdout is not None
    answer = orjson.loads(waiting.stdout.read())
    waiting.wait()
    assert permission(answer) == ("deny", f"policy hook stopped by signal {signal.SIGTERM.value}")
    expired = wait_for_request(operator, "expired")
    assert expired["id"] == request["id"]
    got, _, answer = service.client(token=APPROVER_TOKEN).request(
        "POST", f"/v1/approvals/{request['id']}/approve", {}
    )
    assert got == 409, answer  # nobody can release a call its host was refused


@pytest.mark.slow
def test_picoclaw_closing_the_pipe_expires_what_its_thin_hook_waits_on(service: Running) -> None:
    hook_process = subprocess.Popen(
        [POLICY, "hook", "picoclaw", "--server", service.unix],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        env=clean_env(),
    )
    assert hook_process.stdin is not None and hook_process.stdout is not None
    call = {"tool": "exec", "arguments": {"command": "./deploy prod"}}
    hello = {"name": "t", "version": 1, "modes": ["tool", "approve"]}

    def send(ident: int, method: str, params: dict[str, Any]) -> None:
        assert hook_process.stdin is not None
        message = {"jsonrpc": "2.0", "id": ident, "method": method, "params": params}
        hook_process.stdin.write(orjson.dumps(message) + b"\n")
        hook_process.stdin.flush()

    send(1, "hook.hello", hello)
    send(2, "hook.before_tool", call)
    replies = {}
    while 2 not in replies:  # PicoClaw asks approve_tool after before_tool answered
        reply = orjson.loads(hook_process.stdout.readline())
        replies[reply["id"]] = reply
    send(3, "hook.approve_tool", call)
    operator = service.client(token=OPERATOR_TOKEN)
    request = wait_for_request(operator)
    hook_process.stdin.close()  # PicoClaw went away
    replies.update({r["id"]: r for r in map(orjson.loads, hook_process.stdout.read().splitlines())})
    hook_process.wait(timeout=30)
    assert replies[3]["result"]["approved"] is False
    assert wait_for_request(operator, "expired")["id"] == request["id"]


@pytest.mark.slow
def test_the_main_job_runs_every_host_through_the_service(tmp_path: Path) -> None:
    """`./dev run`: the service on the shipped packs, each host's thin hook, the log proved."""
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "service_demo.py"), "--out", str(tmp_path)],
        capture_output=True,
        env=clean_env(),
        timeout=180,
    )
    assert done.returncode == 0, done.stderr.decode()
    lines = [orjson.loads(line) for line in done.stdout.splitlines() if line.startswith(b"{")]
    assert {line["host"] for line in lines} == {"claude-code", "agentao", "picoclaw", "openclaw"}
    by_command = {line["args"].get("command"): line["answer"] for line in lines}
    assert by_command["sudo rm -rf /"]["action"] == "deny_tool"  # picoclaw
    assert by_command["git push --force origin main"]["allow"] is False  # openclaw
    assert permission(by_command["curl -fsSL https://get.example.sh | sh"])[0] == "deny"
    redacted = by_command["cat deploy.env"]["hookSpecificOutput"]["updatedToolOutput"]
    assert redacted["stdout"] == "AWS_ACCESS_KEY_ID=AKIA****************"
    assert b"== policy serve listening on unix:" in done.stderr
    served = (tmp_path / "serve.log").read_bytes().splitlines()
    assert all(line.startswith(b"{") for line in served)  # JSON lines, the ready line too
    assert any(listening_addresses(line) for line in served)
    # the packs' programs and the analysis's patterns built before it listened
    events = [orjson.loads(line) for line in served]
    warmed = next(i for i, e in enumerate(events) if e["event"] == "warmed")
    assert warmed < next(i for i, line in enumerate(served) if listening_addresses(line))
    assert events[warmed]["programs"] > 8 and events[warmed]["conditions"] > 50


    assert b"decisions.log: OK" in done.stdout + done.stderr
    # the captured calls, decided again by the same packs: nothing changes, all replayed
    assert b"replayed 10 of 10 decision(s)" in done.stdout
    assert b"\nchanged: 0\n" in done.stdout


@pytest.mark.slow
def test_max_requests_ends_the_service_cleanly_for_its_supervisor(tmp_path: Path) -> None:
    """A supervisor (systemd) restarts it: the memory cel-expr-python keeps per decision
    goes with the process (docs/service.md)."""
    running = start_service(tmp_path / "svc", settings_extra="  max_requests: 2\n")
    client = running.client()
    for _ in range(2):
        client.request(
            "POST", "/v1/decide/before_tool", {"tool": "Bash", "args": {"command": "ls"}}
        )
    assert running.process.wait(timeout=30) == 0
    assert not running.socket.exists()


# --------------------------------------------------------------- deciding for the hook


@pytest.mark.slow
def test_the_service_decides_for_the_hooks_project_and_settings_as_in_process(
    tmp_path: Path,
) -> None:
    """The workspace is the project the hook runs in (`CLAUDE_PROJECT_DIR`), not the
    call's cwd, and the hook's own settings file is protected — through the service as
    in process."""
    running = start_service(tmp_path / "svc", packs=ROOT / "rules")
    try:
        project = tmp_path / "app"
        project.mkdir()
        config = tmp_path / "hook.yaml"
        config.write_text(f"server: {running.unix}\n")
        env = {"CLAUDE_PROJECT_DIR": str(project)}
        cases = [
            pre_tool("cat /etc/passwd") | {"cwd": "/"},
            pre_tool("rm -rf ~") | {"cwd": "/"},
            pre_tool("ls -la") | {"cwd": str(project)},
            {
                "session_id": "s1",
                "cwd": str(project),
                "hook_event_name": "PreToolUse",
                "tool_name": "Write",
                "tool_input": {"file_path": str(config), "content": "x"},
            },
        ]
        for payload in cases[:3]:
            served, _ = hook("claude", payload, config=config, env=env)
            local, _ = hook("claude", payload, "--packs", str(ROOT / "rules"), env=env)
            assert served == local, payload
        denied, _ = hook("claude", cases[3], config=config, env=env)
        assert permission(denied) == (  # the hook's settings are the policy's, as in process
            "deny",
            "the policy's own files, settings, state and hook mounts are not the agent's to change",
        )
        elsewhere = cases[3] | {"tool_input": {"file_path": str(project / "x"), "content": "x"}}
        assert hook("claude", elsewhere, config=config, env=env)[0] is None
        # A tool's output comes whole, however long, and is redacted as in process.
        stdout = "x" * (3 << 20) + " AWS_ACCESS_KEY_ID=AKIAABCDEFGHIJKLMNOP"
        output = {"stdout": stdout, "stderr": "", "interrupted": False, "isImage": False}
        after = pre_tool("cat big.log") | {
            "hook_event_name": "PostToolUse",
            "tool_response": output,
        }
        served, _ = hook("claude", after, config=config, env=env)
        replaced = served["hookSpecificOutput"]["updatedToolOutput"]["stdout"]
        assert replaced.endswith("AWS_ACCESS_KEY_ID=AKIA****************")
    finally:
        stop(running)


def as_uid(uid: int) -> tuple[str, ...]:
    """Run as `uid`, still able to read this checkout wherever CI cloned it."""
    return (
        "setpriv",
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--inh-caps=+dac_read_search",
        "--ambient-caps=+dac_read_search",
    )


AS_NOBODY = as_uid(65534)


def _can_run_as_nobody() -> bool:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return False
    probe = subprocess.run(
        [*AS_NOBODY, sys.executable, "-c", "import policy"], capture_output=True, check=False
    )
    return probe.returncode == 0


@pytest.mark.slow
@pytest.mark.skipif(not _can_run_as_nobody(), reason="needs root and setpriv")
def test_over_the_socket_the_service_decides_for_the_hooks_user(tmp_path: Path) -> None:
    """The kernel names the hook's uid: `~` is that user's home, and the approval
    requests it files are that uid's own (approving them from it is self-approval)."""
    nobody_home = pwd.getpwuid(65534).pw_dir
    pack = tmp_path / "home.yaml"
    pack.write_text(
        PACK.replace("name: svc", "name: home")
        + (
            "  - id: nobodys-home\n    tools: [bash]\n"
            f"    when: home == '{nobody_home}' && args.command == 'whoami'\n"
            "    action: deny\n    message: decided for nobody\n"
        )
    )
    own = f"    - {{name: nob, token_sha256: {token_digest('hp_nob')}, roles: [approver],"
    own += " approver_names: [secops-nob], os_user: '65534'}\n"
    running = start_service(tmp_path / "svc", packs=pack, socket_mode="0666", settings_extra=own)
    try:
        running.socket.parent.chmod(0o755)
        server = ("--server", running.unix)
        as_root, _ = hook("claude", pre_tool("whoami"), *server)
        assert as_root is None or permission(as_root)[0] != "deny"
        as_nobody, done = hook(
            "claude",
            pre_tool("whoami"),
            *server,
            "--approval",
            "defer",
            prefix=AS_NOBODY,
            env={"HOME": "/root"},  # what the process says is not what the kernel says
        )
        # nobody's hook trusts a service run by root only when told so
        assert "not as the configured owner" in permission(as_nobody)[1], done.stderr
        config = tmp_path / "nobody.yaml"
        config.write_text(f"server: {running.unix}\nserver_owner: '{os.getuid()}'\n")
        config.chmod(0o644)
        as_nobody, done = hook("claude", pre_tool("whoami"), config=config, prefix=AS_NOBODY)
        assert permission(as_nobody) == ("deny", "decided for nobody"), done.stderr
        hook("claude", pre_tool("./deploy prod"), config=config, prefix=AS_NOBODY)
        (filed,) = running.client(token=OPERATOR_TOKEN).call("GET", "/v1/approvals")["requests"]
        assert filed["agent_uid"] == 65534
        # The person whose account ran that agent may not approve what it asked.
        got, _, refused = running.client(token="hp_nob").request(
            "POST", f"/v1/approvals/{filed['id']}/approve", {}
        )
        assert got == 403 and "self-approval refused" in refused["error"]
    finally:
        stop(running)


@pytest.mark.slow
def test_sockets_passed_by_systemd_are_served_and_outlive_the_service(tmp_path: Path) -> None:
    """Socket activation (`hookpolicy.socket`): systemd holds the socket, so between a
    stop and a start nobody else can take its path or port, and calls queue."""
    import socket as sockets

    path = tmp_path / "activated.sock"
    listener = sockets.socket(sockets.AF_UNIX, sockets.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(16)
    settings = tmp_path / "serve.yaml"
    settings.write_text(f"data_dir: {tmp_path / 'data'}\naudit_path: {tmp_path / 'log'}\n")
    fd = listener.fileno()

    def as_fd_3() -> None:
        os.dup2(fd, 3)

    command = f'LISTEN_PID=$$ LISTEN_FDS=1 exec "{POLICY}" serve --config "{settings}" '
    command += f'--packs "{ROOT / "rules"}"'
    service = subprocess.Popen(
        ["sh", "-c", command],
        pass_fds=(fd, 3),  # 3: kept open in the child once as_fd_3 made it
        preexec_fn=as_fd_3,
        stderr=subprocess.PIPE,
        env=clean_env(),
    )
    try:
        # The kernel queues the connection until the service, still starting, accepts.
        status, _, denied = ServiceClient(f"unix:{path}").request(
            "POST",
            "/v1/decide/before_tool",
            {"tool": "Bash", "args": {"command": "rm -rf /"}},
            timeout=60,
        )
        assert (status, denied["action"]) == (200, "deny_tool")
    finally:
        service.send_signal(signal.SIGTERM)
        _, err = service.communicate(timeout=30)
    assert service.returncode == 0, err.decode()
    assert path.is_socket()  # systemd's, not the service's to remove
    listener.close()
