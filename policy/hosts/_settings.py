"""The settings of a hook command, read as cheaply as they can be (standard library
only until pydantic is needed): the one-event hooks decide from them whether to ask
`policy serve` or decide in process, before importing anything else."""

from __future__ import annotations

from typing import Any

__all__ = ["read_settings"]


def read_settings(config: str | None, *, cached: bool = False) -> Any:
    """The settings `--config` names (else `$POLICY_CONFIG`, else the defaults).

    `cached` (a one-event process): without pydantic-settings (≈ 110 ms of imports, per
    event) when nothing configures them, or when the same settings file — one the user
    could change anyway, with no POLICY_* variable beside it — was validated before
    (policy._fast_settings); anything else goes through `load_settings`, with its
    validation and messages, and is remembered when valid and cacheable. A FastSettings
    stands in for a Settings: it carries every attribute the engine reads
    (tests/test_hook_cold_start.py holds it to Settings).
    """
    if cached:
        from policy import _fast_settings as fast

        settings: Any = fast.unconfigured(config)
        if settings is None:
            key = fast.settings_key(config)
            settings = fast.cached(key)
            if settings is None:
                from policy.settings import load_settings

                settings = load_settings(config)
                fast.remember(config, key, settings)
        return settings
    from policy.settings import load_settings

    return load_settings(config)
