#!/usr/bin/env bash
# Re-run every case behind FINDINGS.md on both CLIs (~4 min). Outputs: <script>_<ver>.out here; run dirs under runs/.
# Needs the CLIs from: CLAUDE_CODE_VERSION=2.1.332 bash /work/shared/real_hosts/claude/setup.sh (and 2.1.197).
cd "$(dirname "$0")"
B(){ echo /tmp/claude_real/cc-2.1.$1/node_modules/@anthropic-ai/claude-code/bin/claude.exe; }
for v in 332 197; do
  export CLAUDE_BIN=$(B $v) PFX=v${v}_
  for s in q1 q1b q2 q3 q4 q4b q5 q6 q6b q_extra; do ./$s.sh > ${s}_v$v.out 2>&1; done
  ./q2.sh uto_partial uto_mcpshape_on_bash >> q2_v$v.out 2>&1
  ./q4.sh prompt_cob bogus_mix >> q4_v$v.out 2>&1
  # Notification needs the interactive TUI (pty): ../run.py drives it
  python3 ../run.py --name v${v}_q6_pty_notification_default --mode default --interactive 10 --extra-arg=--permission-mode --extra-arg=default \
    --hooks '{"Notification":[{"hooks":[{"type":"command","command":"HOOK notification","timeout":5}]}],"SessionStart":[{"hooks":[{"type":"command","command":"HOOK sessionstart","timeout":5}]}]}' > q6pty_v$v.out 2>&1
  python3 bundle_facts.py ../ccfacts/strings_$v.txt > bundle_facts_v$v.out 2>&1
done
