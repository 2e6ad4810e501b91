#!/usr/bin/env python3
"""Test hook: h.py TAG.  Logs {tag, cwd, env, stdin, argv} to $CCF_LOG (or <script dir>/../fallback.log).
Prints $CCF_OUT_DIR/TAG.out (if present) to stdout, TAG.err to stderr, exits with TAG.exit (default 0).
If CCF_OUT_DIR is unset (e.g. plugin hooks), uses /work/scratch/ccfacts2/cur_out."""
import json, os, sys, time
tag = sys.argv[1] if len(sys.argv) > 1 else "x"
data = sys.stdin.read()
try: payload = json.loads(data)
except Exception: payload = data
log = os.environ.get("CCF_LOG") or "/work/scratch/ccfacts2/cur_log.jsonl"
with open(log, "a") as fh:
    fh.write(json.dumps({"tag": tag, "t": time.time(), "cwd": os.getcwd(), "argv": sys.argv,
                         "env": dict(os.environ), "stdin": payload}) + "\n")
od = os.environ.get("CCF_OUT_DIR") or "/work/scratch/ccfacts2/cur_out"
def rd(ext):
    p = os.path.join(od, tag + "." + ext)
    return open(p).read() if os.path.exists(p) else None
o, e, x = rd("out"), rd("err"), rd("exit")
if o is not None: sys.stdout.write(o); sys.stdout.flush()
if e is not None: sys.stderr.write(e); sys.stderr.flush()
sys.exit(int(x) if x else 0)
