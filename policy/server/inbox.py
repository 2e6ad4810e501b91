"""The approvers' inbox: `policy serve`'s pages for the people who approve.

`/` lists the requests waiting for the signed-in approver, live (server-sent events
tell the page a request came or went; it loads the list again, no reload), with the
ones decided lately and who decided them. `/requests/<id>` — the link every
notification carries — shows the call in full, the shell commands the analysis finds
in it and the rules that asked, with approve (a reason, a grant) and deny. Rendered by
policy.server.inbox_pages, with one small script and no build step.

Who, and why two secrets. Approvers sign in with their token (`POST /signin`), which
gives the browser two things: a session cookie — HttpOnly, SameSite=Lax (a link from
a chat message arrives signed in), Secure over https, signed with the service's
session key and naming the identity, the digest of its token (rotating the token ends
its sessions) and the digest of the second thing — and a **page key**, which the
sign-in page hands to the script once, to keep in this origin's storage. Everything
that shows or decides a request needs both: the script sends the key in a header
(`X-Hookpolicy-Page-Key`; the event stream in its query). The key is what a copy of
the cookie lacks: a browser sends the cookie of `127.0.0.1` to every port of that
host — to a server the agent starts on another port too — but storage is kept per
origin, port included, and a page elsewhere cannot read it, nor send a custom header
here without a CORS grant this service never gives. So a cookie in the agent's hands
reads nothing and decides nothing. Behind the trusted proxy, whose user header signs
people in instead, the key comes with each page (no cookie exists to be copied).

What the agent chose (arguments, paths, session names) is escaped, with control,
bidi and invisible characters shown as escapes; the browser guard (policy.server.guard)
checks Host and Origin of every request over TCP; sign-out ends the session on this
replica at once (and its cookie everywhere at its expiry, `service.session_hours`).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import os
import re
import secrets
import threading
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, quote

import orjson
from fastapi import FastAPI, Request
from fastapi.responses import Response, StreamingResponse

from policy.server import inbox_pages as pages
from policy.server.auth import Caller, NotAuthenticated

if TYPE_CHECKING:
    from policy.server.app import ApprovalDesk, Service

__all__ = ["Broadcast", "Session", "Sessions", "add_inbox"]

COOKIE = "hookpolicy_session"
KEY_HEADER = "x-hookpolicy-page-key"
#: Live pages at once, in all and per identity (each holds a connection); past them a
#: page is still served, without live updates.
_MAX_STREAMS = 64
_MAX_STREAMS_PER_IDENTITY = 8
#: A live page's stream ends after this long (the browser opens a new one).
_STREAM_SECONDS = 300.0
#: A stream says it is alive, and checks its session still holds, this often.
_KEEPALIVE_SECONDS = 15.0
#: Decided requests shown under the pending ones.
_HISTORY = 30
_MAX_FORM = 16 * 1024
#: Sessions signed out, remembered until their cookie expires (at most this many).
_MAX_REVOKED = 10_000


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


class Session:
    """A signed-in browser: who, and what proves a request came from its pages."""

    __slots__ = ("caller", "expires", "id", "key_digest")

    def __init__(self, caller: Caller, key_digest: str, session_id: str, expires: float) -> None:
        self.caller = caller
        self.key_digest = key_digest
        self.id = session_id
        self.expires = expires

    def holds(self, key: str | None) -> bool:
        """Whether `key` (from the request) is this session's page key."""
        return key is not None and hmac.compare_digest(_digest(key), self.key_digest)


