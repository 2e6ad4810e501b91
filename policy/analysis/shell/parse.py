"""tree-sitter-bash parsing of one script, charged to the caps: a parser per thread,
the parse steps counted while tree-sitter works and the shapes it parses slower than
its callbacks show charged before, the rewrites that undo its misreadings of bash
(`{rm,-rf,/}` in command position, backquotes that follow one another or nest), and
how a parse error is reported.
"""

from __future__ import annotations

import contextlib
import re
import threading
from typing import Any

from policy.analysis._lazy_re import lazy_bytes
from policy.analysis.shell.limits import (
    _BACKQUOTE_COST,
    _CALLBACK_COST,
    _CHUNK,
    _CLOSER_COST,
    _ERROR_COST,
    _EXPANSION_COST,
    _PIPE_COST,
    MAX_PARSE_STEPS,
    MAX_PIPES,
    _Meter,
    _TooComplex,
)

# (compiled on first use: most lines hold no `{`, no long pipeline and no
# here-document, and a one-event hook need not compile what it never searches)

# A `{` where a word starts: bash reads `{rm,-rf,/}` as a word, tree-sitter as a group.
_BRACE_WORD = lazy_bytes(rb"(?<![^\s;&|()`!])\{(?=[^\s}])")

# An operator that starts a here-document (not a here-string).
_HEREDOC_OPERATOR = lazy_bytes(rb"(?<!<)<<(?!<)")
_PIPE = lazy_bytes(rb"(?<!\|)\|(?!\|)")  # `|` and `|&`, not `||`
_MAX_HEREDOC_COST = 50_000_000  # sum over lines of (expansions on the line) squared
_MAX_REWRITES = 4096  # places one rewrite of the source may change

_local = threading.local()


def _parser() -> Any:
    """One tree-sitter parser per thread (parsers are not thread-safe); imported lazily."""
    parser = getattr(_local, "parser", None)
    if parser is None:
        import tree_sitter

        parser = tree_sitter.Parser(tree_sitter.Language(_bash_language()))
        _local.parser = parser
    return parser


def _chunk() -> bytearray:
    """The buffer `_parse_once`'s reads answer with, one per thread (`read`, below)."""
    chunk: bytearray | None = getattr(_local, "chunk", None)
    if chunk is None:
        chunk = _local.chunk = bytearray()
    return chunk


def _bash_language() -> Any:
    """tree-sitter-bash's grammar, from its extension module alone when it can be found:
    the package's `__init__` imports importlib.resources for a query file this never
    reads (with tempfile, shutil, bz2, lzma, random: ≈ 6 ms of a one-event hook's start).
    Anything unexpected takes the package's own way in."""
    import importlib.machinery
    import importlib.util

    with contextlib.suppress(ImportError, AttributeError, ValueError, OSError):
        package = importlib.util.find_spec("tree_sitter_bash")  # found, not run
        places = package.submodule_search_locations if package is not None else None
        spec = importlib.machinery.PathFinder.find_spec("_binding", list(places or []))
        if spec is not None and isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            spec.name = "tree_sitter_bash._binding"
            binding = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(binding)
            return binding.language()
    import tree_sitter_bash  # the package's own way in

    return tree_sitter_bash.language()


