"""The HTTP API of `policy serve` (FastAPI), versioned under `/v1`.

One engine, loaded once, decides for every client; the state it counts (rate limits,
contract usage) and the approvals it waits on live in it. What each endpoint lets a
caller do follows `policy.server.auth`: decisions for anybody who reaches the service,
approvals for the approvers a request names, contracts for operators.

Errors are JSON `{"error": "..."}` with a status a client can act on: 400 for input
it sent (naming the field), 401/403 for who it is, 404/409 for approvals, 413 for a body
over `max_body_bytes`, 500 when the engine failed — which every thin client turns into
a refusal of the call (fail closed).
"""

import asyncio
import contextlib
import dataclasses
import functools
import inspect
import itertools
import os
import re
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, MutableMapping
from typing import TYPE_CHECKING, Annotated, Any, Literal
from urllib.parse import unquote

import anyio
import orjson
import structlog
from fastapi import Depends, FastAPI, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from policy._lazy_dataclass import dataclass
from policy._version import __version__
from policy.builtins.approval import unless_hung_up
from policy.codec import decision_from_dict, from_dict, to_dict
from policy.errors import InputError, PolicyError
from policy.facts import Caller as FactsCaller
from policy.facts import current_caller, deciding_for
from policy.hosts.claude.dialect import DIALECTS
from policy.model import POINTS, HookPoint, ToolCall
from policy.server.asker import ACCOUNTS, ANONYMOUS_SENDER, Asker, SenderRefused, asker_of
from policy.server.auth import Authenticator, Caller, NotAuthenticated
from policy.server.bodies import (
    as_sent_by,
    decide_body,
    host_event_of,
    json_object,
    parsed,
)
from policy.server.deciders import Answer, DeciderFailed, DeciderPool
from policy.server.guard import BrowserGuard
from policy.server.inflight import BodyBytes
from policy.server.peer import caller_key, over_unix_socket
from policy.server.policies import PolicyRouter
from policy.server.reload import PackReloader

# No `from __future__ import annotations` here: FastAPI reads the endpoints'
# annotations (`Annotated[Caller, Depends(check)]`, with `check` a local) at definition.

__all__ = ["Service", "create_app"]

#: The points `/v1/decide/{point}` answers (policy.model.POINTS): all but approve_tool,
#: which has an endpoint of its own (it may wait for a person).
DECIDE_POINTS = tuple(str(point) for point in POINTS if point != HookPoint.APPROVE_TOOL)
if TYPE_CHECKING:
    from policy.server.metrics import Metrics

    Point = str
    Host = str
else:
    Point = Literal[DECIDE_POINTS]  # FastAPI validates the path and lists them in OpenAPI
    #: The hosts whose command-hook payloads `/v1/hosts/{host}/event` reads.
    Host = Literal[tuple(DIALECTS)]
ApprovalMode = Literal["auto", "ask", "wait", "defer"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]



def _decide_body(point: str) -> str:
    """What `/v1/decide/{point}` reads (policy.codec.parts_from_json), for OpenAPI."""
    parts = POINTS[point].parts
    if point == HookPoint.EVENT:
        return f"{point}: {{kind, payload}}"
    return f"{point}: a {parts[0]}" if len(parts) == 1 else f"{point}: {{{', '.join(parts)}}}"


_DECIDE_BODY = "; ".join(map(_decide_body, DECIDE_POINTS)) + "."
_APPROVE_BODY = (
    "{call, timeout? (seconds), defer?, required?}: who must approve is the packs' answer "
    "for the call, asked again here."
)
_REQUEST_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}")
#: Request ids: unique within this process by the counter, across processes by the
#: random prefix (one `os.urandom` a start, not one a request: a uuid4 cost 70 µs here).
_ID_PREFIX = os.urandom(6).hex()
_id_counter = itertools.count(1)


def _new_request_id() -> str:
    return f"{_ID_PREFIX}{next(_id_counter):012x}"
#: Threads for requests that may wait for a person (approve_tool, host events with
#: approval=wait). The engine refuses a wait past the caller's cap
#: (`service.max_waits_per_caller`) or past 256 in all, at once; twice that many threads
#: leave room for the calls in `wait` mode that need no approval, so none queues here.
_WAITING_THREADS = 512
#: Threads deciding at once (the GIL runs one at a time; more only queue). Every
#: decision runs on one of these, never on the event loop: a decision may read a
#: SQLite state file another process holds locked (up to its 5 s busy timeout), and
#: the loop must keep answering everybody else meanwhile.
_DECIDING_THREADS = 8
#: Threads for approval-store and contract reads and writes (the approvers' endpoints).
_STORE_THREADS = 4


class JSONBytes(Response):
    """A JSON response rendered by orjson (what the decision log uses too)."""

    media_type = "application/json"

    def render(self, content: Any) -> bytes:
        return orjson.dumps(content)


class ApiError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Shares:
    """Each caller's share of the deciding threads: a principal decides at most
    `per_caller` calls at once (anonymous callers together at most `anonymous`), so one
    caller flooding the service with costly calls waits behind its own calls, while the
    other callers' calls find threads free."""

    def __init__(self, per_caller: int, anonymous: int) -> None:
        self._caps = (per_caller, anonymous)
        self._limiters: dict[str, anyio.CapacityLimiter] = {}

    @contextlib.asynccontextmanager
    async def of(self, principal: str) -> AsyncIterator[None]:
        limiter = self._limiters.get(principal)
        if limiter is None:
            cap = self._caps[1] if principal == ANONYMOUS_SENDER else self._caps[0]
            limiter = self._limiters[principal] = anyio.CapacityLimiter(cap)
        try:
            async with limiter:
                yield
        finally:
            # Forget an idle principal: the table stays as small as the callers at work.
            idle = limiter.borrowed_tokens == 0 and limiter.statistics().tasks_waiting == 0
            if idle and self._limiters.get(principal) is limiter:
                del self._limiters[principal]


