#!/usr/bin/env python3
"""bundle_facts.py STRINGS_FILE  -- prints the schema facts used in FINDINGS.md from `strings -n 8 claude.exe` output.
Make the input with: strings -n 8 /tmp/claude_real/cc-2.1.332/node_modules/@anthropic-ai/claude-code/bin/claude.exe > s.txt"""
import re, sys
s = open(sys.argv[1], encoding="utf-8", errors="replace").read()
ev = re.findall(r'\["PreToolUse","PostToolUse","PostToolUseFailure","PostToolBatch","Notification"[A-Za-z",]*\]', s)
print("EVENTS (%d):" % len(ev[0].split(",")) if ev else "EVENTS: not found", ev[0] if ev else "")
i = s.find("PromptHookSchema:")
j = max(s.rfind('literal("command").describe("Shell command hook type")', 0, i), s.rfind('P("command").describe("Shell command hook type")', 0, i))
seg = s[j - 40:i]
for p in re.split(r'(?=type:(?:H\.literal|P)\("(?:command|prompt|agent|http|mcp_tool)"\))', seg):
    t = re.match(r'type:(?:H\.literal|P)\("([a-z_]+)"\)', p)
    if t: print("HOOK TYPE %-8s fields: %s" % (t.group(1), ", ".join(sorted(set(re.findall(r'[,{(]([a-zA-Z]+):(?:H\.|[a-zA-Z$]{1,3}\()', p)) - {"type"}))))
for pat in [r'hookEventName:(?:P|H\.literal)\("PostToolUse"\),additionalContext', r'hookEventName:(?:P|H\.literal)\("PreToolUse"\),permissionDecision']:
    m = re.search(pat, s)
    if m:
        seg = s[m.start():m.start() + 4000]
        print("SCHEMA %s: keys %s" % (pat.split('"')[1], sorted(set(re.findall(r'[,(]([a-zA-Z]+):(?:[a-zA-Z$]{1,3}\(|H\.)', seg[:seg.find("hookEventName", 20)])))))
for needle in ["agent-type hooks are not supported for PermissionRequest", "prompt-type hooks are not supported for ${", "HTTP hooks are not supported for ${",
               "Replaces the output for MCP tools only", "Invalid setting skipped without dialog", "but the hook is not associated with a plugin"]:
    k = s.find(needle); print("TEXT %r: %s" % (needle[:50], "present" if k >= 0 else "absent"))
