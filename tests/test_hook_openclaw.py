"""`policy hook openclaw` as OpenClaw.NET's plugin bridge drives it: a subprocess fed the
exact lines `PluginBridgeProcess` / `BridgedToolHook` write (camelCase, string ids, no
`jsonrpc`, System.Text.Json's `\\u0022` escapes), answered as `BridgeResponse` lines."""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

POLICY = str(Path(sys.executable).with_name("policy"))
ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "rules"
PLUGIN = ROOT / "examples" / "openclaw" / "hookpolicy" / "index.mjs"

# What PluginBridgeProcess sends first (BridgeInitRequest, transport mode stdio).
INIT = (
    b'{"method":"init","id":"1","params":{"entryPath":"/srv/openclaw/extensions/hookpolicy/'
    b'index.mjs","pluginId":"hookpolicy","transport":{"mode":"stdio","securityMode":"legacy"}}}'
)
INIT_ANSWER = (
    b'{"id":"1","result":{"tools":[],"channels":[],"commands":[],"eventSubscriptions":'
    b'["tool:before","tool:after"],"providers":[],"capabilities":["hooks"],"diagnostics":[],'
    b'"compatible":true}}'
)


def before(ident: str, tool: str, arguments: str) -> bytes:
    """A hook_before line as .NET writes it: `arguments` is JSON text inside a string."""
    params = {"eventName": "tool:before", "toolName": tool, "arguments": arguments}
    return dotnet({"method": "hook_before", "id": ident, "params": params})


def dotnet(message: dict[str, Any]) -> bytes:
    # System.Text.Json's default encoder writes `"` inside strings as \u0022.
    return orjson.dumps(message).replace(b'\\"', b"\\u0022")


#: `policy hook` whose engine is not built until someone opens the FIFO named by
#: $STALL_UNTIL for writing: an engine that cannot finish loading, for as long as a test
#: needs (a settings file cannot stand for one: it must be a regular file).
_STALLED = """\
import os, sys
from policy.hosts import _hook_process
build = _hook_process.engine_for_protocol
def stalled(*args, **kwargs):
    with open(os.environ["STALL_UNTIL"], "rb") as fifo:
        fifo.read()
    return build(*args, **kwargs)
_hook_process.engine_for_protocol = stalled
from policy.cli import main
sys.exit(main())
"""


class Hook:
    """A running `policy hook openclaw`; stdout lines are read with a timeout, so a
    request left unanswered fails the test instead of hanging it. `stall`: a FIFO its
    engine's build waits on (see _STALLED)."""

    def __init__(self, *options: str, stall: Path | None = None) -> None:
        env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
        command = [POLICY]
        if stall is not None:
            command = [sys.executable, "-c", _STALLED]
            env["STALL_UNTIL"] = str(stall)
        self.process = subprocess.Popen(
            [*command, "hook", "openclaw", *options],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self._lines: queue.Queue[bytes] = queue.Queue()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._pump, daemon=True).start()
        threading.Thread(target=self._drain, daemon=True).start()

    def _pump(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(line.rstrip(b"\n"))

    def _drain(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self._stderr.append(line)

    def send(self, line: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + b"\n")
        self.process.stdin.flush()

    def read(self, timeout: float = 20.0) -> bytes:
        try:
            return self._lines.get(timeout=timeout)
        except queue.Empty:
            pytest.fail(f"no answer within {timeout} s")

    def ask(self, line: bytes) -> bytes:
        self.send(line)
        return self.read()

    def result(self, line: bytes) -> Any:
        return orjson.loads(self.ask(line))["result"]

    def close(self) -> int:
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=30)

    def stderr(self) -> bytes:
        self.process.wait(timeout=30)
        return b"".join(self._stderr)

    def leftover(self) -> list[bytes]:
        self.process.wait(timeout=30)
        lines = []
        while not self._lines.empty():
            lines.append(self._lines.get_nowait())
        return lines


@pytest.fixture
def hook() -> Iterator[Hook]:
    running = Hook("--packs", str(RULES))
    assert running.ask(INIT) == INIT_ANSWER
    yield running
    assert running.close() == 0


def modify_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "p.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: p\nrules:\n"
        "  - id: no-color\n    tools: [bash]\n    action: modify\n"
        "    set: {args.command: 'string(args.command) + \" --no-color\"'}\n"
    )
    return pack


def test_a_pack_rule_denies_and_the_string_id_is_echoed(hook: Hook) -> None:
    answer = hook.ask(before("2", "shell", '{"command":"rm -rf /","timeout_seconds":30}'))
    assert answer == (
        b'{"id":"2","result":{"allow":false,'
        b'"reason":"recursive or forced delete outside the workspace"}}'
    )