class Service:
    """What the endpoints share: the engine, who may do what, and when it was loaded."""

    def __init__(
        self,
        engine: Any,
        settings: Any,
        approver_socket: str | None = None,
        reloader: PackReloader | None = None,
        router: PolicyRouter | None = None,
    ) -> None:
        self.engine = engine
        #: Which engine decides a call: the service's own, or a team's.
        self.router = router if router is not None else PolicyRouter(engine, [])
        self.settings = settings
        service = getattr(settings, "service", None)
        self.auth = Authenticator(service)
        self.max_body = service.max_body_bytes if service is not None else 1 << 20
        #: Seconds a request's body may take to arrive, from the request's start.
        self.body_seconds = service.body_seconds if service is not None else 30.0
        #: Bytes of request bodies held at once, in all and per caller.
        self.bodies = BodyBytes.for_bodies_of(self.max_body)
        #: Threads deciding (CPU: the analysis and the packs), threads waiting for
        #: people and threads reading the approval store, apart: waits that pile up
        #: never hold up a decision.
        self.deciding = anyio.CapacityLimiter(_DECIDING_THREADS)
        self.waiting = anyio.CapacityLimiter(_WAITING_THREADS)
        self.storing = anyio.CapacityLimiter(_STORE_THREADS)
        self.shares = _Shares(_DECIDING_THREADS // 2, _DECIDING_THREADS // 4)
        self.own_uid = os.getuid()
        #: The approvers' socket (`unix:PATH`, as bound): approvals only.
        self.approver_socket = approver_socket
        hosts = list(service.allowed_hosts) if service is not None else []
        origins = list(service.allowed_origins) if service is not None else []
        public = _origin_of(service.public_url if service is not None else None)
        if public is not None:  # the inbox's own address, behind its proxy
            origins.append(public[0])
            hosts.append(public[1])
        self.guard = BrowserGuard(hosts, origins)
        #: What to end when the service stops (the inbox's live streams).
        self.closing: list[Callable[[], None]] = []
        self.log = structlog.get_logger("policy.serve")
        #: Which packs serve, since when, and why newer ones do not (hot reload).
        self.reloader = reloader if reloader is not None else PackReloader(engine, self.log)
        self._metrics: Metrics | None = None
        #: The deciding processes (`service.deciders`), when there are any.
        self.deciders: DeciderPool | None = None

    @property
    def metrics(self) -> "Metrics":
        """`/metrics`' registry, made at the first scrape (prometheus-client's import)."""
        if self._metrics is None:
            from policy.server.metrics import Metrics

            self._metrics = Metrics(self.engine, self.reloader, self.log, self.router.engines)
        return self._metrics

    async def off_loop(self, work: Callable[..., Any], *args: Any) -> Any:
        """`work(*args)` on a store thread: a store (SQLite with a busy writer, Redis
        that does not answer) may block for seconds, and the loop must not."""
        return await anyio.to_thread.run_sync(functools.partial(work, *args), limiter=self.storing)


def _origin_of(url: str | None) -> tuple[str, str] | None:
    """(origin, Host) of `service.public_url`, or None."""
    if not url:
        return None
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    return f"{parts.scheme}://{parts.netloc}".lower(), parts.netloc.lower()


# ------------------------------------------------------------------ middleware


class _RequestLog:
    """Request id, body-size limit and one operational log line per request.

    A plain ASGI middleware: Starlette's BaseHTTPMiddleware costs ≈ 100 µs a request."""

    def __init__(self, app: ASGIApp, service: Service) -> None:
        self.app = app
        self.service = service
        self.guard = service.guard

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = ""
        length = None
        chunked = False
        host = origin = content_type = None
        twice = b""
        for name, value in scope["headers"]:
            if name == b"x-request-id":
                given = value.decode("latin-1")
            elif name == b"content-length":
                length = value
            elif name == b"host":
                twice = twice or (name if host is not None else b"")
                host = value
            elif name == b"origin":
                twice = twice or (name if origin is not None else b"")
                origin = value
            elif name == b"content-type":
                twice = twice or (name if content_type is not None else b"")
                content_type = value
            elif name == b"transfer-encoding":
                chunked = True
        request_id = given if _REQUEST_ID.fullmatch(given) else _new_request_id()
        structlog.contextvars.bind_contextvars(request_id=request_id)
        scope.setdefault("state", {})["request_id"] = request_id
        status = 500
        started = time.perf_counter()
        #: Whether the body's last chunk came (or none was sent): an answer sent before
        #: it (a refusal, a timeout, a path that reads no body) closes the connection,
        #: as the rest of the body would be read as the next request.
        arrived = not (chunked or (length is not None and length not in (b"", b"0")))

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                message["headers"] = [
                    *message.get("headers", []),
                    (b"x-request-id", request_id.encode()),
                    *(() if arrived else ((b"connection", b"close"),)),
                ]
            await send(message)

        limit = self.service.max_body
        bodies = self.service.bodies
        client = scope.get("client")
        caller = caller_key(client, scope.get("server"))
        received = 0
        over_tcp = not over_unix_socket(scope.get("server"))
        try:
            refused = (
                (400, f"{twice.decode()} is sent twice")
                if twice  # which copy counts is not for the caller to choose
                else self.guard.refusal(scope, host, origin, content_type, over_tcp)
            )
            if refused is not None:
                self.service.log.warning(
                    "request refused", status=refused[0], reason=refused[1], client=client
                )
                await _plain_error(send_with_id, *refused)
                return
            if self.service.approver_socket is not None and not _approver_path(
                scope.get("path", "")
            ):
                server = scope.get("server")
                if server and server[0] == self.service.approver_socket:
                    await _plain_error(
                        send_with_id, 404, "the approvers' socket serves approvals only"
                    )
                    return
            if length is not None and not length.isdigit():
                await _plain_error(send_with_id, 400, "Content-Length is not a number")
                return
            if length is not None and int(length) > limit:
                await _plain_error(send_with_id, 413, f"the body is over {limit} bytes")
                return

            body_seconds = self.service.body_seconds
            deadline = asyncio.get_running_loop().time() + body_seconds

            async def limited() -> Message:
                nonlocal received, arrived
                if arrived:  # (after it receive() waits unbounded: a hang-up, watched
                    return await receive()  # while a call waits for its approvers)
                try:
                    # A body trickled in holds a connection and its bytes (`bodies`)
                    # for as long as it trickles: it has `body_seconds` to arrive.
                    async with asyncio.timeout_at(deadline):
                        message = await receive()
                except TimeoutError:
                    self.service.log.warning(
                        "request refused", status=408, reason="body too slow", client=client
                    )
                    raise ApiError(
                        408, f"the request body did not arrive within {body_seconds:g} s"
                    ) from None
                arrived = not message.get("more_body", False)
                size = len(message.get("body", b""))
                if received + size > limit:
                    raise ApiError(413, f"the body is over {limit} bytes")
                full = bodies.charge(caller, size)
                if full is not None:
                    self.service.log.warning(
                        "request refused", status=503, reason=full, client=client
                    )
                    raise ApiError(503, f"policy serve is at capacity: {full}; try again")
                received += size
                return message

            try:
                await self.app(scope, limited, send_with_id)
            except ApiError as exc:
                await _plain_error(send_with_id, exc.status, exc.message)
        finally:
            bodies.release(caller, received)
            self.service.log.info(
                "request",
                method=scope.get("method"),
                path=scope.get("path"),
                status=status,
                ms=round((time.perf_counter() - started) * 1000, 3),
            )
            structlog.contextvars.unbind_contextvars("request_id")


def _approver_path(path: str) -> bool:
    """What the approvers' socket serves: approvals, health, the packs enforced."""
    return path in ("/healthz", "/readyz", "/v1/packs") or path.startswith("/v1/approvals")


async def _plain_error(send: Send, status: int, message: str) -> None:
    body = orjson.dumps({"error": message})
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


# ------------------------------------------------------------------ the app


def create_app(
    engine: Any,
    settings: Any,
    *,
    approver_socket: str | None = None,
    reloader: PackReloader | None = None,
    router: PolicyRouter | None = None,
) -> FastAPI:
    """The API over `engine` (loaded from `settings`, whose `service` says who may
    approve and attach contracts); `approver_socket` (`unix:PATH`) is the listener that
    serves approvals only; `reloader` takes new revisions of the packs (one of its own
    when not given)."""
    service = Service(engine, settings, approver_socket, reloader, router)
    app = FastAPI(
        title="hookpolicy",
        version=__version__,
        description="Decisions, approvals and contracts of one hookpolicy engine.",
        default_response_class=JSONBytes,
        # No /docs or /redoc: they load scripts from a CDN onto the inbox's origin,
        # where the approvers' page key lives. /openapi.json stays.
        docs_url=None,
        redoc_url=None,
    )
    app.state.service = service

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONBytes:
        return JSONBytes({"error": exc.message}, status_code=exc.status)

    @app.exception_handler(NotAuthenticated)
    async def _not_authenticated(_request: Request, exc: NotAuthenticated) -> JSONBytes:
        return JSONBytes(
            {"error": str(exc)}, status_code=401, headers={"WWW-Authenticate": "Bearer"}
        )

    @app.exception_handler(InputError)
    async def _bad_input(_request: Request, exc: InputError) -> JSONBytes:
        return JSONBytes({"error": str(exc)}, status_code=400)

    @app.exception_handler(SenderRefused)
    async def _sender_refused(_request: Request, exc: SenderRefused) -> JSONBytes:
        return JSONBytes({"error": str(exc)}, status_code=403)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(_request: Request, exc: StarletteHTTPException) -> JSONBytes:
        # 404, 405 and the like in the one error shape every client reads.
        return JSONBytes({"error": str(exc.detail)}, status_code=exc.status_code)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONBytes:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in error.get('loc', ()))}: {error.get('msg', '')}"
            for error in exc.errors()
        )
        return JSONBytes({"error": problems or "invalid request"}, status_code=422)

    @app.exception_handler(Exception)
    async def _failed(_request: Request, exc: Exception) -> JSONBytes:
        service.log.error("request failed", error=f"{type(exc).__name__}: {exc}", exc_info=exc)
        return JSONBytes(
            {"error": f"the service failed: {type(exc).__name__}: {exc}"}, status_code=500
        )

    def caller(request: Request) -> Caller:
        client = request.client
        peer = client.host if client is not None and client.host else None
        return service.auth.caller(request.headers, peer)

    def needs(*roles: str) -> Callable[[Request], Caller]:
        def check(request: Request) -> Caller:
            who = caller(request)
            if not any(who.has(role) for role in roles):
                raise ApiError(
                    403 if who.name else 401,
                    f"{who} may not do this: it needs the {' or '.join(roles)} role",
                )
            return who

        return check

    _routes_health(app, service, needs)
    _routes_decide(app, service, caller)
    desk = _routes_approvals(app, service, needs)
    _routes_contracts(app, service, needs)
    from policy.server.inbox import add_inbox

    add_inbox(app, service, desk)
    app.add_middleware(_RequestLog, service=service)
    return app


