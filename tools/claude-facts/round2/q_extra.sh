#!/usr/bin/env bash
# extras: PreToolUse additionalContext; UserPromptSubmit block + suppressOriginalPrompt
cd "$(dirname "$0")"
P=${PFX:-}
python3 run2.py --name ${P}qx_pre_additionalContext --command 'echo hi' --settings '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre"}]}]}}' \
  --out 'pre={"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"CTX-FROM-PRETOOLUSE"}}'
python3 run2.py --name ${P}qx_ups_block_suppress --settings '{"hooks":{"UserPromptSubmit":[{"hooks":[{"type":"command","command":"HOOK ups"}]}]}}' \
  --out 'ups={"decision":"block","reason":"REASON-FROM-UPS","hookSpecificOutput":{"hookEventName":"UserPromptSubmit","suppressOriginalPrompt":true}}'
