#!/usr/bin/env bash
# Q1b: are permission rules checked against the ORIGINAL or the REWRITTEN input? (bypass mode)
cd "$(dirname "$0")"
P=${PFX:-}
UI_ONLY='{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"touch OTHER"}}}'
UI_ALLOW='{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"touch OTHER"}}}'
ALLOW='{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}'
S(){ echo '{"permissions":{"deny":["'"$1"'"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre"}]}]}}'; }
SA(){ echo '{"permissions":{"ask":["'"$1"'"]},"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre"}]}]}}'; }
R(){ python3 run2.py "$@"; }
R --name ${P}q1b_denyrule_rewritten_uionly --settings "$(S 'Bash(touch OTHER)')" --out "pre=$UI_ONLY"
R --name ${P}q1b_denyrule_rewritten_allow_ui --settings "$(S 'Bash(touch OTHER)')" --out "pre=$UI_ALLOW"
R --name ${P}q1b_denyrule_original_uionly --settings "$(S 'Bash(touch MARKER)')" --out "pre=$UI_ONLY"
R --name ${P}q1b_denyrule_original_allow --settings "$(S 'Bash(touch MARKER)')" --out "pre=$ALLOW"
R --name ${P}q1b_askrule_rewritten_uionly --settings "$(SA 'Bash(touch OTHER)')" --out "pre=$UI_ONLY"
R --name ${P}q1b_askrule_rewritten_allow_ui --settings "$(SA 'Bash(touch OTHER)')" --out "pre=$UI_ALLOW"