#: How often a wait for approvers checks that its client is still there (seconds).
_HANGUP_POLL = 0.25


async def _while_connected(
    request: Request, service: Service, work: Callable[[], Any], call: ToolCall, engine: Any
) -> Any:
    """Run `work` (which may wait for approvers) in a thread; if the client hangs up
    meanwhile — a hook process killed at its host's timeout, a host that closed the
    pipe — the requests filed for `call` are expired at once and the denial logged: the
    client refused the call already, so no approver may release it later. A client
    already gone files nothing. `engine` is the one deciding the call (a team's, under
    `service.policies`): its approval stage holds the call's requests. (The engine
    caps the waits per caller: past the cap a wait is refused at once, never queued.)"""
    if await request.is_disconnected():
        service.log.info("client hung up before waiting", tool=call.tool)
        raise ApiError(499, "the client hung up before its call was asked about")
    hung_up = threading.Event()
    # In a copy of this context (anyio's to_thread copies it): whom it decides for, and
    # that nothing is filed for it once its client is gone.
    with unless_hung_up(hung_up):
        task = asyncio.ensure_future(anyio.to_thread.run_sync(work, limiter=service.waiting))
    while True:
        done, _ = await asyncio.wait({task}, timeout=_HANGUP_POLL)
        if done:
            return task.result()
        if await request.is_disconnected():
            hung_up.set()  # (before the abandon looks: see ApprovalGates._file)
            expired = await anyio.to_thread.run_sync(
                engine.abandon_approvals,
                "the client hung up while waiting",
                call,
                limiter=service.storing,
            )
            service.log.info("client hung up", tool=call.tool, expired=expired)
            return await task