def test_a_call_no_rule_refuses_is_allowed(hook: Hook) -> None:
    answer = hook.ask(before("3", "shell", '{"command":"ls -la"}'))
    assert answer.startswith(b'{"id":"3","result":{"allow":true,')
    # A tool no rule knows, arguments OpenClaw sends when the model gave none.
    assert hook.result(before("4", "memory_search", "{}"))["allow"] is True


def test_a_rewrite_becomes_a_denial_that_says_so(tmp_path: Path) -> None:
    running = Hook("--packs", str(modify_pack(tmp_path)))
    verdict = running.result(before("2", "shell", '{"command":"ls"}'))
    assert verdict["allow"] is False
    assert verdict["reason"].startswith("the policy rewrites this call (")
    assert verdict["reason"].endswith(
        "and OpenClaw's bridge can only allow or deny: denied rather than run unrewritten"
    )
    # Tools the rule does not cover still run.
    assert running.result(before("3", "read_file", '{"path":"README.md"}'))["allow"] is True
    assert running.close() == 0


def test_a_call_that_needs_approval_is_denied_not_held(hook: Hook) -> None:
    verdict = hook.result(
        before("5", "shell", '{"command":"git push --force-with-lease origin main"}')
    )
    assert verdict == {
        "allow": False,
        "reason": "a force push with lease still rewrites shared history; a person must "
        "approve; OpenClaw's "
        "bridge allows a call whose hook has not answered within 5 s, so nobody can approve "
        "it in time: denied",
    }


@pytest.mark.parametrize(
    ("params", "reason"),
    [
        (
            {"eventName": "tool:before", "toolName": "shell", "arguments": {"command": "ls"}},
            "params.arguments must be the arguments as a JSON string; it is an object",
        ),
        (
            {"eventName": "tool:before", "toolName": "shell"},
            "params.arguments must be the arguments as a JSON string; it is missing",
        ),
        (
            {"eventName": "tool:before", "toolName": "shell", "arguments": '["ls"]'},
            "params.arguments must encode a JSON object; it encodes an array",
        ),
        (
            {"eventName": "tool:before", "toolName": "shell", "arguments": '"ls"'},
            "params.arguments must encode a JSON object; it encodes a string",
        ),
        (
            {"eventName": "tool:before", "toolName": "", "arguments": "{}"},
            "params.toolName must be a tool name",
        ),
    ],
)
def test_params_that_cannot_be_read_are_refused_naming_the_problem(
    hook: Hook, params: dict[str, Any], reason: str
) -> None:
    verdict = hook.result(dotnet({"method": "hook_before", "id": "6", "params": params}))
    assert verdict == {
        "allow": False,
        "reason": f"policy hook failed closed: InputError: {reason}",
    }


def test_arguments_that_are_not_json_are_refused(hook: Hook) -> None:
    verdict = hook.result(before("7", "shell", '{"command": "ls"'))
    assert verdict["allow"] is False
    assert verdict["reason"].startswith(
        "policy hook failed closed: InputError: params.arguments is not valid JSON: "
    )


def test_garbage_and_unknown_methods(hook: Hook) -> None:
    hook.send(b"this is not json")
    hook.send(b"[1, 2, 3]")
    hook.send(b'{"id": "8"}')
    # Nothing to echo for the first two; the third has an id but no method.
    assert hook.read() == b'{"id":"8","error":{"code":-1,"message":"invalid request: no method"}}'
    assert hook.ask(b'{"method":"execute","id":"9","params":{"name":"x","params":{}}}') == (
        b'{"id":"9","error":{"code":-1,"message":"unknown method: execute"}}'
    )
    # Still serving, and the next answer is the next request's.
    assert hook.ask(before("10", "shell", '{"command":"pwd"}')).startswith(b'{"id":"10",')
    assert hook.close() == 0
    log = hook.stderr()
    assert b"policy: a line that is not JSON, ignored" in log
    assert b"policy: a line that is not a JSON object, ignored" in log


def test_a_lone_surrogate_still_gets_a_decision(hook: Hook) -> None:
    # orjson rejects `\ud800`, which System.Text.Json can write; unanswered means allowed.
    line = b'{"method":"hook_before","id":"11","params":{"eventName":"tool:before\\ud800",' + (
        b'"toolName":"shell","arguments":"{\\u0022command\\u0022:\\u0022rm -rf /\\u0022}"}}'
    )
    assert hook.ask(line) == (
        b'{"id":"11","result":{"allow":false,'
        b'"reason":"recursive or forced delete outside the workspace"}}'
    )
    # Inside the arguments, the surrogate makes them unreadable: refused.
    line = b'{"method":"hook_before","id":"12","params":{"eventName":"tool:before",' + (
        b'"toolName":"shell","arguments":"{\\u0022command\\u0022:\\u0022ls \\ud800\\u0022}"}}'
    )
    verdict = orjson.loads(hook.ask(line))["result"]
    assert verdict["allow"] is False
    assert "params.arguments is not valid JSON" in verdict["reason"]


