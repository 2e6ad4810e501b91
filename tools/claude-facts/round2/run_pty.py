#!/usr/bin/env python3
"""Run real Claude Code -p once against the shared fake API with arbitrary hooks settings.
  run.py --name X --hooks '<json of the "hooks" object; "HOOK" expands to python3 .../hook.py>'
         [--mode bypass|allow-bash|default] [--command 'touch MARKER'] [--post-wait S] [--extra-arg ..]
Writes runs/<name>-<stamp>/report.json and prints a summary."""
import argparse, json, os, shutil, subprocess, sys, time
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = "/work/shared/real_hosts/claude"
HOOK = "python3 %s/hooks/hook.py" % HERE

def rj(p):
    out = []
    if os.path.exists(p):
        for l in open(p, encoding="utf-8"):
            l = l.strip()
            if l:
                try: out.append(json.loads(l))
                except ValueError: out.append({"_raw": l})
    return out

def trtext(b):
    c = b.get("content")
    if isinstance(c, str): return c
    if isinstance(c, list): return "\n".join(x.get("text", "") for x in c if isinstance(x, dict))
    return json.dumps(c)

ap = argparse.ArgumentParser()
ap.add_argument("--name", required=True)
ap.add_argument("--hooks", required=True)
ap.add_argument("--mode", default="bypass", choices=["bypass", "allow-bash", "default"])
ap.add_argument("--command", default="touch MARKER")
ap.add_argument("--post-wait", type=float, default=0, help="sleep after claude exits before collecting markers")
ap.add_argument("--timeout", type=int, default=120)
ap.add_argument("--stream-json", action="store_true")
ap.add_argument("--signal-after", type=float, default=0, help="send --signal to claude after S seconds")
ap.add_argument("--signal", default="INT")
ap.add_argument("--interactive", type=float, default=0, help="run without -p under a pty for S seconds, then kill")
ap.add_argument("--extra-arg", action="append", default=[])
ap.add_argument("--settings-extra", default=None, help="JSON merged into settings.json top level")
a = ap.parse_args()