def _body(description: str, *, required: bool = True) -> dict[str, Any]:
    """The OpenAPI request body of an endpoint that reads its JSON itself."""
    return {
        "requestBody": {
            "required": required,
            "description": description,
            "content": {"application/json": {"schema": {"type": "object"}}},
        }
    }


def _routes_health(
    app: FastAPI, service: Service, needs: Callable[..., Callable[[Request], Caller]]
) -> None:
    reloader = service.reloader

    @app.get("/healthz", tags=["health"])
    async def healthz() -> dict[str, str]:
        """The process answers."""
        return {"status": "ok"}

    @app.get("/metrics", tags=["health"])
    async def metrics() -> Response:
        """The service in Prometheus' text format (open, like /healthz)."""
        if service.deciders is not None:  # (their counts, merged as they are read)
            service.deciders.counted()
        body, content_type = await service.off_loop(lambda: service.metrics.render())
        return Response(body, media_type=content_type)

    @app.get("/readyz", tags=["health"])
    async def readyz() -> JSONBytes:
        """The engine enforces a policy (packs or builtins loaded)."""
        reason = service.engine.no_policy
        if reason:
            return JSONBytes({"status": "no policy", "error": reason}, status_code=503)
        count = len(service.engine.packs)
        if reloader.error:
            # Still enforcing a policy — the last good set — so still in the balancer.
            return JSONBytes(
                {"status": "degraded", "error": reloader.error, "packs": count,
                 "failed_at": reloader.failed_at}
            )
        return JSONBytes({"status": "ready", "packs": count})

    @app.get("/v1/packs", tags=["packs"])
    async def packs() -> dict[str, Any]:
        """The rule packs this service enforces (name, revision, digest, load time);
        with `error`, why the packs on disk do not serve (the last good set does)."""
        listed = _listed(service.engine.packs, reloader.loaded_at)
        policies = []
        for team in service.router.teams:
            policy = team.settings
            policies.append(
                {
                    "name": team.name,
                    "uids": list(policy.uids),
                    "groups": list(policy.groups),
                    "projects": list(policy.projects),
                    "packs": _listed(team.engine.packs, reloader.loaded_at),
                }
            )
        shown: dict[str, Any] = {
            "packs": listed,
            "loaded_at": reloader.loaded_at,
            "degraded": reloader.degraded,
            "reloads": reloader.counts.reloads,
            "reload_failures": reloader.counts.failures,
        }
        if policies:
            shown["policies"] = policies
        if reloader.error:
            shown["error"] = reloader.error
            shown["failed_at"] = reloader.failed_at
        return shown

    @app.post("/v1/packs/reload", tags=["packs"])
    async def reload(_who: Annotated[Caller, Depends(needs("operator"))]) -> JSONBytes:
        """Compile the packs again and serve them (an operator); on an error the last
        good set keeps serving and the answer (422) says why."""
        done = await anyio.to_thread.run_sync(reloader.reload, "api")
        return JSONBytes(done.as_json(), status_code=422 if done.error else 200)


