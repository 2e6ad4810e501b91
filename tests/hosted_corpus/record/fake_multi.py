#!/usr/bin/env python3
"""Fake Anthropic Messages API for driving the real Claude Code CLI offline.

tools/claude-facts/round2/fake2.py (itself the shared harness's fake_anthropic.py,
extended), with one change for the hosted-hooks corpus: the script's "calls" list is
the tool calls the model makes, one per turn, whatever the tool; "prompt" is matched in
the first user turn; the request that starts a conversation goes to first_turn.jsonl,
so context hooks added to the prompt can be read back. Same command line as fake2.py.
"""
import os
import sys
import time

sys.path.insert(
    0,
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tools",
                 "claude-facts", "round2"),
)
import fake2  # noqa: E402
from fake2 import MODEL_FALLBACK, _append_jsonl, _next_id, _text_of, _tool_results  # noqa: E402


def _tool_uses(msgs):
    """How many tool calls the model has made in the conversation so far."""
    return sum(
        1
        for m in msgs
        if isinstance(m, dict) and m.get("role") == "assistant" and isinstance(m.get("content"), list)
        and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in m["content"])
    )


class Handler(fake2.Handler):
    def _messages(self, body):
        script = self.server.script
        logdir = self.server.logdir
        msgs = body.get("messages") or []
        # Claude Code 2.1.x may append a role:"system" message after the user
        # turn (beta mid-conversation-system), so look at the last *user* turn.
        users = [m for m in msgs if isinstance(m, dict) and m.get("role") == "user"]
        last = users[-1] if users else {}
        content = last.get("content")
        tools = [t.get("name") for t in (body.get("tools") or []) if isinstance(t, dict)]
        results = _tool_results(content) if last.get("role") == "user" else []
        calls = script.get("calls") or []
        n_done = _tool_uses(msgs)
        first_turn = (last.get("role") == "user" and not results
                      and script.get("prompt", "") in _text_of(content))
        if results:
            _append_jsonl(os.path.join(logdir, "tool_results.jsonl"),
                          {"t": time.time(), "tool_results": results, "body": body})
        if first_turn:
            _append_jsonl(os.path.join(logdir, "first_turn.jsonl"), {"body": body})
        if (results or first_turn) and n_done < len(calls):
            kind, stop = "tool_use", "tool_use"
            call = calls[n_done]
            blocks = [{"type": "tool_use", "id": _next_id("toolu"), "name": call["name"],
                       "input": call["input"]}]
        elif results or first_turn:
            kind, stop = "final", "end_turn"
            blocks = [{"type": "text", "text": script.get("final_text", "All done.")}]
        else:
            kind, stop = "side", "end_turn"
            blocks = [{"type": "text", "text": script.get("side_text", "ok")}]

        _append_jsonl(os.path.join(logdir, "decisions.jsonl"),
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


if __name__ == "__main__":
    fake2.Handler = Handler  # fake2.main serves the module's Handler
    fake2.main()