claude = os.environ.get("CLAUDE_BIN", "/tmp/claude_real/cc-2.1.332/node_modules/@anthropic-ai/claude-code/bin/claude.exe")
version = subprocess.run([claude, "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
run = os.path.join(HERE, "runs", "%s-%s" % (a.name, time.strftime("%H%M%S")))
if os.path.exists(run): shutil.rmtree(run)
proj, home, log, tmp, marks = (os.path.join(run, d) for d in ("proj", "home", "log", "tmp", "marks"))
for d in (os.path.join(proj, ".claude"), home, log, tmp, marks): os.makedirs(d)
hooks = json.loads(a.hooks.replace("HOOK", HOOK))
settings = {"hooks": hooks}
if a.settings_extra: settings.update(json.loads(a.settings_extra))
json.dump(settings, open(os.path.join(proj, ".claude", "settings.json"), "w"), indent=2)
script = {"prompt": "run the marker command", "command": a.command, "description": "x",
          "final_text": "All done.", "side_text": "ok"}
json.dump(script, open(os.path.join(log, "script.json"), "w"))
srv_err = open(os.path.join(log, "fake_server.stderr"), "w")
server = subprocess.Popen([sys.executable, os.path.join(SHARED, "fake_anthropic.py"), "--script",
                           os.path.join(log, "script.json"), "--logdir", log, "--port", "0"],
                          stdout=srv_err, stderr=subprocess.STDOUT)
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
           "CCF_LOG": os.path.join(log, "hook_log.jsonl"), "CCF_MARK_DIR": marks}
    fmt = ["stream-json", "--verbose"] if a.stream_json else ["json"]
    cmd = [claude, "-p", "run the marker command", "--output-format"] + fmt + ["--max-turns", "4"]
    if a.interactive:
        cmd = [claude, "run the marker command"]
        json.dump({"hasCompletedOnboarding": True, "theme": "dark", "bypassPermissionsModeAccepted": True, "skipDangerousModePermissionPrompt": True, "numStartups": 5,
                   "customApiKeyResponses": {"approved": ["dummy"], "rejected": []},
                   "projects": {proj: {"hasTrustDialogAccepted": True, "hasCompletedProjectOnboarding": True}}},
                  open(os.path.join(home, ".claude.json"), "w"))
    if a.mode == "bypass":
        cmd += ["--permission-mode", "bypassPermissions"]
        if os.geteuid() == 0: env["IS_SANDBOX"] = "1"
    elif a.mode == "allow-bash":
        cmd += ["--allowedTools", "Bash"]
    cmd += a.extra_arg
    t0 = time.time()
    if a.interactive:
        import pty, select, signal as _sig
        env["TERM"] = "xterm-256color"
        pid, fd = pty.fork()
        if pid == 0:
            os.chdir(proj); os.execve(cmd[0], cmd, env)
        buf = b""; tend = time.time() + a.interactive
        while time.time() < tend:
            r, _, _ = select.select([fd], [], [], 0.2)
            if r:
                try: buf += os.read(fd, 65536)
                except OSError: break
        os.kill(pid, _sig.SIGTERM); time.sleep(1)
        try: os.kill(pid, _sig.SIGKILL)
        except OSError: pass
        os.waitpid(pid, 0)
        import re as _re
        txt = _re.sub(rb"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07]*\x07|\x1b[()][0-9A-Za-z]|\r", b"", buf).decode("utf-8", "replace")
        open(os.path.join(log, "screen.txt"), "w").write(txt)
        rc, out, err = "killed", "", txt[-3000:]
    else:
        import signal as _sig
        pr = subprocess.Popen(cmd, cwd=proj, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
        if a.signal_after:
            try:
                pr.wait(a.signal_after)
            except subprocess.TimeoutExpired:
                pr.send_signal(getattr(_sig, "SIG" + a.signal))
        try:
            out, err = pr.communicate(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            pr.kill(); out, err = pr.communicate(); out = "TIMEOUT\n" + out
        rc = pr.returncode
    t_exit = time.time()
    if a.post_wait: time.sleep(a.post_wait)
finally:
    server.terminate(); server.wait(5); srv_err.close()
open(os.path.join(log, "claude.stdout"), "w").write(out)
open(os.path.join(log, "claude.stderr"), "w").write(err)
res = None
events = []
if a.stream_json:
    for l in out.splitlines():
        try: events.append(json.loads(l))
        except ValueError: pass
    rs = [e for e in events if e.get("type") == "result"]
    res = rs[-1] if rs else None
else:
    try: res = json.loads(out)
    except ValueError: pass
hl = rj(os.path.join(log, "hook_log.jsonl"))
for h in hl: h["t_rel"] = round(h["t"] - t0, 2)
trs = [{"is_error": b.get("is_error", False), "text": trtext(b)} for e in rj(os.path.join(log, "tool_results.jsonl")) for b in e.get("tool_results", [])]
att = []
for root, _, names in os.walk(os.path.join(home, ".claude", "projects")):
    for n in names:
        if n.endswith(".jsonl"):
            for e in rj(os.path.join(root, n)):
                at = e.get("attachment") if isinstance(e, dict) else None
                if isinstance(at, dict) and ("hook" in str(at.get("type", "")) or "permission" in str(at.get("type", ""))):
                    att.append(at)
rep = {"name": a.name, "version": version, "mode": a.mode, "argv": cmd, "settings": settings, "rc": rc,
       "claude_seconds": round(t_exit - t0, 2), "hook_log": hl,
       "markers": sorted(os.listdir(marks)), "proj_files": sorted(f for f in os.listdir(proj) if f != ".claude"),
       "tool_results": trs, "result": (res or {}).get("result"), "permission_denials": (res or {}).get("permission_denials"),
       "is_error": (res or {}).get("is_error"), "subtype": (res or {}).get("subtype"),
       "transcript_attachments": att, "stderr": err[:3000], "stdout_raw": out[:3000] if res is None else None,
       "stream_event_types": ["%s/%s" % (e.get("type"), e.get("subtype", "")) for e in events], "run_dir": run}
json.dump(rep, open(os.path.join(run, "report.json"), "w"), indent=2)
P = print
P("=" * 70); P("%s  claude %s mode=%s rc=%s %.2fs  run=%s" % (a.name, version, a.mode, rc, rep["claude_seconds"], run))
ticks = {}
for h in hl:
    if h.get("phase") == "tick":
        ticks.setdefault(h["tag"], []).append(h["t_rel"]); continue
    d = {k: v for k, v in h.items() if k not in ("stdin", "t")}
    P("  hook %s" % json.dumps(d))
for tg, ts in ticks.items(): P("  hook %s: %d ticks, last tick at t=%.2fs" % (tg, len(ts), ts[-1]))
P("  markers(after-sleep files): %s" % rep["markers"])
P("  project files: %s" % rep["proj_files"])
for t in trs: P("  tool_result is_error=%s: %r" % (t["is_error"], t["text"][:400]))
if not trs: P("  tool_result: (none)")
P("  result=%r is_error=%s subtype=%s denials=%s" % (rep["result"], rep["is_error"], rep["subtype"], json.dumps(rep["permission_denials"])))
for x in att: P("  transcript: %s" % json.dumps({k: v for k, v in x.items() if k not in ("toolUseID",)})[:600])
if err.strip(): P("  stderr: %s" % err.strip()[:1500])
if rep["stdout_raw"]: P("  stdout(raw): %s" % rep["stdout_raw"][:1500])