def _listed(packs: Any, loaded_at: str) -> list[dict[str, Any]]:
    """An engine's packs as `/v1/packs` shows them."""
    listed = []
    for name, label in sorted(packs.items()):
        revision, _, digest = label.rpartition("@")
        listed.append(
            {"name": name, "revision": revision or None, "digest": digest, "loaded_at": loaded_at}
        )
    return listed


def _caller_of(request: Request, service: Service, asker: Asker) -> FactsCaller:
    """Whom this decision is for (`asker`: who the kernel or a token says asks). Over
    the Unix socket the kernel names the hook's uid: `~` is that user's home and its
    approval requests are its own. The hook names the project it was started in
    (`X-Hookpolicy-Project`, used when the service has no `workspace` of its own) and its
    settings file (`X-Hookpolicy-Protect`): both only shape the decision of the caller's
    own call."""
    uid = asker.uid
    home = None
    if uid is not None and uid != service.own_uid:
        # no account: `~` matches nothing of ours either
        home = ACCOUNTS.lookup(uid)[1] or "/nonexistent"
    project = _header_path(request, "x-hookpolicy-project")
    protected = tuple(
        path
        for value in request.headers.getlist("x-hookpolicy-protect")
        if (path := unquote(value)).startswith("/")
    )
    return asker.facts(home, project, protected)


def _header_path(request: Request, name: str) -> str | None:
    values = request.headers.getlist(name)
    if len(values) != 1:
        return None
    path = unquote(values[0])
    return path if path.startswith("/") else None


def _routes_decide(app: FastAPI, service: Service, caller: Callable[[Request], Caller]) -> None:
    route = service.router.engine_for

    def asker(request: Request) -> Asker:
        """Who asks: a token's identity, the socket peer's uid, or anonymous."""
        return asker_of(caller(request), request.client, request.scope.get("server"))

    async def decided(who: Asker, facts: FactsCaller, work: Callable[..., Any], *args: Any) -> Any:
        """`work(*args)` for `who` (`facts`: whom the engine decides for), on one of the
        deciding threads, within `who`'s share of them: the event loop keeps answering
        everybody else however long the analysis or a locked state file takes, and no
        caller holds every thread."""
        with deciding_for(facts):
            async with service.shares.of(who.principal):
                # anyio runs the thread in a copy of this context: deciding_for holds there.
                return await anyio.to_thread.run_sync(
                    functools.partial(work, *args), limiter=service.deciding
                )

    @app.post("/v1/decide/{point}", tags=["decisions"], openapi_extra=_body(_DECIDE_BODY))
    async def decide(
        request: Request,
        point: Annotated[Point, Path(description="The hook point.")],
    ) -> Response:
        """The chain's decision at `point` (`X-Decision-Id`: its decision-log line)."""
        return await answer(request, point)

    async def answer(request: Request, point: str) -> Response:
        """The decision at `point` for this request (raises what the app's exception
        handlers answer: ApiError, NotAuthenticated, InputError, ...)."""
        who = asker(request)  # a claimed identity that does not hold is refused
        raw = await request.body()
        # Parsed, decided and rendered off the event loop — in a deciding process
        # (`service.deciders`) or on a deciding thread: a body may be 64 MiB of tool
        # output, and the answer echoes the call.
        facts = _caller_of(request, service, who)
        pool = service.deciders
        # (a contract attached through the API lives in this process only, unless
        # Redis keeps it: while one does, the threads decide every call)
        if pool is not None and not service.engine.contracts.held_here:
            try:
                answer = await pool.decide(facts, who, point, raw)
            except DeciderFailed as exc:
                raise ApiError(503, str(exc)) from None
            if answer is not None:
                return _from_decider(service, answer)
        rendered = await decided(who, facts, decide_raw, who, point, raw)
        if rendered is None:
            return JSONBytes({"accepted": True}, status_code=202)
        body, decision_id = rendered
        return Response(body, media_type="application/json", headers={"X-Decision-Id": decision_id})

    # (the route stays, for OpenAPI and as the router's answer to what this passes on)
    app.add_middleware(_DecideDirect, answer=answer, handlers=app.exception_handlers)

    def decide_raw(who: Asker, point: str, raw: bytes) -> tuple[bytes, str] | None:
        """The rendered Decision for a `/v1/decide/{point}` body (None: an event, told)."""
        return decide_body(route(current_caller()), who, point, raw)

    def approval_asked(who: Asker, raw: bytes) -> tuple[ToolCall, Callable[[], Any], bool]:
        """The call an `/v1/approve_tool` body asks about, the work that asks, and
        whether it is deferred (answers at once) rather than a wait."""
        body = json_object(parsed(raw), "approve_tool")
        extra = set(body) - {"call", "timeout", "defer", "required"}
        if extra:
            raise InputError(
                f"approve_tool.{sorted(extra)[0]}: unknown field (call, timeout, defer, "
                "required; the gates are the packs' own)"
            )
        call = as_sent_by(who, from_dict(ToolCall, body.get("call"), "call"))
        timeout = body.get("timeout")
        if timeout is not None and (
            isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0
        ):
            raise InputError("approve_tool.timeout: expected seconds (a number ≥ 0)")
        defer, required = body.get("defer", False), body.get("required", True)
        if not isinstance(defer, bool) or not isinstance(required, bool):
            raise InputError("approve_tool.defer and .required are booleans")
        ask = functools.partial(
            route(current_caller()).approve_tool,
            call,
            timeout=timeout,
            required=required,
            defer=defer,
        )
        return call, ask, defer

    @app.post("/v1/approve_tool", tags=["decisions"], openapi_extra=_body(_APPROVE_BODY))
    async def approve_tool(request: Request) -> JSONBytes:
        """Ask the approvers of a call, waiting within the caller's `timeout`. Who must
        approve comes from the packs, asked again here — never from the caller."""
        who = asker(request)
        if who.anonymous:
            raise ApiError(
                401,
                "an anonymous caller may not file approval requests: call through the Unix "
                "socket, or with a token",
            )
        raw = await request.body()
        facts = _caller_of(request, service, who)
        call, ask, defer = await decided(who, facts, approval_asked, who, raw)
        if defer:  # files its requests and answers at once: a decision, not a wait
            answer = await decided(who, facts, ask)
        else:
            # The packs judge the call within the caller's share of the deciding
            # threads; only the wait for people runs on the waiting threads.
            gates = await decided(who, facts, route(facts).gates_for, call)
            if isinstance(gates, tuple):
                ask = functools.partial(ask, gates=gates)
                with deciding_for(facts):
                    answer = await _while_connected(request, service, ask, call, route(facts))
            else:  # the packs refuse it: asked again (and logged) on a deciding thread
                answer = await decided(who, facts, ask)
        return JSONBytes(to_dict(answer), headers={"X-Decision-Id": answer.decision_id})

    @app.post(
        "/v1/hosts/{host}/event",
        tags=["hosts"],
        openapi_extra=_body("The host's hook payload, as the host sent it."),
    )
    async def host_event(
        request: Request,
        host: Annotated[Host, Path(description="Whose command-hook payload this is.")],
        approval: Annotated[ApprovalMode, Query(description="As `policy hook --approval`.")] = (
            "auto"
        ),
        budget: Annotated[float | None, Query(ge=0, description="Seconds a wait may take.")] = None,
    ) -> Response:
        """One Claude Code / Agentao hook event decided as `policy hook` decides it;
        `answer` is what the hook prints (null: no opinion)."""
        from policy.hosts.claude.decide import decide as decide_event
        from policy.hosts.claude.wire import call_of

        who = asker(request)
        raw = await request.body()

        facts = _caller_of(request, service, who)
        handed: Any = None
        pool = service.deciders
        if pool is not None and not service.engine.contracts.held_here:
            try:
                answer = await pool.event(facts, who, host, approval, budget, raw)
            except DeciderFailed as exc:
                raise ApiError(503, str(exc)) from None
            if answer is not None and not answer.handed_back:
                return _from_decider(service, answer)
            if answer is not None:  # it goes on to the approvers: that part is ours
                handed = decision_from_dict(orjson.loads(answer.body))

        def judged() -> tuple[Any, Any, bytes | None]:
            """On a deciding thread, within the caller's share: the event, parsed; its
            before_tool Decision when answering it waits for people; else the answer,
            rendered (a PostToolUse answer may carry 64 MiB of rewritten output).
            `handed`: the Decision a deciding process made of it already."""
            from policy.hosts.claude.decide import waits_for_approvers

            event = host_event_of(raw, host)
            # The hosts send no user: the kernel's (or the token's) stands in.
            event.user = who.sender("")
            decision = handed
            engine = route(facts)
            if decision is None and event.name == "PreToolUse" and approval == "wait":
                decision = engine.before_tool(call_of(event))
            if decision is not None and waits_for_approvers(decision, approval):
                return event, decision, None
            answer = decide_event(
                engine, event, approval, budget, per_event=False, decided=decision
            )
            return event, decision, _rendered(answer)

        event, decision, rendered = await decided(who, facts, judged)
        if rendered is None:  # it waits for approvers: stop waiting when the hook is gone
            engine = route(facts)
            ask = functools.partial(
                decide_event,
                engine,
                event,
                approval,
                budget,
                per_event=False,
                decided=decision,
            )
            with deciding_for(facts):
                answer = await _while_connected(request, service, ask, call_of(event), engine)
            rendered = await service.off_loop(_rendered, answer)
        return Response(rendered, media_type="application/json")