def _parse(source: bytes, walker: _Meter, nested: bool) -> tuple[Any, bytes]:
    """The syntax tree of `source`, with two misreadings of tree-sitter-bash undone by
    rewriting the source into an equivalent that it reads as bash does, then parsing
    again: a `{` that starts a word taken for a group (`{rm,-rf,/}`), and backquotes
    (`` `a` `b` `` read as one substitution, `` `a \\`b\\`` `` with b unseen).
    Returns the tree and the source it was parsed from. The parse steps are charged
    to `walker`; `nested`: a script inside the line (`bash -c`, `eval`, `$(...)`)."""
    if source.count(b"|") > MAX_PIPES and len(_PIPE().findall(source)) > MAX_PIPES:
        # No progress callback fires while tree-sitter recovers from an error in a
        # long pipeline, and that recovery is quadratic in the pipeline's length.
        raise _TooComplex("analysis.max_pipes", f"more than {MAX_PIPES} pipes in one script")
    if source.count(b"$") ** 2 > _MAX_HEREDOC_COST and _HEREDOC_OPERATOR().search(source):
        # tree-sitter-bash reads a here-document line in time quadratic in its expansions.
        cost = sum(line.count(b"$") ** 2 for line in source.split(b"\n"))
        if cost > _MAX_HEREDOC_COST:
            raise _TooComplex(
                "analysis.max_parse_steps", "a here-document line with too many expansions"
            )
    tree = _parse_once(source, walker, nested)
    for fix in (_brace_edits, _backquote_edits):
        if fix is _backquote_edits and source.count(b"`") >= 3:
            # rewritten in Python, byte by byte: charged before it is done
            walker.parse_work(source.count(b"`") + len(source) // 16)
        edits = fix(tree.root_node, source)
        if edits:
            pieces: list[bytes] = []
            last = 0
            for start, end, replacement in edits:
                pieces += (source[last:start], replacement)
                last = end
            pieces.append(source[last:])
            source = b"".join(pieces)
            tree = _parse_once(source, walker, nested)
    return tree, source


def _shape_cost(source: bytes, nested: bool) -> int:
    """Parse steps charged before `source` is parsed, for the shapes on which one
    tree-sitter-bash operation costs far more than others, in a way its progress
    callbacks do not show: backquotes (a line of many backquoted substitutions is
    reduced again and again: quadratic in them), `)` that close nothing (each costs
    more than the last: quadratic), `${` (an expansion costs dozens of times an
    ordinary token), and, in a nested script (which an expansion may hand to
    a shell again and again), a long pipeline that ends in an error (recovered from
    in one step, quadratic in its length; `MAX_PIPES` bounds it in the line itself).
    What a quoted here-document holds is counted too, so the quadratic terms are
    counted per line, where a here-document's text is spread."""
    cost = source.count(b"${") * _EXPANSION_COST
    closers = source.count(b")") - source.count(b"(")
    if closers > 0:
        cost += closers * closers // _CLOSER_COST
    if source.count(b"`") > 1:
        cost += sum(line.count(b"`") ** 2 for line in source.split(b"\n")) // _BACKQUOTE_COST
    if nested and source.count(b"|") > 32:
        pipes = len(_PIPE().findall(source))
        cost += pipes * pipes // _PIPE_COST
    return cost


def _parse_once(source: bytes, walker: _Meter, nested: bool) -> Any:
    """Parse `source`, charging `walker` a parse step per `_CHUNK` bytes tree-sitter
    reads (its lexer reads some shapes again and again: `x=(x=(...`, here-document
    lines full of `$(`), `_CALLBACK_COST` per progress callback (one every 100 parser
    operations) — more once the parse has met an error, as tree-sitter's error
    recovery costs more the further it is into the source — and the cost of its
    shape (`_shape_cost`); cut at `MAX_PARSE_STEPS`. Deterministic: tree-sitter does
    the same work on the same source on any machine."""
    walker.parse_work(_shape_cost(source, nested))
    parser = _parser()
    chunk = _chunk()
    over = False

    def read(offset: int, _point: Any) -> bytearray:
        nonlocal over
        walker.parse_steps += 1
        if walker.parse_steps > MAX_PARSE_STEPS:
            over = True
            chunk.clear()  # (an exception raised here does not come back out of parse)
            return chunk
        # py-tree-sitter (0.25 to 0.26) keeps a reference to every object this returns
        # and never drops it: a new slice a read would keep every chunk of every line
        # alive for good (1.1 times the bytes parsed, a leak per line). The binding has
        # let go of its view of the last answer before it asks again, so one buffer a
        # thread, refilled, is all it ever holds (tests/test_analysis_memory.py).
        chunk[:] = source[offset : offset + _CHUNK]
        return chunk

    def progress(offset: int, has_error: bool) -> bool:
        walker.parse_steps += _CALLBACK_COST + (offset // _ERROR_COST if has_error else 0)
        return over or walker.parse_steps > MAX_PARSE_STEPS or walker.late()

    # The nodes of a tree parsed from `read` read their text through it, so the
    # walker slices its own copy of the source instead (`_Walker.text`).
    try:
        tree = parser.parse(read, progress_callback=progress)
    except ValueError:  # cancelled by `progress`
        parser.reset()
        tree = None
    if over or walker.parse_steps > MAX_PARSE_STEPS:
        raise _TooComplex(
            "analysis.max_parse_steps", f"parsing took more than {MAX_PARSE_STEPS} steps"
        )
    if tree is None:
        raise walker.backstop()
    return tree


def _brace_edits(root: Any, source: bytes) -> list[tuple[int, int, bytes]]:
    """`""` before a `{` that starts a word but that tree-sitter takes for a group's
    (bash requires a blank after a group's `{`); bash expands `""` to nothing."""
    if b"{" not in source:
        return []
    edits: list[tuple[int, int, bytes]] = []
    for count, match in enumerate(_BRACE_WORD().finditer(source)):
        if count >= _MAX_REWRITES:
            break
        token = root.descendant_for_byte_range(match.start(), match.start() + 1)
        if token is not None and token.type == "{" and not token.is_named:
            edits.append((match.start(), match.start(), b'""'))
    return edits


def _backquote_edits(root: Any, source: bytes) -> list[tuple[int, int, bytes]]:
    """`$(...)` for a backquoted substitution that holds another backquote: bash ends
    one at the first unescaped backquote and runs `\\`...\\`` inside as a nested one."""
    if source.count(b"`") < 3:
        return []
    edits: list[tuple[int, int, bytes]] = []
    stack = [root]
    while stack and len(edits) < _MAX_REWRITES:
        node = stack.pop()
        if node.type == "command_substitution":
            start, end = node.start_byte, node.end_byte
            if source[start : start + 1] == b"`" and b"`" in source[start + 1 : end - 1]:
                edits.append((start, end, _dollar_parens(source[start:end])))
                continue
        stack.extend(node.children)
    return sorted(edits)


def _dollar_parens(text: bytes) -> bytes:
    """`` `a` `b \\`c\\`` `` -> `$(a) $(b $(c))`, the way bash pairs backquotes."""
    out = bytearray()
    index, size = 0, len(text)
    opened = -1
    while index < size:
        char = text[index]
        if char == 0x5C:  # a backslash quotes the next byte
            if opened < 0:
                out += text[index : index + 2]
            index += 2
            continue
        if char == 0x60:
            if opened < 0:
                opened = index + 1
            else:
                inner = re.sub(rb"\\([$`\\])", rb"\1", text[opened:index])
                out += b"$(" + _dollar_parens(inner) + b"\n)"
                opened = -1
        elif opened < 0:
            out.append(char)
        index += 1
    if opened >= 0:
        out += text[opened - 1 :]
    return bytes(out)


def _describe_error(root: Any, bodies: list[tuple[int, int]], source: bytes) -> str:
    """The first ERROR or MISSING node, as "what at line:col"; "" when every one lies
    inside a here-document body (those are parsed apart)."""
    stack = [root]
    skipped = False
    while stack:
        node = stack.pop()
        if node.is_missing or node.type == "ERROR":
            start, end = node.start_byte, node.end_byte
            if any(low <= start and end <= high for low, high in bodies):
                skipped = True
                continue
            row, col = node.start_point
            if node.is_missing:
                return f"missing {node.type!r} at {row + 1}:{col + 1}"
            snippet = source[start : min(end, start + 80)].decode("utf-8", "surrogateescape")[:20]
            return f"cannot parse {snippet!r} at {row + 1}:{col + 1}"
        if node.has_error:
            stack.extend(reversed(node.children))
    return "" if skipped else "cannot parse the command"