class Sessions:
    """Signed session cookies: `<payload>.<HMAC>`, the payload naming the identity,
    its token's digest, the page key's digest, an id and an expiry."""

    def __init__(self, key: bytes, seconds: float, authenticate: Any) -> None:
        self._key = key
        self._seconds = seconds
        self._auth = authenticate
        self._revoked: dict[str, float] = {}
        self._lock = threading.Lock()

    def _mac(self, purpose: bytes, data: bytes) -> bytes:
        return hmac.new(self._key, purpose + b"\0" + data, hashlib.sha256).digest()

    def make(self, name: str, digest: str) -> tuple[str, str]:
        """(the cookie, the page key) of a new session."""
        page_key = secrets.token_urlsafe(32)
        payload = orjson.dumps(
            {
                "n": name,
                "d": digest,
                "k": _digest(page_key),
                "i": secrets.token_urlsafe(12),
                "e": int(time.time() + self._seconds),
            }
        )
        return f"{_b64(payload)}.{_b64(self._mac(b'session', payload))}", page_key

    def session(self, cookie: str) -> Session | None:
        """The session the cookie names, or None (forged, expired, signed out, or its
        identity's token changed)."""
        try:
            head, _, mac = cookie.partition(".")
            payload = _unb64(head)
            if not hmac.compare_digest(_unb64(mac), self._mac(b"session", payload)):
                return None
            fields = orjson.loads(payload)
            expires = float(fields["e"])
            name, digest = str(fields["n"]), str(fields["d"])
            key_digest, session_id = str(fields["k"]), str(fields["i"])
        except (ValueError, KeyError, TypeError, orjson.JSONDecodeError):
            return None
        if expires < time.time() or session_id in self._revoked:
            return None
        caller: Caller | None = self._auth.session_caller(name, digest)
        return Session(caller, key_digest, session_id, expires) if caller is not None else None

    def revoke(self, session: Session) -> None:
        now = time.time()
        with self._lock:
            if len(self._revoked) >= _MAX_REVOKED:
                for gone in [k for k, until in self._revoked.items() if until < now]:
                    del self._revoked[gone]
            if len(self._revoked) < _MAX_REVOKED:
                self._revoked[session.id] = session.expires

    def proxy_key(self, name: str) -> str:
        """The page key of a person the trusted proxy names (a new one each day)."""
        day = str(int(time.time() // 86400)).encode()
        return _b64(self._mac(b"proxy", name.encode() + b"\0" + day))[:43]


class Broadcast:
    """Tells the live pages that a request was filed, decided or expired. The approval
    store calls `tell` on whatever thread changed it; each page's stream waits on a
    queue of its event loop."""

    def __init__(self) -> None:
        self._streams: dict[tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]], str] = {}

    def count(self, who: str | None = None) -> int:
        if who is None:
            return len(self._streams)
        return sum(1 for owner in self._streams.values() if owner == who)

    def subscribe(self, who: str) -> tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]:
        entry = (asyncio.get_running_loop(), asyncio.Queue[Any](maxsize=32))
        self._streams[entry] = who
        return entry

    def unsubscribe(self, entry: tuple[asyncio.AbstractEventLoop, asyncio.Queue[Any]]) -> None:
        self._streams.pop(entry, None)

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


_NEXT = re.compile(r"/(requests/[A-Za-z0-9_-]{1,64})?")


