#!/usr/bin/env python3
"""Fake Anthropic Messages API for driving the real Claude Code CLI offline.

(The shared harness's /work/shared/real_hosts/claude/fake_anthropic.py, extended for the
hosted-hooks corpus: the script's "calls" list is the tool calls the model makes, one per
turn, whatever the tool; "prompt" is matched in the first user turn; the request that
starts a conversation goes to first_turn.jsonl, so context hooks added to the prompt can
be read back.)

Stdlib only.  Binds to 127.0.0.1 only.

Behaviour is scripted by a JSON file (--script):

    {
      "prompt":     "run the marker command",   # task prompt passed to `claude -p`
      "command":    "touch MARKER",             # Bash command the fake model asks for
      "description": "x",                       # Bash tool "description" field
      "final_text": "All done.",                # answer after the tool_result arrives
      "side_text":  "ok"                        # answer to any other /v1/messages call
    }

Routing of POST /v1/messages (streaming SSE when the body has "stream": true,
plain JSON otherwise):

  * last user turn (trailing role:"system" messages are skipped) holds a
    tool_result block
        -> the full request body is appended to <logdir>/tool_results.jsonl
           (one JSON object per line: {"tool_results": [...], "body": {...}}),
           answer = text `final_text`, stop_reason "end_turn";
  * last user turn's text contains `prompt`, and the request
    offers a tool named "Bash"
        -> answer = one tool_use block {name: "Bash",
           input: {"command": command, "description": description}},
           stop_reason "tool_use";
  * anything else (title / topic / prefix side-queries, quota probes...)
        -> answer = text `side_text`, stop_reason "end_turn".

Other endpoints: POST /v1/messages/count_tokens, GET /v1/models[/<id>],
HEAD|GET / ; everything else gets a 404 Anthropic-style error.  Every request
(method, path, selected headers, parsed body) is appended to
<logdir>/requests.jsonl.

The chosen port is written to <logdir>/port once the server listens
(use --port 0 to let the OS pick a free one).
"""
import argparse
import itertools
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_FALLBACK = "claude-sonnet-4-5-20250929"
_ids = itertools.count(1)
_lock = threading.Lock()


def _next_id(prefix):
    return "%s_fake%04d%s" % (prefix, next(_ids), os.urandom(8).hex())


def _append_jsonl(path, obj):
    line = json.dumps(obj, ensure_ascii=False)
    with _lock:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")


def _text_of(content):
    """All text of a message's content (str or list of blocks)."""
    if isinstance(content, str):
        return content
    out = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, dict) and block.get("type") == "text":
                out.append(block.get("text", ""))
    return "\n".join(out)


