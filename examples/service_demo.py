"""The main job of `./dev run`: the service on its embedded defaults, and every host's
hook as a thin client of it.

1. `policy serve` starts on the shipped packs (`rules/`), with SQLite state and approvals
   under the run directory, a Unix socket and HTTP on a free loopback port.
2. The calls in `examples/calls.jsonl` go through the hook command of the host that
   sent each one, with `--server`: Claude Code and Agentao one process per event,
   PicoClaw and OpenClaw one long-running process each. One line per call: the host,
   the call, and the answer the host got.
3. The service stops; `policy audit verify` proves the decision log it wrote, and
   `policy replay` decides every logged call again, from the full calls the service
   captured (`audit_capture_dir`), against the same packs: nothing may change.

Usage: python examples/service_demo.py [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
POLICY = str(Path(sys.executable).parent / "policy")


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.upper().startswith("POLICY_")}


def start(out: Path) -> tuple[subprocess.Popen[bytes], list[str]]:
    """The service, its operational log (JSON lines) going to `out/serve.log`, once
    its `listening` line is there."""
    from policy.server.logs import listening_addresses

    settings = out / "serve.yaml"
    settings.write_text(
        f"data_dir: {out / 'data'}\n"
        f"audit_path: {out / 'decisions.log'}\n"
        f"audit_capture_dir: {out / 'capture'}\n"
        f"packs: [{ROOT / 'rules'}]\n"
        # /v1/decide calls decided in a process of their own (docs/service.md)
        "service:\n  deciders: 1\n"
    )
    log = out / "serve.log"
    with log.open("wb") as stderr:
        service = subprocess.Popen(
            [
                *(POLICY, "serve", "--config", str(settings)),
                *("--socket", str(out / "policy.sock")),
                *("--http", "127.0.0.1:0", "--log-format", "json"),
            ],
            stderr=stderr,
            env=_env(),
        )
    ends = time.monotonic() + 60
    while time.monotonic() < ends:
        for line in log.read_bytes().splitlines():
            addresses = listening_addresses(line)
            if addresses is not None:
                return service, addresses
        if service.poll() is not None:
            break
        time.sleep(0.05)
    service.kill()
    raise SystemExit(f"policy serve did not start:\n{log.read_text(errors='replace')[-3000:]}")



def _claude(call: dict[str, Any], host: str, index: int) -> dict[str, Any]:
    if call.get("point") == "after_tool":  # Claude Code reports Bash's output as an object
        output = {"stdout": call["result"]["for_llm"], "stderr": "", "interrupted": False}
        return {
            "hook_event_name": "PostToolUse",
            "session_id": call["call"].get("session", ""),
            "cwd": "/srv/app",
            "tool_name": call["call"]["tool"],
            "tool_input": call["call"]["args"],
            "tool_response": {**output, "isImage": False},
            "tool_use_id": f"toolu_{index}",
        }
    if host == "agentao":
        return {
            "event": "PreToolUse",
            "data": {
                "toolName": call["tool"],
                "toolInput": call["args"],
                "sessionId": call.get("session", ""),
                "cwd": call.get("cwd", "/srv/app"),
            },
        }
    return {
        "hook_event_name": "PreToolUse",
        "session_id": call.get("session", ""),
        "cwd": call.get("cwd", "/srv/app"),
        "tool_name": call["tool"],
        "tool_input": call["args"],
        "tool_use_id": f"toolu_{index}",
    }


def _run(args: list[str], lines: list[bytes]) -> list[Any]:
    done = subprocess.run(args, input=b"".join(lines), capture_output=True, env=_env(), timeout=120)
    return [json.loads(line) for line in done.stdout.splitlines() if line.strip()]


def drive(server: str) -> list[tuple[str, dict[str, Any], Any]]:
    """Every example call through its host's hook; (host, call, answer) per call."""
    calls = [json.loads(line) for line in (ROOT / "examples" / "calls.jsonl").open()]
    seen: list[tuple[str, dict[str, Any], Any]] = []
    pico: list[dict[str, Any]] = []
    claw: list[dict[str, Any]] = []
    for index, call in enumerate(calls):
        host = call.get("host", "claude-code")
        if host in ("claude-code", "agentao"):
            name = "claude" if host == "claude-code" else "agentao"
            payload = json.dumps(_claude(call, name, index)).encode()
            answer = _run([POLICY, "hook", name, "--server", server], [payload])
            seen.append((host, call, answer[0] if answer else None))
        elif host == "picoclaw":
            pico.append(call)
        else:
            claw.append(call)
    if pico:
        lines = [
            b'{"jsonrpc":"2.0","id":0,"method":"hook.hello","params":{"name":"demo",'
            b'"version":1,"modes":["tool"]}}\n'
        ]
        for index, call in enumerate(pico, 1):
            params = {
                "tool": call["tool"],
                "arguments": call["args"],
                "session_key": call.get("session", ""),
                "channel": call.get("channel", ""),
            }
            message = {
                "jsonrpc": "2.0",
                "id": index,
                "method": "hook.before_tool",
                "params": params,
            }
            lines.append(json.dumps(message).encode() + b"\n")
        replies = {
            r.get("id"): r for r in _run([POLICY, "hook", "picoclaw", "--server", server], lines)
        }
        seen += [
            ("picoclaw", call, replies.get(i, {}).get("result")) for i, call in enumerate(pico, 1)
        ]
    if claw:
        lines = []
        for index, call in enumerate(claw, 1):
            params = {
                "eventName": "tool:before",
                "toolName": call["tool"],
                "arguments": json.dumps(call["args"]),
            }
            message = {"method": "hook_before", "id": str(index), "params": params}
            lines.append(json.dumps(message).encode() + b"\n")
        replies = {
            r.get("id"): r for r in _run([POLICY, "hook", "openclaw", "--server", server], lines)
        }
        seen += [
            ("openclaw", call, replies.get(str(i), {}).get("result"))
            for i, call in enumerate(claw, 1)
        ]
    return seen


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=".run", help="run directory (default .run)")
    out = Path(parser.parse_args().out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    (out / "decisions.log").unlink(missing_ok=True)
    for old in (out / "capture").glob("capture-*.jsonl"):
        old.unlink()
    service, addresses = start(out)
    try:
        sys.stderr.write(
            f"== policy serve listening on {', '.join(addresses)} "
            f"(OpenAPI: {addresses[-1]}/openapi.json)\n"
            "== the example calls through each host's hook, as thin clients of the service\n"
        )
        for host, call, answer in drive(addresses[0]):
            asked = call.get("call", call)
            shown = {"host": host, "tool": asked["tool"], "args": asked["args"], "answer": answer}
            sys.stdout.write(json.dumps(shown) + "\n")
        sys.stdout.flush()
    finally:
        service.send_signal(signal.SIGTERM)
        service.wait(timeout=30)
    sys.stderr.write(f"== service stopped; policy audit verify {out / 'decisions.log'}\n")
    verified = subprocess.run([POLICY, "audit", "verify", str(out / "decisions.log")], env=_env())
    if verified.returncode:
        return verified.returncode
    sys.stderr.write("== policy replay: the logged calls decided again by the same packs\n")
    return subprocess.run(
        [
            *(POLICY, "replay", str(out / "decisions.log"), str(ROOT / "rules")),
            *("--capture", str(out / "capture"), "--fail-on-change"),
        ],
        env=_env(),
    ).returncode


if __name__ == "__main__":
    raise SystemExit(main())
