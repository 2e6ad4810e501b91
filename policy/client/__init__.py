"""Clients of `policy serve`: the hook commands, when a service is configured.

`transport` speaks the service's HTTP API over its Unix socket (checking who serves
it) or over loopback TCP, with the standard library only: a hook is started once per
tool call, and `http.client` alone costs ≈ 20 ms of imports. `remote` is an engine
whose decisions come from the service, for the long-running hook servers (PicoClaw,
OpenClaw); the one-event hooks (Claude Code, Agentao) forward the host's payload as
it is (`policy.hosts.claude.thin`).
"""

from __future__ import annotations

__all__: list[str] = []