def _safe_next(value: str) -> str:
    """Where to go back to after signing in: the inbox or one request's page, nothing
    else (a browser drops the tab of `/<TAB>/evil.example` and goes to another site)."""
    return value if _NEXT.fullmatch(value) else "/"


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _session_key(service: Service) -> bytes:
    configured = getattr(service.settings, "service", None)
    path = getattr(configured, "session_secret_file", None)
    if path is None:
        return os.urandom(32)
    from policy.server.secret_files import read_secret

    key = read_secret(Path(path), "service.session_secret_file")
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
        desk.store().follow(broadcast.tell)  # (replicas: what the others change too)
    except Exception as exc:  # noqa: BLE001 - pages without live updates, never no service
        service.log.warning("inbox: no live updates, the approval store", error=str(exc))
    https = str(getattr(configured, "public_url", "") or "").startswith("https://")

    def proxied(request: Request) -> Caller | None:
        client = request.client
        peer = client.host if client is not None and client.host else None
        try:
            who = service.auth.caller(request.headers, peer)
        except NotAuthenticated:
            return None
        return who if who.name and who.via == "proxy" else None

    def browser(request: Request) -> tuple[Caller | None, Session | None]:
        """Who the browser's cookie (or the proxy) signs in; no proof of a page yet."""
        cookie = request.cookies.get(COOKIE)
        if cookie:
            session = sessions.session(cookie)
            if session is not None:
                return session.caller, session
        return proxied(request), None

    def from_our_page(request: Request, key: str | None) -> Caller:
        """Who asks, when the request comes from one of our pages (it holds the page
        key); _Refused otherwise."""
        who, session = browser(request)
        if who is None:
            raise _Refused(401, "sign in first")
        if session is not None:
            if not session.holds(key):
                raise _Refused(403, "this request is not from a page of this sign-in")
        elif key is None or not hmac.compare_digest(key, sessions.proxy_key(who.name or "")):
            raise _Refused(403, "this request is not from a page of this service")
        if not (who.has("approver") or who.has("operator")):
            raise _Refused(403, f"{who} is not an approver")
        return who

    async def form_of(request: Request) -> dict[str, str]:
        raw = await request.body()
        if len(raw) > _MAX_FORM:
            raise _Refused(413, "the form is too large")
        fields = parse_qs(raw.decode("utf-8", errors="replace"), keep_blank_values=True)
        return {name: values[0] for name, values in fields.items() if len(values) == 1}

    def shell_of(
        request: Request, title: str, boxes: list[tuple[str, str, str, bool]], back: str
    ) -> Response:
        who, session = browser(request)
        if who is None:
            return pages.sign_in_page(back)
        if not (who.has("approver") or who.has("operator")):
            raise _Refused(403, f"{who} is not an approver")
        if session is None:  # the proxy's user: no cookie to copy, the key comes along
            return pages.shell(who, title, boxes, sessions.proxy_key(who.name or ""))
        return pages.shell(who, title, boxes)

    @app.exception_handler(_Refused)
    async def _refused(_request: Request, exc: _Refused) -> Response:
        return pages.refused_page(exc.status, exc.message)

    @app.get("/inbox.css", include_in_schema=False)
    async def css() -> Response:
        return Response(pages.CSS, media_type="text/css", headers={"Cache-Control": "max-age=3600"})

    @app.get("/inbox.js", include_in_schema=False)
    async def script() -> Response:
        return Response(
            pages.JS, media_type="text/javascript", headers={"Cache-Control": "max-age=3600"}
        )

    @app.get("/", include_in_schema=False)
    async def inbox(request: Request) -> Response:
        return shell_of(
            request,
            "Approvals",
            [
                ("Waiting for you", "pending", "/inbox/pending", True),
                ("Decided lately", "history", "/inbox/history", True),
            ],
            "/",
        )

    @app.get("/requests/{request_id}", include_in_schema=False)
    async def detail(request_id: str, request: Request) -> Response:
        where = f"/requests/{quote(request_id)}"
        return shell_of(request, "Request", [("", "detail", f"/inbox{where}", True)], where)

    def visible_requests(who: Caller) -> list[Any]:
        return [r.as_shown() for r in desk.store().list(None) if desk.visible(who, r)]

    @app.get("/inbox/pending", include_in_schema=False)
    async def pending(request: Request) -> Response:
        who = from_our_page(request, request.headers.get(KEY_HEADER))

        def listed() -> str:
            found = [r for r in desk.store().list("pending") if desk.visible(who, r)]
            return pages.pending_fragment([r for r in found if r.shown_state() == "pending"])

        return pages.fragment(await service.off_loop(listed))

    @app.get("/inbox/history", include_in_schema=False)
    async def history(request: Request) -> Response:
        who = from_our_page(request, request.headers.get(KEY_HEADER))

        def listed() -> str:
            done = sorted(
                (r for r in visible_requests(who) if r.state != "pending"),
                key=lambda r: r.decided_at or r.deadline,
                reverse=True,
            )
            return pages.history_fragment(done[:_HISTORY])

        return pages.fragment(await service.off_loop(listed))

    @app.get("/inbox/requests/{request_id}", include_in_schema=False)
    async def detail_data(request_id: str, request: Request) -> Response:
        who = from_our_page(request, request.headers.get(KEY_HEADER))

        def shown() -> str:
            from policy.server.app import ApiError

            try:
                found = desk.fetch(who, request_id).as_shown()
            except ApiError as exc:
                raise _Refused(exc.status, exc.message) from None
            return pages.detail_fragment(found, _facts(service, found), who.has("approver"))

        return pages.fragment(await service.off_loop(shown))

    @app.post("/signin", include_in_schema=False)
    async def sign_in(request: Request) -> Response:
        form = await form_of(request)
        next_path = _safe_next(form.get("next", "/"))
        token = form.get("token", "").strip()
        try:
            who, digest = service.auth.by_token(token) if token else (None, "")
        except NotAuthenticated:
            who = None
        if who is None or not (who.has("approver") or who.has("operator")):
            service.log.warning("inbox sign-in refused", client=request.client)
            return pages.sign_in_page(next_path, "That token is not an approver's.", 401)
        assert who.name is not None
        cookie, page_key = sessions.make(who.name, digest)
        answer = pages.key_page(page_key, next_path)
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
        from_our_page(request, request.headers.get(KEY_HEADER))
        _, session = browser(request)
        if session is not None:
            sessions.revoke(session)
        answer = Response(status_code=204, headers=pages.SECURITY_HEADERS)
        answer.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax")
        return answer

    async def decide(request_id: str, request: Request, approved: bool) -> Response:
        deciding = from_our_page(request, request.headers.get(KEY_HEADER))
        if not deciding.has("approver"):  # as the API: an operator sees, never decides
            raise _Refused(403, f"{deciding} may not decide: it needs the approver role")
        form = await form_of(request)
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
        return Response(status_code=204, headers=pages.SECURITY_HEADERS)

    @app.post("/requests/{request_id}/approve", include_in_schema=False)
    async def approve(request_id: str, request: Request) -> Response:
        return await decide(request_id, request, True)

    @app.post("/requests/{request_id}/deny", include_in_schema=False)
    async def deny(request_id: str, request: Request) -> Response:
        return await decide(request_id, request, False)

    @app.get("/events", include_in_schema=False)
    async def events(request: Request, key: str = "") -> Response:
        who = from_our_page(request, key or None)
        name = who.name or ""
        if broadcast.count() >= _MAX_STREAMS or broadcast.count(name) >= _MAX_STREAMS_PER_IDENTITY:
            raise _Refused(503, "too many live pages: this one reloads by hand")
        cookie = request.cookies.get(COOKIE)

        def still_signed_in() -> bool:
            if cookie is None:
                return proxied(request) is not None
            return sessions.session(cookie) is not None

        return StreamingResponse(
            _stream(broadcast, name, lambda r: desk.visible(who, r), still_signed_in),
            media_type="text/event-stream",
            headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
        )


