"""Hooks written for other hosts, started for an engine (DESIGN §7).

`hooks.processes` starts PicoClaw process hooks (JSON-RPC over stdio,
`picoclaw.hosted`) and `claude_hooks` reads Claude Code / Agentao hooks.json files
(`claude.hosted`); both become ordinary hooks in the chain, ordered after in-process
hooks as PicoClaw orders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from policy.aliases import AliasTable
    from policy.chain import Timeouts
    from policy.settings import Settings

__all__ = ["build_hosted"]


def build_hosted(settings: Settings, aliases: AliasTable, timeouts: Timeouts) -> Sequence[object]:
    """The hosted hooks `settings` asks for, started; SettingsError names what is wrong.

    Imported only when a setting names one, so engines without hosted hooks never load
    the subprocess machinery.
    """
    hooks: list[object] = []
    if settings.hooks.enabled and settings.hooks.processes:
        from policy.hosts.picoclaw.hosted import start_process_hooks

        hooks.extend(start_process_hooks(settings.hooks, timeouts))
    if settings.claude_hooks:
        from policy.hosts.claude.hosted import load_claude_hooks

        try:
            hooks.extend(
                load_claude_hooks(
                    settings.claude_hooks,
                    aliases=aliases,
                    workspace=settings.workspace,
                    skip_unsupported=settings.claude_hooks_skip_unsupported,
                    not_json=settings.claude_hooks_not_json,
                    data_dir=settings.data_dir,
                )
            )
        except BaseException:
            for hook in hooks:
                close = getattr(hook, "close", None)
                if close is not None:
                    close()
            raise
    return hooks
