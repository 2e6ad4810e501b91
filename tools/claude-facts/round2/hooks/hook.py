#!/usr/bin/env python3
"""Generic test hook.  hook.py TAG [--sleep S] [--out JSON] [--exit N] [--stderr TXT]
Logs {tag, t_start, stdin} to $CCF_LOG at start; sleeps; prints --out to stdout;
then writes marker file $CCF_MARK_DIR/<TAG>.after (proves the process was not killed);
logs {tag, phase:'after', t} again."""
import json, os, sys, time, argparse
ap = argparse.ArgumentParser()
ap.add_argument("tag"); ap.add_argument("--sleep", type=float, default=0)
ap.add_argument("--out", default=None); ap.add_argument("--exit", type=int, default=0)
ap.add_argument("--stderr", default=None)
ap.add_argument("--ignore-term", action="store_true")
ap.add_argument("--close-after-print", action="store_true")
ap.add_argument("--sleep-after", type=float, default=0, help="sleep after printing --out")
a = ap.parse_args()
data = sys.stdin.read()
log = os.environ.get("CCF_LOG", "/tmp/ccf_hook.log")
def w(obj):
    with open(log, "a") as fh: fh.write(json.dumps(obj) + "\n")
try: payload = json.loads(data)
except Exception: payload = data
w({"tag": a.tag, "phase": "start", "t": time.time(), "pid": os.getpid(), "ppid": os.getppid(), "parent_cmd": open("/proc/%d/cmdline" % os.getppid(), "rb").read().replace(b"\0", b" ").decode()[:200], "pgid": os.getpgid(0), "stdin": payload})
import signal
def onterm(sig, frm):
    w({"tag": a.tag, "phase": "signal", "sig": sig, "t": time.time()}); sys.exit(143)
def onterm_ign(sig, frm):
    w({"tag": a.tag, "phase": "signal-ignored", "sig": sig, "t": time.time()})
signal.signal(signal.SIGTERM, onterm_ign if a.ignore_term else onterm)
signal.signal(signal.SIGHUP, onterm)
end = time.time() + a.sleep
while time.time() < end:
    time.sleep(min(0.25, max(0, end - time.time())))
    w({"tag": a.tag, "phase": "tick", "t": time.time()})
if a.out is not None:
    try:
        sys.stdout.write(a.out + "\n"); sys.stdout.flush()
    except Exception as e:
        w({"tag": a.tag, "phase": "stdout_error", "err": repr(e)})
if a.close_after_print:
    sys.stdout.flush(); os.close(1); os.close(2)
if a.sleep_after:
    w({"tag": a.tag, "phase": "printed", "t": time.time()})
    end = time.time() + a.sleep_after
    while time.time() < end:
        time.sleep(min(0.25, max(0, end - time.time())))
        w({"tag": a.tag, "phase": "tick2", "t": time.time()})
if a.stderr and not a.close_after_print:
    try: sys.stderr.write(a.stderr + "\n"); sys.stderr.flush()
    except Exception: pass
md = os.environ.get("CCF_MARK_DIR")
if md:
    open(os.path.join(md, a.tag + ".after"), "w").write(str(time.time()))
w({"tag": a.tag, "phase": "after", "t": time.time(), "printed": a.out})
sys.exit(a.exit)
