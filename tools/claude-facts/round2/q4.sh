#!/usr/bin/env bash
# Q4: non-command hook types on PreToolUse (Bash). CLAUDE_BIN picks the CLI; PFX prefixes names.
cd "$(dirname "$0")"
P=${PFX:-}
pre(){ echo '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":['"$1"']}]}}'; }
DENY='{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"DENY-FROM-TYPED-CFG"}}'
MCPCFG(){ echo '{"mcpServers":{"t":{"type":"stdio","command":"python3","args":["/work/scratch/ccfacts2/mcp_server.py"],"env":{"MCP_LOG":"RUNDIR/log/mcp.jsonl","MCP_REPLY":'"$(python3 -c 'import json,sys;print(json.dumps(sys.argv[1]))' "$1")"'}}}}'; }
R(){ python3 run2.py "$@"; }
c(){ case "$1" in
 prompt_no)  R --name ${P}q4_prompt_no  --side-text '{"ok":false,"reason":"PROMPT-HOOK-SAYS-NO"}' --settings "$(pre '{"type":"prompt","prompt":"Is this ok? $ARGUMENTS","timeout":10}')" ;;
 prompt_yes) R --name ${P}q4_prompt_yes --side-text '{"ok":true}' --settings "$(pre '{"type":"prompt","prompt":"Is this ok? $ARGUMENTS","timeout":10}')" ;;
 prompt_txt) R --name ${P}q4_prompt_nonjson --side-text 'ok' --settings "$(pre '{"type":"prompt","prompt":"Is this ok? $ARGUMENTS","timeout":10}')" ;;
 agent_no)   R --name ${P}q4_agent_no   --side-text '{"ok":false,"reason":"AGENT-HOOK-SAYS-NO"}' --settings "$(pre '{"type":"agent","prompt":"Verify: $ARGUMENTS","timeout":15}')" ;;
 http_deny)  R --name ${P}q4_http_deny  --http-hook-reply "$DENY" --settings "$(pre '{"type":"http","url":"http://127.0.0.1:HTTPPORT/hook","timeout":5}')" ;;
 mcp_deny)   R --name ${P}q4_mcp_tool_deny --env ENABLE_TOOL_SEARCH=false --files "{\"mcp.json\": $(MCPCFG "$DENY")}" --extra-arg=--mcp-config --extra-arg=RUNDIR/mcp.json \
               --settings "$(pre '{"type":"mcp_tool","server":"t","tool":"hookout","input":{"cmd":"${tool_input.command}"},"timeout":5}')" ;;
 bogus)      R --name ${P}q4_bogus_type --settings "$(pre '{"type":"bogus","command":"HOOK pre"}')" ;;
 esac; }
# extra cases (run by name): prompt with continueOnBlock, bogus type next to a valid deny hook
c2(){ case "$1" in
 prompt_cob) R --name ${P}q4_prompt_no_continueOnBlock --side-text '{"ok":false,"reason":"PROMPT-HOOK-SAYS-NO"}' --settings "$(pre '{"type":"prompt","prompt":"Is this ok? $ARGUMENTS","timeout":10,"continueOnBlock":true}')" ;;
 bogus_mix)  R --name ${P}q4_bogus_plus_valid_deny --out "pre=$DENY" --settings '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"bogus","command":"x"}]},{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre"}]}]}}' ;;
 esac; }
if [ $# -eq 0 ]; then set -- prompt_no prompt_yes prompt_txt agent_no http_deny mcp_deny bogus; fi
for x in "$@"; do c $x; c2 $x; done
