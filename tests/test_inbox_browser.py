"""The approvers' inbox in a real browser (issue 25): Debian's Chromium driven by
Playwright (`executable_path=/usr/bin/chromium`; no browser is ever downloaded).

An approver signs in with a token, watches a `bash` call arrive without reloading
(server-sent events), opens it, reads the call and its parsed commands, clicks
Approve — and the hook that waited lets the call run. A browser without the session
is refused.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.test_service import (
    APPROVER_TOKEN,
    Running,
    permission,
    start_service,
    stop,
    waiting_hook,
)

#: A real browser / two services on a real redis-server: run with the slow tests (CI).
pytestmark = pytest.mark.slow

CHROMIUM = Path("/usr/bin/chromium")

if not CHROMIUM.exists():
    if os.environ.get("CI"):
        raise RuntimeError("CI installs Debian's chromium (.ci/run); it is missing")
    pytest.skip("needs Debian's chromium at /usr/bin/chromium", allow_module_level=True)

sync_api = pytest.importorskip("playwright.sync_api")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM))
        yield launched
        launched.close()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    service = start_service(tmp_path / "svc")
    yield service
    if service.process.poll() is None:
        stop(service)


def test_approve_a_waiting_bash_call_in_the_browser_and_see_it_run(
    browser: Any, running: Running
) -> None:
    page = browser.new_page()
    page.goto(running.http + "/")
    page.fill("input[name=token]", APPROVER_TOKEN)
    page.click("button[type=submit]")
    page.wait_for_selector("#pending #none")  # signed in; nothing waits yet
    page.wait_for_selector("body[data-stream=open]")  # the live stream is open

    hook = waiting_hook(running, "./deploy prod && echo done", "--deadline", "60")
    try:
        item = page.wait_for_selector("#pending li[data-id]", timeout=30_000)  # no reload
        assert "./deploy prod" in item.inner_text()
        page.click("#pending li[data-id] a")
        page.wait_for_selector("#call")
        assert "./deploy prod && echo done" in page.inner_text("#call")
        programs = page.inner_text("#commands")
        assert "deploy" in programs and "echo" in programs
        page.fill("#approve input[name=reason]", "release window")
        page.click("#approve button[type=submit]")
        page.wait_for_selector("#state.approved")
        assert "secops-alice" in page.inner_text("#decided-by")

        assert hook.stdout is not None
        out = hook.stdout.read()
        hook.wait(timeout=60)
    finally:
        if hook.poll() is None:
            hook.kill()
    assert permission(orjson.loads(out))[0] == "allow"  # the call runs
    page.close()


def test_a_browser_without_the_session_or_with_a_copy_of_its_cookie_is_refused(
    browser: Any, running: Running
) -> None:
    hook = waiting_hook(running, "./deploy prod", "--deadline", "60")
    try:
        signed = browser.new_context()
        page = signed.new_page()
        page.goto(running.http + "/")
        page.fill("input[name=token]", APPROVER_TOKEN)
        page.click("button[type=submit]")
        item = page.wait_for_selector("#pending li[data-id]", timeout=30_000)
        request_id = item.get_attribute("data-id")

        stranger = browser.new_context()  # no cookie: what another site's page would have
        answer = stranger.request.post(
            f"{running.http}/requests/{request_id}/approve",
            form={"reason": "x", "grant": "once"},
        )
        assert answer.status == 401
        other = stranger.new_page()
        other.goto(f"{running.http}/requests/{request_id}")
        assert other.is_visible("input[name=token]")  # the sign-in page, not the call
        assert "./deploy" not in other.content()

        # The cookie, as a server of the agent's on another port of 127.0.0.1 receives
        # it from the approver's browser, in a browser of the agent's: no page key.
        copied = browser.new_context()
        copied.add_cookies(signed.cookies())
        spying = copied.new_page()
        spying.goto(f"{running.http}/requests/{request_id}")
        spying.wait_for_selector("#problem:not([hidden])")
        assert "./deploy" not in spying.content()
        forged = copied.request.post(
            f"{running.http}/requests/{request_id}/approve",
            form={"grant": "once"},
            headers={"X-Hookpolicy-Page-Key": "guessed"},
        )
        assert forged.status == 403

        state = running.client(token=APPROVER_TOKEN).call("GET", f"/v1/approvals/{request_id}")
        assert state["state"] == "pending"
        for context in (signed, stranger, copied):
            context.close()
    finally:
        hook.kill()
        hook.wait()
