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
    # (access imports the shell analysis, effects and every program's module; the
    # interpreter code's patterns are imported by the programs that read code, later)
    from policy.analysis import access, code  # noqa: F401 - imported for their patterns
    from policy.analysis._lazy_re import compile_all

    return compile_all()
