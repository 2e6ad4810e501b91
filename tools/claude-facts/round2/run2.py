#!/usr/bin/env python3
"""Run real Claude Code once against fake2.py (an extended copy of the shared fake API).
  run2.py --name X --settings '<settings JSON; "HOOK tag" expands to python3 .../hooks/h.py tag>'
     [--out TAG=<stdout text>] [--exit TAG=N] [--err TAG=text]   (what hook TAG prints)
     [--mode bypass|allow-bash|default] [--command 'touch MARKER'] [--tool-name N --tool-input JSON]
     [--prompt P] [--extra-arg ARG ...] [--no-p] [--timeout S]
Writes runs/<name>-<stamp>/{report.json,log/...}; prints a summary incl. the message tail the fake API received."""
import argparse, json, os, shutil, subprocess, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
HOOK = "python3 %s/hooks/h.py" % HERE
def rj(p):
    out = []
    if os.path.exists(p):
        for l in open(p, encoding="utf-8"):
            l = l.strip()
            if l:
                try: out.append(json.loads(l))
                except ValueError: out.append({"_raw": l})
    return out
def short(b, n=500):
    if isinstance(b, str): return "str:" + repr(b[:n])
    t = b.get("type")
    if t == "text": return "text:" + repr(b.get("text", "")[:n])
    if t == "tool_use": return "tool_use:%s %s" % (b.get("name"), json.dumps(b.get("input"))[:n])
    if t == "tool_result":
        c = b.get("content")
        if isinstance(c, list): c = [short(x, n) for x in c]
        return "tool_result(is_error=%s):%s" % (b.get("is_error", False), repr(c)[:n])
    return json.dumps(b)[:n]
