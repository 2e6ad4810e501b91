"""The approvers' inbox over HTTP (issue 25): signing in with a token, the session
cookie, the CSRF token on every form, what a page shows of agent-chosen text.
tests/test_inbox_browser.py drives the same pages in a real browser."""

from __future__ import annotations

import http.client
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlencode

import pytest

from tests.test_service import (
    AGENT_TOKEN,
    APPROVER_TOKEN,
    Running,
    start_service,
    stop,
)


class Browser:
    """Just enough of a browser: one cookie jar, forms posted as a browser posts them
    (with this origin), redirects not followed."""

    def __init__(self, running: Running) -> None:
        self.host, port = running.http.removeprefix("http://").rsplit(":", 1)
        self.port = int(port)
        self.origin = running.http
        self.cookies: dict[str, str] = {}
        self.set_cookie: list[str] = []

    def request(
        self, method: str, path: str, form: dict[str, str] | None = None, **headers: str
    ) -> tuple[int, dict[str, str], str]:
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        sent = {"Host": f"{self.host}:{self.port}", **headers}
        if self.cookies:
            sent["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        body = None
        if form is not None:
            body = urlencode(form)
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

    def sign_in(self, token: str) -> tuple[int, dict[str, str], str]:
        return self.request("POST", "/signin", {"token": token, "next": "/"})


def csrf_of(page: str) -> str:
    found = re.search(r"name=csrf value='([^']+)'", page)
    assert found, page
    return found.group(1)


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
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
        found = approver.call("GET", "/v1/approvals")["requests"]
        if found:
            return str(found[0]["id"]), waiting
        waiting.join(0.05)
    raise AssertionError("no request was filed")


def test_signed_out_pages_show_the_sign_in_form(running: Running) -> None:
    browser = Browser(running)
    status, headers, page = browser.request("GET", "/")
    assert status == 200 and "name=token" in page
    assert "frame-ancestors 'none'" in headers["content-security-policy"]
    status, _, page = browser.request("GET", "/requests/abc")
    assert "value='/requests/abc'" in page  # back there once signed in


def test_a_token_signs_in_with_an_httponly_lax_cookie(running: Running) -> None:
    browser = Browser(running)
    status, headers, _ = browser.sign_in(APPROVER_TOKEN)
    assert status == 303 and headers["location"] == "/"
    (cookie,) = browser.set_cookie
    assert cookie.startswith("hookpolicy_session=")
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie
    assert APPROVER_TOKEN not in cookie
    status, _, page = browser.request("GET", "/")
    assert status == 200 and "Waiting for you" in page and "alice" in page


@pytest.mark.parametrize(
    "given", ["//evil.example", "/\t/evil.example", "https://evil.example/", "/requests/a/../../x"]
)
def test_signing_in_goes_back_only_to_the_inbox(running: Running, given: str) -> None:
    browser = Browser(running)
    status, headers, _ = browser.request("POST", "/signin", {"token": APPROVER_TOKEN, "next": given})
    assert status == 303 and headers["location"] == "/"


@pytest.mark.parametrize("token", ["", "hp_nobody", AGENT_TOKEN])
def test_only_an_approvers_token_signs_in(running: Running, token: str) -> None:
    browser = Browser(running)
    status, _, page = browser.sign_in(token)
    assert status == 401 and "not an approver" in page
    assert browser.cookies == {}


def test_a_forged_or_altered_cookie_signs_nobody_in(running: Running) -> None:
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    payload, _, mac = browser.cookies["hookpolicy_session"].partition(".")
    for forged in (payload + ".AAAA", payload[:-2] + "xx." + mac, "garbage"):
        browser.cookies["hookpolicy_session"] = forged
        assert "name=token" in browser.request("GET", "/")[2]


def test_approving_in_the_inbox_releases_the_call(running: Running) -> None:
    request_id, waiting = pending_request(running, "./deploy prod")
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    _, _, inbox = browser.request("GET", "/")
    assert f"data-id='{request_id}'" in inbox
    _, _, page = browser.request("GET", f"/requests/{request_id}")
    assert "./deploy prod" in page and "svc/deploys-need-secops" in page
    assert "<td><code>deploy</code></td><td><code>prod</code></td>" in page  # parsed
    status, headers, _ = browser.request(
        "POST",
        f"/requests/{request_id}/approve",
        {"csrf": csrf_of(page), "reason": "ship it", "grant": "once"},
    )
    assert status == 303 and headers["location"] == f"/requests/{request_id}"
    waiting.join(30)
    decided = running.client(token=APPROVER_TOKEN).call("GET", f"/v1/approvals/{request_id}")
    assert decided["state"] == "approved"
    assert decided["decided_by"] == "secops-alice (session alice)"
    assert decided["reason"] == "ship it"


def test_forms_without_the_session_or_its_csrf_token_change_nothing(running: Running) -> None:
    request_id, _ = pending_request(running, "./deploy prod")
    stranger = Browser(running)
    status, _, _ = stranger.request("POST", f"/requests/{request_id}/approve", {"csrf": "x"})
    assert status == 401
    signed = Browser(running)
    signed.sign_in(APPROVER_TOKEN)
    status, _, page = signed.request("POST", f"/requests/{request_id}/approve", {"csrf": "forged"})
    assert status == 403 and "token does not match" in page
    status, _, _ = signed.request(
        "POST",
        f"/requests/{request_id}/approve",
        {"csrf": csrf_of(signed.request("GET", "/")[2])},
        Origin="http://evil.example",
    )
    assert status == 403  # the browser guard: another site's form
    state = running.client(token=APPROVER_TOKEN).call("GET", f"/v1/approvals/{request_id}")
    assert state["state"] == "pending"


def test_agent_chosen_text_is_escaped_and_hidden_characters_shown(running: Running) -> None:
    command = "./deploy <script>alert(1)</script> \u202eexe.txt \x1b[31m"
    request_id, _ = pending_request(running, command)
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    for path in ("/", f"/requests/{request_id}"):
        _, _, page = browser.request("GET", path)
        assert "<script>alert" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
        assert "\u202e" not in page and "\x1b" not in page
        assert "\\u202e" in page


def test_live_updates_are_server_sent_events(running: Running) -> None:
    browser = Browser(running)
    browser.sign_in(APPROVER_TOKEN)
    connection = http.client.HTTPConnection(browser.host, browser.port, timeout=30)
    connection.request(
        "GET",
        "/events",
        headers={
            "Host": f"{browser.host}:{browser.port}",
            "Cookie": f"hookpolicy_session={browser.cookies['hookpolicy_session']}",
        },
    )
    answer = connection.getresponse()
    assert answer.status == 200
    assert answer.getheader("content-type", "").startswith("text/event-stream")
    assert answer.readline() == b"retry: 2000\n"
    request_id, _ = pending_request(running, "./deploy prod")
    line = answer.readline()
    while line != b"event: changed\n":  # (blank lines, keep-alive comments)
        line = answer.readline()
    assert request_id.encode() in answer.readline()  # its data
    connection.close()


def test_events_need_a_session(running: Running) -> None:
    status, _, _ = Browser(running).request("GET", "/events")
    assert status == 401
