#!/usr/bin/env bash
# Q2: PostToolUse outputs (Bash and an MCP tool). CLAUDE_BIN picks the CLI. Usage: ./q2.sh [prefix]
cd "$(dirname "$0")"
P=${PFX:-}
S='{"hooks":{"PostToolUse":[{"matcher":"","hooks":[{"type":"command","command":"HOOK post","timeout":5}]}]}}'
MCP='{"mcpServers":{"t":{"type":"stdio","command":"python3","args":["/work/scratch/ccfacts2/mcp_server.py"],"env":{"MCP_LOG":"RUNDIR/log/mcp.jsonl"}}}}'
MCPARGS=(--env ENABLE_TOOL_SEARCH=false --tool-name mcp__t__probe --tool-input '{"q":"x"}' --files "{\"mcp.json\": $MCP}" --extra-arg=--mcp-config --extra-arg=RUNDIR/mcp.json)
HSO(){ echo '{"hookSpecificOutput":{"hookEventName":"PostToolUse",'"$1"'}}'; }
R(){ python3 run2.py "$@"; }
B="--command echo_ORIGINAL"  # placeholder, replaced below
BASH_CMD='echo BASH ORIGINAL OUTPUT'
c(){ case "$1" in
 ctx)        R --name ${P}q2_bash_ctx --command "$BASH_CMD" --settings "$S" --out "post=$(HSO '"additionalContext":"CTX-FROM-POSTHOOK"')" ;;
 block)      R --name ${P}q2_bash_block --command "$BASH_CMD" --settings "$S" --out 'post={"decision":"block","reason":"REASON-FROM-POSTHOOK"}' ;;
 block_ctx)  R --name ${P}q2_bash_block_ctx --command "$BASH_CMD" --settings "$S" --out 'post={"decision":"block","reason":"REASON-FROM-POSTHOOK","hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"CTX-FROM-POSTHOOK"}}' ;;
 exit2)      R --name ${P}q2_bash_exit2 --command "$BASH_CMD" --settings "$S" --err 'post=STDERR-FROM-POSTHOOK' --exit post=2 ;;
 plain)      R --name ${P}q2_bash_plainstdout --command "$BASH_CMD" --settings "$S" --out 'post=PLAIN-STDOUT-FROM-POSTHOOK' ;;
 sysmsg)     R --name ${P}q2_bash_systemMessage --command "$BASH_CMD" --settings "$S" --out 'post={"systemMessage":"SYSMSG-FROM-POSTHOOK"}' ;;
 cont)       R --name ${P}q2_bash_continue_false --command "$BASH_CMD" --settings "$S" --out 'post={"continue":false,"stopReason":"STOP-FROM-POSTHOOK"}' ;;
 uto_str)    R --name ${P}q2_bash_updatedToolOutput_str --command "$BASH_CMD" --settings "$S" --out "post=$(HSO '"updatedToolOutput":"REPLACED-BY-HOOK"')" ;;
 uto_obj)    R --name ${P}q2_bash_updatedToolOutput_obj --command "$BASH_CMD" --settings "$S" --out "post=$(HSO '"updatedToolOutput":{"stdout":"REPLACED-STDOUT","stderr":"","interrupted":false,"isImage":false}')" ;;
 umcp_bash)  R --name ${P}q2_bash_updatedMCPToolOutput --command "$BASH_CMD" --settings "$S" --out "post=$(HSO '"updatedMCPToolOutput":"REPLACED-BY-HOOK"')" ;;
 mcp_ctl)    R --name ${P}q2_mcp_nohookoutput "${MCPARGS[@]}" --settings "$S" ;;
 mcp_umcp)   R --name ${P}q2_mcp_updatedMCPToolOutput "${MCPARGS[@]}" --settings "$S" --out "post=$(HSO '"updatedMCPToolOutput":[{"type":"text","text":"MCP REPLACED BY HOOK"}]')" ;;
 mcp_umcp_s) R --name ${P}q2_mcp_updatedMCPToolOutput_str "${MCPARGS[@]}" --settings "$S" --out "post=$(HSO '"updatedMCPToolOutput":"MCP REPLACED BY HOOK (string)"')" ;;
 mcp_uto)    R --name ${P}q2_mcp_updatedToolOutput "${MCPARGS[@]}" --settings "$S" --out "post=$(HSO '"updatedToolOutput":[{"type":"text","text":"MCP REPLACED VIA updatedToolOutput"}]')" ;;
 mcp_ctx)    R --name ${P}q2_mcp_ctx "${MCPARGS[@]}" --settings "$S" --out "post=$(HSO '"additionalContext":"CTX-FROM-POSTHOOK-MCP"')" ;;
 esac; }
# extra (run by name): partial Bash output object; is_error-ish fields
c3(){ case "$1" in
 uto_partial) R --name ${P}q2_bash_updatedToolOutput_partial --command "$BASH_CMD" --settings "$S" --out "post=$(HSO '"updatedToolOutput":{"stdout":"ONLY-STDOUT-GIVEN"}')" ;;
 uto_mcpshape_on_bash) R --name ${P}q2_bash_updatedToolOutput_contentblocks --command "$BASH_CMD" --settings "$S" --out "post=$(HSO '"updatedToolOutput":[{"type":"text","text":"BLOCKS"}]')" ;;
 esac; }
if [ $# -eq 0 ]; then set -- ctx block block_ctx exit2 plain sysmsg cont uto_str uto_obj umcp_bash mcp_ctl mcp_umcp mcp_umcp_s mcp_uto mcp_ctx; fi
for x in "$@"; do c $x; c3 $x; done