ap = argparse.ArgumentParser()
ap.add_argument("--name", required=True); ap.add_argument("--settings", default="{}")
ap.add_argument("--out", action="append", default=[]); ap.add_argument("--exit", action="append", default=[])
ap.add_argument("--err", action="append", default=[])
ap.add_argument("--mode", default="bypass", choices=["bypass", "allow-bash", "default"])
ap.add_argument("--command", default="touch MARKER"); ap.add_argument("--tool-name", default="Bash")
ap.add_argument("--tool-input", default=None); ap.add_argument("--prompt", default="run the marker command")
ap.add_argument("--extra-arg", action="append", default=[]); ap.add_argument("--timeout", type=int, default=40)
ap.add_argument("--files", default=None, help="JSON {relpath: content} created under the run dir (PROJ/RUN expand)")
ap.add_argument("--no-settings-file", action="store_true")
ap.add_argument("--env", action="append", default=[], help="K=V added to claude env")
ap.add_argument("--msg-chars", type=int, default=400)
ap.add_argument("--then", default=None, help="after the run, run claude -p THEN --continue (same env); its stdout is appended")
ap.add_argument("--cwd-sub", default=None, help="run claude in proj/<SUB>")
ap.add_argument("--git-init", action="store_true")
ap.add_argument("--show-env", action="store_true", help="print env vars the hook got that claude was not given")
ap.add_argument("--side-text", default="ok", help="fake reply to side queries (prompt/agent hooks)")
ap.add_argument("--http-hook-reply", default=None, help="start http_hook_server.py replying this JSON; URL http://127.0.0.1:HTTPPORT/hook")
ap.add_argument("--all-msgs", action="store_true", help="print every message of request 0")
a = ap.parse_args()
claude = os.environ.get("CLAUDE_BIN", "/tmp/claude_real/cc-2.1.332/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
version = subprocess.run([claude, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
run = os.path.join(HERE, "runs", "%s-%s" % (a.name, time.strftime("%H%M%S")))
if os.path.exists(run): shutil.rmtree(run)
proj, home, log, tmp, outd = (os.path.join(run, d) for d in ("proj", "home", "log", "tmp", "out"))
for d in (os.path.join(proj, ".claude"), home, log, tmp, outd): os.makedirs(d)
httpsrv = None; httpport = "0"
if a.http_hook_reply is not None:
    open(os.path.join(log, "http_reply.json"), "w").write(a.http_hook_reply)
    httpsrv = subprocess.Popen([sys.executable, os.path.join(HERE, "http_hook_server.py"), log])
    for _ in range(200):
        if os.path.exists(os.path.join(log, "http_port")): break
        time.sleep(0.05)
    httpport = open(os.path.join(log, "http_port")).read().strip()
import re as _re
_SUB = {"HOOK": HOOK, "PROJ": proj, "RUNDIR": run, "HTTPPORT": httpport}
def X(s): return _re.sub(r"(?<![A-Za-z_$])(HOOK|PROJ|RUNDIR|HTTPPORT)(?![A-Za-z_])", lambda m: _SUB[m.group(1)], s)
settings = json.loads(X(a.settings))
if not a.no_settings_file:
    json.dump(settings, open(os.path.join(proj, ".claude", "settings.json"), "w"), indent=2)
if a.files:
    for rel, content in json.loads(X(a.files)).items():
        p = os.path.join(run, rel); os.makedirs(os.path.dirname(p), exist_ok=True)
        open(p, "w").write(content if isinstance(content, str) else json.dumps(content, indent=2))
        if rel.endswith(".py") or rel.endswith(".sh"): os.chmod(p, 0o755)
for lst, ext in ((a.out, "out"), (a.exit, "exit"), (a.err, "err")):
    for kv in lst:
        k, v = kv.split("=", 1); open(os.path.join(outd, k + "." + ext), "w").write(v)
script = {"prompt": a.prompt, "command": a.command, "description": "x", "final_text": "All done.",
          "side_text": a.side_text, "tool_name": a.tool_name}
if a.tool_input: script["tool_input"] = json.loads(X(a.tool_input))
json.dump(script, open(os.path.join(log, "script.json"), "w"))
srv_err = open(os.path.join(log, "fake_server.stderr"), "w")
server = subprocess.Popen([sys.executable, os.path.join(HERE, "fake2.py"), "--script", os.path.join(log, "script.json"),
                           "--logdir", log, "--port", "0"], stdout=srv_err, stderr=subprocess.STDOUT)
try:
    pf = os.path.join(log, "port")
    for _ in range(200):
        if os.path.exists(pf): break
        time.sleep(0.05)
    port = int(open(pf).read())
    env = {"PATH": os.environ["PATH"], "HOME": home, "LANG": "C.UTF-8", "TERM": "dumb", "SHELL": "/bin/bash",
           "TMPDIR": tmp, "CLAUDE_CODE_TMPDIR": tmp, "ANTHROPIC_BASE_URL": "http://127.0.0.1:%d" % port,
           "ANTHROPIC_API_KEY": "dummy", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
           "DISABLE_AUTOUPDATER": "1", "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1",
           "CCF_LOG": os.path.join(log, "hook_log.jsonl"), "CCF_OUT_DIR": outd}
    for kv in a.env:
        k, v = kv.split("=", 1); env[k] = X(v)
    cmd = [claude, "-p", a.prompt, "--output-format", "stream-json", "--verbose", "--max-turns", "4"]
    if a.mode == "bypass":
        cmd += ["--permission-mode", "bypassPermissions"]
        if os.geteuid() == 0: env["IS_SANDBOX"] = "1"
    elif a.mode == "allow-bash":
        cmd += ["--allowedTools", "Bash"]
    cmd += [X(x) for x in a.extra_arg]
    t0 = time.time()
    ccwd = proj
    if a.git_init: subprocess.run(["git", "init", "-q", proj])
    if a.cwd_sub:
        ccwd = os.path.join(proj, a.cwd_sub); os.makedirs(ccwd, exist_ok=True)
    pr = subprocess.Popen(cmd, cwd=ccwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try: out, err = pr.communicate(timeout=a.timeout)
    except subprocess.TimeoutExpired:
        pr.kill(); out, err = pr.communicate(); out = "TIMEOUT\n" + out
    rc = pr.returncode; secs = time.time() - t0
    if a.then:
        cmd2 = [claude, "-p", a.then, "--continue"] + cmd[3:]
        pr2 = subprocess.Popen(cmd2, cwd=ccwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try: out2, err2 = pr2.communicate(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            pr2.kill(); out2, err2 = pr2.communicate(); out2 = "TIMEOUT\n" + out2
        out += "\n" + out2; err += err2; rc = (rc, pr2.returncode)
finally:
    server.terminate(); server.wait(5); srv_err.close()
    if httpsrv: httpsrv.terminate(); httpsrv.wait(5)
open(os.path.join(log, "claude.stdout"), "w").write(out); open(os.path.join(log, "claude.stderr"), "w").write(err)
events = []
for l in out.splitlines():
    try: events.append(json.loads(l))
    except ValueError: pass
res = ([e for e in events if e.get("type") == "result"] or [{}])[-1]
hl = rj(os.path.join(log, "hook_log.jsonl"))
reqs = [r for r in rj(os.path.join(log, "requests.jsonl")) if r.get("path", "").startswith("/v1/messages")]
decs = rj(os.path.join(log, "decisions.jsonl"))
att = []
for root, _, names in os.walk(os.path.join(home, ".claude", "projects")):
    for n in sorted(names):
        if n.endswith(".jsonl"):
            for e in rj(os.path.join(root, n)):
                at = e.get("attachment") if isinstance(e, dict) else None
                if isinstance(at, dict): att.append(at)
P = print
P("=" * 78); P("%s  [%s] mode=%s rc=%s %.1fs  %s" % (a.name, version, a.mode, rc, secs, run))
for h in hl:
    s = h.get("stdin"); ev = s.get("hook_event_name") if isinstance(s, dict) else None
    extra = {k: v for k, v in (s.items() if isinstance(s, dict) else []) if k not in ("session_id", "transcript_path", "cwd", "prompt_id", "effort", "hook_event_name", "permission_mode")}
    P("  hook[%s] event=%s cwd=%s stdin.cwd=%s stdin-extra=%s" % (h["tag"], ev, h["cwd"], s.get("cwd") if isinstance(s, dict) else None, json.dumps(extra)[:a.msg_chars]))
    if a.show_env:
        P("     argv=%s" % h.get("argv"))
        for k in sorted(h.get("env", {})):
            if k not in env or env[k] != h["env"][k]:
                P("     env+ %s=%s" % (k, h["env"][k][:200]))
for hp in rj(os.path.join(log, "http_hook.jsonl")):
    P("  http-hook POST %s headers=%s body=%s" % (hp.get("path"), json.dumps(hp.get("headers"))[:200], json.dumps(hp.get("body"))[:a.msg_chars]))
P("  project files: %s" % sorted(f for f in os.listdir(proj) if f != ".claude"))
for i, r in enumerate(reqs):
    b = r.get("body") or {}; msgs = b.get("messages") or []
    d = decs[i] if i < len(decs) else {}
    P("  -- request %d kind=%s, %d messages; tail:" % (i, d.get("kind"), len(msgs)))
    # tail: from the last assistant message (or last 2 messages)
    idx = max([j for j, m in enumerate(msgs) if m.get("role") == "assistant"] or [max(0, len(msgs) - 2)])
    if d.get("kind") != "final": idx = 0 if (a.all_msgs and i == 0) else max(0, len(msgs) - 2)
    for m in msgs[idx:]:
        c = m.get("content")
        blocks = c if isinstance(c, list) else [c]
        for bl in blocks: P("     %s| %s" % (m.get("role"), short(bl, a.msg_chars)))
for t in [e for e in events if e.get("type") == "system" and "hook" in str(e.get("subtype", ""))]:
    P("  stream: %s" % json.dumps(t)[:a.msg_chars])
for x in att:
    if "hook" in str(x.get("type")) or "permission" in str(x.get("type")):
        P("  transcript: %s" % json.dumps({k: v for k, v in x.items() if k != "toolUseID"})[:a.msg_chars])
P("  result=%r is_error=%s subtype=%s denials=%s" % (res.get("result"), res.get("is_error"), res.get("subtype"), json.dumps(res.get("permission_denials"))[:300]))
if err.strip(): P("  stderr: %s" % err.strip()[:1500])
json.dump({"name": a.name, "version": version, "argv": cmd, "settings": settings, "rc": rc, "hook_log": hl,
           "result": res, "attachments": att, "stderr": err}, open(os.path.join(run, "report.json"), "w"), indent=2)
