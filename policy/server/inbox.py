"""The approvers' inbox: `policy serve`'s pages for the people who approve.

`/` lists the requests waiting for the signed-in approver, live (server-sent events
tell the page a request came or went; it fetches the list again, no reload), with the
ones decided lately and who decided them. `/requests/<id>` — the link every
notification carries — shows the call in full, the shell commands the analysis finds
in it and the rules that asked, with approve (a reason, a grant) and deny. The pages
are rendered here, with one small script and no build step.

Who: approvers sign in with their token (`POST /signin`), exchanged for a session
cookie — HttpOnly, SameSite=Lax (so a link from a chat message arrives signed in),
Secure over https — signed with the service's session key (`service.
session_secret_file`, shared by replicas behind one balancer; else a key of this
process). The cookie names the identity and the digest of the token it was made from:
a token rotated or removed ends its sessions. Behind the trusted proxy, its user
header signs people in instead. Every form carries a CSRF token bound to the session;
the browser guard (policy.server.guard) checks Host and Origin of every request over
TCP. What the agent chose (arguments, paths, session names) is escaped, and control,
bidi and invisible characters are shown as escapes (`policy._visible`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import html
import os
import re
import time
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse

from policy._visible import visible
from policy.server.auth import ANONYMOUS, Caller, NotAuthenticated

if TYPE_CHECKING:
    from policy.server.app import ApprovalDesk, Service

__all__ = ["Broadcast", "Sessions", "add_inbox"]

COOKIE = "hookpolicy_session"
#: Live pages at once (each holds a connection); past it a page falls back to its
#: own reloads.
_MAX_STREAMS = 64
#: A live page's stream ends after this long; the browser opens a new one (and its
#: session is checked again).
_STREAM_SECONDS = 300.0
_KEEPALIVE_SECONDS = 15.0
#: Decided requests shown under the pending ones.
_HISTORY = 30
_MAX_FORM = 16 * 1024


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Sessions:
    """Signed session cookies: `<payload>.<HMAC>` with the identity's name, the digest
    of the token it signed in with, and an expiry."""

    def __init__(self, key: bytes, seconds: float, authenticate: Any) -> None:
        self._key = key
        self._seconds = seconds
        self._auth = authenticate

    def _mac(self, purpose: bytes, data: bytes) -> bytes:
        return hmac.new(self._key, purpose + b"\0" + data, hashlib.sha256).digest()

    def make(self, name: str, digest: str) -> str:
        payload = orjson.dumps({"n": name, "d": digest, "e": int(time.time() + self._seconds)})
        return f"{_b64(payload)}.{_b64(self._mac(b'session', payload))}"

    def caller(self, cookie: str) -> Caller | None:
        """Who the cookie signs in, or None (forged, expired, or its token gone)."""
        try:
            head, _, mac = cookie.partition(".")
            payload = _unb64(head)
            if not hmac.compare_digest(_unb64(mac), self._mac(b"session", payload)):
                return None
            fields = orjson.loads(payload)
            if not isinstance(fields, dict) or float(fields["e"]) < time.time():
                return None
            name, digest = str(fields["n"]), str(fields["d"])
        except (ValueError, KeyError, TypeError, orjson.JSONDecodeError):
            return None
        found: Caller | None = self._auth.session_caller(name, digest)
        return found

    def csrf(self, bound_to: str) -> str:
        """The form token of a session (the cookie), or of a proxy's user."""
        return _b64(self._mac(b"csrf", bound_to.encode()))[:32]


class Broadcast:
    """Tells the live pages that a request was filed, decided or expired. The approval
    store calls `tell` on whatever thread changed it; each page's stream waits on a
    queue of its event loop."""

    def __init__(self) -> None:
        self._streams: set[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]] = set()

    @property
    def count(self) -> int:
        return len(self._streams)

    def subscribe(self) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]:
        entry = (asyncio.get_running_loop(), asyncio.Queue[Any](maxsize=32))
        self._streams.add(entry)
        return entry

    def unsubscribe(self, entry: tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]) -> None:
        self._streams.discard(entry)

    def tell(self, event: str, request: Any) -> None:
        for loop, queue in list(self._streams):
            with contextlib.suppress(RuntimeError):  # a loop that closed meanwhile
                loop.call_soon_threadsafe(_offer, queue, (event, request))

    def close(self) -> None:
        """End every stream (the service is stopping)."""
        for loop, queue in list(self._streams):
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(_offer, queue, None)


def _offer(queue: asyncio.Queue[Any], item: Any) -> None:
    with contextlib.suppress(asyncio.QueueFull):  # a page that lags reloads the list anyway
        queue.put_nowait(item)


# ------------------------------------------------------------------ rendering


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


