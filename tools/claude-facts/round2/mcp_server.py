#!/usr/bin/env python3
"""Minimal MCP stdio server (newline-delimited JSON-RPC) with one tool `probe` that returns
text 'MCP ORIGINAL OUTPUT'.  Logs traffic to $MCP_LOG if set."""
import json, os, sys
LOG = os.environ.get("MCP_LOG")
def log(x):
    if LOG:
        with open(LOG, "a") as f: f.write(json.dumps(x) + "\n")
def send(o):
    sys.stdout.write(json.dumps(o) + "\n"); sys.stdout.flush(); log({"out": o})
for line in sys.stdin:
    line = line.strip()
    if not line: continue
    try: m = json.loads(line)
    except ValueError: continue
    log({"in": m})
    mid, meth = m.get("id"), m.get("method")
    if meth == "initialize":
        send({"jsonrpc": "2.0", "id": mid, "result": {"protocolVersion": m.get("params", {}).get("protocolVersion", "2024-11-05"),
              "capabilities": {"tools": {}}, "serverInfo": {"name": "probe", "version": "0.1"}}})
    elif meth == "tools/list":
        send({"jsonrpc": "2.0", "id": mid, "result": {"tools": [{"name": "probe", "description": "returns a fixed string",
              "inputSchema": {"type": "object", "properties": {"q": {"type": "string"}}}},
              {"name": "hookout", "description": "returns $MCP_REPLY (for mcp_tool hooks)",
               "inputSchema": {"type": "object", "properties": {}, "additionalProperties": True}}]}})
    elif meth == "tools/call" and m.get("params", {}).get("name") == "hookout":
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": os.environ.get("MCP_REPLY", "{}")}], "isError": False}})
    elif meth == "tools/call":
        send({"jsonrpc": "2.0", "id": mid, "result": {"content": [{"type": "text", "text": "MCP ORIGINAL OUTPUT"}], "isError": False}})
    elif mid is not None:
        if meth == "ping": send({"jsonrpc": "2.0", "id": mid, "result": {}})
        else: send({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + str(meth)}})
