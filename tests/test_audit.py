"""The decision log: one chained line per decision, secrets masked, edits detected."""

from __future__ import annotations

import contextlib
import multiprocessing
import random
import string
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from policy import Action, ApprovalDecision, Decision, Engine, ToolCall, ToolResult
from policy.audit import MASK, mask_args, mask_text
from policy.audit_chain import GENESIS
from policy.audit_verify import verify_file
from policy.digest import args_digest
from policy.errors import AuditError
from tests.conftest import make_engine


def lines(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


class Guard:
    name = "guard"

    def before_tool(self, call: ToolCall) -> Decision | None:
        if "sudo" in call.args.get("command", ""):
            return Decision(Action.DENY_TOOL, reason="no sudo", rule_ids=("guard/no-sudo",))
        return None

    def approve_tool(self, call: ToolCall) -> ApprovalDecision:
        return ApprovalDecision(True, reason="ok", approver="secops-alice")


def decide_some(engine: Engine) -> None:
    engine.register(Guard())
    call = ToolCall(
        tool="exec",
        args={"command": "ls"},
        sender="alice",
        session="s1",
        channel="telegram",
        host="picoclaw",
    )
    engine.before_tool(call)
    engine.before_tool(call.replace(args={"command": "sudo reboot"}))
    engine.approve_tool(call)
    engine.after_tool(call, ToolResult(for_llm="a\nb", duration=0.25))


def test_every_decision_is_one_line_with_the_fields_an_auditor_needs(
    engine: Engine, audit_log: Path
) -> None:
    decide_some(engine)
    allowed, denied, approval, after = lines(audit_log)

    for record in (allowed, denied, approval, after):
        for field in (
            "ts", "event", "decision_id", "point", "host", "session", "sender", "channel",
            "tool", "args_digest", "action", "reason", "rule_ids", "hook", "packs",
            "latency_us", "enforcement", "prev", "hash",
        ):  # fmt: skip
            assert field in record, f"{field} missing from {record['point']}"
        assert record["event"] == "decision"
        assert record["host"] == "picoclaw"
        assert record["tool"] == "bash" and record["tool_raw"] == "exec"
        assert record["enforcement"] == "enforce"
    assert allowed["point"] == "before_tool" and allowed["action"] == "continue"
    assert allowed["needs_approval"] is True and allowed["respond"] is False
    assert denied["action"] == "deny_tool"
    assert denied["reason"] == "no sudo"
    assert denied["rule_ids"] == ["guard/no-sudo"]
    assert denied["hook"] == "guard"
    assert denied["args_digest"] == args_digest({"command": "sudo reboot"})
    assert approval["point"] == "approve_tool"
    assert approval["approval"]["approved"] is True
    assert approval["approval"]["approver"] == "secops-alice"
    assert approval["approval"]["waited_ms"] >= 0
    assert after["point"] == "after_tool"
    assert after["result"] == {
        "is_error": False,
        "for_llm_chars": 3,
        "for_user_chars": 0,
        "duration_ms": 250.0,
    }
    assert allowed["prev"] == GENESIS
    assert denied["prev"] == allowed["hash"]
    assert len({r["decision_id"] for r in (allowed, denied, approval, after)}) == 4


def test_decision_ids_match_the_log(engine: Engine, audit_log: Path) -> None:
    decision = engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    (record,) = lines(audit_log)
    assert decision.decision_id == record["decision_id"]
    assert engine.audit_head == record["hash"]


def test_audit_mode_decisions_are_marked(engine: Engine, audit_log: Path) -> None:
    class WouldDeny:
        name = "rollout"

        def before_tool(self, call: ToolCall) -> Decision:
            return Decision(Action.CONTINUE, would_action=Action.DENY_TOOL, rule_ids=("p/r",))

    engine.register(WouldDeny())
    decision = engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert decision.action is Action.CONTINUE
    assert decision.would_action is Action.DENY_TOOL
    (record,) = lines(audit_log)
    assert record["enforcement"] == "audit"
    assert record["would_action"] == "deny_tool"


# ------------------------------------------------------------------ masking

SECRETS = [
    ("AKIAABCDEFGHIJKLMNOP", "aws access key"),
    ("ghp_" + "a" * 36, "github token"),
    ("sk-ant-" + "b" * 40, "anthropic/openai key"),
    ("xoxb-1234567890-abcdefghij", "slack token"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.abcdefghijk", "jwt"),
]


@pytest.mark.parametrize(("secret", "kind"), SECRETS, ids=[k for _, k in SECRETS])
def test_secret_values_are_masked_wherever_they_appear(secret: str, kind: str) -> None:
    text = f"curl -d token={secret} https://x"
    assert secret not in mask_text(text)
    assert secret not in mask_text(f"echo {secret}")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mysql -u root --password=hunter2 db", "mysql -u root --password=*** db"),
        ("export API_KEY=abc123; run", "export API_KEY=***; run"),
        (
            "git clone https://bob:pa55w0rd@github.com/x.git",
            "git clone https://bob:***@github.com/x.git",
        ),
        ("curl -H 'Authorization: Bearer abcdefghij123'", "curl -H 'Authorization: Bearer ***'"),
        ("DB_PASSWORD='s p a c e' ./start", "DB_PASSWORD=*** ./start"),
        ("ls -la /srv", "ls -la /srv"),
    ],
)
def test_secrets_in_commands_keep_their_context(text: str, expected: str) -> None:
    assert mask_text(text) == expected


