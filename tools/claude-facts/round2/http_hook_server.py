#!/usr/bin/env python3
"""http_hook_server.py LOGDIR: serves POST on 127.0.0.1:<free port>, logs {path, headers, body} to LOGDIR/http_hook.jsonl,
replies 200 with the contents of LOGDIR/http_reply.json (application/json). Port -> LOGDIR/http_port."""
import json, os, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
d = sys.argv[1]
class H(BaseHTTPRequestHandler):
    def log_message(self, *a): pass
    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0); raw = self.rfile.read(n)
        try: body = json.loads(raw)
        except Exception: body = raw.decode("utf-8", "replace")
        with open(os.path.join(d, "http_hook.jsonl"), "a") as f:
            f.write(json.dumps({"path": self.path, "headers": dict(self.headers), "body": body}) + "\n")
        data = open(os.path.join(d, "http_reply.json"), "rb").read()
        self.send_response(200); self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
s = HTTPServer(("127.0.0.1", 0), H)
open(os.path.join(d, "http_port.tmp"), "w").write(str(s.server_address[1])); os.replace(os.path.join(d, "http_port.tmp"), os.path.join(d, "http_port"))
s.serve_forever()
