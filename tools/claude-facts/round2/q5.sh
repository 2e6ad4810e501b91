#!/usr/bin/env bash
# Q5: cwd + env of plugin hooks (--plugin-dir) vs settings.json hooks. CLAUDE_BIN picks the CLI; PFX prefixes names.
cd "$(dirname "$0")"
P=${PFX:-}
PLUGIN_FILES="$(python3 q5_files.py)"
S='{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK settings-pre '"'"'${CLAUDE_PROJECT_DIR}'"'"' \"${CLAUDE_PROJECT_DIR}\""}]}],"SessionStart":[{"hooks":[{"type":"command","command":"HOOK settings-sessionstart"}]}]}}'
R(){ python3 run2.py --show-env --command 'echo hi' "$@"; }
c(){ case "$1" in
 plugin)      R --name ${P}q5_plugin_and_settings --files "$PLUGIN_FILES" --extra-arg=--plugin-dir --extra-arg=RUNDIR/myplug --settings "$S" ;;
 subdir)      R --name ${P}q5_cwd_subdir --cwd-sub sub/dir --settings "$S" ;;
 settings_pluginroot) R --name ${P}q5_settings_refs_plugin_root --settings '{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"HOOK settings-pre \"${CLAUDE_PLUGIN_ROOT}\""}]}]}}' ;;
 subdir_git)  R --name ${P}q5_cwd_subdir_git --git-init --cwd-sub sub/dir --files "{\"proj/sub/dir/.claude/settings.json\": $(echo "$S" | sed 's/settings-/subsettings-/g')}" --settings "$S" ;;
 esac; }
if [ $# -eq 0 ]; then set -- plugin subdir subdir_git settings_pluginroot; fi
for x in "$@"; do c $x; done
