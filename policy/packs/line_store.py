"""Shell lines' lexical facts kept on disk for the next one-event process
(policy.analysis.kept_lines says what is kept, and why).

Used only where the packs' answers are kept (`policy.packs.answer_across_processes`):
packs the user controls, whose decisions the user could change anyway — an entry is
this user's file, which the user (and the agent running tools as it) could have
written (decisions 0011, 0020 and 0030). Entries are kept by the trusted-file store
(policy._trusted_store: a private regular file of this user with a valid checksum)
next to the packs' compiled programs, named by a digest of the line, its directory
and home, the environment variables the analysis reads (`ENVIRONMENT`) and the code
that analysed it (`_salt`: the analysis modules' and tree-sitter's files,
hookpolicy's version, Python's), and each begins with its own key (an entry renamed
over another's name is a miss). A line whose facts asked the account database for a
home (`Line.accounts`, however the `~name` was spelt), or that names one in its text,
is never kept. An entry is JSON, never pickled, checked field by field on reading
(`kept_lines.decoded`); anything else is a miss, and the line is analysed again.
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Any

from policy import _json_bytes
from policy._hashes import sha256
from policy._trusted_store import code_stamps, package_stamps, read_entry, write_entry
from policy._version import __version__
from policy.analysis.kept_lines import decoded, encoded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from policy.analysis.effects import Line

__all__ = ["KeptLines"]

#: The entry format: an entry written by another format is never read.
FORMAT = 1
#: Entries kept in the directory: past `KEEP + SLACK` (each write counts the names), the
#: oldest are removed down to `KEEP` (which looks at each one's age: ≈ 1.5 ms).
KEEP = 256
SLACK = 64
#: hookpolicy's modules (relative to policy/) the lexical analysis runs besides those
#: of policy/analysis/ (tests/test_structure.py holds the analysis to this list).
OTHER_SOURCES = ("_lazy_dataclass.py", "_named_tuple.py", "errors.py", "_version.py")
#: Libraries whose files decide the parse.
_PACKAGES = ("tree_sitter", "tree_sitter_bash")
#: The environment variables the lexical analysis reads, whose values are in the key
#: (tests/test_kept_lines.py holds policy/analysis/ to these).
ENVIRONMENT = ("HOME", "RIPGREP_CONFIG_PATH")
_POLICY_DIR = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))


class KeptLines:
    """Lines' lexical facts under `directory` (policy.analysis.kept_lines.LineStore)."""

    __slots__ = ("_directory", "_salt")

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self._directory = os.fspath(directory)
        self._salt: bytes | None = None

    def get(self, command: str, cwd: str, home: str) -> Line | None:
        """The lexical facts kept for this line, or None (a miss, for any reason)."""
        if _names_a_home_beyond(command):
            return None
        try:
            key = self._key(command, cwd, home)
            body = read_entry(self._directory, "line-" + key.hex())
            if body is None or body[: len(key)] != key:
                return None
            return decoded(_json_bytes.loads(body[len(key) :]))
        except Exception:  # noqa: BLE001 - a miss: the line is analysed, as without a store
            return None

    def keep(self, command: str, cwd: str, home: str, line: Line) -> None:
        """Keep `line`, the lexical facts of this line; a failure only means the next
        process analyses it again. A line whose facts asked the account database is
        not kept, whoever asks (policy.analysis.effects does not)."""
        if line.accounts or _names_a_home_beyond(command):
            return
        try:
            key = self._key(command, cwd, home)
            body = key + _json_bytes.dumps(encoded(line))
            write_entry(self._directory, "line-" + key.hex(), body, keep=KEEP, slack=SLACK)
        except Exception:  # noqa: BLE001 - unkept (a lone surrogate orjson refuses, ...):
            return  # the call was analysed, and is decided on what the analysis said

    def _key(self, command: str, cwd: str, home: str) -> bytes:
        salt = self._salt
        if salt is None:
            salt = self._salt = _salt()
        digest = sha256(salt)
        # (JSON: no line, directory, home or variable's value can spell another's)
        environment = [os.environ.get(name) for name in ENVIRONMENT]
        digest.update(_json_bytes.dumps([command, cwd, home, environment]))
        return digest.digest()


def _names_a_home_beyond(command: str) -> bool:
    """Whether `command` holds `~` followed by anything but a slash, a blank, a quote or
    its end (`~name`, `~+`, `~-`): a place the account database or the shell's state
    says, which no key holds. Such a line is analysed at every start, never kept — as
    the packs' recalled answers never stand for a `~name` path (decision 0020)."""
    at = command.find("~")
    while at >= 0:
        after = command[at + 1 : at + 2]
        if after and after not in "/'\" \t\n":  # (bash's blanks; anything else: kept out)
            return True
        at = command.find("~", at + 1)
    return False


def _salt() -> bytes:
    """A digest of the code a line's lexical facts depend on (OSError when it cannot be
    told: then nothing is read or kept)."""
    return analysis_salt(FORMAT, _PACKAGES)


def analysis_salt(entry_format: int, packages: tuple[str, ...]) -> bytes:
    """A digest of the code what the analysis worked out depends on: an entry's format,
    hookpolicy's version, Python's, the analysis's modules (`analysis_sources`) and
    `packages`' files (OSError when it cannot be told)."""
    header = [
        entry_format,
        __version__,
        sys.implementation.cache_tag,
        sys.version,
        _analysis_stamps(),
        [package_stamps(name) for name in packages],
    ]
    return sha256(_json_bytes.dumps(header)).digest()


@functools.cache
def _analysis_stamps() -> list[Any]:
    """The analysis's modules' stamps, as this process first read them (the lines' and
    the glob indexes' salts both hold them: one walk a process, not one each)."""
    return code_stamps(analysis_sources())


def analysis_sources() -> list[str]:
    """The modules (relative to policy/) whose code the lexical facts depend on: every
    module of policy/analysis/ and `OTHER_SOURCES`."""
    sources = list(OTHER_SOURCES)
    for folder, subfolders, names in os.walk(os.path.join(_POLICY_DIR, "analysis")):
        subfolders.sort()
        below = os.path.relpath(folder, _POLICY_DIR)
        sources += [os.path.join(below, name) for name in sorted(names) if name.endswith(".py")]
    return sources
