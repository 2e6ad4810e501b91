"""How hosted hooks reach an engine that may not import the layer that builds them.

Process hooks (PicoClaw's JSON-RPC) and Claude Code / Agentao command hooks are
started by code in `policy.hosts`, which sits above the engine: imports point down
(DESIGN §2), so the engine never builds them. Whoever builds an engine hands it a
builder (`Engine(settings, hosted=build_hosted)`: the CLI, the service, the hook
processes do). For everyone else — `Engine(Settings(hooks=...))` in a user's code —
the package's facade (`policy/__init__.py`) puts one here that imports the hosts
layer only when called, so an engine whose settings name no hosted hook loads none
of it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # no `typing` at run time: every `policy` command imports this
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from policy.aliases import AliasTable
    from policy.chain import Timeouts
    from policy.settings import Settings

    #: (settings, the engine's alias table, its timeouts) -> the hosted hooks, started.
    HostedBuilder = Callable[[Settings, AliasTable, Timeouts], Sequence[object]]

__all__ = ["builder"]

#: The builder an engine uses when it was handed none (set by the package facade).
builder: HostedBuilder | None = None

