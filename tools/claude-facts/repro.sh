#!/usr/bin/env bash
# Reproduce the runs behind FINDINGS.md.  Usage: ./repro.sh [case ...]   (no args = all short cases)
# Needs: CLAUDE_CODE_VERSION=2.1.332 bash /work/shared/real_hosts/claude/setup.sh  (and 2.1.197 for v197 cases)
# CLAUDE_BIN selects the CLI (default 2.1.332).  Every run: runs/<name>-<HHMMSS>/report.json
cd "$(dirname "$0")"
V332=/tmp/claude_real/cc-2.1.332/node_modules/@anthropic-ai/claude-code/bin/claude.exe
V197=/tmp/claude_real/cc-2.1.197/node_modules/@anthropic-ai/claude-code/bin/claude.exe
# hook helper: h "<hook.py args>" '<json stdout>' <timeout>  -> one matcher group for Bash
h(){ echo '{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK '"$1"' --out '"'"''"$2"''"'"'","timeout":'"$3"'}]}'; }
DENY_LATE='{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"late deny\"}}'
DENY='{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\",\"permissionDecisionReason\":\"blocked by policy X\"}}'
DENY_NR='{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"deny\"}}'
ASK='{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\",\"permissionDecisionReason\":\"needs a human (policy Y)\"}}'
ASK_NR='{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"permissionDecision\":\"ask\"}}'
PR_ALLOW='{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\"}}}'
PR_DENY='{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\",\"message\":\"denied by permreq policy Z\"}}}'
PR_DENY_NM='{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\"}}}'
PR_DENY_INT='{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"deny\",\"message\":\"stop now\",\"interrupt\":true}}}'
PR_REWRITE='{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"decision\":{\"behavior\":\"allow\",\"updatedInput\":{\"command\":\"touch OTHER\"}}}}'
PR_WRONG='{\"hookSpecificOutput\":{\"hookEventName\":\"PermissionRequest\",\"permissionDecision\":\"allow\"}}'
MD="--extra-arg=--permission-mode --extra-arg=default"   # interactive: force manual 'default' mode (2.1.332 defaults to auto mode)
R(){ python3 run.py "$@"; }
run_case(){ case "$1" in
 # --- Q1 timeout / fail-open (2.1.332) ---
 t0_default_sleep65_deny) R --name $1 --timeout 200 --hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre --sleep 65 --out '"'"''"${DENY//policy X/after 65s}"''"'"'"}]}]}' ;;
 t0_default_sleep610_deny) R --name $1 --timeout 700 --post-wait 15 --hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre --sleep 610 --out '"'"''"${DENY//policy X/after 610s}"''"'"'"}]}]}' ;;
 t1b_timeout3_sleep6_deny) R --name $1 --post-wait 5 --hooks '{"PreToolUse":['"$(h "pre --sleep 6" "$DENY_LATE" 3)"']}' ;;
 t1d_ignoreterm_longbash) R --name $1 --command 'sleep 6; touch MARKER' --post-wait 6 --hooks '{"PreToolUse":['"$(h "pre --sleep 12 --ignore-term" "$DENY_LATE" 3)"']}' ;;
 t1e_print_deny_then_hang) R --name $1 --post-wait 2 --hooks '{"PreToolUse":['"$(h "pre --sleep 1 --sleep-after 6" "$DENY" 3)"']}' ;;
 t1f_print_deny_close_then_hang) R --name $1 --post-wait 2 --hooks '{"PreToolUse":['"$(h "pre --sleep 1 --close-after-print --sleep-after 6" "$DENY" 3)"']}' ;;
 t1g_timeout_onFailure_block) R --name $1 --hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre --sleep 6","timeout":3,"onFailure":"block"}]}]}' ;;
 t1h_exit1_onFailure_block) R --name $1 --hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre --exit 1 --stderr crashed","timeout":3,"onFailure":"block"}]}]}' ;;
 # --- Q2 / Q5 ---
 t2_timeout5_sleep2_deny) R --name $1 --hooks '{"PreToolUse":['"$(h "pre --sleep 2" "$DENY" 5)"']}' ;;
 t5_deny_noreason) R --name $1 --hooks '{"PreToolUse":['"$(h pre "$DENY_NR" 5)"']}' ;;
 # --- Q3 PermissionRequest under -p (2.1.332) ---
 t3ctl_default_nohook) R --name $1 --mode default --hooks '{}' ;;
 t3a_default_pr_allow) R --name $1 --mode default --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 t3b_default_pr_deny) R --name $1 --mode default --hooks '{"PermissionRequest":['"$(h permreq "$PR_DENY" 5)"']}' ;;
 t3c_default_pr_silent) R --name $1 --mode default --hooks '{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK permreq","timeout":5}]}]}' ;;
 t3d_default_pr_allow_sleep6_timeout3) R --name $1 --mode default --post-wait 4 --hooks '{"PermissionRequest":['"$(h "permreq --sleep 6" "$PR_ALLOW" 3)"']}' ;;
 t3g_silentpre_pr_allow_default) R --name $1 --mode default --hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre","timeout":5}]}],"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 t3h_pr_allow_only_bypass) R --name $1 --mode bypass --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 t3i_pr_allow_only_allowbash) R --name $1 --mode allow-bash --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 t3j_pr_allow_updatedInput) R --name $1 --mode default --hooks '{"PermissionRequest":['"$(h permreq "$PR_REWRITE" 5)"']}' ;;
 t3k_pr_deny_nomsg) R --name $1 --mode default --hooks '{"PermissionRequest":['"$(h permreq "$PR_DENY_NM" 5)"']}' ;;
 t3l_pr_deny_interrupt) R --name $1 --mode default --hooks '{"PermissionRequest":['"$(h permreq "$PR_DENY_INT" 5)"']}' ;;
 t3m_pr_exit2) R --name $1 --mode default --hooks '{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK permreq --exit 2 --stderr blocked-via-exit-2","timeout":5}]}]}' ;;
 t3n_pr_exit1) R --name $1 --mode default --hooks '{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK permreq --exit 1 --stderr crash","timeout":5}]}]}' ;;
 t3o_pr_garbage) R --name $1 --mode default --hooks '{"PermissionRequest":['"$(h permreq "not json" 5)"']}' ;;
 t3p_pr_wrong_shape) R --name $1 --mode default --hooks '{"PermissionRequest":['"$(h permreq "$PR_WRONG" 5)"']}' ;;
 t3q_askrule_pr_allow_default) R --name $1 --mode default --settings-extra '{"permissions":{"ask":["Bash"]}}' --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 t3q_askrule_pr_allow_bypass) R --name $1 --mode bypass --settings-extra '{"permissions":{"ask":["Bash"]}}' --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 t3s_pr_timeout_onFailure_block) R --name $1 --mode default --hooks '{"PermissionRequest":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK permreq --sleep 6","timeout":3,"onFailure":"block"}]}]}' ;;
 # --- Q3/Q4 hook "ask" under -p, every mode, with/without PermissionRequest (2.1.332) ---
 t4_ask) for m in bypass default allow-bash; do
     R --name t4_ask_nopr_$m --mode $m --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"']}'
     R --name t3e_ask_pr_allow_$m --mode $m --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}'
     R --name t3f_ask_pr_deny_$m --mode $m --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_DENY" 5)"']}'
   done ;;
 t4b_ask_noreason_default) R --name $1 --mode default --hooks '{"PreToolUse":['"$(h pre "$ASK_NR" 5)"']}' ;;
 # --- interactive (pty, no -p), 2.1.332 ---
 i1_ctl_nohook) R --name $1 --mode default $MD --interactive 8 --hooks '{}' ;;
 i3_ask_pr_allow) R --name $1 --mode default $MD --interactive 8 --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 i5_ask_pr_deny) R --name $1 --mode default $MD --interactive 8 --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_DENY" 5)"']}' ;;
 i6_ask_pr_timeout) R --name $1 --mode default $MD --interactive 12 --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h "permreq --sleep 6" "$PR_ALLOW" 3)"']}' ;;
 i7_allowbash_ask_pr_allow) R --name $1 --mode allow-bash $MD --interactive 8 --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 i8_bypass_ask_pr_allow) R --name $1 --mode bypass --interactive 8 --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 i9_default_pr_only_allow) R --name $1 --mode default $MD --interactive 8 --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}' ;;
 # --- 2.1.197 ---
 v197) export CLAUDE_BIN=$V197
   R --name v197_t1b_timeout3_sleep6 --post-wait 4 --hooks '{"PreToolUse":['"$(h "pre --sleep 6" "$DENY_LATE" 3)"']}'
   R --name v197_t2_timeout5_sleep2_deny --hooks '{"PreToolUse":['"$(h "pre --sleep 2" "$DENY" 5)"']}'
   R --name v197_t1g_onFailure_block --hooks '{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK pre --sleep 6","timeout":3,"onFailure":"block"}]}]}'
   R --name v197_t3a_default_pr_allow --mode default --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}'
   R --name v197_t3a_py_pr_allow --mode default --command "python3 -c \"open('MARKER','w')\"" --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}'
   R --name v197_t3q_askrule_pr_allow_bypass --mode bypass --settings-extra '{"permissions":{"ask":["Bash"]}}' --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}'
   R --name v197_t3e_ask_pr_allow_default --mode default --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}'
   R --name v197_i3_ask_pr_allow --mode default $MD --interactive 8 --hooks '{"PreToolUse":['"$(h pre "$ASK" 5)"'],"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}'
   R --name v197_i9_pr_only_allow --mode default $MD --interactive 8 --hooks '{"PermissionRequest":['"$(h permreq "$PR_ALLOW" 5)"']}'
   unset CLAUDE_BIN ;;
 *) echo "unknown case $1" >&2; return 1 ;;
esac; }
ALL="t1b_timeout3_sleep6_deny t1d_ignoreterm_longbash t1e_print_deny_then_hang t1f_print_deny_close_then_hang t1g_timeout_onFailure_block t1h_exit1_onFailure_block t2_timeout5_sleep2_deny t5_deny_noreason t3ctl_default_nohook t3a_default_pr_allow t3b_default_pr_deny t3c_default_pr_silent t3d_default_pr_allow_sleep6_timeout3 t3g_silentpre_pr_allow_default t3h_pr_allow_only_bypass t3i_pr_allow_only_allowbash t3j_pr_allow_updatedInput t3k_pr_deny_nomsg t3l_pr_deny_interrupt t3m_pr_exit2 t3n_pr_exit1 t3o_pr_garbage t3p_pr_wrong_shape t3q_askrule_pr_allow_default t3q_askrule_pr_allow_bypass t3s_pr_timeout_onFailure_block t4_ask t4b_ask_noreason_default i1_ctl_nohook i3_ask_pr_allow i5_ask_pr_deny i6_ask_pr_timeout i7_allowbash_ask_pr_allow i8_bypass_ask_pr_allow i9_default_pr_only_allow v197"
for c in ${@:-$ALL}; do run_case "$c"; done
