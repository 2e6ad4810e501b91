"""The approvers' inbox over HTTP (issue 25): signing in with a token, the session
cookie and the page key, what a copy of the cookie alone can do (nothing), what a page
shows of agent-chosen text. tests/test_inbox_browser.py drives the same pages in a
real browser."""

from __future__ import annotations

import http.client
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from tests.test_service import (
    AGENT_TOKEN,
    APPROVER_TOKEN,
    OPERATOR_TOKEN,
    Running,
    start_service,
    stop,
)


class Browser:
    """Just enough of a browser: one cookie jar, the page key the sign-in page hands
    its script, requests sent as the inbox's script sends them (with this origin)."""

    def __init__(self, running: Running) -> None:
        self.host, port = running.http.removeprefix("http://").rsplit(":", 1)
        self.port = int(port)
        self.origin = running.http
        self.cookies: dict[str, str] = {}
        self.set_cookie: list[str] = []
        self.key: str | None = None

    def request(
        self,
        method: str,
        path: str,
        form: dict[str, str] | None = None,
        *,
        with_key: bool = True,
        **headers: str,
    ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = {"Host": f"{self.host}:{self.port}", **headers}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        if with_key and self.key is not None:
            sent["X-Hookpolicy-Page-Key"] = self.key
        body = None
        if form is not None or method == "POST":
            body = urlencode(form or {})
            sent["Content-Type"] = "application/x-www-form-urlencoded"
            sent.setdefault("Origin", self.origin)
        try:
            connection.request(method, path, body=body, headers=sent)
            answer = connection.getresponse()
            text = answer.read().decode()
            self.set_cookie = answer.headers.get_all("Set-Cookie") or []
            for line in self.set_cookie:
                name, _, rest = line.partition("=")
                self.cookies[name] = rest.split(";", 1)[0]
            return answer.status, dict(answer.headers), text
        finally:
            connection.close()

    def sign_in(self, token: str, next_path: str = "/") -> tuple[int, dict[str, str], str]:
        answer = self.request("POST", "/signin", {"token": token, "next": next_path})
        found = re.search(r"data-key='([^']+)'", answer[2])
        self.key = found.group(1) if found else None
        return answer


@pytest.fixture(scope="module")
def running(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Running]:
    """One service for the module: each test files its own requests and signs in on
    its own (a test that needs none pending takes `fresh`)."""
    service = start_service(tmp_path_factory.mktemp("inbox") / "svc")
    yield service
    if service.process.poll() is None:
        stop(service)


@pytest.fixture
def fresh(tmp_path: Path) -> Iterator[Running]:
    service = start_service(tmp_path / "svc")
    yield service
    if service.process.poll() is None:
        stop(service)


def pending_request(running: Running, command: str) -> tuple[str, threading.Thread]:
    """A call waiting for approvers (as a thin hook files it), and its request id."""

    def ask() -> None:
        running.client().call(
            "POST",
            "/v1/approve_tool",
            {"call": {"tool": "Bash", "args": {"command": command}}, "timeout": 60},
            timeout=90,
        )

    waiting = threading.Thread(target=ask, daemon=True)
    waiting.start()
    approver = running.client(token=APPROVER_TOKEN)
    for _ in range(600):
        found = [
            r for r in approver.call("GET", "/v1/approvals")["requests"]
            if r["args"].get("command") == command
        ]
        if found:
            return str(found[-1]["id"]), waiting
        waiting.join(0.05)
    raise AssertionError("no request was filed")


def state_of(running: Running, request_id: str) -> str:
    shown = running.client(token=APPROVER_TOKEN).call("GET", f"/v1/approvals/{request_id}")
    return str(shown["state"])


def test_signed_out_pages_show_the_sign_in_form(running: Running) -> None:
    browser = Browser(running)
    status, headers, page = browser.request("GET", "/")
    assert status == 200 and "name=token" in page
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    _, _, page = browser.request("GET", "/requests/abc")
    assert "value='/requests/abc'" in page  # back there once signed in


def test_a_token_signs_in_with_an_httponly_lax_cookie_and_a_page_key(fresh: Running) -> None:
    running = fresh
    browser = Browser(running)
    status, _, page = browser.sign_in(APPROVER_TOKEN)
    assert status == 200 and "data-next='/'" in page and browser.key
    (cookie,) = browser.set_cookie
    assert cookie.startswith("hookpolicy_session=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert APPROVER_TOKEN not in cookie and browser.key not in cookie
    status, _, shell = browser.request("GET", "/")
    assert status == 200 and "data-src='/inbox/pending'" in shell and "alice" in shell
    assert browser.key not in shell  # handed out once, at the sign-in
    status, _, listed = browser.request("GET", "/inbox/pending")
    assert status == 200 and "Nothing waits for you" in listed


@pytest.mark.parametrize(
    "given", ["//evil.example", "/\t/evil.example", "https://evil.example/", "/requests/a/../../x"]
)
def test_signing_in_goes_back_only_to_the_inbox(running: Running, given: str) -> None:
    _, _, page = Browser(running).sign_in(APPROVER_TOKEN, given)
    assert "data-next='/'" in page


@pytest.mark.parametrize("token", ["", "hp_nobody", AGENT_TOKEN])
def test_only_an_approvers_token_signs_in(running: Running, token: str) -> None:
    browser = Browser(running)
    status, _, page = browser.sign_in(token)
    assert status == 401 and "not an approver" in page
    assert browser.cookies == {} and browser.key is None


def test_a_forged_or_altered_cookie_signs_nobody_in(running: Running) -> None:
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    payload, _, mac = browser.cookies["hookpolicy_session"].partition(".")
    for forged in (payload + ".AAAA", payload[:-2] + "xx." + mac, "garbage"):
        browser.cookies["hookpolicy_session"] = forged
        assert "name=token" in browser.request("GET", "/")[2]
        assert browser.request("GET", "/inbox/pending")[0] == 401


def test_approving_in_the_inbox_releases_the_call(running: Running) -> None:
    request_id, waiting = pending_request(running, "./deploy prod --approved-in-the-inbox")
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    assert f"data-id='{request_id}'" in browser.request("GET", "/inbox/pending")[2]
    _, _, shown = browser.request("GET", f"/inbox/requests/{request_id}")
    assert "./deploy prod" in shown and "svc/deploys-need-secops" in shown
    assert "<td><code>deploy</code></td><td><code>prod --approved-in-the-inbox</code></td>" in shown
    status, _, _ = browser.request(
        "POST", f"/requests/{request_id}/approve", {"reason": "ship it", "grant": "once"}
    )
    assert status == 204
    waiting.join(30)
    decided = running.client(token=APPROVER_TOKEN).call("GET", f"/v1/approvals/{request_id}")
    assert decided["state"] == "approved"
    assert decided["decided_by"] == "secops-alice (session alice)"
    assert decided["reason"] == "ship it"
    assert "ship it" in browser.request("GET", "/inbox/history")[2]


def test_a_copy_of_the_cookie_alone_reads_nothing_and_decides_nothing(running: Running) -> None:
    """What an agent gets when the approver's browser sends the cookie of 127.0.0.1 to
    a server the agent runs on another port of the same host (browsers keep cookies
    per host, not per port): the cookie, never the page key."""
    request_id, _ = pending_request(running, "./deploy prod --copied-cookie")
    approver = Browser(running)
    approver.sign_in(APPROVER_TOKEN)
    agent = Browser(running)
    agent.cookies = dict(approver.cookies)  # the copy
    for path in ("/inbox/pending", "/inbox/history", f"/inbox/requests/{request_id}",
                 "/events"):
        status, _, text = agent.request("GET", path)
        assert status == 403, path
        assert "./deploy" not in text
    _, _, shell = agent.request("GET", f"/requests/{request_id}")
    assert "./deploy" not in shell  # the page itself holds no request data
    for guessed in ("", "x" * 43):
        status, _, _ = agent.request(
            "POST", f"/requests/{request_id}/approve", {"grant": "once"},
            **({"X-Hookpolicy-Page-Key": guessed} if guessed else {}),
        )
        assert status == 403
    assert state_of(running, request_id) == "pending"


def test_requests_without_a_session_or_from_another_site_change_nothing(
    running: Running,
) -> None:
    request_id, _ = pending_request(running, "./deploy prod --another-site")
    assert Browser(running).request("POST", f"/requests/{request_id}/approve")[0] == 401
    signed = Browser(running)
    signed.sign_in(APPROVER_TOKEN)
    status, _, _ = signed.request(
        "POST", f"/requests/{request_id}/approve", {}, Origin="http://evil.example"
    )
    assert status == 403  # the browser guard: another site's page
    assert state_of(running, request_id) == "pending"


def test_an_operator_sees_requests_but_does_not_decide_them(running: Running) -> None:
    request_id, _ = pending_request(running, "./deploy prod --operator")
    operator = Browser(running)
    operator.sign_in(OPERATOR_TOKEN)
    _, _, shown = operator.request("GET", f"/inbox/requests/{request_id}")
    assert "./deploy prod" in shown and "id=approve" not in shown
    status, _, page = operator.request("POST", f"/requests/{request_id}/approve", {})
    assert status == 403 and "approver role" in page
    assert state_of(running, request_id) == "pending"


def test_signing_out_ends_the_session(running: Running) -> None:
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    kept = dict(browser.cookies)
    assert browser.request("POST", "/signout")[0] == 204
    browser.cookies = kept  # a copy kept from before
    assert browser.request("GET", "/inbox/pending")[0] == 401


def test_agent_chosen_text_is_escaped_and_hidden_characters_shown(running: Running) -> None:
    command = "./deploy <script>alert(1)</script> \u202eexe.txt \x1b[31m"
    request_id, _ = pending_request(running, command)
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    for path in ("/inbox/pending", f"/inbox/requests/{request_id}"):
        _, _, page = browser.request("GET", path)
        assert "<script>alert" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "\u202e" not in page and "\x1b" not in page
        assert "\\u202e" in page


def open_events(browser: Browser) -> tuple[http.client.HTTPConnection, Any]:
    """The signed-in browser's live stream, as its page opens it; (connection, answer)
    once the service said `retry`."""
    assert browser.key is not None
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=30)
    connection.request(
        "GET",
        "/events?" + urlencode({"key": browser.key}),
        headers={
            "Host": f"{browser.host}:{browser.port}",
            "Cookie": f"hookpolicy_session={browser.cookies['hookpolicy_session']}",
        },
    )
    answer = connection.getresponse()
    assert answer.status == 200
    assert answer.getheader("content-type", "").startswith("text/event-stream")
    assert answer.readline() == b"retry: 2000\n"
    return connection, answer


def next_change(answer: Any) -> bytes:
    """The data line of the next `changed` event (past blank lines and keep-alives)."""
    line = answer.readline()
    while line != b"event: changed\n":
        line = answer.readline()
    data: bytes = answer.readline()
    return data


def test_live_updates_are_server_sent_events(fresh: Running) -> None:
    running = fresh
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    connection, answer = open_events(browser)
    request_id, _ = pending_request(running, "./deploy prod")
    assert request_id.encode() in next_change(answer)
    connection.close()


def test_events_need_a_session(running: Running) -> None:
    status, _, _ = Browser(running).request("GET", "/events")
    assert status == 401