_CSS = """
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

_JS = """
(function () {
  var list = document.getElementById("pending");
  if (!list || !window.EventSource) { return; }
  var refresh = function () {
    fetch("/fragments/pending", {credentials: "same-origin"}).then(function (r) {
      return r.ok ? r.text() : null;
    }).then(function (text) {
      if (text !== null) { list.innerHTML = text; list.dataset.updated = String(Date.now()); }
    });
  };
  var events = new EventSource("/events");
  events.addEventListener("changed", refresh);
  events.addEventListener("open", function () { document.body.dataset.live = "yes"; });
})();
"""

_SECURITY_HEADERS = {
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


def _page(title: str, body: str, status: int = 200) -> Response:
    document = (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width,initial-scale=1'>"
        f"<title>{_t(title)} · hookpolicy</title>"
        "<link rel=stylesheet href=/inbox.css></head>"
        f"<body>{body}<script src=/inbox.js></script></body></html>"
    )
    return Response(
        document, status_code=status, media_type="text/html; charset=utf-8",
        headers=_SECURITY_HEADERS,
    )


def _sign_in(next_path: str, error: str = "", status: int = 200) -> Response:
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
    return _page("Sign in", body, status)


_NEXT = re.compile(r"/(requests/[A-Za-z0-9_-]{1,64})?")


def _safe_next(value: str) -> str:
    """Where to go back to after signing in: the inbox or one request's page, nothing
    else (a browser drops the tab of `/<TAB>/evil.example` and goes to another site)."""
    return value if _NEXT.fullmatch(value) else "/"


def _request_item(request: Any) -> str:
    return (
        f"<li data-id='{_t(request.id)}'><a href='/requests/{quote(request.id)}'>"
        f"<code>{_t(request.tool)}</code> {_t(_preview(request))}</a>"
        f"<div class=meta>asked by {_t(request.requester or request.principal or '?')}"
        f" · rules {_t(', '.join(request.rules) or request.pack)}"
        f" · until {_t(_when(request.deadline))}</div></li>"
    )


def _pending_fragment(requests: list[Any]) -> str:
    if not requests:
        return "<li class=meta id=none>Nothing waits for you.</li>"
    return "".join(_request_item(r) for r in requests)


def _history(requests: list[Any]) -> str:
    rows = "".join(
        f"<li><span class='state {_t(r.state)}'>{_t(r.state)}</span> "
        f"<a href='/requests/{quote(r.id)}'><code>{_t(r.tool)}</code> {_t(_preview(r))}</a>"
        f"<div class=meta>by {_t(r.decided_by or 'nobody (no answer in time)')}"
        f"{' · ' + _t(r.reason) if r.reason else ''} · {_t(_when(r.decided_at))}</div></li>"
        for r in requests
    )
    return f"<ul class=requests id=history>{rows}</ul>" if rows else "<p class=meta>None yet.</p>"


def _header(who: Caller, csrf: str) -> str:
    return (
        "<header><h1><a href=/>hookpolicy approvals</a></h1>"
        f"<form class=inline method=post action=/signout><span class=meta>{_t(who)} </span>"
        f"<input type=hidden name=csrf value='{csrf}'><button>Sign out</button></form></header>"
    )


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


def _detail(request: Any, report: dict[str, Any] | None, who: Caller, csrf: str, may: bool) -> str:
    args = orjson.dumps(dict(request.args), option=orjson.OPT_INDENT_2).decode()
    call = "\n".join(_t(line) for line in args.splitlines())
    state = request.state
    parts = [
        _header(who, csrf),
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
    if state == "pending" and may:
        grants = "".join(f"<option>{_t(g)}</option>" for g in request.grants)
        target = f"/requests/{quote(request.id)}"
        parts.append(
            "<h2>Decide</h2>"
            f"<form method=post action='{target}/approve' id=approve>"
            f"<input type=hidden name=csrf value='{csrf}'>"
            "<label>Reason <input type=text name=reason maxlength=4096></label>"
            f"<label>Grant <select name=grant>{grants}</select></label>"
            "<button type=submit>Approve</button></form>"
            f"<form method=post action='{target}/deny' id=deny>"
            f"<input type=hidden name=csrf value='{csrf}'>"
            "<label>Reason <input type=text name=reason maxlength=4096></label>"
            "<button type=submit>Deny</button></form>"
        )
    return "".join(parts)


# ------------------------------------------------------------------ routes


def _session_key(service: Service) -> bytes:
    configured = getattr(service.settings, "service", None)
    path = getattr(configured, "session_secret_file", None)
    if path is None:
        return os.urandom(32)
    key: bytes = Path(path).read_bytes().strip()
    if len(key) < 32:
        raise ValueError(f"service.session_secret_file {path}: fewer than 32 bytes")
    return key


def add_inbox(app: FastAPI, service: Service, desk: ApprovalDesk) -> None:
    """The inbox's pages, on `app`."""
    configured = getattr(service.settings, "service", None)
    hours = getattr(configured, "session_hours", 12.0)
    sessions = Sessions(_session_key(service), hours * 3600, service.auth)
    broadcast = Broadcast()
    service.closing.append(broadcast.close)
    try:
        desk.store().listen(broadcast.tell)
    except Exception as exc:  # noqa: BLE001 - pages without live updates, never no service
        service.log.warning("inbox: no live updates, the approval store", error=str(exc))
    https = str(getattr(configured, "public_url", "") or "").startswith("https://")

    def signed_in(request: Request) -> tuple[Caller | None, str]:
        """Who the browser is (None: nobody yet) and the form token of that session."""
        cookie = request.cookies.get(COOKIE)
        if cookie:
            caller = sessions.caller(cookie)
            if caller is not None:
                return caller, sessions.csrf(cookie)
        client = request.client
        peer = client.host if client is not None and client.host else None
        try:
            who = service.auth.caller(request.headers, peer)
        except NotAuthenticated:
            who = ANONYMOUS
        if who.name and who.via == "proxy":
            return who, sessions.csrf("proxy\0" + who.name)
        return None, ""

    def may_read(who: Caller) -> bool:
        return who.has("approver") or who.has("operator")

    async def form_of(request: Request) -> dict[str, str]:
        raw = await request.body()
        if len(raw) > _MAX_FORM:
            raise _Refused(413, "the form is too large")
        fields = parse_qs(raw.decode("utf-8", errors="replace"), keep_blank_values=True)
        return {name: values[0] for name, values in fields.items() if len(values) == 1}

    def checked(who: Caller | None, csrf: str, form: dict[str, str]) -> Caller:
        if who is None:
            raise _Refused(401, "sign in first")
        if not hmac.compare_digest(form.get("csrf", ""), csrf):
            raise _Refused(403, "the form's token does not match your session: reload the page")
        if not may_read(who):
            raise _Refused(403, f"{who} is not an approver")
        return who

    @app.exception_handler(_Refused)
    async def _refused(_request: Request, exc: _Refused) -> Response:
        return _page("Refused", f"<h1>Refused</h1><p class=error>{_t(exc.message)}</p>", exc.status)

    @app.get("/inbox.css", include_in_schema=False)
    async def css() -> Response:
        return Response(_CSS, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    @app.get("/inbox.js", include_in_schema=False)
    async def script() -> Response:
        return Response(
            _JS, media_type="text/javascript", headers={"Cache-Control": "max-age=3600"}
        )

    @app.get("/", include_in_schema=False)
    async def inbox(request: Request) -> Response:
        who, csrf = signed_in(request)
        if who is None:
            return _sign_in("/")
        if not may_read(who):
            raise _Refused(403, f"{who} is not an approver")

        def listed() -> tuple[list[Any], list[Any]]:
            found = [r.as_shown() for r in desk.store().list(None) if desk.visible(who, r)]
            waiting = [r for r in found if r.state == "pending"]
            done = sorted(
                (r for r in found if r.state != "pending"),
                key=lambda r: r.decided_at or r.deadline,
                reverse=True,
            )
            return waiting, done[:_HISTORY]

        waiting, done = await service.off_loop(listed)
        body = (
            _header(who, csrf)
            + "<h2>Waiting for you</h2>"
            + f"<ul class=requests id=pending>{_pending_fragment(waiting)}</ul>"
            + "<h2>Decided lately</h2>"
            + _history(done)
        )
        return _page("Approvals", body)

    @app.get("/fragments/pending", include_in_schema=False)
    async def pending(request: Request) -> Response:
        who, _ = signed_in(request)
        if who is None or not may_read(who):
            raise _Refused(401, "sign in first")

        def listed() -> str:
            found = [r for r in desk.store().list("pending") if desk.visible(who, r)]
            return _pending_fragment([r for r in found if r.shown_state() == "pending"])

        text = await service.off_loop(listed)
        return Response(text, media_type="text/html; charset=utf-8", headers=_SECURITY_HEADERS)

    @app.post("/signin", include_in_schema=False)
    async def sign_in(request: Request) -> Response:
        form = await form_of(request)
        next_path = _safe_next(form.get("next", "/"))
        token = form.get("token", "").strip()
        try:
            who, digest = service.auth.by_token(token) if token else (None, "")
        except NotAuthenticated:
            who = None
        if who is None or not may_read(who):
            service.log.warning("inbox sign-in refused", client=request.client)
            return _sign_in(next_path, "That token is not an approver's.", 401)
        assert who.name is not None
        cookie = sessions.make(who.name, digest)
        answer = Response(status_code=303, headers={"Location": next_path, **_SECURITY_HEADERS})
        answer.set_cookie(
            COOKIE,
            cookie,
            max_age=int(hours * 3600),
            httponly=True,
            samesite="lax",
            secure=https or request.url.scheme == "https",
            path="/",
        )
        service.log.info("inbox sign-in", who=str(who))
        return answer

    @app.post("/signout", include_in_schema=False)
    async def sign_out(request: Request) -> Response:
        who, csrf = signed_in(request)
        checked(who, csrf, await form_of(request))
        answer = Response(status_code=303, headers={"Location": "/", **_SECURITY_HEADERS})
        answer.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return answer

    @app.get("/requests/{request_id}", include_in_schema=False)
    async def detail(request_id: str, request: Request) -> Response:
        who, csrf = signed_in(request)
        if who is None:
            return _sign_in(f"/requests/{quote(request_id)}")
        if not may_read(who):
            raise _Refused(403, f"{who} is not an approver")
        viewer = who

        def shown() -> tuple[Any, dict[str, Any] | None]:
            from policy.server.app import ApiError

            try:
                found = desk.fetch(viewer, request_id).as_shown()
            except ApiError as exc:
                raise _Refused(exc.status, exc.message) from None
            return found, _facts(service, found)

        found, report = await service.off_loop(shown)
        may = who.has("approver")
        return _page(f"{found.tool} {found.state}", _detail(found, report, who, csrf, may))

    async def decide(request_id: str, request: Request, approved: bool) -> Response:
        who, csrf = signed_in(request)
        form = await form_of(request)
        deciding = checked(who, csrf, form)
        if not deciding.has("approver"):  # as the API: an operator sees, never decides
            raise _Refused(403, f"{deciding} may not decide: it needs the approver role")
        body = {"reason": form.get("reason", "")}
        if approved:
            body["grant"] = form.get("grant", "once") or "once"
        raw = orjson.dumps(body)
        from policy.errors import PolicyError
        from policy.server.app import ApiError

        try:
            await service.off_loop(desk.answer, deciding, request_id, approved, raw)
        except ApiError as exc:
            raise _Refused(exc.status, exc.message) from None
        except PolicyError as exc:  # (an input the rules refuse: a grant not offered)
            raise _Refused(400, str(exc)) from None
        return Response(
            status_code=303,
            headers={"Location": f"/requests/{quote(request_id)}", **_SECURITY_HEADERS},
        )

    @app.post("/requests/{request_id}/approve", include_in_schema=False)
    async def approve(request_id: str, request: Request) -> Response:
        return await decide(request_id, request, True)

    @app.post("/requests/{request_id}/deny", include_in_schema=False)
    async def deny(request_id: str, request: Request) -> Response:
        return await decide(request_id, request, False)

    @app.get("/events", include_in_schema=False)
    async def events(request: Request) -> Response:
        who, _ = signed_in(request)
        if who is None or not may_read(who):
            raise _Refused(401, "sign in first")
        if broadcast.count >= _MAX_STREAMS:
            raise _Refused(503, "too many live pages: reload by hand")
        viewer = who
        return StreamingResponse(
            _stream(broadcast, lambda r: desk.visible(viewer, r)),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _facts(service: Service, request: Any) -> dict[str, Any] | None:
    """What the analysis makes of a shell call's command (None for other tools)."""
    from policy.explain import facts_report
    from policy.model import ToolCall

    if not isinstance(request.args.get("command"), str):
        return None
    call = ToolCall(tool=request.tool, args=dict(request.args), cwd=request.cwd)
    try:
        return facts_report(call, service.engine.facts_context)
    except Exception as exc:  # noqa: BLE001 - a page without the facts, never a failed page
        return {"limit": f"{type(exc).__name__}: {exc}"}


async def _stream(broadcast: Broadcast, shows: Callable[[Any], bool]) -> AsyncIterator[str]:
    entry = broadcast.subscribe()
    loop, queue = entry
    try:
        yield "retry: 2000\n\n"
        ends = loop.time() + _STREAM_SECONDS
        while (left := ends - loop.time()) > 0:
            try:
                item = await asyncio.wait_for(queue.get(), timeout=min(_KEEPALIVE_SECONDS, left))
            except TimeoutError:
                yield ": still here\n\n"
                continue
            if item is None:
                return
            event, request = item
            if shows(request):
                data = orjson.dumps({"event": event, "id": request.id}).decode()
                yield f"event: changed\ndata: {data}\n\n"
    finally:
        broadcast.unsubscribe(entry)