_DECIDE_PATHS = {f"/v1/decide/{point}": point for point in DECIDE_POINTS}


class _DecideDirect:
    """`POST /v1/decide/{point}` answered before the router: the route's own handler,
    its errors turned into answers by the app's own exception handlers (looked up by
    the exception's class as Starlette looks them up). Routing, the path parameter's
    validation and the dependency layers were ≈ an eighth of the event loop's time a
    decision (docs/performance.md). Any other path or method, and a point that is not
    one, goes on to the router, which answers it as ever (422, 405, 404)."""

    def __init__(
        self,
        app: ASGIApp,
        answer: Callable[[Request, str], Awaitable[Response]],
        handlers: Mapping[Any, Callable[[Request, Any], Response | Awaitable[Response]]],
    ) -> None:
        self.app = app
        self.answer = answer
        self.handlers = handlers

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        point = _DECIDE_PATHS.get(scope.get("path", "")) if scope["type"] == "http" else None
        if point is None or scope["method"] != "POST":
            await self.app(scope, receive, send)
            return
        request = Request(scope, receive, send)
        try:
            response = await self.answer(request, point)
        except Exception as exc:
            handler = next(
                (self.handlers[kind] for kind in type(exc).__mro__ if kind in self.handlers),
                None,
            )
            if handler is None:
                raise
            handled = handler(request, exc)  # (the app's are coroutines)
            response = await handled if inspect.isawaitable(handled) else handled
        await response(scope, receive, send)


