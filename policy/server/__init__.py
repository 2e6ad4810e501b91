"""`policy serve`: one long-running process that holds the policy, its state and the
approvers' identities; hook commands become thin clients of it (docs/service.md).

`app` is the HTTP API (FastAPI), `auth` who may do what, `logs` the operational log
(structlog), `run` binding the sockets and serving. Imported by `policy serve` only:
the hook commands reach it through `policy.client`, without FastAPI.
"""

from __future__ import annotations

__all__: list[str] = []
