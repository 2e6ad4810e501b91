"""End to end: the real Claude Code CLI with `policy hook claude` as its only hook (on
PreToolUse, PostToolUse, UserPromptSubmit and Stop), hosting the case's published hooks
file through `claude_hooks`; prints whether Claude Code then did what it did with the
published hooks themselves. A check of compare.py's reading of our answers.

    e2e.py <case>:<event id> [...]        e.g. dippy:uv-run-pytest heldout/rweijnen:nul-redirect

Reads only the first-level outcome: when a prompt is refused, a PreToolUse event's tool
never comes up and counts as "ran" (see the run dir's result).
"""
import json, os, shutil, sys
HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(HERE)
sys.path.insert(0, SRC)
sys.path.insert(0, HERE)
import compare, drive  # noqa: E402
POLICY = os.environ.get("POLICY_BIN") or os.path.join(os.path.dirname(os.path.dirname(SRC)), ".venv/bin/policy")
WORK = os.environ.get("CORPUS_E2E", "/tmp/corpus/e2e")

def synth(rel):
    src = os.path.join(SRC, rel); dst = os.path.join(WORK, rel)
    shutil.rmtree(dst, ignore_errors=True); shutil.copytree(src, dst, symlinks=True)
    case = json.load(open(os.path.join(dst, "case.json")))
    hosted = case["hooks_file"]
    if case["kind"] == "settings":
        new = "project/.claude/hooks.json"
        os.rename(os.path.join(dst, hosted), os.path.join(dst, new)); hosted = new
    cfg = {"packs": [SRC + "/pack"], "claude_hooks": ["{{CASE}}/" + hosted], "workspace": "{{CASE}}/project"}
    os.makedirs(os.path.join(dst, "project/.claude"), exist_ok=True)
    open(os.path.join(dst, "project/.claude/hookpolicy.json"), "w").write(json.dumps(cfg))
    cmd = POLICY + " hook claude --config {{CASE}}/project/.claude/hookpolicy.json"
    hooks = {e: [{"matcher": "*", "hooks": [{"type": "command", "command": cmd, "timeout": 120}]}]
             for e in ("PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop")}
    open(os.path.join(dst, "project/.claude/settings.json"), "w").write(json.dumps({"hooks": hooks}))
    orig = dict(case)
    case["kind"] = "settings"; case["hooks_file"] = "project/.claude/settings.json"; case.pop("claude", None)
    json.dump(case, open(os.path.join(dst, "case.json"), "w"))
    return dst, orig

for spec in sys.argv[1:]:
    rel, eid = spec.split(":")
    dst, orig = synth(rel)
    case = json.load(open(os.path.join(dst, "case.json")))
    ev = [e for e in case["events"] if e["id"] == eid][0]
    obs = drive.run_event(case, dst, ev, "2.1.332")
    obs["baseline"] = orig["claude"][eid].get("baseline")
    now = compare.claude_outcome(ev, obs); then = compare.claude_outcome(ev, orig["claude"][eid])
    why = compare.agrees(now, then)
    print(f"{rel}:{eid}: {'SAME' if not why else 'DIFF ' + why} | e2e: {now.brief()[:140]} | published: {then.brief()[:100]}")