def test_hook_after_is_answered_and_logged(hook: Hook) -> None:
    line = dotnet(
        {
            "method": "hook_after",
            "id": "12",
            "params": {
                "eventName": "tool:after",
                "toolName": "shell",
                "arguments": '{"command":"ls"}',
                "result": "README.md\npolicy",
                "durationMs": 12.5,
                "failed": False,
            },
        }
    )
    assert hook.ask(line) == b'{"id":"12","result":{"ok":true}}'
    assert hook.close() == 0
    records = [orjson.loads(x) for x in hook.stderr().splitlines() if x.startswith(b"{")]
    after = [r for r in records if r.get("point") == "after_tool"]
    assert after, "hook_after reached the chain and the decision log"
    assert (after[-1]["tool"], after[-1]["tool_raw"], after[-1]["host"]) == (
        "bash",
        "shell",
        "openclaw",
    )


def test_shutdown_is_answered_and_ends_the_process() -> None:
    running = Hook("--packs", str(RULES))
    assert running.ask(INIT) == INIT_ANSWER
    # PluginBridgeProcess.DisposeAsync: params are null, so omitted.
    assert running.ask(b'{"method":"shutdown","id":"2"}') == b'{"id":"2","result":{"ok":true}}'
    assert running.process.wait(timeout=10) == 0  # with stdin still open


def test_init_over_a_socket_transport_is_refused() -> None:
    running = Hook("--packs", str(RULES))
    line = (
        b'{"method":"init","id":"1","params":{"entryPath":"/x/index.mjs","pluginId":"hookpolicy",'
        b'"transport":{"mode":"hybrid","socketPath":"/tmp/s","securityMode":"hardened_local_ipc"}}}'
    )
    answer = orjson.loads(running.ask(line))
    assert answer["error"]["message"] == (
        "policy hook failed closed: ValueError: transport mode 'hybrid' is not supported: "
        "policy hook openclaw speaks stdio"
    )
    assert running.close() == 0


def test_packs_that_do_not_load_refuse_every_call(tmp_path: Path) -> None:
    running = Hook("--packs", str(tmp_path / "missing"))
    init = orjson.loads(running.ask(INIT))["result"]
    # Still compatible, still subscribed: an unloaded plugin would be no hook at all.
    assert init["compatible"] is True
    assert init["eventSubscriptions"] == ["tool:before", "tool:after"]
    [diagnostic] = init["diagnostics"]
    assert diagnostic["severity"] == "error"
    assert diagnostic["code"] == "policy_unavailable"
    assert diagnostic["message"].startswith("policy hook cannot decide: ")
    refused = running.result(before("2", "read_file", '{"path":"README.md"}'))
    assert refused["allow"] is False
    assert refused["reason"].startswith(
        "policy hook failed closed: RuntimeError: policy hook cannot decide"
    )
    after = running.result(
        dotnet(
            {
                "method": "hook_after",
                "id": "3",
                "params": {
                    "eventName": "tool:after",
                    "toolName": "read_file",
                    "arguments": "{}",
                    "result": "",
                    "durationMs": 1.0,
                    "failed": False,
                },
            }
        )
    )
    assert after["ok"] is False
    assert running.close() == 0
    assert running.leftover() == []  # stdout carries protocol lines only


@pytest.mark.slow
def test_no_decision_by_the_deadline_is_a_refusal(tmp_path: Path) -> None:
    # The engine cannot finish loading until the FIFO is opened for writing.
    fifo = tmp_path / "stall"
    os.mkfifo(fifo)
    running = Hook("--packs", str(RULES), "--deadline", "1.5", stall=fifo)
    assert running.ask(before("2", "shell", '{"command":"ls"}')) == (
        b'{"id":"2","result":{"allow":false,'
        b'"reason":"policy hook gave no answer within 1.5 s (failed closed)"}}'
    )
    with fifo.open("w"):
        pass  # the build goes on
    # Loaded now: decisions again, and the late decision for "2" was not sent twice.
    assert running.ask(before("3", "shell", '{"command":"ls -la"}')).startswith(
        b'{"id":"3","result":{"allow":true,'
    )
    assert running.close() == 0
    assert running.leftover() == []


