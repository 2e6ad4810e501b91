#!/usr/bin/env bash
# Q3: UserPromptSubmit outputs. CLAUDE_BIN picks the CLI; PFX prefixes run names.
cd "$(dirname "$0")"
P=${PFX:-}
S='{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"HOOK ups","timeout":5}]}]}}'
R(){ python3 run2.py --all-msgs --command 'echo BASH OK' "$@"; }
c(){ case "$1" in
 ctx)    R --name ${P}q3_ups_ctx --settings "$S" --out 'ups={"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"CTX-FROM-UPS"}}' ;;
 plain)  R --name ${P}q3_ups_plainstdout --settings "$S" --out 'ups=PLAIN-STDOUT-FROM-UPS' ;;
 block)  R --name ${P}q3_ups_block --settings "$S" --out 'ups={"decision":"block","reason":"REASON-FROM-UPS"}' ;;
 exit2)  R --name ${P}q3_ups_exit2 --settings "$S" --err 'ups=STDERR-FROM-UPS' --exit ups=2 ;;
 cont)   R --name ${P}q3_ups_continue_false --settings "$S" --out 'ups={"continue":false,"stopReason":"STOP-FROM-UPS"}' ;;
 sysmsg) R --name ${P}q3_ups_systemMessage --settings "$S" --out 'ups={"systemMessage":"SYSMSG-FROM-UPS"}' ;;
 exit1)  R --name ${P}q3_ups_exit1 --settings "$S" --err 'ups=STDERR-FROM-UPS' --exit ups=1 ;;
 esac; }
if [ $# -eq 0 ]; then set -- ctx plain block exit2 cont sysmsg exit1; fi
for x in "$@"; do c $x; done
