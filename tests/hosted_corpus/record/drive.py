#!/usr/bin/env python3
"""Run one corpus case's events under the real Claude Code CLI and record what it did.

    drive.py CASE_DIR [--version 2.1.332] [--event ID] [--print] [--summarize]

Each event runs in a fresh copy of the case (placeholders {{CASE}} filled in), with the
published hooks installed as the case says (plugin: --plugin-dir; settings: the file in
project/.claude/), plus a recording hook in the throwaway $HOME's user settings. The fake
model makes the event's tool call(s). Writes case.json["claude"][event id]: `outcome` (in
words) and what it was read from. PreToolUse events run twice: with the hooks, and with
no hooks (`baseline`: Claude Code's own permission answer). Run dirs stay under
$CORPUS_RUNS (default /tmp/corpus/runs) for inspection. Stdlib only; not part of the
test suite (it needs the real CLI, installed by /work/shared/real_hosts/claude/setup.sh).
"""
import argparse, json, os, re, shutil, subprocess, sys, time
HOOK_RX = re.compile(r"hook (additional context|feedback|blocking error|error|stopped|output)|<user-prompt-submit-hook>", re.I)


def hook_blocks(msgs):
    out = []
    for m in msgs:
        c = m.get("content")
        blocks = c if isinstance(c, list) else [{"type": "text", "text": c}]
        for b in blocks:
            if isinstance(b, dict) and b.get("type") == "text" and HOOK_RX.search(b.get("text") or ""):
                t = b["text"]
                i = HOOK_RX.search(t).start()
                out.append(t[max(0, t.rfind("\n\n", 0, i)):][:1500].strip())
    return out

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.environ.get("CORPUS_RUNS", "/tmp/corpus/runs")
PH = "{{CASE}}"


def rj(p):
    out = []
    if os.path.exists(p):
        for line in open(p, encoding="utf-8"):
            line = line.strip()
            if line:
                try:
                    out.append(json.loads(line))
                except ValueError:
                    out.append({"_raw": line})
    return out


def materialize(case_dir, dest):
    shutil.copytree(case_dir, dest, symlinks=True)
    for root, _dirs, names in os.walk(dest):
        for n in names:
            p = os.path.join(root, n)
            if os.path.islink(p):
                continue
            try:
                txt = open(p, encoding="utf-8").read()
            except (UnicodeDecodeError, OSError):
                continue
            if PH in txt:
                mode = os.stat(p).st_mode
                open(p, "w", encoding="utf-8").write(txt.replace(PH, dest))
                os.chmod(p, mode)


def text_of(c):
    if isinstance(c, str):
        return c
    if isinstance(c, list):
        return "\n".join(b.get("text", "") if isinstance(b, dict) and b.get("type") == "text"
                         else (text_of(b.get("content")) if isinstance(b, dict) else str(b)) for b in c)
    return json.dumps(c)


