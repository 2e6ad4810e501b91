"""The analysis made ready before its first call, for a process that decides many.

A one-event hook imports what its call needs and compiles each pattern when a line
first asks for it (policy.analysis._lazy_re): its start is the user's wait. A service
or a long-running hook pays the same work on whichever calls come first — a new
program's first line compiling the patterns that read its arguments, up to ≈ 2 ms
each — so it does it here once, before (or beside) its first call.
"""

from __future__ import annotations

__all__ = ["warm"]


def warm() -> int:
    """Import every analysis module and compile every pattern made so far (the
    analysis's and any other module's imported by then); how many were compiled."""
    # (named one by one: the modules import what a line read back from a one-event
    # hook's store does not need at first use, policy.analysis._lazy_module)
    from policy.analysis import (  # noqa: F401 - imported for their patterns
        access,
        code,
        git,
        literal,
        network,
        programs,
        readonly,
    )
    from policy.analysis._lazy_re import compile_all
    from policy.analysis.shell import parse, walk, words, wrappers  # noqa: F401

    return compile_all()
