"""What the approvers' inbox draws: its pages, fragments, style and one script.

Rendered here, with no template engine and no build step. Every text somebody else
chose — arguments, paths, session names, rule messages — goes through `_t`: hidden
characters (control, bidi, invisible) shown as escapes (`policy._visible`), then HTML
escaped. The pages a browser navigates to hold no request data: the script fetches it
with the page key (policy.server.inbox), which a copy of the session cookie lacks.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

import orjson
from fastapi.responses import Response

from policy._visible import visible

__all__ = [
    "CSS",
    "JS",
    "SECURITY_HEADERS",
    "detail_fragment",
    "history_fragment",
    "key_page",
    "page",
    "pending_fragment",
    "refused_page",
    "shell",
    "sign_in_page",
]


def _t(value: object) -> str:
    """Text somebody else chose, for HTML: hidden characters as visible escapes."""
    return html.escape(visible(str(value)), quote=True)


def _when(seconds: float | None) -> str:
    if seconds is None:
        return ""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def _preview(request: Any) -> str:
    args = request.args
    text = args.get("command") if isinstance(args.get("command"), str) else None
    shown = text if text is not None else orjson.dumps(dict(args)).decode()
    return shown if len(shown) <= 160 else shown[:160] + "…"


CSS = """
body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:62rem;
padding:1rem 1.5rem;color:#1d1d1f}
header{display:flex;justify-content:space-between;align-items:center;border-bottom:1px solid #ddd}
h1{font-size:1.3rem}h2{font-size:1.1rem;margin-top:1.6rem}
pre,code{font:13px/1.4 ui-monospace,monospace;background:#f5f5f7;border-radius:4px}
pre{padding:.7rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
ul.requests{list-style:none;padding:0}ul.requests li{padding:.5rem 0;border-bottom:1px solid #eee}
.meta{color:#555;font-size:.9rem}.state{font-weight:600;text-transform:uppercase;font-size:.8rem}
.pending{color:#a15c00}.approved{color:#137333}.denied,.expired{color:#b3261e}
form.inline{display:inline}label{display:block;margin:.4rem 0}
input[type=text],input[type=password],select{font:inherit;padding:.3rem;min-width:18rem}
button{font:inherit;padding:.35rem .9rem;margin-right:.5rem;cursor:pointer}
.error{color:#b3261e}table{border-collapse:collapse}
td,th{text-align:left;padding:.2rem .6rem;vertical-align:top}
"""

#: The one script: keeps the page key in this origin's storage, loads each
#: `[data-src]` with it, sends the forms with it, and listens for changes.
JS = """
(function () {
  var KEY = "hookpolicy-page-key";
  var given = document.getElementById("page-key");
  if (given) {
    localStorage.setItem(KEY, given.dataset.key);
    location.replace(given.dataset.next);
    return;
  }
  var held = document.getElementById("given-key");
  if (held) { localStorage.setItem(KEY, held.dataset.key); }
  var key = localStorage.getItem(KEY);
  var say = function (text) {
    var box = document.getElementById("problem");
    if (box) { box.textContent = text; box.hidden = false; }
  };
  if (!key) { say("This browser holds no page key: sign out and sign in again."); return; }
  var headers = {"X-Hookpolicy-Page-Key": key};
  var load = function (box) {
    return fetch(box.dataset.src, {headers: headers, credentials: "same-origin"})
      .then(function (r) { return r.text().then(function (t) { return [r.ok, t]; }); })
      .then(function (got) {
        if (got[0]) { box.innerHTML = got[1]; box.dataset.loaded = String(Date.now()); wire(box); }
        else { say("The service refused: sign in again."); }
      });
  };
  var wire = function (box) {
    box.querySelectorAll("form[data-action]").forEach(function (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var body = new URLSearchParams(new FormData(form));
        fetch(form.dataset.action, {method: "POST", headers: headers, body: body,
                                    credentials: "same-origin"})
          .then(function (r) { return r.text().then(function (t) { return [r.ok, t]; }); })
          .then(function (got) {
            if (!got[0]) { say(got[1]); }
            document.querySelectorAll("[data-src]").forEach(load);
          });
      });
    });
  };
  document.querySelectorAll("[data-src]").forEach(load);
  var out = document.getElementById("sign-out");
  if (out) {
    out.addEventListener("click", function () {
      fetch("/signout", {method: "POST", headers: headers, credentials: "same-origin"})
        .then(function () { localStorage.removeItem(KEY); location.replace("/"); });
    });
  }
  if (window.EventSource && document.querySelector("[data-src][data-live]")) {
    var events = new EventSource("/events?key=" + encodeURIComponent(key));
    events.addEventListener("changed", function () {
      document.querySelectorAll("[data-src][data-live]").forEach(load);
    });
    events.addEventListener("open", function () { document.body.dataset.stream = "open"; });
  }
})();
"""

SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
        "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    ),
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    # (same-origin: with no-referrer, Chromium sends `Origin: null` on our own forms)
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}


def page(title: str, body: str, status: int = 200) -> Response:
    document = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>{_t(title)} · hookpolicy</title>"
        "<link rel=stylesheet href=/inbox.css></head>"
        f"<body>{body}<script src=/inbox.js></script></body></html>"
    )
    return Response(
        document,
        status_code=status,
        media_type="text/html; charset=utf-8",
        headers=SECURITY_HEADERS,
    )


def fragment(text: str, status: int = 200) -> Response:
    return Response(
        text, status_code=status, media_type="text/html; charset=utf-8", headers=SECURITY_HEADERS
    )


def refused_page(status: int, message: str) -> Response:
    return page("Refused", f"<h1>Refused</h1><p class=error>{_t(message)}</p>", status)


def sign_in_page(next_path: str, error: str = "", status: int = 200) -> Response:
    message = f"<p class=error>{_t(error)}</p>" if error else ""
    body = (
        "<h1>hookpolicy approvals</h1>"
        "<p>Sign in with your approver token (<code>policy token</code> made it; the "
        "service keeps only its digest).</p>"
        f"{message}<form method=post action=/signin>"
        "<label>Token <input type=password name=token autocomplete=off required autofocus>"
        "</label>"
        f"<input type=hidden name=next value='{_t(next_path)}'>"
        "<button type=submit>Sign in</button></form>"
    )
    return page("Sign in", body, status)


def key_page(key: str, next_path: str) -> Response:
    """The answer to a sign-in: the script keeps `key` in this origin's storage and
    goes on to `next_path`. The only response that ever carries the key."""
    body = (
        f"<p id=page-key data-key='{_t(key)}' data-next='{_t(next_path)}'>Signing in…</p>"
    )
    return page("Signing in", body)


def shell(
    who: Any, title: str, boxes: list[tuple[str, str, str, bool]], key: str | None = None
) -> Response:
    """A page of containers the script fills: (heading, element id, data path, live).
    `key`: the page key, for a person the trusted proxy signs in (never for a cookie's
    session: a copy of the cookie would read it here)."""
    filled = "".join(
        (f"<h2>{_t(heading)}</h2>" if heading else "")
        + f"<div id={_t(box)} data-src='{_t(src)}'{' data-live' if live else ''}></div>"
        for heading, box, src, live in boxes
    )
    body = (
        "<header><h1><a href=/>hookpolicy approvals</a></h1>"
        f"<span class=meta>{_t(who)} <button id=sign-out type=button>Sign out</button>"
        "</span></header><p id=problem class=error hidden></p>" + filled
    )
    if key is not None:
        body = f"<span id=given-key data-key='{_t(key)}' hidden></span>" + body
    return page(title, body)


def _request_item(request: Any) -> str:
    return (
        f"<li data-id='{_t(request.id)}'><a href='/requests/{quote(request.id)}'>"
        f"<code>{_t(request.tool)}</code> {_t(_preview(request))}</a>"
        f"<div class=meta>asked by {_t(request.requester or request.principal or '?')}"
        f" · rules {_t(', '.join(request.rules) or request.pack)}"
        f" · until {_t(_when(request.deadline))}</div></li>"
    )


def pending_fragment(requests: list[Any]) -> str:
    if not requests:
        return "<ul class=requests><li class=meta id=none>Nothing waits for you.</li></ul>"
    return "<ul class=requests>" + "".join(_request_item(r) for r in requests) + "</ul>"


def history_fragment(requests: list[Any]) -> str:
    rows = "".join(
        f"<li><span class='state {_t(r.state)}'>{_t(r.state)}</span> "
        f"<a href='/requests/{quote(r.id)}'><code>{_t(r.tool)}</code> {_t(_preview(r))}</a>"
        f"<div class=meta>by {_t(r.decided_by or 'nobody (no answer in time)')}"
        f"{' · ' + _t(r.reason) if r.reason else ''} · {_t(_when(r.decided_at))}</div></li>"
        for r in requests
    )
    return f"<ul class=requests>{rows}</ul>" if rows else "<p class=meta>None yet.</p>"


def _commands(report: dict[str, Any]) -> str:
    if "limit" in report:
        return f"<p class=error>The analysis gave up: {_t(report['limit'])} (refused).</p>"
    rows = "".join(
        f"<tr><td><code>{_t(c.get('name') or '')}</code></td>"
        f"<td><code>{_t(' '.join(str(a) for a in c.get('args', [])))}</code></td>"
        f"<td class=meta>{_t(', '.join(str(p) for p in c.get('writes', [])))}</td></tr>"
        for c in report.get("commands", [])
    )
    if not rows:
        return "<p class=meta>No commands.</p>"
    return (
        "<table id=commands><tr><th>program</th><th>arguments</th><th>writes</th></tr>"
        f"{rows}</table>"
    )


def detail_fragment(request: Any, report: dict[str, Any] | None, may_decide: bool) -> str:
    args = orjson.dumps(dict(request.args), option=orjson.OPT_INDENT_2).decode()
    call = "\n".join(_t(line) for line in args.splitlines())
    state = request.state
    parts = [
        f"<h2><span class='state {_t(state)}' id=state>{_t(state)}</span> "
        f"<code>{_t(request.tool)}</code></h2>",
        "<table>",
        f"<tr><th>asked by</th><td>{_t(request.requester or '?')} "
        f"<span class=meta>{_t(request.principal)}</span></td></tr>",
        f"<tr><th>session</th><td>{_t(request.session)}</td></tr>",
        f"<tr><th>directory</th><td><code>{_t(request.cwd)}</code></td></tr>",
        f"<tr><th>rules</th><td>{_t(', '.join(request.rules) or request.pack)}</td></tr>",
        f"<tr><th>says</th><td>{_t(request.message)}</td></tr>",
        f"<tr><th>approvers</th><td>{_t(', '.join(request.approvers) or 'anyone')}</td></tr>",
        f"<tr><th>filed</th><td>{_t(_when(request.created))}</td></tr>",
        f"<tr><th>deadline</th><td>{_t(_when(request.deadline))}</td></tr>",
    ]
    if state != "pending":
        parts.append(
            f"<tr><th>decided by</th><td id=decided-by>{_t(request.decided_by or 'nobody')}"
            f" {_t(_when(request.decided_at))}</td></tr>"
            f"<tr><th>reason</th><td>{_t(request.reason)}</td></tr>"
        )
        if state == "approved":
            parts.append(f"<tr><th>grant</th><td>{_t(request.grant)}</td></tr>")
    parts.append("</table><h2>The call, in full</h2>")
    parts.append(f"<pre id=call>{call}</pre>")
    if report is not None:
        parts.append("<h2>Shell commands</h2>" + _commands(report))
    if state == "pending" and may_decide:
        grants = "".join(f"<option>{_t(g)}</option>" for g in request.grants)
        target = f"/requests/{quote(request.id)}"
        parts.append(
            "<h2>Decide</h2>"
            f"<form id=approve data-action='{target}/approve'>"
            "<label>Reason <input type=text name=reason maxlength=4096></label>"
            f"<label>Grant <select name=grant>{grants}</select></label>"
            "<button type=submit>Approve</button></form>"
            f"<form id=deny data-action='{target}/deny'>"
            "<label>Reason <input type=text name=reason maxlength=4096></label>"
            "<button type=submit>Deny</button></form>"
        )
    return "".join(parts)
