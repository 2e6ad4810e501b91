"""Everything one agent host needs, kept in that host's own place (DESIGN §7).

Each host has one home: `claude/` (Claude Code, and Agentao, which speaks Claude's
vocabulary), `picoclaw/` and `openclaw/`. A home holds the host's wire vocabulary in
both directions (`wire`), the server behind `policy hook <host>` (`server`), and,
where we can run that host's own hooks inside our chain, their runner (`hosted`).
What the servers share — engine loading, one answer per request, the watchdog, the
fail-closed refusal — is `_server`; `hosted` starts the hosted hooks settings name.

This module is imported by the `policy` parser for every command, so it holds the
dispatch table only and imports nothing.
"""

from __future__ import annotations

__all__ = ["SERVERS"]

#: `policy hook HOST`: the module whose `run(args)` serves HOST (the one table; the
#: parser's choices come from it).
SERVERS = {
    "claude": "policy.hosts.claude.server",
    "agentao": "policy.hosts.claude.server",
    "picoclaw": "policy.hosts.picoclaw.server",
    "openclaw": "policy.hosts.openclaw.server",
}
