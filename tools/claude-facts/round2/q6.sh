#!/usr/bin/env bash
# Q6: silent (print nothing, exit 0) hooks on many events; Agent tool call for SubagentStart/Stop; /compact for PreCompact.
cd "$(dirname "$0")"
P=${PFX:-}
EVS="SessionStart SessionEnd UserPromptSubmit PreToolUse PostToolUse Stop SubagentStart SubagentStop PreCompact PostCompact Notification"
S=$(python3 -c '
import json,sys
h={}
for e in sys.argv[1].split():
    ent={"hooks":[{"type":"command","command":"HOOK "+e,"timeout":5}]}
    if e in ("PreToolUse","PostToolUse"): ent["matcher"]=""
    h[e]=[ent]
print(json.dumps({"hooks":h}))' "$EVS")
R(){ python3 run2.py "$@"; }
c(){ case "$1" in
 agent)   R --name ${P}q6_silent_all_agent --tool-name Agent --tool-input '{"description":"probe task","prompt":"say ok","subagent_type":"claude","run_in_background":false}' --settings "$S" ;;
 compact) R --name ${P}q6_silent_all_compact --prompt "/compact" --settings "$S" ;;
 compact2) R --name ${P}q6_silent_all_then_compact --command "echo hi" --then "/compact" --settings "$S" ;;
 esac; }
if [ $# -eq 0 ]; then set -- agent compact compact2; fi
for x in "$@"; do c $x; done
