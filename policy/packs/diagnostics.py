"""What `policy check` and pack loading report: one problem at file:line:col."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Literal

from policy._lazy_dataclass import dataclass
from policy.errors import PolicyError

__all__ = ["Diagnostic", "PackError", "Severity"]

Severity = Literal["error", "warning"]


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    """A problem in a pack file. `code` is stable and names the kind of problem."""

    path: str
    line: int
    col: int
    severity: Severity
    code: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.severity}: {self.message} [{self.code}]"


class PackError(PolicyError):
    """Rule packs failed to load; `diagnostics` lists every error found."""

    def __init__(self, diagnostics: Iterable[Diagnostic]) -> None:
        self.diagnostics = sorted(d for d in diagnostics if d.severity == "error")
        lines = "\n".join(f"  {d}" for d in self.diagnostics[:50])
        more = len(self.diagnostics) - 50
        suffix = f"\n  ... and {more} more" if more > 0 else ""
        super().__init__(f"rule packs have {len(self.diagnostics)} error(s):\n{lines}{suffix}")
