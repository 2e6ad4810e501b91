#!/usr/bin/env python3
"""Records each hook payload Claude Code sends (and a few env vars); answers nothing."""
import json, os, sys
data = sys.stdin.read()
keep = {k: v for k, v in os.environ.items() if k.startswith("CLAUDE") }
with open(os.environ["CORPUS_LOG"], "a") as fh:
    fh.write(json.dumps({"stdin": data, "cwd": os.getcwd(), "env": keep}) + "\n")