def _tool_results(content):
    if not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-anthropic/1.0"

    # ---- plumbing -------------------------------------------------------
    def log_message(self, fmt, *args):  # keep stderr quiet; we log to jsonl
        if self.server.verbose:
            sys.stderr.write("fake_anthropic: " + (fmt % args) + "\n")

    def _read_body(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            return raw, (json.loads(raw) if raw else None)
        except ValueError:
            return raw, None

    def _log_request(self, body, raw):
        hdrs = {k.lower(): v for k, v in self.headers.items()}
        for secret in ("x-api-key", "authorization"):
            if secret in hdrs:
                hdrs[secret] = "<redacted len=%d>" % len(hdrs[secret])
        entry = {
            "t": time.time(),
            "method": self.command,
            "path": self.path,
            "headers": hdrs,
        }
        if body is not None:
            entry["body"] = body
        elif raw:
            entry["raw"] = raw.decode("utf-8", "replace")[:4000]
        _append_jsonl(os.path.join(self.server.logdir, "requests.jsonl"), entry)

    def _send(self, status, payload, ctype="application/json"):
        data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", _next_id("req"))
        self.send_header("anthropic-organization-id", "00000000-0000-0000-0000-000000000000")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def _error(self, status, etype, msg):
        self._send(status, {"type": "error", "error": {"type": etype, "message": msg}})

    # ---- verbs ----------------------------------------------------------
    def do_HEAD(self):
        self._log_request(None, b"")
        self._send(200, b"", "text/plain")

    def do_GET(self):
        self._log_request(None, b"")
        path = self.path.split("?", 1)[0].rstrip("/")
        if path in ("", "/"):
            return self._send(200, b"ok", "text/plain")
        if path == "/v1/models":
            return self._send(200, {
                "data": [self._model_obj(self.server.script.get("model", MODEL_FALLBACK))],
                "has_more": False, "first_id": None, "last_id": None})
        if path.startswith("/v1/models/"):
            return self._send(200, self._model_obj(path.rsplit("/", 1)[1]))
        return self._error(404, "not_found_error", "fake: no GET %s" % self.path)

    def do_POST(self):
        raw, body = self._read_body()
        self._log_request(body, raw)
        path = self.path.split("?", 1)[0].rstrip("/")
        if path == "/v1/messages/count_tokens":
            n = len(json.dumps(body or {})) // 4
            return self._send(200, {"input_tokens": max(n, 1)})
        if path == "/v1/messages":
            if not isinstance(body, dict):
                return self._error(400, "invalid_request_error", "fake: body is not JSON")
            return self._messages(body)
        return self._error(404, "not_found_error", "fake: no POST %s" % self.path)

    # ---- /v1/messages ---------------------------------------------------
    @staticmethod
    def _model_obj(mid):
        return {"type": "model", "id": mid, "display_name": mid,
                "created_at": "2025-01-01T00:00:00Z"}

    def _messages(self, body):
        script = self.server.script
        msgs = body.get("messages") or []
        # Claude Code 2.1.x may append a role:"system" message after the user
        # turn (beta mid-conversation-system), so look at the last *user* turn.
        users = [m for m in msgs if isinstance(m, dict) and m.get("role") == "user"]
        last = users[-1] if users else {}
        content = last.get("content")
        tools = [t.get("name") for t in (body.get("tools") or []) if isinstance(t, dict)]
        results = _tool_results(content) if last.get("role") == "user" else []

        calls = script.get("calls") or []
        n_done = sum(1 for m in msgs if isinstance(m, dict) and m.get("role") == "assistant"
                     and any(isinstance(b, dict) and b.get("type") == "tool_use"
                             for b in (m.get("content") or []) if isinstance(m.get("content"), list)))
        first_turn = (last.get("role") == "user" and not results
                      and script.get("prompt", "") in _text_of(content))
        if results:
            _append_jsonl(os.path.join(self.server.logdir, "tool_results.jsonl"),
                          {"t": time.time(), "tool_results": results, "body": body})
        if (results or first_turn) and n_done < len(calls):
            kind = "tool_use"
            c = calls[n_done]
            blocks = [{"type": "tool_use", "id": _next_id("toolu"), "name": c["name"],
                       "input": c["input"]}]
            stop = "tool_use"
            if first_turn:
                _append_jsonl(os.path.join(self.server.logdir, "first_turn.jsonl"), {"body": body})
        elif results or first_turn:
            kind = "final"
            if first_turn:
                _append_jsonl(os.path.join(self.server.logdir, "first_turn.jsonl"), {"body": body})
            blocks = [{"type": "text", "text": script.get("final_text", "All done.")}]
            stop = "end_turn"
        else:
            kind = "side"
            blocks = [{"type": "text", "text": script.get("side_text", "ok")}]
            stop = "end_turn"

        _append_jsonl(os.path.join(self.server.logdir, "decisions.jsonl"),
                      {"t": time.time(), "kind": kind, "stream": bool(body.get("stream")),
                       "model": body.get("model"), "n_messages": len(msgs),
                       "n_tools": len(tools)})
        model = body.get("model") or script.get("model", MODEL_FALLBACK)
        msg_id = _next_id("msg")
        usage = {"input_tokens": 12, "output_tokens": 7,
                 "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
        if body.get("stream"):
            return self._stream(msg_id, model, blocks, stop, usage)
        return self._send(200, {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop, "stop_sequence": None,
            "usage": usage})

    def _stream(self, msg_id, model, blocks, stop, usage):
        events = []

        def ev(name, data):
            events.append("event: %s\ndata: %s\n\n" % (name, json.dumps(data)))

        ev("message_start", {"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": dict(usage, output_tokens=1)}})
        ev("ping", {"type": "ping"})
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                ev("content_block_start", {"type": "content_block_start", "index": i,
                                           "content_block": {"type": "text", "text": ""}})
                text = block["text"]
                for j in range(0, len(text), 16) or [0]:
                    ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": {"type": "text_delta",
                                                         "text": text[j:j + 16]}})
            elif block["type"] == "tool_use":
                ev("content_block_start", {"type": "content_block_start", "index": i,
                                           "content_block": {"type": "tool_use",
                                                             "id": block["id"],
                                                             "name": block["name"],
                                                             "input": {}}})
                js = json.dumps(block["input"])
                ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                           "delta": {"type": "input_json_delta",
                                                     "partial_json": ""}})
                for j in range(0, len(js), 20):
                    ev("content_block_delta", {"type": "content_block_delta", "index": i,
                                               "delta": {"type": "input_json_delta",
                                                         "partial_json": js[j:j + 20]}})
            ev("content_block_stop", {"type": "content_block_stop", "index": i})
        ev("message_delta", {"type": "message_delta",
                             "delta": {"stop_reason": stop, "stop_sequence": None},
                             "usage": {"output_tokens": usage["output_tokens"]}})
        ev("message_stop", {"type": "message_stop"})
        data = "".join(events).encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream; charset=utf-8")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("request-id", _next_id("req"))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--script", required=True, help="scenario JSON file")
    ap.add_argument("--logdir", required=True, help="where *.jsonl logs and `port` go")
    ap.add_argument("--port", type=int, default=0, help="0 = pick a free port")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args()
    os.makedirs(args.logdir, exist_ok=True)
    with open(args.script, encoding="utf-8") as fh:
        script = json.load(fh)
    srv = ThreadingHTTPServer(("127.0.0.1", args.port), Handler)
    srv.daemon_threads = True
    srv.script, srv.logdir, srv.verbose = script, args.logdir, args.verbose
    port = srv.server_address[1]
    tmp = os.path.join(args.logdir, "port.tmp")
    with open(tmp, "w") as fh:
        fh.write(str(port))
    os.replace(tmp, os.path.join(args.logdir, "port"))
    sys.stderr.write("fake_anthropic listening on 127.0.0.1:%d\n" % port)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
