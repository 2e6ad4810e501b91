"""The parts of the service that decide who is who and what an answer says, alone:
the service's settings, the authenticator, the client's reading of answers, and the
codec of decisions sent back to clients."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy.client.transport import ServiceClient, ServiceRefused
from policy.codec import approval_from_dict, decision_from_dict, to_dict
from policy.errors import InputError, SettingsError
from policy.model import Action, ApprovalDecision, ApprovalGate, Decision, ToolCall
from policy.server.auth import Authenticator, NotAuthenticated
from policy.service_settings import ServiceSettings, parse_server, token_digest
from policy.settings import Settings

# ------------------------------------------------------------------- settings


def service(**values: object) -> ServiceSettings:
    return ServiceSettings.model_validate(values)


def test_http_beyond_loopback_needs_saying_so() -> None:
    assert service(http="127.0.0.1:8181").http == "127.0.0.1:8181"
    assert service(http="[::1]:8181").http == "[::1]:8181"
    with pytest.raises(ValueError, match="not a loopback address"):
        service(http="0.0.0.0:8181")
    assert service(http="0.0.0.0:8181", allow_remote_http=True).allow_remote_http


def test_identities_are_checked() -> None:
    digest = token_digest("t")
    with pytest.raises(ValueError, match="64 lowercase hex"):
        service(identities=[{"name": "a", "token_sha256": "abc", "roles": ["approver"]}])
    with pytest.raises(ValueError, match="share one token"):
        service(
            identities=[
                {"name": "a", "token_sha256": digest, "roles": ["approver"]},
                {"name": "b", "token_sha256": digest, "roles": ["operator"]},
            ]
        )
    with pytest.raises(ValueError, match="roles"):
        service(identities=[{"name": "a", "roles": ["root"]}])
    with pytest.raises(ValueError, match="token_sha256"):
        service(trusted_proxy={"addresses": ["127.0.0.1"]})  # a proxy proves itself


def test_a_bad_service_setting_names_its_file_line_and_field(tmp_path: Path) -> None:
    config = tmp_path / "serve.yaml"
    config.write_text("service:\n  http: 10.0.0.1:80\n")
    with pytest.raises(SettingsError, match="service"):
        Settings(config)
    config.write_text("server: tcp://x\n")
    with pytest.raises(SettingsError, match="unix:/absolute/path or http://HOST:PORT"):
        Settings(config)


def test_server_addresses() -> None:
    assert parse_server("unix:/run/hookpolicy/policy.sock") == (
        "unix",
        "/run/hookpolicy/policy.sock",
    )
    assert parse_server("http://127.0.0.1:8181") == ("http", "127.0.0.1:8181")
    for bad in ("unix:relative.sock", "https://x:1", "127.0.0.1:8181", "http://host"):
        with pytest.raises(ValueError):
            parse_server(bad)


# ------------------------------------------------------------------- who is calling


AUTH = Authenticator(
    service(
        identities=[
            {
                "name": "alice",
                "token_sha256": token_digest("alice-token"),
                "roles": ["approver"],
                "approver_names": ["secops-alice"],
            },
            {"name": "bob", "roles": ["operator"]},
        ],
        trusted_proxy={
            "header": "X-Forwarded-User",
            "addresses": ["127.0.0.1"],
            "token_sha256": token_digest("proxy-secret"),
        },
    )
)


def test_a_token_names_its_identity_and_nothing_else_does() -> None:
    alice = AUTH.caller({"authorization": "Bearer alice-token"}, "10.1.1.1")
    assert (alice.name, alice.approver_names, alice.via) == ("alice", ("secops-alice",), "token")
    assert alice.has("approver") and not alice.has("operator")
    assert AUTH.caller({}, None).name is None  # anonymous: decisions only
    with pytest.raises(NotAuthenticated, match="matches no identity"):
        AUTH.caller({"authorization": "Bearer guessed"}, None)
    with pytest.raises(NotAuthenticated, match="Bearer <token>"):
        AUTH.caller({"authorization": "Basic YWxpY2U6eA=="}, None)


PROXY = {"x-hookpolicy-proxy-token": "proxy-secret"}


def test_the_proxy_header_counts_from_the_proxy_only() -> None:
    bob = AUTH.caller({"x-forwarded-user": "bob", **PROXY}, "127.0.0.1")
    assert (bob.name, bob.via, bob.has("operator")) == ("bob", "proxy", True)
    with pytest.raises(NotAuthenticated, match="from the trusted proxy only"):
        AUTH.caller({"x-forwarded-user": "bob", **PROXY}, "10.0.0.9")
    with pytest.raises(NotAuthenticated, match="from the trusted proxy only"):
        AUTH.caller({"x-forwarded-user": "bob", **PROXY}, None)  # the Unix socket has no proxy
    with pytest.raises(NotAuthenticated, match="does not know"):
        AUTH.caller({"x-forwarded-user": "mallory", **PROXY}, "127.0.0.1")


def test_on_loopback_the_proxy_proves_itself_with_its_secret() -> None:
    """Every local process connects from 127.0.0.1, the agent too: the address alone
    would let it name itself an approver."""
    for headers in (
        {"x-forwarded-user": "bob"},
        {"x-forwarded-user": "bob", "x-hookpolicy-proxy-token": "guess"},
    ):
        with pytest.raises(NotAuthenticated, match="X-Hookpolicy-Proxy-Token is missing or wrong"):
            AUTH.caller(headers, "127.0.0.1")


def test_an_identity_header_sent_twice_is_refused() -> None:
    from starlette.datastructures import Headers

    twice = Headers(
        raw=[
            (b"x-forwarded-user", b"bob"),
            (b"x-forwarded-user", b"alice"),
            (b"x-hookpolicy-proxy-token", b"proxy-secret"),
        ]
    )
    with pytest.raises(NotAuthenticated, match="sent 2 times"):
        AUTH.caller(twice, "127.0.0.1")


def test_without_a_proxy_the_header_means_nothing() -> None:
    plain = Authenticator(service())
    assert plain.caller({"x-forwarded-user": "bob"}, "127.0.0.1").name is None


# ------------------------------------------------------------------- answers


def serve_once(tmp_path: Path, answer: bytes) -> str:
    """A Unix socket that answers one request with `answer` (bytes as sent)."""
    path = tmp_path / "s.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)

    def run() -> None:
        conn, _ = listener.accept()
        conn.recv(65536)
        conn.sendall(answer)
        conn.close()
        listener.close()

    threading.Thread(target=run, daemon=True).start()
    return f"unix:{path}"


def test_a_well_formed_answer_is_read_whole(tmp_path: Path) -> None:
    body = b'{"action": "continue", "pad": "' + b"x" * 200_000 + b'"}'
    raw = b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    status, headers, parsed = ServiceClient(serve_once(tmp_path, raw)).request("GET", "/x")
    assert (status, headers["content-length"], parsed["action"]) == (
        200,
        str(len(body)),
        "continue",
    )


def test_a_chunked_answer_from_a_proxy_is_read(tmp_path: Path) -> None:
    raw = b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":\r\n2\r\n1}\r\n0\r\n\r\n'
    assert ServiceClient(serve_once(tmp_path, raw)).request("GET", "/x")[2] == {"a": 1}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"SSH-2.0-OpenSSH\r\n\r\n", "not HTTP"),
        (b"HTTP/1.1 200 OK\r\n\r\n{}", "no Content-Length"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", "cut its answer short"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nallow", "not JSON"),
        (b"HTTP/1.1 200 OK\r\nContent-Len", "closed the connection"),
    ],
)
def test_an_answer_that_is_not_what_the_service_sends_is_refused(
    tmp_path: Path, raw: bytes, message: str
) -> None:
    with pytest.raises(ServiceRefused, match=message):
        ServiceClient(serve_once(tmp_path, raw)).request("GET", "/x")


def test_a_status_over_299_is_an_error_naming_the_services_reason(tmp_path: Path) -> None:
    body = b'{"error": "the bearer token matches no identity"}'
    raw = b"HTTP/1.1 401 Unauthorized\r\nContent-Length: %d\r\n\r\n" % len(body) + body
    with pytest.raises(ServiceRefused, match="401: the bearer token matches no identity") as e:
        ServiceClient(serve_once(tmp_path, raw)).call("GET", "/x")
    assert e.value.status == 401


# ------------------------------------------------------------------- the codec


def test_a_decision_survives_the_trip_to_a_client() -> None:
    gate = ApprovalGate(
        source="rel/deploys",
        pack="rel",
        approvers=("secops-*",),
        timeout=600.0,
        grants=("once", "session"),
    )
    decision = Decision(
        Action.MODIFY,
        "rewritten",
        call=ToolCall(tool="Bash", args={"command": "ls"}),
        rule_ids=("rel/deploys",),
        needs_approval=True,
        gates=(gate,),
        decision_id="abc",
    )
    assert decision_from_dict(to_dict(decision)) == decision
    answer = ApprovalDecision(False, "denied", hook="approval", failure="timeout", waited_ms=3.5)
    assert approval_from_dict(to_dict(answer)) == answer


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"reason": "x"}, "missing required field 'action'"),
        ({"action": "explode"}, "not an action"),
        ({"action": "continue", "extra": 1}, "decision.extra: unknown field"),
        ({"action": "continue", "gates": [{"pack": "p"}]}, "missing required field 'source'"),
        ({"action": "continue", "allowed": "yes"}, "expected a boolean"),
    ],
)
def test_a_decision_a_client_cannot_trust_is_an_error(data: object, message: str) -> None:
    with pytest.raises(InputError, match=message):
        decision_from_dict(data)


def test_the_example_service_settings_load() -> None:
    root = Path(__file__).resolve().parent.parent / "examples" / "service"
    served = Settings(root / "serve.yaml")
    assert served.service is not None and served.service.max_requests == 50000
    assert served.service.deciders == 1  # (its stores are on disk, its log a file)
    assert {i.name for i in served.service.identities} == {"alice", "ops"}
    assert str(served.service.approver_socket) == "/run/hookpolicy/approvers.sock"
    hook = Settings(root / "hook.yaml")
    assert (hook.server, hook.server_owner) == ("unix:/run/hookpolicy/policy.sock", "hookpolicy")


def test_policy_token_prints_a_token_and_the_line_that_admits_only_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    import yaml

    from policy.cli import main
    from policy.service_settings import Identity

    assert main(["token", "alice", "--role", "approver", "--approver-name", "secops-alice"]) == 0
    out, err = capsys.readouterr()
    token = out.strip()
    line = err.splitlines()[-1].strip().removeprefix("- ")
    identity = Identity.model_validate(yaml.safe_load(line))
    assert identity.token_sha256 == token_digest(token) and token not in err
    assert (identity.roles, identity.approver_names) == (["approver"], ["secops-alice"])


# --------------------------------------------------------------- what a person reads


@pytest.mark.parametrize(
    "char",
    [
        "\x1b", "\x07", "\x9b", "\u202e", "\u2066", "\u2069", "\u200b", "\u200f", "\u2060",
        "\ufeff", "\u061c", "\u180e", "\u00ad", "\U000e0041", "\u034f", "\u115f", "\u1160",
        "\u3164", "\uffa0", "\u17b4", "\u2800", "\u0336", "\ufe0f", "\u00a0", "\u2028",
        "\U0001d165", "\u302e", "\u1b44",
    ],
)
def test_every_character_that_hides_or_drives_is_shown_as_an_escape(char: str) -> None:
    from policy._visible import visible, visible_json

    shown = visible(f"ls {char}x")
    assert char not in shown and shown.startswith("ls \\") and shown.endswith("x")
    as_json = visible_json(orjson.dumps({"command": f"ls {char}x"}).decode())
    assert char not in as_json
    assert orjson.loads(as_json) == {"command": f"ls {char}x"}  # reads back the same


def test_ordinary_text_is_left_as_it_is() -> None:
    from policy._visible import visible

    for text in ("git commit -m 'fix'", "café", "日本語のファイル", "naïve — ok", "Ω ≤ ∞"):
        assert visible(text) == text
    assert visible("\U000e0041") == "\\U000e0041"  # one escape, not \ue004 and a 1


def test_the_console_log_escapes_what_a_caller_chose() -> None:
    from policy.server.logs import _visible_values

    event = _visible_values(
        None, "info", {"event": "request", "path": "/\x1b]0;PWNED\x07", "client": ("\u202e", 1)}
    )
    assert event["path"] == "/\\x1b]0;PWNED\\x07"
    assert "\u202e" not in event["client"]


# --------------------------------------------------------------- connections and browsers


def test_connection_caps_refuse_past_each_one_and_name_it() -> None:
    from policy.server.peer import ConnectionLimits, _peer_key

    limits = ConnectionLimits(total=4, tcp=2, per_tcp_peer=1, per_uid=2)
    loopback = ("all", "tcp", f"tcp:{_peer_key('127.0.0.1')}")
    assert limits.take(loopback) is None
    other_loopback = ("all", "tcp", f"tcp:{_peer_key('127.0.0.5')}")
    assert limits.take(other_loopback) == "TCP peers on loopback hold 1 connections already"
    mapped = ("all", "tcp", f"tcp:{_peer_key('::ffff:127.0.0.9')}")  # a dual-stack listener
    assert limits.take(mapped) == "TCP peers on loopback hold 1 connections already"
    assert limits.take(("all", "tcp", "tcp:10.0.0.9")) is None
    assert limits.take(("all", "tcp", "tcp:10.0.0.8")) == (
        "TCP callers together hold 2 connections already"
    )
    # The Unix sockets keep the rest for themselves, per uid.
    assert limits.take(("all", "uid:1001")) is None
    assert limits.take(("all", "uid:1001")) is None
    assert limits.take(("all", "uid:1002")) == "all callers together hold 4 connections already"
    limits.give_back(loopback)
    assert limits.take(("all", "uid:1001")) == "Unix-socket uid 1001 hold 2 connections already"
    assert limits.take(("all", "uid:1002")) is None


def test_the_browser_guard_answers_only_for_its_own_names() -> None:
    from policy.server.guard import BrowserGuard

    guard = BrowserGuard(["hookpolicy.internal"], ["https://inbox.example"])
    scope = {"path": "/v1/decide/before_tool", "method": "POST", "server": ("127.0.0.1", 8181)}
    json_type = b"application/json"

    def refused(host: bytes | None, origin: bytes | None = None, kind: bytes | None = json_type):
        return guard.refusal(scope, host, origin, kind, over_tcp=True)

    assert refused(b"127.0.0.1:8181") is None
    # localhost may be another server (::1, same port): only when the operator says so
    assert refused(b"LOCALHOST:8181")[0] == 421
    assert BrowserGuard(["localhost"], []).refusal(
        scope, b"localhost:8181", None, json_type, over_tcp=True
    ) is None
    assert refused(b"hookpolicy.internal") is None
    assert refused(b"hookpolicy.internal:8181", b"https://inbox.example") is None
    assert refused(b"127.0.0.1:8181", b"http://127.0.0.1:8181") is None
    assert refused(b"127.0.0.1:8181", kind=b"text/plain")[0] == 415
    assert refused(b"127.0.0.1:8181", kind=None)[0] == 415
    assert refused(b"attacker.example:8181")[0] == 421
    assert refused(None)[0] == 421
    assert refused(b"127.0.0.1:8181", b"http://127.0.0.1:8181.evil")[0] == 403
    unknown = {"path": "/v1/packs", "method": "GET"}  # a TCP listener we cannot name
    assert guard.refusal(unknown, b"127.0.0.1:8181", None, None, over_tcp=True)[0] == 421
    # The Unix socket is out of a browser's reach: only the JSON rule applies there.
    assert guard.refusal(scope, b"anything", b"https://x", json_type, over_tcp=False) is None


def test_the_memory_cap_stops_the_service_for_its_supervisor() -> None:
    """cel-expr-python keeps what each decision hands it; past `max_memory_mb` the
    service stops as it does at `max_requests`, for systemd to start it again."""
    import asyncio

    import uvicorn

    from policy.server.run import _Server

    class Quiet:
        def warning(self, *_args: object, **_fields: object) -> None:
            return None

    async def ticks(cap: int | None) -> bool:
        server = _Server(uvicorn.Config(app=lambda *_: None), None, Quiet(), cap)
        return await server.on_tick(10)

    assert asyncio.run(ticks(1)) is True  # 1 MiB: this process is far past it
    assert asyncio.run(ticks(1 << 20)) is False  # 1 TiB
    assert asyncio.run(ticks(None)) is False


# ------------------------------------------------ a decision before the router


def _asgi(app: Any, method: str, path: str, body: bytes = b"{}") -> tuple[int, Any]:
    """One request through an ASGI app, in process: (status, the JSON answer)."""
    import asyncio

    sent: list[dict[str, Any]] = []
    scope = {
        "type": "http",
        "method": method,
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"content-type", b"application/json")],
        "client": ("127.0.0.1", 5),
        "server": ("127.0.0.1", 8181),
        "scheme": "http",
        "http_version": "1.1",
        "root_path": "",
    }

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(app(scope, receive, send))
    status = next(m["status"] for m in sent if m["type"] == "http.response.start")
    answer = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return status, orjson.loads(answer)


def test_a_decision_answered_before_the_router_fails_as_the_app_would() -> None:
    # `policy.server.app._DecideDirect`: the route's own handler, its errors answered by
    # the app's own exception handlers; what it does not answer goes on to the router.
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse, Response

    from policy.server.app import ApiError, _DecideDirect

    failures: list[Exception] = []

    async def answer(_request: Any, point: str) -> Response:
        if point == "after_tool":
            raise ApiError(503, "no deciding process answered")
        if point == "before_llm":
            raise RuntimeError("a bug")
        return JSONResponse({"decided": point})

    inner = FastAPI()

    @inner.exception_handler(ApiError)
    async def api_error(_request: Any, exc: ApiError) -> JSONResponse:
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    @inner.exception_handler(Exception)
    async def failed(_request: Any, exc: Exception) -> JSONResponse:
        failures.append(exc)
        return JSONResponse({"error": f"the service failed: {exc}"}, status_code=500)

    @inner.get("/elsewhere")
    async def elsewhere() -> dict[str, str]:
        return {"routed": "yes"}

    direct = _DecideDirect(inner, answer=answer, handlers=inner.exception_handlers)
    assert _asgi(direct, "POST", "/v1/decide/before_tool") == (200, {"decided": "before_tool"})
    assert _asgi(direct, "POST", "/v1/decide/after_tool") == (
        503,
        {"error": "no deciding process answered"},
    )
    assert _asgi(direct, "POST", "/v1/decide/before_llm") == (
        500,
        {"error": "the service failed: a bug"},
    )
    assert [str(f) for f in failures] == ["a bug"]  # (the app's handler logs it)
    assert _asgi(direct, "GET", "/elsewhere") == (200, {"routed": "yes"})
    # not a point, or not a POST: the router's answer (FastAPI's 404/405 here)
    assert _asgi(direct, "POST", "/v1/decide/approve_tool")[0] == 404
    assert _asgi(direct, "GET", "/v1/decide/before_tool")[0] == 404
