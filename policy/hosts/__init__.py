"""Everything one agent host needs, kept in that host's own place (DESIGN §7).

Each host has one home: `claude/` (Claude Code, and Agentao, which speaks Claude's
vocabulary: each a `claude.dialect`), `picoclaw/` and `openclaw/`. A home holds the
host's wire vocabulary in both directions (`wire`), the process `policy hook <host>`
runs (`claude.hook_process`, `picoclaw.hook_process`, `openclaw.bridge`), and, where
we can run that host's own hooks inside our chain, their runner (`hosted`). What those
processes share — engine loading, one answer per request, the watchdog, the
fail-closed refusal — is `_hook_process`; `hosted` starts the hosted hooks settings
name.

This module is imported by the `policy` parser for every command, so it holds the
dispatch table only and imports nothing but the table of Claude-like hosts (plain
data).
"""

from __future__ import annotations

from policy.hosts.claude.dialect import DIALECTS

__all__ = [
    "ANSWER_MARGIN",
    "HOOK_APPROVALS",
    "HOOK_DEFAULT_APPROVAL",
    "HOOK_DEFAULT_DEADLINE",
    "HOOK_OPTIONS",
    "SERVERS",
]

#: `policy hook`'s `--deadline` (seconds) and `--approval` when the command gives none:
#: the parser's defaults, and what `policy check --host` assumes of a command without them.
HOOK_DEFAULT_DEADLINE = 50.0
HOOK_DEFAULT_APPROVAL = "auto"
#: `policy hook`'s `--approval` values (docs/hosts.md: who approves a gated call).
HOOK_APPROVALS = ("auto", "ask", "wait", "defer")

#: `policy hook HOST`'s options, by what their values are: `text`, `texts` (repeatable),
#: `seconds` (a float) or a tuple of the choices. The parser gives them their help
#: (policy.cli.commands, held to this table by tests/test_thin_client.py); the thin
#: client reads a hook's command line with this table alone (policy.hosts.claude.thin).
HOOK_OPTIONS: dict[str, str | tuple[str, ...]] = {
    "--config": "text",
    "--packs": "texts",
    "--approval": HOOK_APPROVALS,
    "--deadline": "seconds",
    "--server": "text",
}

#: What `policy hook` keeps back from `--deadline` after waiting for an approval, to log
#: and print the answer (the hook process spends it; the mount checks count it).
ANSWER_MARGIN = 1.0

#: `policy hook HOST`: the module whose `run(args)` serves HOST (the one table; the
#: parser's choices come from it). Every Claude-like host (`claude.dialect`) is served
#: by the one-event hook process of Claude's vocabulary.
SERVERS = {
    **dict.fromkeys(DIALECTS, "policy.hosts.claude.hook_process"),
    "picoclaw": "policy.hosts.picoclaw.hook_process",
    "openclaw": "policy.hosts.openclaw.bridge",
}