def run_event(case, case_dir, ev, version, baseline=False):
    # installed by /work/shared/real_hosts/claude/setup.sh (CLAUDE_CODE_VERSION=<version>)
    claude = os.environ.get("CLAUDE_BIN") or (
        "/tmp/claude_real/cc-%s/node_modules/@anthropic-ai/claude-code/bin/claude.exe" % version)
    name = os.path.basename(case_dir.rstrip("/"))
    run = os.path.join(ROOT, "%s-%s-%s%s" % (name, ev["id"], time.strftime("%H%M%S"), "-base" if baseline else ""))
    if os.path.exists(run):
        shutil.rmtree(run)
    os.makedirs(os.path.dirname(run), exist_ok=True)
    materialize(case_dir, run)
    proj = os.path.join(run, "project")
    os.makedirs(os.path.join(proj, ".claude"), exist_ok=True)
    home = os.path.join(run, "home")
    os.makedirs(os.path.join(home, ".claude"), exist_ok=True)
    log, tmp = os.path.join(run, "_log"), os.path.join(run, "_tmp")
    os.makedirs(log); os.makedirs(tmp)
    hooks_rel = case["hooks_file"]
    if baseline:
        hf = os.path.join(run, hooks_rel)
        if case["kind"] == "settings":
            s = json.loads(re.sub(r"(?m)^\s*//.*$", "", open(hf).read()))
            s.pop("hooks", None)
            json.dump(s, open(hf, "w"), indent=2)
    for cmd in case.get("setup", []) + ev.get("setup", []):
        subprocess.run(["bash", "-c", cmd], cwd=proj, check=True, env=dict(os.environ, HOME=home))
    rec = "python3 %s" % os.path.join(HERE, "recorder.py")
    user = {"hooks": {e: [{"matcher": "*", "hooks": [{"type": "command", "command": rec}]}]
                      for e in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop")}}
    json.dump(user, open(os.path.join(home, ".claude", "settings.json"), "w"), indent=2)
    prompt = ev.get("prompt", "please do the task")
    calls = ev.get("calls") or ([{"name": ev["tool_name"], "input": ev["tool_input"]}] if ev.get("tool_name") else [])
    calls = json.loads(json.dumps(calls).replace(PH, run))
    script = {"prompt": prompt, "calls": calls, "final_text": "All done.", "side_text": "ok"}
    json.dump(script, open(os.path.join(log, "script.json"), "w"))
    srv_err = open(os.path.join(log, "fake.stderr"), "w")
    server = subprocess.Popen([sys.executable, os.path.join(HERE, "fake_multi.py"), "--script",
                               os.path.join(log, "script.json"), "--logdir", log, "--port", "0"],
                              stdout=srv_err, stderr=subprocess.STDOUT)
    try:
        pf = os.path.join(log, "port")
        for _ in range(200):
            if os.path.exists(pf):
                break
            time.sleep(0.05)
        port = int(open(pf).read())
        env = {"PATH": os.environ["PATH"], "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb",
               "SHELL": "/bin/bash", "TMPDIR": tmp, "CLAUDE_CODE_TMPDIR": tmp,
               "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % port, "ANTHROPIC_API_KEY": "dummy",
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
               "CORPUS_LOG": os.path.join(log, "payloads.jsonl")}
        cmd = [claude, "-p", prompt, "--output-format", "stream-json", "--verbose", "--max-turns", "6"]
        mode = ev.get("mode", case.get("mode", "acceptEdits"))
        cmd += ["--permission-mode", mode]
        if mode == "bypassPermissions" and os.geteuid() == 0:
            env["IS_SANDBOX"] = "1"
        if case["kind"] == "plugin" and not baseline:
            cmd += ["--plugin-dir", os.path.join(run, case.get("plugin_dir", "plugin"))]
        t0 = time.time()
        pr = subprocess.run(cmd, cwd=proj, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                            text=True, timeout=120)
        secs = round(time.time() - t0, 1)
    finally:
        server.terminate(); server.wait(5); srv_err.close()
    open(os.path.join(log, "claude.stdout"), "w").write(pr.stdout)
    open(os.path.join(log, "claude.stderr"), "w").write(pr.stderr)
    events = []
    for line in pr.stdout.splitlines():
        try:
            events.append(json.loads(line))
        except ValueError:
            pass
    res = ([e for e in events if e.get("type") == "result"] or [{}])[-1]
    trs = rj(os.path.join(log, "tool_results.jsonl"))
    first = rj(os.path.join(log, "first_turn.jsonl"))
    payloads = [json.loads(p["stdin"]) for p in rj(os.path.join(log, "payloads.jsonl")) if p.get("stdin")]
    out = {"version": version, "seconds": secs, "rc": pr.returncode,
           "result": res.get("result"), "is_error": res.get("is_error"),
           "permission_denials": [d.get("tool_name") for d in res.get("permission_denials") or []],
           "api_calls": len(rj(os.path.join(log, "decisions.jsonl")))}
    # the tool results the model got, and the hook texts that came with them
    results = []
    for t in trs:
        body = t["body"]
        msgs = body.get("messages") or []
        users = [m for m in msgs if m.get("role") == "user"]
        lastu = users[-1]
        blocks = lastu["content"] if isinstance(lastu["content"], list) else [lastu["content"]]
        trb = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        idx = msgs.index(lastu)
        results.append({"tool_result": text_of(trb[-1].get("content")) if trb else None,
                        "is_error": bool(trb and trb[-1].get("is_error")),
                        "hook_texts": hook_blocks(msgs[idx:])})
    out["tool_results"] = json.loads(json.dumps(results).replace(run, PH))
    if first:
        body = first[0]["body"]
        msgs = body.get("messages") or []
        out["first_turn_hook_texts"] = json.loads(json.dumps(hook_blocks(msgs)).replace(run, PH))
    out["prompt_reached_model"] = bool(first)
    # what Stop hooks told the model when they kept it going
    stop_texts = []
    for r in rj(os.path.join(log, "requests.jsonl")):
        for t in hook_blocks((r.get("body") or {}).get("messages") or []):
            if "Stop hook" in t and t not in stop_texts:
                stop_texts.append(t)
    out["stop_hook_texts"] = json.loads(json.dumps(stop_texts).replace(run, PH))
    out["hook_events"] = [p.get("hook_event_name") + ":" + str(p.get("tool_name", "")) for p in payloads]
    out["payloads"] = json.loads(json.dumps(payloads).replace(run, PH))
    att = []
    for root, _, names in os.walk(os.path.join(home, ".claude", "projects")):
        for n in sorted(names):
            if n.endswith(".jsonl"):
                for e in rj(os.path.join(root, n)):
                    a = e.get("attachment") if isinstance(e, dict) else None
                    if isinstance(a, dict) and ("hook" in str(a.get("type")) or "permission" in str(a.get("type"))):
                        att.append({k: v for k, v in a.items() if k not in ("toolUseID",)})
    out["attachments"] = json.loads(json.dumps(att).replace(run, PH))
    out["files_after"] = sorted(f for f in os.listdir(proj) if not f.startswith(".claude"))
    out["stderr"] = pr.stderr[-1500:]
    out["run_dir"] = run
    return out


def summary(ev, obs):
    """The outcome in words: what the model got, and whether a person would have been asked."""
    kind = ev["event"]
    out = {}
    if kind == "PreToolUse":
        ran = ev["tool_name"] not in (obs.get("permission_denials") or [])
        last = (obs.get("tool_results") or [{}])[-1]
        text = last.get("tool_result") or ""
        asked = any('"ask"' in (a.get("stdout") or "") for a in obs.get("attachments") or []
                    if a.get("hookEvent") == "PreToolUse")
        by_hook = (not ran) and (text.startswith("PreToolUse:") or "denied this tool" in text)
        out = {"tool_ran": ran,
               "model_got": None if ran else text[:600],
               "blocked_by": None if ran else ("hook" if by_hook else "permission prompt (hook ask)" if asked
                                                 else "permission prompt (Claude Code's own)"),
               "context": [t[:600] for t in last.get("hook_texts") or []]}
    elif kind == "PostToolUse":
        last = (obs.get("tool_results") or [{}])[-1]
        out = {"tool_ran": True, "model_got_after_result": [t[:600] for t in last.get("hook_texts") or []]}
    elif kind == "UserPromptSubmit":
        out = {"prompt_reached_model": obs.get("prompt_reached_model"),
               "context": [t[:600] for t in obs.get("first_turn_hook_texts") or []],
               "result": None if obs.get("prompt_reached_model") else obs.get("result")}
    elif kind == "Stop":
        out = {"kept_going": bool(obs.get("stop_hook_texts")),
               "model_got": [t[:600] for t in obs.get("stop_hook_texts") or []]}
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("case_dir"); ap.add_argument("--version", default="2.1.332")
    ap.add_argument("--event"); ap.add_argument("--print", action="store_true")
    ap.add_argument("--summarize", action="store_true", help="only (re)write each recording's `outcome`")
    a = ap.parse_args()
    cj = os.path.join(a.case_dir, "case.json")
    case = json.load(open(cj))
    rec = case.setdefault("claude", {})
    if a.summarize:
        for ev in case["events"]:
            if ev["id"] in rec:
                obs = rec[ev["id"]]
                rec[ev["id"]] = {"outcome": summary(ev, obs), **{k: v for k, v in obs.items() if k != "outcome"}}
        json.dump(case, open(cj, "w"), indent=2)
        open(cj, "a").write("\n")
        return
    for ev in case["events"]:
        if a.event and ev["id"] != a.event:
            continue
        obs = run_event(case, a.case_dir, ev, a.version)
        if ev["event"] == "PreToolUse":
            obs["baseline"] = {k: v for k, v in run_event(case, a.case_dir, ev, a.version, baseline=True).items()
                               if k in ("tool_results", "permission_denials", "files_after", "run_dir")}
        rec[ev["id"]] = {"outcome": summary(ev, obs), **obs}
        print(json.dumps({k: v for k, v in obs.items() if k not in ("payloads", "first_turn_texts")}, indent=1)[:6000] if a.print else
              "%s/%s: denials=%s results=%s" % (os.path.basename(a.case_dir), ev["id"], obs["permission_denials"],
                                                 [(r["tool_result"] or "")[:120] for r in obs["tool_results"]]))
    json.dump(case, open(cj, "w"), indent=2)
    open(cj, "a").write("\n")


if __name__ == "__main__":
    main()
