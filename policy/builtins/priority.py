"""Where each builtin sits in the chain unless its `priority:` says otherwise.

Its own module, free of pydantic, because the builtins read it when they are built,
and a one-event hook builds them from the pack cache without validating anything
(`policy.builtins.kept_config`).
"""

from __future__ import annotations

__all__ = ["DEFAULT_PRIORITY"]

#: Lower runs first; packs default to 100, so the gates decide before any rule.
DEFAULT_PRIORITY = {
    "autonomy": 10,
    "contract_scope": 20,
    "tool_policy": 30,
    "approval": 40,
    "audit_hook": 1000,
}