def test_a_refusal_at_the_deadline_is_in_the_decision_log(tmp_path: Path) -> None:
    """A decision held up — another process holds the decision log's lock — is refused
    at the deadline, and the log says so once it can be written (`hook.deadline_refused`,
    beside the late decision's own record)."""
    import fcntl

    log = tmp_path / "decisions.jsonl"
    config = tmp_path / "policy.yaml"
    config.write_text(f"packs: [{RULES}]\ndata_dir: {tmp_path / 'data'}\naudit_path: {log}\n")
    running = Hook("--config", str(config), "--deadline", "1")
    assert running.ask(INIT) == INIT_ANSWER
    assert running.result(before("2", "shell", '{"command":"ls"}'))["allow"] is True
    with log.open("rb") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        refused = running.result(before("3", "shell", '{"command":"rm -rf ~"}'))
    assert refused == {
        "allow": False,
        "reason": "policy hook gave no answer within 1 s (failed closed)",
    }
    assert running.close() == 0
    records = [orjson.loads(r) for r in log.read_bytes().splitlines()]
    refusals = [r for r in records if r["event"] == "hook.deadline_refused"]
    assert [(r["method"], r["id"], r["deadline_s"], r["sent"]["allow"]) for r in refusals] == [
        ("hook_before", "3", 1.0, False)
    ]


@pytest.mark.slow
def test_the_deadline_never_exceeds_openclaws_timeout(tmp_path: Path) -> None:
    fifo = tmp_path / "stall"
    os.mkfifo(fifo)
    running = Hook("--packs", str(RULES), stall=fifo)  # --deadline 50 by default
    verdict = running.result(before("2", "shell", '{"command":"ls"}'))
    assert verdict == {
        "allow": False,
        "reason": "policy hook gave no answer within 4 s (failed closed)",
    }
    # The engine never loads; stdin ends with that request's worker still waiting for it.
    assert running.close() == 0
    assert b"policy: 1 request(s) unfinished at exit" in running.stderr()


@pytest.mark.skipif(shutil.which("node") is None, reason="the example plugin needs node")
def test_the_example_plugin_forwards_and_fails_closed(tmp_path: Path) -> None:
    """examples/openclaw/hookpolicy/index.mjs under a stand-in for plugin-bridge.mjs's
    `api` (pluginConfig, logger, on) and handler contexts (toolName, arguments as a JSON
    string; tool:after's `duration`)."""
    driver = tmp_path / "drive.mjs"
    driver.write_text(
        """
const [plugin, policy, rules] = process.argv.slice(2);
const { default: register } = await import(plugin);
async function load(config) {
  const handlers = {};
  const logs = [];
  const log = (...args) => logs.push(args.join(" "));
  await register({
    pluginId: "hookpolicy",
    pluginConfig: config,
    config,
    logger: { info: log, warn: log, error: log, debug: log },
    on(name, handler) { handlers[name] = handler; },
  });
  return { handlers, logs };
}
const out = {};
const good = await load({ command: [policy, "hook", "openclaw", "--packs", rules] });
const before = good.handlers["tool:before"];
out.events = Object.keys(good.handlers);
out.rm = await before({ toolName: "shell", arguments: '{"command":"rm -rf /"}', phase: "before" });
out.ls = await before({ toolName: "shell", arguments: '{"command":"ls -la"}', phase: "before" });
out.bad = await before({ toolName: "shell", arguments: "[]", phase: "before" });
out.after = typeof await good.handlers["tool:after"]({ toolName: "shell", arguments: "{}",
  result: "ok", duration: 3, failed: false, phase: "after" });
out.goodLogs = good.logs;
const missing = await load({ command: ["/nonexistent/policy", "hook", "openclaw"] });
out.missing = await missing.handlers["tool:before"]({ toolName: "read_file", arguments: "{}" });
const wrong = await load({ command: "policy hook openclaw" });
out.wrong = await wrong.handlers["tool:before"]({ toolName: "read_file", arguments: "{}" });
out.wrongLogs = wrong.logs;
console.log(JSON.stringify(out));
process.exit(0);
"""
    )
    env = {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}
    done = subprocess.run(
        ["node", str(driver), str(PLUGIN), POLICY, str(RULES)],
        capture_output=True,
        timeout=120,
        env=env,
        check=True,
    )
    out = orjson.loads(done.stdout.splitlines()[-1])
    assert out["events"] == ["tool:before", "tool:after"]
    assert (out["rm"], out["ls"], out["bad"], out["missing"], out["wrong"]) == (
        False,
        True,
        False,
        False,
        False,
    )
    assert out["after"] == "undefined"  # tool:after answers nothing
    assert (
        "hookpolicy denied shell: recursive or forced delete outside the workspace"
        in out["goodLogs"]
    )
    assert any("config.command must be a non-empty array" in x for x in out["wrongLogs"])