def _facts(service: Service, request: Any) -> dict[str, Any] | None:
    """What the analysis makes of a shell call's command (None for other tools). Made
    here, as the service's user sees the machine now: the decision itself was made for
    the agent's uid when the call was asked."""
    from policy.explain import facts_report
    from policy.model import ToolCall

    if not isinstance(request.args.get("command"), str):
        return None
    call = ToolCall(tool=request.tool, args=dict(request.args), cwd=request.cwd)
    try:
        return facts_report(call, service.engine.facts_context)
    except Exception as exc:  # noqa: BLE001 - a page without the facts, never a failed page
        return {"limit": f"{type(exc).__name__}: {exc}"}


async def _stream(
    broadcast: Broadcast,
    who: str,
    shows: Callable[[Any], bool],
    still_signed_in: Callable[[], bool],
) -> AsyncIterator[str]:
    entry = broadcast.subscribe(who)
    loop, queue = entry
    try:
        yield "retry: 2000\n\n"
        ends = loop.time() + _STREAM_SECONDS
        while (left := ends - loop.time()) > 0:
            try:
                item = await asyncio.wait_for(queue.get(), timeout=min(_KEEPALIVE_SECONDS, left))
            except TimeoutError:
                if not still_signed_in():  # signed out, or the token changed
                    return
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
