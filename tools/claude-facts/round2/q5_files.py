#!/usr/bin/env python3
"""Prints the --files JSON for q5: a plugin 'myplug' whose hooks log cwd/env/argv via hooks/h.py."""
import json
SQ = "'${CLAUDE_PLUGIN_ROOT}' \"${CLAUDE_PLUGIN_ROOT}\" '${CLAUDE_PROJECT_DIR}'"
files = {
 "myplug/.claude-plugin/plugin.json": {"name": "myplug", "version": "0.0.1", "description": "hook env probe"},
 "myplug/hooks/hooks.json": {"hooks": {
    "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command",
        "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/h.py plugin-pre " + SQ}]}],
    "SessionStart": [{"hooks": [{"type": "command", "command": "python3 ${CLAUDE_PLUGIN_ROOT}/hooks/h.py plugin-sessionstart"}]}]}},
 "myplug/hooks/h.py": "import runpy\nrunpy.run_path('/work/scratch/ccfacts2/hooks/h.py', run_name='__main__')\n",
}
print(json.dumps(files))
