#!/usr/bin/env bash
# Q6b: an unknown event name next to a valid PreToolUse deny hook: is the settings file still applied?
cd "$(dirname "$0")"
P=${PFX:-}
DENY='{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"DENY-OK"}}'
for ev in FooEvent PreSkillShellCommand PreModelSwitch; do
python3 run2.py --name ${P}q6b_unknown_event_$ev --out "pre=$DENY" --extra-arg=--debug-file --extra-arg=RUNDIR/log/debug.txt \
  --settings '{"hooks":{"'$ev'":[{"hooks":[{"type":"command","command":"HOOK ev"}]}],"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre"}]}]}}'
done
