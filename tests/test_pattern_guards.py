"""Checks that stand before a pattern answer as the pattern does.

Every command a line runs has its name, options and words asked whether they are an
interpreter with a version, a loader, an option that takes a command, a package fetched
from a remote, an assignment; every argument's name whether it names a secret; every
log's last line for its hash. A one-event hook asks each once and compiling each pattern
costs more than its one search (0.1 to 0.3 ms), so each is asked behind a check of what
every match must hold (a prefix, a character, a word) or is sliced rather than searched.
Each check here is held to its pattern, on the spellings that matter and on random text.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator

import pytest

from policy import audit, audit_chain
from policy.analysis import paths, programs
from policy.analysis.shell import wrappers

#: Letters a case-insensitive pattern folds specially: the long s and the Kelvin sign
#: match `s` and `k`, the dotless and dotted i are near `i`; with text outside ASCII.
_ODD = "\u017f\u212a\u0131\u0130\u00e9\u00df\u212b"
_ALPHABET = "abcdehiklmnoprstuwxyzAEHKOPST0123456789-_.=:/+@ ~*?[" + _ODD


def _random_texts(seed: int, count: int, longest: int = 24) -> Iterator[str]:
    chosen = random.Random(seed)
    for _ in range(count):
        yield "".join(chosen.choice(_ALPHABET) for _ in range(chosen.randint(0, longest)))


def _spellings(words: tuple[str, ...]) -> Iterator[str]:
    """Each word as options, names and values are spelt, in every case and with the
    letters a case-insensitive match folds."""
    for word in words:
        for spelt in (word, word.upper(), word.title(), word.replace("s", "\u017f"), word.replace("k", "\u212a")):
            for around in ("{}", "-{}", "--{}", "--x-{}", "--{}-x", "{}=v", "x{}", "{}3", "{}-3.11"):
                yield around.format(spelt)


def test_a_secret_argument_name_is_told_as_the_pattern_tells_it() -> None:
    pattern = re.compile(audit._SECRET_KEY.pattern)
    names = [
        *("command", "file_path", "content", "url", "description", "timeout", "pattern"),
        *_spellings(("password", "passwd", "secret", "token", "api_key", "api-key", "apikey")),
        *_spellings(("access_key", "private-key", "credential", "authorization", "cookie")),
        *_spellings(("session_key", "sessionkey", "key", "pass", "word")),
        *_random_texts(1, 20_000),
    ]
    for name in names:
        assert audit.secret_name(name) == (pattern.search(name) is not None), name


_SEALED = b'{"ts":"x","prev":"' + b"0" * 64 + b'","hash":"' + b"ab12" * 16 + b'"}'


def _lines() -> Iterator[bytes]:
    yield _SEALED
    yield _SEALED + b"\n"
    yield _SEALED + b"\n\n"
    yield _SEALED + b" "
    yield _SEALED[:-1]
    yield _SEALED.replace(b"ab12", b"AB12")
    yield _SEALED.replace(b'"hash":"ab12', b'"hash":"ab1')
    yield _SEALED.replace(b'"hash":"ab12', b'"hash":"ab122')
    yield _SEALED.replace(b',"hash"', b' ,"hash"')
    yield _SEALED.replace(b',"hash"', b'"hash"')
    yield b',"hash":"' + b"f" * 64 + b'"}'
    yield b'"hash":"' + b"f" * 64 + b'"}'
    yield b""
    chosen = random.Random(2)
    for _ in range(20_000):
        line = bytearray(_SEALED + (b"\n" if chosen.random() < 0.3 else b""))
        for _ in range(chosen.randint(1, 3)):  # a byte changed, dropped or added
            at = chosen.randrange(len(line) - 80, len(line))
            what = chosen.random()
            if what < 0.4:
                line[at] = chosen.choice(b'0af9AFgz",:}{\n ')
            elif what < 0.7:
                del line[at]
            else:
                line.insert(at, chosen.choice(b'0af9"}\n'))
        yield bytes(line)


#: How a sealed record ends, as a pattern: what the verifier searched every line with.
_SEAL_PATTERN = re.compile(rb',"hash":"([0-9a-f]{64})"\}$')


def test_a_sealed_lines_hash_is_read_as_the_verifier_reads_it() -> None:
    for line in _lines():
        found = _SEAL_PATTERN.search(line)
        expected = (found.start(), found[1].decode()) if found else None
        assert audit_chain.sealed_hash(line) == expected, line


def test_an_option_that_runs_a_command_is_told_as_the_pattern_tells_it() -> None:
    pattern = programs._COMMAND_OPTION.compiled
    options = [
        # (every alternative of the pattern, spelt out here rather than read from the
        # guard's own list, which is what is tested)
        *_spellings(("exec", "execute", "command", "cmd", "hook", "shell", "script", "run")),
        *_spellings(("program", "pager", "editor", "rsh", "proxycommand", "proxy-command")),
        *_spellings(("wrapper", "sh-exec", "conf-script", "askpass", "helper", "on-exit")),
        *_spellings(("shell-escape", "password-command", "conf-script", "la", "l", "v")),
        *("-", "--", "-x", "--on-", "--on-x-y", "--EXEC", "--ExEc", "--run=x"),
        *("-" + text for text in _random_texts(3, 20_000)),
        *_random_texts(4, 5_000),
    ]
    for option in options:
        assert programs._command_option(option) == (pattern.match(option) is not None), option


def test_an_interpreter_with_a_version_is_told_as_the_pattern_tells_it() -> None:
    pattern = programs._VERSIONED.compiled
    names = [
        *(name + version for name in programs._VERSIONED_NAMES for version in ("", "3", "-3.11", "3.", "x3")),
        *("python", "python3.12", "pypy3", "lua5.4", "ls", "pip3", "mkfs.ext4", "ld.so", "xpython3"),
        *_random_texts(5, 20_000, longest=12),
    ]
    for name in names:
        found, guarded_match = pattern.match(name), programs._versioned(name)
        assert (guarded_match and guarded_match[0]) == (found and found[0]), name
        guarded = [family for starts, p, family in programs._FAMILIES if name.startswith(starts) and p.match(name)]
        unguarded = [family for _, p, family in programs._FAMILIES if p.compiled.match(name)]
        assert guarded[:1] == unguarded[:1], name


def test_a_package_named_by_where_it_is_fetched_from_is_told_as_the_pattern_tells_it() -> None:
    pattern = wrappers.REMOTE_SPEC.compiled
    texts = [
        *("git+https://x/y", "https://x", "github:a/b", "gist:1", "pkg @ https://x", "pkg@ http:"),
        *("requests", "a:b", "git+", "git", "file:///x", "@x", "x @https:"),
        *_random_texts(6, 20_000),
    ]
    for text in texts:
        assert wrappers.remote_spec(text) == (pattern.search(text) is not None), text


@pytest.mark.parametrize("pattern", [wrappers._ASSIGNMENT, wrappers._ENV_ASSIGNMENT])
def test_leading_assignments_are_counted_as_the_pattern_counts_them(pattern: object) -> None:
    compiled = pattern.compiled  # type: ignore[attr-defined]
    words = ["A=1", "_x=", "a-b=1", "=x", "/x=1", "cmd", "x=", "a b=1", *_random_texts(7, 5_000, 8)]
    chosen = random.Random(8)
    for _ in range(5_000):
        line = chosen.sample(words, 4)
        expected = 0
        for word in line:
            if not compiled.match(word):
                break
            expected += 1
        assert wrappers._leading(line, pattern) == expected, line  # type: ignore[arg-type]


def test_paths_in_an_options_value_are_found_only_where_one_can_be() -> None:
    for value in ("Include /etc/x", "@~/.ssh/id", "file:///x", "name", "a,b", "~", *_random_texts(9, 5_000)):
        if "/" not in value and "~" not in value:
            assert programs._MENTIONED.compiled.search(value) is None, value


def test_a_pattern_path_is_told_by_the_characters_of_a_glob() -> None:
    wild = re.compile(paths._WILD.pattern)
    for path in ("/etc/sh*", "/x/?", "/x/[ab]", "/x/y", "/x/**", *_random_texts(10, 5_000)):
        assert paths.is_pattern(path) == (wild.search(paths._known(path)) is not None), path