def _from_decider(service: Service, answer: Answer) -> Response:
    """A deciding process's answer as the response a deciding thread's would be."""
    if answer.status == 200:
        headers = {"X-Decision-Id": answer.decision_id} if answer.decision_id else None
        return Response(answer.body, media_type="application/json", headers=headers)
    if answer.status == 500:
        service.log.error("request failed", error=orjson.loads(answer.body).get("error"))
    return Response(answer.body, status_code=answer.status, media_type="application/json")


def _rendered(answer: Any) -> bytes:
    """A host event's answer as the JSON body the thin hook reads."""
    return orjson.dumps({"answer": answer})


class _ApproversReach:
    """Tells the approval stage, for each request, where approvers reach what it files,
    so the command a deferral names works as printed: the approvers' socket when the
    service has one, else the Unix socket the request came in on (the settings'
    `service.socket` for a request over TCP). A plain ASGI middleware: one context
    variable set per request."""

    def __init__(self, app: ASGIApp, approver_socket: str | None, socket: str) -> None:
        self.app = app
        self.approver_socket = approver_socket
        self.socket = socket

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        from policy.builtins.approval import approvers_reach

        address = self.approver_socket
        if address is None:
            server = scope.get("server")
            listener = str(server[0]) if server else ""
            address = listener if listener.startswith("unix:") else self.socket
        with approvers_reach(address):
            await self.app(scope, receive, send)


@dataclass(frozen=True, slots=True)
class ApprovalDesk:
    """What deciding an approval request takes, whichever page or API asks: the
    requests `who` may see (`visible`, `fetch`) and `answer`, which applies the
    approval rules (approver globs, self-approval, a decided request is final)."""

    store: Callable[[], Any]
    visible: Callable[[Caller, Any], bool]
    fetch: Callable[[Caller, str], Any]
    answer: Callable[[Caller, str, bool, bytes], dict[str, Any]]


def _routes_approvals(
    app: FastAPI, service: Service, needs: Callable[..., Callable[[Request], Caller]]
) -> ApprovalDesk:
    from policy.approvals.identity import Identity
    from policy.approvals.rules import NotAllowed, decide, withdraws
    from policy.approvals.store import AlreadyDecided, RequestNotFound, listing

    readers = needs("approver", "operator")
    approvers = needs("approver")
    configured = getattr(service.settings, "service", None)
    socket = getattr(configured, "socket", None)
    app.add_middleware(
        _ApproversReach,
        approver_socket=service.approver_socket,
        socket=f"unix:{socket}" if socket else "",
    )

    def store() -> Any:
        return service.engine.approvals

    def visible(who: Caller, request: Any) -> bool:
        if who.has("operator") or not request.approvers:
            return True
        from wcmatch import fnmatch as wfnmatch

        flags = wfnmatch.BRACE | wfnmatch.DOTMATCH
        patterns: list[str] = list(request.approvers)
        return any(wfnmatch.fnmatch(name, patterns, flags=flags) for name in who.approver_names)

    def fetch(who: Caller, request_id: str) -> Any:
        try:
            request = store().get(request_id)
        except RequestNotFound:
            raise ApiError(404, f"no approval request {request_id!r}") from None
        if not visible(who, request):
            raise ApiError(404, f"no approval request {request_id!r}")
        return request

    @app.get("/v1/approvals", tags=["approvals"])
    async def list_requests(
        who: Annotated[Caller, Depends(readers)],
        state: Literal["pending", "approved", "denied", "expired", "all"] = "pending",
    ) -> Response:
        """The requests this approver may decide (an operator: all of them)."""

        def listed() -> bytes:  # read and rendered off the loop: the list can be long
            found = listing(store(), None if state == "all" else state)
            return orjson.dumps({"requests": [r.to_dict() for r in found if visible(who, r)]})

        return Response(await service.off_loop(listed), media_type="application/json")

    @app.get("/v1/approvals/{request_id}", tags=["approvals"])
    async def show(request_id: str, who: Annotated[Caller, Depends(readers)]) -> Response:
        def shown() -> bytes:
            return orjson.dumps(fetch(who, request_id).as_shown().to_dict())

        return Response(await service.off_loop(shown), media_type="application/json")

    def answer_body(raw: bytes) -> tuple[str, str]:
        given = parsed(raw)
        body = json_object(given if given is not None else {}, "approval")
        extra = set(body) - {"reason", "grant"}
        if extra:
            raise InputError(f"approval.{sorted(extra)[0]}: unknown field (reason, grant)")
        reason, grant = body.get("reason", ""), body.get("grant", "once")
        if not isinstance(reason, str) or not isinstance(grant, str):
            raise InputError("approval.reason and .grant are strings")
        return reason, grant

    def answer(who: Caller, request_id: str, approved: bool, raw: bytes) -> dict[str, Any]:
        reason, grant = answer_body(raw)
        fetch(who, request_id)
        identity = Identity(
            user=who.name or "", names=who.approver_names, uid=who.uid, channel=who.via
        )
        try:
            decided = decide(
                store(),
                request_id,
                approved=approved,
                identity=identity,
                reason=reason,
                grant=grant,
            )
        except NotAllowed as exc:
            raise ApiError(403, str(exc)) from None
        except AlreadyDecided as exc:
            raise ApiError(409, str(exc)) from None
        service.log.info(
            "approval decided", id=request_id, approved=approved, by=str(who), grant=grant
        )
        result: dict[str, Any] = decided.to_dict()
        return result

    def asking(request: Request) -> tuple[Caller, Asker]:
        """Who asks, as the token and the kernel say (never the body): the identity,
        and the principal requests it files are recorded under."""
        client = request.client
        peer = client.host if client is not None and client.host else None
        who = service.auth.caller(request.headers, peer)
        return who, asker_of(who, client, request.scope.get("server"))

    def requester_of(asker: Asker, request_id: str) -> Identity | None:
        """The identity withdrawing `request_id`, when `asker` filed it: the principal
        recorded at filing (the socket peer's uid, or a token) is the one asking now.
        None otherwise, and for anonymous callers (who file nothing)."""
        if asker.anonymous:
            return None
        try:
            filed = store().get(request_id)
        except RequestNotFound:
            return None
        identity = Identity(
            user=asker.user,
            uid=asker.uid,
            channel="token" if asker.identity is not None else "unix socket",
            principal=asker.principal,
        )
        return identity if withdraws(filed, identity) else None

    def deny_answer(who: Caller, asker: Asker, request_id: str, raw: bytes) -> dict[str, Any]:
        requester = requester_of(asker, request_id)
        if requester is None:
            if not who.has("approver"):
                raise ApiError(
                    403 if who.name else 401,
                    f"{who} may not do this: it needs the approver role, "
                    "or to have filed the request",
                )
            return answer(who, request_id, False, raw)
        reason, _ = answer_body(raw)
        try:
            decided = decide(store(), request_id, approved=False, identity=requester, reason=reason)
        except NotAllowed as exc:
            raise ApiError(403, str(exc)) from None
        except AlreadyDecided as exc:
            raise ApiError(409, str(exc)) from None
        service.log.info("approval withdrawn", id=request_id, by=asker.principal)
        try:
            # In the decision log, like the denial it is, with who withdrew.
            service.engine.note(
                "approval.withdrawn",
                {
                    "request_id": request_id,
                    "action": "deny",
                    "tool": decided.tool,
                    "rule_ids": list(decided.rules),
                    "withdrawn_by": asker.principal,
                    "uid": asker.uid,
                    "decided_by": decided.decided_by,
                    "reason": decided.reason,
                },
            )
        except PolicyError as exc:
            service.log.error("withdrawal not logged", id=request_id, error=str(exc))  # noqa: TRY400
        result: dict[str, Any] = decided.to_dict()
        return result

    @app.post(
        "/v1/approvals/{request_id}/approve",
        tags=["approvals"],
        openapi_extra=_body("{reason?, grant?: once|session|<duration>}", required=False),
    )
    async def approve(
        request: Request, request_id: str, who: Annotated[Caller, Depends(approvers)]
    ) -> dict[str, Any]:
        """Approve a request this approver is named for (never one it filed)."""
        raw = await request.body()
        decided: dict[str, Any] = await service.off_loop(answer, who, request_id, True, raw)
        return decided

    @app.post(
        "/v1/approvals/{request_id}/deny",
        tags=["approvals"],
        openapi_extra=_body("{reason?}", required=False),
    )
    async def deny(
        request: Request,
        request_id: str,
        asked: Annotated[tuple[Caller, Asker], Depends(asking)],
    ) -> dict[str, Any]:
        """Deny a request this approver is named for, or withdraw one this caller filed
        (the same Unix-socket uid, or the same token, as when it was filed)."""
        raw = await request.body()
        who, asker = asked
        decided: dict[str, Any] = await service.off_loop(deny_answer, who, asker, request_id, raw)
        return decided

    return ApprovalDesk(store, visible, fetch, answer)