def test_private_keys_are_masked_whole() -> None:
    pem = "-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\nBBBB\n-----END OPENSSH PRIVATE KEY-----"
    assert mask_text(f"write {pem} done") == f"write {MASK} done"


def masked_whole(text: str, limit: int = 256) -> str:
    """What the log kept of `text` when every text was masked whole, then cut."""
    from policy import audit

    masked = audit._SECRET_TEXT.sub(audit._mask_match, text)
    return masked if len(masked) <= limit else f"{masked[:limit]}…(+{len(masked) - limit} chars)"


def long_texts() -> Iterator[str]:
    """Long texts with a secret of each kind among the first characters a record keeps:
    short and longer than 64 KiB, after a long secret that masks down to `***` (which
    pulls later characters into the kept ones), with filler after."""
    rnd = random.Random(24)
    letters = string.ascii_letters + string.digits

    def run(n: int) -> str:
        return ("".join(rnd.choice(letters) for _ in range(64)) * (n // 64 + 1))[:n]

    for n in (8, 40, 300, 70_000):
        secrets = [
            f"-----BEGIN RSA PRIVATE KEY-----\n{run(n)}\n-----END RSA PRIVATE KEY-----",
            f"-----BEGIN EC PRIVATE KEY-----\n{run(n)}",
            "AKIA" + run(16).upper(),
            f"ghp_{run(max(n, 20))}",
            f"sk-{run(max(n, 16))}",
            f"xoxb-{run(max(n, 10))}",
            "AIza" + run(35),
            f"eyJ{run(n)}.{run(8)}.{run(max(8, n))}",
            f"Authorization: Bearer {run(max(8, n))}",
            f"https://deploy:{run(n)}@db.example/x",
            f"--password={run(n)}",
            f'API_KEY="{run(n)} {run(n)}"',
            f"db_password: {run(n)}",
        ]
        for secret in secrets:
            for lead in ("", f"--token={run(66_000)} "):
                for before in (0, 100, 250):
                    yield f"{lead}{' ' * before}{secret} {'.' * rnd.choice((10, 2_000))}"


def test_a_long_text_shows_what_masking_it_whole_showed() -> None:
    """A long text is masked from its start only as far as the kept characters go
    (`_masked_head`; a 1 MiB URL whole took 250 ms): what it shows is what masking
    the whole text showed, character for character — a secret that begins among the
    kept characters is matched whole however far it runs, including after a long
    secret masked down to `***`. (Only the count of what was cut may differ: a secret
    past the kept characters is not looked for.)"""
    from policy import audit

    def shown(logged: str) -> str:  # (the count after it is of the text as sent)
        return logged.split("…(+", 1)[0]

    for text in long_texts():
        assert shown(mask_text(text)) == shown(masked_whole(text)), text[:80]
    # and nothing past the kept characters is looked at when no secret runs there
    assert audit._masked_head("x" * 1_000_000, 256) == ("x" * 256, 256)


def test_a_long_name_holding_a_secret_word_is_masked_in_one_pass() -> None:
    """The assignment alternative looks at most 1,024 characters of a name on each side
    of the word: unbounded, it rescanned the rest of a long name at each occurrence of
    the word (60 s for 160 KB of `token`). It masks what the unbounded form masked,
    character for character — letters that only fold to the words' (a long s, a dotless
    or dotted i, the Kelvin sign) included; a name wider than that is wider than what a
    record keeps."""
    import re

    from policy import audit

    words = r"(?i:password|passwd|secret|token|api_?key|access_?key|private_?key)"
    head = audit._SECRET_TEXT.pattern.split("|(?P<assign_p>")[0]
    unbounded = re.compile(
        head + r"|(?P<assign_p>\b[A-Za-z0-9_]*" + words + r"[A-Za-z0-9_]*\s*[=:]\s*)"
        r"(?P<assign>\"[^\"]*\"|'[^']*'|[^\s;&|]+)"
    )
    rnd = random.Random(11)
    parts = ["password", "PassWord", "token", "api_key", "x", "DB_", "_", "é", "=", ":", " ",
             "\n", "'", '"', "a", "9", "-", "Bearer ", "ghp_", "://u:", "@", "AKIA", "KEY",
             "\u017fecret", "ap\u0131", "AP\u0130", "\u212aey", "key", ","]  # fmt: skip
    for _ in range(5_000):
        text = "".join(rnd.choice(parts) for _ in range(rnd.randint(1, 40)))
        assert audit._SECRET_TEXT.sub(audit._mask_match, text) == unbounded.sub(
            audit._mask_match, text
        ), text
    assert mask_text("token" * 200_000).startswith("token" * 51)  # (a 1 MB name)


def test_the_count_of_what_was_cut_is_never_negative() -> None:
    text = f"--token={'t' * 5_000} tail"
    assert mask_text(text) == "--token=*** tail"
    assert mask_text(f"{text} {'.' * 2_000}") == masked_whole(f"{text} {'.' * 2_000}")


def test_secret_looking_keys_are_masked_and_long_values_cut() -> None:
    masked = mask_args(
        {
            "url": "https://example.com",
            "headers": {"Authorization": "Basic abc", "Accept": "json"},
            "password": "hunter2",
            "content": "x" * 1000,
            "items": list(range(100)),
        }
    )
    assert masked["headers"] == {"Authorization": MASK, "Accept": "json"}
    assert masked["password"] == MASK
    assert masked["content"].startswith("x" * 256) and masked["content"].endswith("(+744 chars)")
    assert len(masked["items"]) == 65 and masked["items"][-1] == "…(+36 items)"


def test_the_log_masks_arguments_even_when_capture_args_is_asked(tmp_path: Path) -> None:
    # `audit_capture_args` (deprecated) sends full arguments to the capture
    # (tests/test_audit_capture.py), never into the decision log.
    args = {"command": "deploy --token=ghp_" + "z" * 36, "api_key": "k-123"}
    for capture in (False, True):
        log = tmp_path / f"capture-{capture}.log"
        with make_engine(log, audit_capture_args=capture, data_dir=tmp_path / "data") as engine:
            engine.before_tool(ToolCall(tool="bash", args=args))
        (record,) = lines(log)
        assert record["args_digest"] == args_digest(args)
        assert "z" * 36 not in log.read_text()
        assert record["args"] == {"command": "deploy --token=***", "api_key": MASK}


# ----------------------------------------------------------- the hash chain


@pytest.fixture
def real_log(engine: Engine, audit_log: Path) -> Path:
    decide_some(engine)
    for n in range(6):
        engine.before_tool(ToolCall(tool="bash", args={"command": f"echo {n}"}, sender="bob"))
    return audit_log


def test_verify_passes_on_a_real_log(real_log: Path) -> None:
    report = verify_file(real_log)
    assert report.ok
    assert report.lines == 10
    assert report.head == lines(real_log)[-1]["hash"]


@pytest.mark.parametrize("line_number", [1, 5, 10])
@pytest.mark.parametrize("where", ["reason", "hash", "prev", "json"])
def test_editing_one_byte_names_the_line(real_log: Path, line_number: int, where: str) -> None:
    raw = real_log.read_bytes().splitlines(keepends=True)
    line = raw[line_number - 1]
    anchor = {
        "reason": b'"reason":"',
        "hash": b'"hash":"',
        "prev": b'"prev":"',
        "json": b'"point"',
    }[where]
    index = line.index(anchor) + len(anchor)
    edited = bytearray(line)
    edited[index] = ord("X") if edited[index] != ord("X") else ord("Y")
    if where == "json":
        edited[line.index(anchor)] = ord("{")
    raw[line_number - 1] = bytes(edited)
    real_log.write_bytes(b"".join(raw))

    report = verify_file(real_log)
    assert not report.ok
    assert report.broken_line == line_number, report.problem


def test_removed_and_reordered_lines_are_found(real_log: Path) -> None:
    raw = real_log.read_bytes().splitlines(keepends=True)
    real_log.write_bytes(b"".join(raw[:3] + raw[4:]))
    report = verify_file(real_log)
    assert (report.ok, report.broken_line) == (False, 4)
    assert "removed or reordered" in report.problem

    real_log.write_bytes(b"".join([raw[1], raw[0], *raw[2:]]))
    assert verify_file(real_log).broken_line == 1


def test_lines_cut_from_the_end_are_found_against_a_recorded_head(real_log: Path) -> None:
    head = verify_file(real_log).head
    raw = real_log.read_bytes().splitlines(keepends=True)
    real_log.write_bytes(b"".join(raw[:-2]))
    assert verify_file(real_log).ok  # the file alone cannot tell
    report = verify_file(real_log, expect_head=head)
    assert not report.ok
    assert "lines removed at the end" in report.problem


def test_a_keyed_chain_needs_the_key(tmp_path: Path) -> None:
    log = tmp_path / "keyed.log"
    with make_engine(log, audit_key="correct horse") as engine:
        engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    assert verify_file(log, key=b"correct horse").ok
    assert not verify_file(log).ok
    assert not verify_file(log, key=b"wrong").ok


def test_a_new_engine_continues_the_chain_of_an_existing_file(audit_log: Path) -> None:
    for _ in range(3):
        with make_engine(audit_log) as engine:
            engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
    report = verify_file(audit_log)
    assert report.ok and report.lines == 3


def _append_from_another_process(path: str, sender: str, count: int) -> None:
    from policy import Engine, ToolCall
    from policy.settings import Settings

    with Engine(Settings(audit_path=Path(path))) as engine:
        for n in range(count):
            engine.before_tool(ToolCall(tool="bash", args={"n": n}, sender=sender))


def test_several_processes_append_to_one_chain(audit_log: Path) -> None:
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_append_from_another_process, args=(str(audit_log), f"p{i}", 200))
        for i in range(4)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
        assert worker.exitcode == 0
    report = verify_file(audit_log)
    assert report.ok, report
    assert report.lines == 800


def test_a_damaged_log_stops_the_engine_at_start(audit_log: Path) -> None:
    audit_log.write_bytes(b'{"half a line')
    with pytest.raises(AuditError, match="cannot continue the hash chain"):
        make_engine(audit_log)


def test_a_decision_that_cannot_be_logged_is_a_denial(tmp_path: Path) -> None:
    full = Path("/dev/full")
    if not full.exists():
        pytest.skip("/dev/full is not available on this system")
    with make_engine(full) as engine:
        decision = engine.before_tool(ToolCall(tool="bash", args={"command": "ls"}))
        assert decision.action is Action.DENY_TOOL
        assert decision.reason.startswith("decision log unavailable:")
        assert decision.failure == "audit"
        answer = engine.approve_tool(ToolCall(tool="bash"))
        assert not answer.approved
        after = engine.after_tool(ToolCall(tool="bash"), ToolResult(for_llm="x"))
        assert after.action is Action.ABORT_TURN


def test_a_record_written_with_the_next_goes_before_it_in_the_chain(tmp_path: Path) -> None:
    """The audit hook's record of a call waits for the call's decision and goes in the
    same write, before it; one whose decision never comes is written at close."""
    from policy.audit import DecisionLog

    path = tmp_path / "decisions.jsonl"
    log = DecisionLog(path=path)
    log.write_with_next("audit.tool_call", {"tool": "bash"})
    assert path.read_bytes() == b""
    log.write("decision", {"tool": "bash", "action": "continue"})
    assert [r["event"] for r in lines(path)] == ["audit.tool_call", "decision"]
    log.write_with_next("audit.tool_call", {"tool": "never decided"})
    log.close()
    assert [r["event"] for r in lines(path)] == ["audit.tool_call", "decision", "audit.tool_call"]
    assert verify_file(path).ok


def test_a_record_written_with_the_next_goes_before_it_on_a_stream_too() -> None:
    """A decision log on stderr (`policy hook picoclaw` writes it there): the call's
    record and its decision in one write, chained; one left waiting at close is
    written then."""
    import io

    from policy.audit import DecisionLog

    class Stream(io.StringIO):
        writes = 0

        def write(self, text: str) -> int:
            Stream.writes += 1
            return super().write(text)

    stream = Stream()
    log = DecisionLog(stream=stream)
    log.write_with_next("audit.tool_call", {"tool": "bash"})
    assert stream.getvalue() == ""
    log.write("decision", {"tool": "bash", "action": "continue"})
    assert Stream.writes == 1
    log.write_with_next("audit.tool_call", {"tool": "never decided"})
    log.close()
    records = [orjson.loads(line) for line in stream.getvalue().splitlines()]
    assert [r["event"] for r in records] == ["audit.tool_call", "decision", "audit.tool_call"]
    assert [r["prev"] for r in records[1:]] == [r["hash"] for r in records[:-1]]


def test_records_waiting_for_the_next_are_bounded(tmp_path: Path) -> None:
    from policy.audit import _MAX_QUEUED, DecisionLog

    path = tmp_path / "decisions.jsonl"
    with contextlib.closing(DecisionLog(path=path)) as log:
        for n in range(_MAX_QUEUED):
            log.write_with_next("audit.tool_call", {"n": n})
        assert path.read_bytes() == b""
        # one more than the bound is written at once, with those waiting before it
        log.write_with_next("audit.tool_call", {"n": _MAX_QUEUED})
        assert [r["n"] for r in lines(path)] == list(range(_MAX_QUEUED + 1))
    assert verify_file(path).ok


def test_the_decision_log_goes_to_stderr_when_no_file_is_set(tmp_path: Path) -> None:
    script = (
        "from policy import Engine, ToolCall\n"
        "with Engine() as e:\n"
        "    e.before_tool(ToolCall(tool='Bash', args={'command': 'ls'}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        check=True,
        env={"PATH": "/usr/bin:/bin", "XDG_DATA_HOME": str(tmp_path)},
    )
    assert done.stdout == b""
    (record,) = [orjson.loads(line) for line in done.stderr.splitlines()]
    assert record["tool"] == "bash" and record["prev"] == GENESIS


def test_names_a_caller_chose_are_cut_in_the_log(engine: Engine, audit_log: Path) -> None:
    """A session, a channel or a tool name is the caller's to choose; the log line must
    not grow with it (an anonymous caller could fill the disk, and a full disk refuses
    every call)."""
    long = "s" * 100_000
    engine.before_tool(
        ToolCall(tool="x" * 5000, args={}, session=long, channel=long, chat_id=long, agent=long)
    )
    (record,) = lines(audit_log)
    for field in ("session", "channel", "chat_id", "agent", "tool", "tool_raw"):
        assert len(record[field]) < 300, field
    assert record["session"].endswith("…(+99744 chars)")
    assert len(audit_log.read_bytes()) < 4096


def test_the_service_records_who_asked(engine: Engine, audit_log: Path) -> None:
    from policy.facts import Caller, deciding_for

    with deciding_for(Caller(principal="anonymous", peer="127.0.0.1:41000", may_file=False)):
        engine.before_tool(ToolCall(tool="Bash", args={"command": "ls"}, sender="anonymous"))
    engine.before_tool(ToolCall(tool="Bash", args={"command": "ls"}, sender="alice"))
    served, local = lines(audit_log)
    assert (served["principal"], served["peer"]) == ("anonymous", "127.0.0.1:41000")
    assert "principal" not in local and "peer" not in local  # in process: as before


def test_the_audit_hook_records_who_asked_with_names_cut(tmp_path: Path) -> None:
    from policy.facts import Caller, deciding_for
    from policy.settings import Settings

    pack = tmp_path / "gate.yaml"
    pack.write_text(
        "apiVersion: hookpolicy/v1\nkind: RulePack\nname: gate\nbuiltins:\n  audit_hook: {}\n"
    )
    log = tmp_path / "log.jsonl"
    caller = Caller(uid=65534, principal="uid:65534")
    with Engine(Settings(packs=[pack], audit_path=log)) as engine, deciding_for(caller):
        engine.before_tool(
            ToolCall(tool="Bash", args={"command": "ls"}, sender="alice", session="s" * 9000)
        )
    (record,) = [r for r in lines(log) if r["event"] == "audit.tool_call"]
    assert (record["sender"], record["principal"]) == ("alice", "uid:65534")
    assert len(record["session"]) < 300


def test_argument_keys_and_the_number_of_values_are_bounded_in_the_log(
    engine: Engine, audit_log: Path
) -> None:
    wide = {f"k{i}": list(range(60)) for i in range(60)}
    engine.before_tool(ToolCall(tool="x", args={"k" * 100_000: 1, "wide": wide}))
    (record,) = lines(audit_log)
    assert max(len(key) for key in record["args"]) < 300
    assert len(audit_log.read_bytes()) < 16_000  # 60 x 60 values: cut at 1,024


def test_the_quick_look_for_secrets_never_changes_what_is_masked() -> None:
    # A text with none of the secret patterns' fixed parts skips the full scan; every
    # text the scan would change must still be scanned (a fixed seed: the same texts
    # on every run, secrets spliced into random ASCII and non-ASCII text).
    import random
    import string

    from policy import audit

    secrets = [
        "AKIAABCDEFGHIJKLMNOP", "ASIAABCDEFGHIJKLMNOP", "ghp_" + "a" * 24,
        "github_pat_" + "b" * 30, "sk-" + "c" * 20, "xoxb-1234567890ab", "AIza" + "d" * 35,
        "eyJabcdefgh.ijklmnopq.rstuvwxyz", "Bearer abcdefghij", "BEARER abcdefghij",
        "https://user:pw@host", "--password=x", "-token y", "PASSWORD=hunter2",
        "my_api_key: 'v'", "Access_Key=zz", "\u017fecret=x", "to\u212aen=y",
        "-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----",
    ]  # fmt: skip
    alphabet = string.ascii_letters + string.digits + " -_=:/@.'\"\n;&|\u017f\u212a\u0130\u0131"
    rng = random.Random(24)
    for _ in range(20_000):
        parts = [
            rng.choice(secrets)
            if rng.random() < 0.3
            else "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 20)))
            for _ in range(rng.randint(0, 4))
        ]
        text = " ".join(parts)
        full = audit._SECRET_TEXT.sub(audit._mask_match, text)
        assert audit.mask_text(text, limit=10_000) == full, text
    assert audit.mask_text("ls -la && git status") == "ls -la && git status"
    assert audit.mask_text("curl -H 'Authorization: Bearer abcdefghij' x") == (
        "curl -H 'Authorization: Bearer ***' x"
    )


def test_arguments_are_digested_once_a_call_and_never_from_a_stale_copy() -> None:
    """The audit hook's record and the decision record each carry the call's argument
    digest: kept for frozen arguments (a call's), never for a dict that may change."""
    from policy.audit import digested_args
    from policy.model import FrozenDict

    frozen = FrozenDict({"command": "ls"})
    assert digested_args(frozen) == (args_digest(frozen), len(b'{"command":"ls"}'))
    assert digested_args(frozen) == digested_args(FrozenDict({"command": "ls"}))
    plain = {"command": "ls"}
    first = digested_args(plain)
    plain["command"] = "rm -rf /"
    assert digested_args(plain) != first
    assert digested_args(plain)[0] == args_digest({"command": "rm -rf /"})


def test_equal_small_arguments_are_digested_once_and_never_for_each_other(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An agent repeats its calls, each a new mapping: small flat arguments are digested
    once by their contents (`FrozenDict.content_key`), and arguments that only look
    alike (`1`, `1.0` and `true`; `0.0` and `-0.0`) keep digests of their own."""
    from policy import audit
    from policy.model import FrozenDict

    audit.forget_masked()
    made: list[object] = []
    digest_and_size = audit.args_digest_and_size
    monkeypatch.setattr(
        audit, "args_digest_and_size", lambda args: made.append(args) or digest_and_size(args)
    )
    calls = [FrozenDict({"command": "git status"}) for _ in range(3)]
    assert len({audit.digested_args(c) for c in calls}) == 1
    assert len(made) == 1
    alike = [{"n": 1}, {"n": 1.0}, {"n": True}, {"n": 0.0}, {"n": -0.0}, {"n": None}]
    digests = [audit.digested_args(FrozenDict(a))[0] for a in alike]
    assert digests == [args_digest(a) for a in alike]
    assert len(set(digests)) == len(alike)
    big = FrozenDict({"content": "x" * 5000})  # (too large to be kept by its contents)
    audit.digested_args(big)
    audit.digested_args(FrozenDict({"content": "x" * 5000}))
    assert len(made) == 1 + len(alike) + 2  # (each large one digested afresh)


def test_arguments_a_caller_makes_to_hash_alike_are_kept_apart_cheaply() -> None:
    """Ints that differ by 2**61 - 1 (or -1 and -2) hash alike in Python; a caller who
    fills 64 arguments with them must not make thousands of memo keys of one hash
    (every lookup a scan): a content key holds each value as text, whose hash is
    salted. Their digests stay each its own."""
    from policy import audit
    from policy.model import FrozenDict

    modulus = 2**61 - 1
    calls = [
        FrozenDict({f"k{i}": i + ((n >> i) & 1) * modulus for i in range(8)}) for n in range(200)
    ]
    assert len({hash(tuple(c.items())) for c in calls}) == 1  # (alike, as Python hashes them)
    keys = [c.content_key() for c in calls]
    assert len({hash(k) for k in keys}) > 190
    assert [audit.digested_args(c)[0] for c in calls] == [args_digest(dict(c)) for c in calls]
    small = [FrozenDict({"n": -1}), FrozenDict({"n": -2})]
    assert small[0].content_key() != small[1].content_key()
    assert audit.digested_args(small[0]) != audit.digested_args(small[1])


def test_equal_arguments_are_masked_once_and_alike() -> None:
    """The masked arguments of a call are kept by the arguments themselves when every
    value is a scalar: equal arguments log alike, a secret is masked the second time
    too, and arguments that only serialise alike are never taken for each other."""
    from policy.audit import _masked_args, digested_args
    from policy.model import FrozenDict

    token = "ghp_" + "a" * 36
    first = FrozenDict({"command": f"curl -H 'Authorization: token {token}' x"})
    again = FrozenDict({"command": f"curl -H 'Authorization: token {token}' x"})
    masked = _masked_args(first)
    assert token not in masked["command"]
    assert _masked_args(again) is masked
    assert _masked_args(FrozenDict({"n": 1})) == {"n": 1}
    assert _masked_args(FrozenDict({"n": True})) == {"n": True}
    assert str(_masked_args(FrozenDict({"n": -0.0}))["n"]) == "-0.0"
    nested = FrozenDict({"paths": [token]})
    assert token not in str(_masked_args(nested))
    # (canonical JSON writes a lone surrogate as the text `\ud800`: both have one
    # digest, and the first masks to nothing, the second must still be masked)
    text = FrozenDict({"command": "echo \\ud800" + token})
    surrogate = FrozenDict({"command": "echo \ud800" + token})
    assert digested_args(text)[0] == digested_args(surrogate)[0]
    assert _masked_args(text)["command"].endswith(token)  # (no word boundary: kept)
    assert token not in _masked_args(surrogate)["command"]


@pytest.mark.parametrize(
    "ns",
    [
        0,
        1_796_635_219_356_693_123,  # (2026-12-07T09:20:19.356693Z)
        1_796_635_219_000_000_000,  # a whole second: isoformat writes no fraction
        1_796_635_219_000_000_999,  # (below a microsecond, as datetime floors it)
        1_796_635_219_000_001_000,
        4_102_444_799_999_999_000,  # 2099-12-31T23:59:59.999999Z
        -62_135_596_800 * 10**9,  # 0001-01-01T00:00:00Z: the year padded to four digits
        253_402_300_799 * 10**9 + 999_999_000,  # 9999-12-31T23:59:59.999999Z
    ],
)
def test_a_records_stamp_is_datetimes_iso_form_in_utc(ns: int) -> None:
    """`ts` is written from `time` (a one-event hook does not import `datetime`), in
    the form `datetime.now(UTC).isoformat()` gives, `+00:00` written `Z`."""
    import datetime as dt

    from policy import audit

    moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=ns // 1000)
    assert audit._stamp(ns) == moment.isoformat().replace("+00:00", "Z")


def test_stamps_in_one_second_and_the_next_each_read_their_own_time() -> None:
    """A second's date and time are written once and kept for its other records: a
    stamp of the next second, or of an earlier one, is never given the kept text."""
    import datetime as dt

    from policy import audit

    start = 1_733_500_000 * 10**9
    for ns in (start, start + 1_000, start + 999_999_999, start + 10**9, start - 1, -1, 0, start):
        moment = dt.datetime(1970, 1, 1, tzinfo=dt.UTC) + dt.timedelta(microseconds=ns // 1000)
        assert audit._stamp(ns) == moment.isoformat().replace("+00:00", "Z"), ns
