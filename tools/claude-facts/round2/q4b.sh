#!/usr/bin/env bash
# Q4b: which events accept prompt / agent / http hooks at run time (2.1.332 unless CLAUDE_BIN). Each prompt hook says "PROBE-<event>".
cd "$(dirname "$0")"
P=${PFX:-}
S=$(python3 -c '
import json
h={}
for e in ["SessionStart","UserPromptSubmit","PreToolUse","PostToolUse","Stop","SessionEnd"]:
    ent={"hooks":[{"type":"prompt","prompt":"PROBE-PROMPT-"+e+" $ARGUMENTS","timeout":10}]}
    if e in ("PreToolUse","PostToolUse"): ent["matcher"]="Bash"
    h[e]=[ent]
h["SessionStart"].append({"hooks":[{"type":"http","url":"http://127.0.0.1:HTTPPORT/SessionStart","timeout":3}]})
h["UserPromptSubmit"].append({"hooks":[{"type":"http","url":"http://127.0.0.1:HTTPPORT/UserPromptSubmit","timeout":3}]})
h["Stop"].append({"hooks":[{"type":"http","url":"http://127.0.0.1:HTTPPORT/Stop","timeout":3}]})
print(json.dumps({"hooks":h}))')
python3 run2.py --name ${P}q4b_prompt_http_events --command 'echo hi' --side-text '{"ok":true,"reason":"fine"}' --http-hook-reply '{}' \
  --extra-arg=--debug-file --extra-arg=RUNDIR/log/debug.txt --settings "$S"
SA='{"hooks":{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"agent","prompt":"PROBE-AGENT-PermissionRequest $ARGUMENTS","timeout":10}]}],"SessionStart":[{"hooks":[{"type":"agent","prompt":"PROBE-AGENT-SessionStart $ARGUMENTS","timeout":10}]}]}}'
python3 run2.py --name ${P}q4b_agent_events --mode default --side-text '{"ok":true,"reason":"fine"}' --extra-arg=--debug-file --extra-arg=RUNDIR/log/debug.txt --settings "$SA"