def _routes_contracts(
    app: FastAPI, service: Service, needs: Callable[..., Callable[[Request], Caller]]
) -> None:
    operator = needs("operator")
    contracts = service.engine.contracts

    @app.put(
        "/v1/contracts/{session}",
        tags=["contracts"],
        openapi_extra=_body("The contract, as under `contract_scope` in a pack."),
    )
    async def attach(
        request: Request, session: str, who: Annotated[Caller, Depends(operator)]
    ) -> dict[str, Any]:
        """Attach a contract to one session; it wins over the packs' contract for it."""
        body = json_object(await service.off_loop(parsed, await request.body()), "contract")
        try:
            contract = await service.off_loop(contracts.attach, session, body)
        except (PolicyError, ValueError, TypeError) as exc:
            raise InputError(f"contract: {exc}") from None
        service.log.info("contract attached", session=session, by=str(who))
        return {"session": session, "contract": _plain(contract)}

    @app.get("/v1/contracts/{session}", tags=["contracts"])
    async def show_contract(
        session: str, _who: Annotated[Caller, Depends(operator)]
    ) -> dict[str, Any]:
        contract = await service.off_loop(contracts.attached, session)  # (Redis, maybe)
        if contract is None:
            raise ApiError(404, f"no contract is attached to session {session!r}")
        return {"session": session, "contract": _plain(contract)}

    @app.delete("/v1/contracts/{session}", tags=["contracts"])
    async def detach(session: str, who: Annotated[Caller, Depends(operator)]) -> dict[str, Any]:
        """Detach the session's contract (the packs' contract applies again)."""
        contract = await service.off_loop(contracts.detach, session)
        if contract is None:
            raise ApiError(404, f"no contract is attached to session {session!r}")
        service.log.info("contract detached", session=session, by=str(who))
        return {"session": session, "detached": _plain(contract)}


def _plain(value: Any) -> Any:
    """A contract (a pydantic model or a dataclass) as JSON data."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        return dump(mode="json")

    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return value
