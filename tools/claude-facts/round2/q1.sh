#!/usr/bin/env bash
# Q1: PreToolUse updatedInput with/without permissionDecision
cd "$(dirname "$0")"
S='{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre","timeout":5}]}]}}'
UI_ONLY='{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"touch OTHER"}}}'
UI_ECHO='{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"echo REWRITTEN"}}}'
UI_ALLOW='{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow","updatedInput":{"command":"touch OTHER"}}}'
UI_ASK='{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"ask reason","updatedInput":{"command":"touch OTHER"}}}'
UI_DENY='{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"deny reason","updatedInput":{"command":"touch OTHER"}}}'
UI_PARTIAL='{"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"description":"changed"}}}'
UI_TOPLEVEL='{"updatedInput":{"command":"touch OTHER"}}'
UI_CONT='{"continue":true,"hookSpecificOutput":{"hookEventName":"PreToolUse","updatedInput":{"command":"touch OTHER"}}}'
R(){ python3 run2.py "$@"; }
case "${1:-all}" in all|base)
for m in default bypass allow-bash; do
  R --name ${PFX:-}q1_uionly_$m --mode $m --settings "$S" --out "pre=$UI_ONLY"
done
R --name ${PFX:-}q1_ctl_default_nohook --mode default
R --name ${PFX:-}q1_allow_ui_default --mode default --settings "$S" --out "pre=$UI_ALLOW"
for m in default bypass; do
  R --name ${PFX:-}q1_ask_ui_$m --mode $m --settings "$S" --out "pre=$UI_ASK"
done
R --name ${PFX:-}q1_deny_ui_bypass --mode bypass --settings "$S" --out "pre=$UI_DENY"
;; esac
case "${1:-all}" in all|more)
# original command auto-allowed in default mode (ls), rewrite to one that needs approval
R --name ${PFX:-}q1_uionly_default_ls_to_touch --mode default --command 'ls' --settings "$S" --out "pre=$UI_ONLY"
R --name ${PFX:-}q1_ctl_default_ls_nohook --mode default --command 'ls'
# original needs approval, rewrite to read-only echo
R --name ${PFX:-}q1_uionly_default_touch_to_echo --mode default --settings "$S" --out "pre=$UI_ECHO"
R --name ${PFX:-}q1_uionly_bypass_echo --mode bypass --settings "$S" --out "pre=$UI_ECHO"
# partial updatedInput (only description) -> is command kept?
R --name ${PFX:-}q1_partial_bypass --mode bypass --settings "$S" --out "pre=$UI_PARTIAL"
R --name ${PFX:-}q1_toplevel_bypass --mode bypass --settings "$S" --out "pre=$UI_TOPLEVEL"
R --name ${PFX:-}q1_cont_bypass --mode bypass --settings "$S" --out "pre=$UI_CONT"
;; esac
