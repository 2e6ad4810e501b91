"""The walk of a syntax tree into the simple commands bash would run (`_Walker`):
statements, pipelines, redirects and here-documents, assignments and variables,
loops and functions, `cd`, and the nested scripts (`bash -c`, `eval`, `$(...)`,
`find -exec`) walked again; every step charged to the caps (policy.analysis.shell.limits).
What it knows of words is in words.py, of programs in wrappers.py, of tree-sitter in
parse.py.
"""

from __future__ import annotations

import re
import time
from typing import Any

from policy import _lazy_dataclass
from policy._named_tuple import NamedTuple
from policy.analysis import paths as _paths
from policy.analysis._lazy_re import LazyPattern
from policy.analysis.shell.limits import (
    BACKSTOP_S,
    MAX_COMMANDS,
    MAX_DEPTH,
    MAX_NESTING,
    MAX_PARSE_STEPS,
    MAX_STEPS,
    MAX_TOTAL_BYTES,
    MAX_WORD_BYTES,
    MAX_WORDS,
    _too_deep,
    _too_many_words,
    _TooComplex,
)
from policy.analysis.shell.parse import _describe_error, _parse
from policy.analysis.shell.result import SimpleCommand
from policy.analysis.shell.words import (
    _ANY_VARIABLE,
    _CASES,
    _DEFAULT_IFS,
    _GLOB,
    _IDENTIFIER,
    _INTEGER,
    _MAX_TRIMMED,
    _PATTERN_SPECIAL,
    _REFERENCE,
    _SUBSTITUTE,
    _UNKNOWN,
    _add,
    _ansi_c,
    _Array,
    _double_quoted,
    _expand_braces,
    _split_fields,
    _substring,
    _template,
    _trim,
    _unescape,
    _unescape_double,
    _unescape_heredoc,
    _Unknown,
    _Word,
)
from policy.analysis.shell.wrappers import (
    _FD_TOKEN,
    _FD_VALUE_OPTIONS,
    _FIND_EXEC,
    _MAX_WRAPPERS,
    _PARALLEL_OPTION_ARGS,
    _PARALLEL_TOKEN,
    _SHELLS,
    _STDIN_FILES,
    _STRING_RUNNERS,
    _SU,
    _getopt,
    _joined,
    _program_name,
    _string_script,
    _su_script,
    _unwrap,
    acting_variable,
    find_found,
    shell_script_at,
)

_SUBSTITUTIONS = frozenset({"command_substitution", "process_substitution"})
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_DECLARATIONS = frozenset({"declaration_command", "unset_command"})

#: Nodes whose operands bash evaluates as arithmetic (`(( ))` is a compound statement).
_ARITHMETIC = frozenset({"test_command", "arithmetic_expansion", "subscript"})
_QUOTED_KINDS = frozenset({"raw_string", "string"})

_DYNAMIC_KINDS = frozenset(
    {"simple_expansion", "expansion", "command_substitution", "process_substitution"}
)
#: Words whose value is their text (unquoted, unescaped as their kind says).
_LITERAL_KINDS = frozenset(
    {
        "word",
        "number",
        "variable_name",
        "file_descriptor",
        "raw_string",
        "ansi_c_string",
        "string_content",
        "heredoc_content",
    }
)

#: Builtins that set the variables they name.
_SETTERS = frozenset("read printf let mapfile readarray getopts".split())
#: Builtins that evaluate an array subscript they are handed as text.
_SUBSCRIPT_EVALUATORS = frozenset(
    "test [ [[ printf unset let declare typeset local export readonly read mapfile "
    "readarray wait getopts".split()
)

_DIRECTORY_CHANGERS = frozenset({"cd", "pushd", "popd"})

_MAX_LOOP_VALUES = 8  # a `for` loop over more known words is walked once, its variable unknown

# An expansion a here-document performs: an unescaped `$` that starts one, or a backtick.
_HEREDOC_EXPANSION = LazyPattern(r"(?:^|[^\\])(?:\\\\)*(?:\$[({A-Za-z0-9_@*#?$!-]|`)")


class _Redirect(NamedTuple):
    text: str  # as reported: `>out`, `2>&1`, `<<EOF`, `<<<text`
    stdin: bool  # replaces standard input
    script: str | None  # the text it feeds to standard input, when known
    dynamic: bool  # its target (a file) comes from an expansion
    expands: bool = False  # the text it feeds comes partly from expansions
    #: The text it feeds is known as the shell would feed it (a here-string's
    #: expansions included, without its final newline; a here-document's body).
    known: bool = False


class _Walker:
    def __init__(self, cwd: str = "", home: str = "") -> None:
        self.found: list[SimpleCommand] = []
        self.error = ""
        self.substitution = False
        # What the caps count (module constants MAX_*): the work done so far, in walk
        # steps and parse steps, the bytes of words built, the words found.
        self.steps = 0
        self.parse_steps = 0
        self.total_bytes = 0
        self.words = 0
        self.next_clock = 1024  # the step count at which the backstop is next looked at
        self.deadline = time.monotonic() + BACKSTOP_S
        self.variables: dict[str, str | None] = {}
        #: Variables whose value the context gives (`$HOME`, `$PWD`): expanding them
        #: is not "dynamic", they say nothing the caller does not know.
        self.given: set[str] = set()
        #: `$1`... of the script being walked (`sh -c '...' NAME ARGS`), when known.
        self.positional: list[str] | None = None
        #: The bodies of the functions the line defines, to walk again with the
        #: arguments of a call (`f() { cat ~/"$1"; }; f .aws/credentials`).
        self.functions: dict[str, str] = {}
        self.home = home
        self.cwd: str | None = _normal_dir(cwd) if cwd.startswith("/") else ""
        self.oldpwd: str | None = None
        self.dirs: list[str | None] = []  # pushd's stack
        if home:
            self.variables["HOME"] = home
            self.given.add("HOME")
        if self.cwd:
            self.variables["PWD"] = self.cwd
            self.given.add("PWD")
        if home or self.cwd:
            # the temporary directory, as most systems set it (macOS's per-user one is
            # scratch space just the same)
            self.variables["TMPDIR"] = "/tmp"
            self.given.add("TMPDIR")
        #: Line-level assignments of variables that change what later commands run.
        self.acting: dict[str, str] = {}
        #: Attributes variables were declared with that change what they hold
        #: (`declare -l`, `-u`, `-i`), associative arrays (`declare -A`), and name
        #: references (`declare -n`: assigning one may change any variable).
        self.attributes: dict[str, str] = {}
        self.assoc: set[str] = set()
        self.refs: set[str] = set()
        self.pipe: tuple[int, int] = (0, 0)
        self.pipes = 0
        #: Variables expanded by the command whose words are being read.
        self.expanded: list[str] = []
        self.function = ""
        self.parent = -1
        self.level = 0  # words and bodies being walked inside one another
        #: byte ranges of the here-document bodies of the script being walked, which
        #: are parsed apart: tree-sitter's errors inside them do not count
        self.bodies: list[tuple[int, int]] = []
        self.source = b""  # of the tree being walked

    def text(self, node: Any) -> str:
        return self.source[node.start_byte : node.end_byte].decode("utf-8", "surrogateescape")

    # -- the caps

    def step(self, units: int = 1) -> None:
        """Charge `units` of work: a node visited, a word expanded, a loop round, a
        word made by brace expansion, a look over the commands found..."""
        self.steps += units
        if self.steps > MAX_STEPS:
            raise _TooComplex("analysis.max_steps", f"more than {MAX_STEPS} steps of analysis")
        if self.steps >= self.next_clock:
            self.next_clock = self.steps + 1024
            if self.late():
                raise self.backstop()

    def nest(self) -> None:
        """One level deeper in words inside words and bodies inside bodies."""
        self.level += 1
        if self.level > MAX_NESTING:
            raise _TooComplex(
                "analysis.max_nesting", f"words and bodies nested deeper than {MAX_NESTING}"
            )

    def parse_work(self, units: int) -> None:
        """Charge `units` of parse steps for work done on a script's source outside
        tree-sitter (before it is done)."""
        self.parse_steps += units
        if self.parse_steps > MAX_PARSE_STEPS:
            raise _TooComplex(
                "analysis.max_parse_steps", f"parsing took more than {MAX_PARSE_STEPS} steps"
            )

    def late(self) -> bool:
        return time.monotonic() > self.deadline

    def backstop(self) -> _TooComplex:
        return _TooComplex("analysis.max_seconds", f"took longer than {BACKSTOP_S:g} s")

    def built(self, size: int) -> None:
        """Charge the bytes of a word, value or here-document the walk copies or
        builds (each time: a loop or a function walks its body again)."""
        self.total_bytes += size
        if self.total_bytes > MAX_TOTAL_BYTES:
            raise _TooComplex(
                "analysis.max_total_bytes", f"words of more than {MAX_TOTAL_BYTES} bytes in all"
            )

    def expanded_word(self, size: int) -> None:
        """Refuse a word into which expansions put more than `MAX_WORD_BYTES` (checked
        before it is built)."""
        if size > MAX_WORD_BYTES:
            raise _TooComplex(
                "analysis.max_word_bytes", f"expanded word larger than {MAX_WORD_BYTES} bytes"
            )

    def delivered(self, size: int) -> None:
        """An expansion puts `size` bytes into a word."""
        self.expanded_word(size)
        self.built(size)

    def replaced(self, word: str, old: str, new: str) -> str:
        """`word.replace(old, new)`, charged (and refused past the caps) before it is built."""
        count = word.count(old) if old else 0
        if not count:
            return word if type(word) is str else str(word)
        self.delivered(len(word) + count * (len(new) - len(old)))
        return word.replace(old, new)

    def substituted(self, pattern: re.Pattern[str] | LazyPattern, new: str, word: str) -> str:
        """`pattern.sub(new, word)` (`new` taken literally), charged before it is built."""
        count = sum(1 for _ in pattern.finditer(word))
        if not count:
            return word if type(word) is str else str(word)
        self.delivered(len(word) + count * len(new))
        return pattern.sub(lambda _: new, word)

    # -- scripts and statements

    def script(self, source: bytes, depth: int, via: str) -> None:
        if depth > MAX_DEPTH:
            raise _too_deep("scripts")
        tree, parsed = _parse(source, self, depth > 0)
        root = tree.root_node
        outer = self.bodies, self.source
        self.bodies, self.source = [], parsed
        try:
            self.walk(root, depth, via, ())
        finally:
            if root.has_error and not self.error:
                self.error = _describe_error(root, self.bodies, self.source)
            self.bodies, self.source = outer

    def walk(self, node: Any, depth: int, via: str, redirects: tuple[_Redirect, ...]) -> None:
        """Visit `node` and its statements in source order, without recursion in Python
        for plain nesting (a 10,000-deep `$(` must not exhaust the stack). `redirects`
        apply to every command inside (`{ a; b; } > out`)."""
        # (node, via, redirects, redirects for the last command of a list only, pipe)
        stack: list[tuple[Any, str, tuple[_Redirect, ...], bool, tuple[int, int]]] = [
            (node, via, redirects, False, self.pipe)
        ]
        outer_pipe = self.pipe
        # A loop, a function or a word walks its body with a call of its own: the
        # nesting is bounded, with words inside words, by MAX_NESTING (long before
        # Python's own recursion limit, so the answer does not depend on the caller).
        self.nest()
        try:
            self._walk(stack, depth)
        finally:
            self.pipe = outer_pipe
            self.level -= 1

    def _walk(
        self,
        stack: list[tuple[Any, str, tuple[_Redirect, ...], bool, tuple[int, int]]],
        depth: int,
    ) -> None:
        while stack:
            current, where, pending, last_only, pipe = stack.pop()
            self.pipe = pipe
            self.step()
            kind = current.type
            if kind == "function_definition":
                self.define(current, depth, where, pending)
                continue
            if kind == "pipeline":
                self.pipes += 1
                number = self.pipes
                stage = 0
                staged: list[tuple[Any, tuple[int, int]]] = []
                for child in current.children:
                    if child.type in ("|", "|&"):
                        stage += 1
                        continue
                    staged.append((child, (number, stage)))
                last = len(staged) - 1
                for index in range(last, -1, -1):
                    child, position = staged[index]
                    mine = last_only and index == last
                    given = pending if (mine or not last_only) else ()
                    stack.append((child, where, given, mine, position))
                continue
            if kind == "command":
                self.command(current, depth, where, pending, ())
                continue
            if kind == "variable_assignment":
                self.assign(current, depth, where)
                continue
            if kind in _DECLARATIONS:
                self.declaration(current, depth, where, pending)
                continue
            if kind == "redirected_statement":
                self.redirected(current, depth, where, pending, stack, pipe)
                continue
            if kind == "file_redirect":
                # `$(<file)`: bash's shorthand for `$(cat file)`
                found, _, after = self.redirect(current, depth, where)
                self.emit([], (*pending, *found), any(r.dynamic for r in found), depth, where)
                for statement in after:
                    self.walk(statement, depth, where, ())
                continue
            if kind == "for_statement":
                self.loop(current, depth, where, pending)
                continue
            if kind in _SUBSTITUTIONS:
                self.substitution = True
                where = "<()" if kind == "process_substitution" else "$()"
            if kind in _ARITHMETIC or (
                kind == "compound_statement"
                and current.children[:1]
                and current.children[0].type == "(("
            ):
                self.arithmetic(current, depth)
            children = current.children
            if not children:
                continue
            if last_only and kind == "list":
                # tree-sitter hangs `a && b > out` on the list; bash on `b` alone.
                last = len(children) - 1
                for index in range(last, -1, -1):
                    mine = index == last
                    stack.append((children[index], where, pending if mine else (), mine, pipe))
            else:
                for index in range(len(children) - 1, -1, -1):
                    stack.append((children[index], where, pending, False, pipe))

    def loop(self, node: Any, depth: int, via: str, pending: tuple[_Redirect, ...]) -> None:
        """`for X in WORDS; do BODY; done`: the body is walked once per word (up to
        `_MAX_LOOP_VALUES` known words), with `$X` that word; otherwise once, with
        `$X` unknown."""
        variable = node.child_by_field_name("variable")
        name = self.text(variable) if variable is not None else ""
        values: list[str] = []
        known = True
        rest: list[Any] = []
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            if field_name == "value":
                word = self.word(child, depth, via)
                if word.values is None:
                    known = False
                else:
                    values.extend(word.values)
            elif field_name == "body" or (child.is_named and field_name != "variable"):
                rest.append(child)
        values = _expand_braces(values, self)
        rounds: list[str | None] = (
            list(values) if known and 0 < len(values) <= _MAX_LOOP_VALUES else [None]
        )
        for value in rounds:
            self.step()
            if name:
                self.variables[name] = value
                self.given.discard(name)
            for child in rest:
                self.walk(child, depth, via, pending)

    def define(self, node: Any, depth: int, via: str, pending: tuple[_Redirect, ...]) -> None:
        """`f() { ...; }`: its body is code, walked here (where it is defined: a call of
        `f` runs the same commands) with the commands marked as the function's, so a
        function that calls itself can be seen."""
        name_node = node.child_by_field_name("name")
        name = self.text(name_node) if name_node is not None else ""
        if depth + 1 > MAX_DEPTH:
            raise _too_deep("functions")
        outer = self.function
        self.function = name
        before = (dict(self.variables), self.positional, self.cwd)
        try:
            for child in node.children:
                if child.is_named and (name_node is None or child.id != name_node.id):
                    self.walk(child, depth + 1, via, pending)
                    if name and len(self.functions) < 64:
                        self.built(child.end_byte - child.start_byte)
                        self.functions[name] = self.text(child)
        finally:
            self.function = outer
            self.unsettled(*before)

    def unsettled(
        self, variables: dict[str, str | None], positional: list[str] | None, cwd: str | None
    ) -> None:
        """After a function's body was walked where it is defined: what it assigns,
        the positional parameters it sets and the directory it changes to hold
        whether or not it is called (a call without arguments is not walked again),
        so they are unknown from here on."""
        self.step(len(self.variables))
        for name, value in self.variables.items():
            if name not in variables or variables[name] is not value:
                self.variables[name] = None
                self.given.discard(name)
        if self.positional is not positional:
            self.positional = None
        if self.cwd != cwd:
            self.set_cwd(None)

    def redirected(
        self,
        node: Any,
        depth: int,
        via: str,
        pending: tuple[_Redirect, ...],
        stack: list[tuple[Any, str, tuple[_Redirect, ...], bool, tuple[int, int]]],
        pipe: tuple[int, int],
    ) -> None:
        """`body > out`: the redirects apply to the body; what tree-sitter put inside a
        here-document redirect (`cat <<EOF | sh`, `cat <<EOF file`) is sorted out."""
        body = node.child_by_field_name("body")
        redirects: list[_Redirect] = []
        extra: list[_Word] = []
        trailing: list[Any] = []
        for index, child in enumerate(node.children):
            if body is not None and child.id == body.id:
                continue
            if child.type in _REDIRECTS or node.field_name_for_child(index) == "redirect":
                found, words, after = self.redirect(child, depth, via)
                redirects += found
                extra += words
                trailing += after
            elif child.is_named:
                trailing.append(child)
        for child in reversed(trailing):
            stack.append((child, via, (), False, pipe))
        every = pending + tuple(redirects)
        if body is None:
            # `> file` alone runs no program but creates or truncates the file.
            if redirects:
                dynamic = any(r.dynamic for r in redirects)
                self.emit([], every, dynamic, depth, via)
        elif body.type == "command":
            self.command(body, depth, via, every, tuple(extra))
        else:
            stack.append((body, via, every, True, pipe))

    def assign(self, node: Any, depth: int, via: str, *, track: bool = True) -> _Word:
        """`X=value`: walk the value (and an index: `a[$(id)]=1`); remember a plain
        value for later `$X` in the same line, an array's elements (`a=(x y)`,
        `a+=(z)`, `a[1]=y`) for later `${a[1]}` and `"${a[@]}"`."""
        name_node = node.child_by_field_name("name")
        value = node.child_by_field_name("value")
        if name_node is not None and name_node.type != "variable_name":
            self.word(name_node, depth, via)
        items: list[str] | None = None
        is_open = False
        if track and value is not None and value.type == "array":
            items, is_open, word = self.array_value(value, depth, via)
        else:
            word = (
                self.word(value, depth, via, quoted=True)
                if value is not None
                else _Word([""], False)
            )
        if not track or name_node is None:
            return word
        appended = any(child.type == "+=" for child in node.children)
        if name_node.type == "subscript":
            parts = name_node.children
            name = self.text(parts[0]) if parts else ""
            scalar = None if word.values is None else " ".join(word.values)
            key = parts[2] if len(parts) == 4 else None
            at = self.index_of(key) if key is not None and name not in self.assoc else None
            self.set_element(name, at, scalar, appended=appended)
            return word
        name = self.text(name_node)
        known: str | None = None
        if items is not None:
            known = self.appended_items(name, items, is_open) if appended else _Array(items)
            if known is not None and not known.items:
                known = None  # `a=()`: no element, `$a` unset
            elif known is not None and is_open and not known.open:
                known = _Array(known.items, open=True)
        elif value is None or value.type != "array":
            if word.values is not None:
                known = " ".join(word.values)
            previous = self.variables.get(name)
            if known is not None and appended:
                if previous is not None:  # `a+=$a`: doubled as `a=$a$a` is
                    self.expanded_word(len(previous) + word.grown)
                    self.built(len(previous) + len(known))
                known = None if previous is None else previous + known
            if known is not None and isinstance(previous, _Array):
                # `a=x`, `a+=x` on an array change its element 0 only
                known = _Array((known, *previous.items[1:]), open=previous.open)
        self.store(name, known, template=word.template)
        if known is not None:
            # `v='x[$(id)]'; echo $((v))`, `x='$(id)'; echo ${x@P}`: arithmetic and
            # prompt expansion run what the value spells
            for text in known.items if isinstance(known, _Array) else (known,):
                self.latent(text, depth)
        return word

    def array_value(self, node: Any, depth: int, via: str) -> tuple[list[str] | None, bool, _Word]:
        """`(x "y z" {a,b} *.py)`: its elements as bash makes them (fields split,
        braces expanded), each word walked once; None when one is unknown, spelled
        `[k]=v` (sparse or associative), or an unquoted glob before the last. Also
        whether the last is such a glob, and the value as a word (its text)."""
        items: list[str] | None = []
        is_open = False
        dynamic = False
        for child in node.children:
            if not child.is_named:
                continue
            if child.type == "concatenation" and child.children[:1] and (
                self.text(child.children[0]) == "["
            ):
                self.word(child, depth, via)  # `([k]=v)`
                items = None
                continue
            word = self.word(child, depth, via)
            dynamic = dynamic or word.dynamic
            if word.values is None or items is None or is_open:
                items = None
                continue
            if self.braces_quoted(child):
                values: list[str] = list(word.values)
            else:
                values = _expand_braces(list(word.values), self)
            if child.type not in _QUOTED_KINDS and any(_GLOB.search(v) for v in values):
                is_open = True  # bash puts the files it matches here: how many, unknown
            items.extend(str(v) for v in values)
        self.built(node.end_byte - node.start_byte)
        if items is None:
            return None, False, _Word(None, True, self.text(node))
        return items, is_open, _Word([self.text(node)], dynamic)

    def appended_items(self, name: str, items: list[str], is_open: bool) -> _Array | None:
        """`a+=(x y)`: the elements after those `a` had, when they are known."""
        previous = self.variables.get(name)
        if previous is None or name in self.assoc:
            return None
        before = previous.items if isinstance(previous, _Array) else (previous,)
        if isinstance(previous, _Array) and previous.open:
            return None  # after an unquoted glob: at which index, unknown
        self.step(len(before) + len(items))
        self.built(sum(len(v) for v in before))
        return _Array((*before, *items), open=is_open)

    def set_element(self, name: str, at: int | None, value: str | None, *, appended: bool) -> None:
        """`a[i]=v` (and `a[i]+=v`, `printf -v 'a[i]'`, `read 'a[i]'`): the element
        changed, when the array and the index are known; else the array is unknown."""
        previous = self.variables.get(name)
        if name in self.assoc or previous is None or at is None or value is None:
            self.store(name, None)
            return
        items = list(previous.items if isinstance(previous, _Array) else (previous,))
        is_open = isinstance(previous, _Array) and previous.open
        if at < 0:
            at += len(items)
        if is_open or at < 0 or at > len(items):
            self.store(name, None)  # past the end (sparse), or after a glob
            return
        if appended:
            value = (items[at] if at < len(items) else "") + value
        self.step(len(items))
        self.built(len(value) + sum(len(v) for v in items))
        if at == len(items):
            items.append(value)
        else:
            items[at] = value
        self.store(name, _Array(items))

    def store(self, name: str, value: str | None, *, template: str | None = None) -> None:
        """`name` now holds `value` (None: unknown), with the attributes it was
        declared with (`declare -l`, `-u`, `-i`) applied; through a name reference
        (`declare -n`), any variable may have changed."""
        if name in self.refs:
            for other in self.variables:
                if other not in self.given:
                    self.variables[other] = None
            value = None
        value = self.attributed(name, value)
        self.variables[name] = value
        self.given.discard(name)
        if acting_variable(name):
            self.acting[name] = value if value is not None else (template or _UNKNOWN)

    def attributed(self, name: str, value: str | None) -> str | None:
        """`value` as a variable declared `-l` (lower case), `-u` (upper case) or `-i`
        (an integer: evaluated as arithmetic, known here for a plain number) holds it."""
        attributes = self.attributes.get(name, "")
        if value is None or not attributes:
            return value
        values = value.items if isinstance(value, _Array) else (value,)
        if "i" in attributes:
            if not all(_INTEGER.match(v) for v in values):
                return None
        elif "l" in attributes:
            values = tuple(v.lower() for v in values)
        elif "u" in attributes:
            values = tuple(v.upper() for v in values)
        if isinstance(value, _Array):
            return _Array(values, open=value.open)
        return values[0]

    def index_of(self, node: Any) -> int | None:
        """An indexed array's subscript, evaluated when it is a number or a variable
        holding one (`a[1]`, `a[-1]`, `a[i]`, `a[$i]`); None otherwise."""
        if node is None:
            return None
        if node.type == "simple_expansion" and node.named_child_count == 1:
            node = node.named_children[0]
        return self.index_text(self.text(node))

    def index_text(self, text: str) -> int | None:
        text = text.strip()
        if _IDENTIFIER.match(text):
            text = self.variables.get(text) or ""
        if not _INTEGER.match(text):
            return None
        return int(text)

    def valued(self, value: str, quoted: bool, dynamic: bool = True) -> _Word:
        """A known value expanded into a word: one field when quoted, else split at $IFS."""
        value = str(value)
        grown = len(value)
        self.delivered(grown)
        if quoted:
            return _Word([value], dynamic, value, grown=grown)
        ifs = self.variables.get("IFS", _DEFAULT_IFS)
        if ifs is None:
            return _Word(None, True)
        fields, before, after = _split_fields(value, ifs)
        return _Word(fields, dynamic, value, before, after, grown=grown)

    def element(self, name: str, key: str | int | None, quoted: bool) -> _Word:
        """`${a[i]}`, `"${a[@]}"`, `"${a[*]}"` (key "@", "*" or an index; None when
        the index is unknown) of an array (or a plain variable: its element 0)."""
        value = self.variables.get(name)
        if value is None or key is None or name in self.assoc:
            self.expanded.append(name)
            return _Word(None, True)
        dynamic = name not in self.given
        items = value.items if isinstance(value, _Array) else (str(value),)
        if key in ("@", "*"):
            grown = sum(len(v) + 1 for v in items)
            self.delivered(grown)
            self.step(len(items))
            if quoted and key == "@":
                return _Word(list(items), dynamic, grown=grown)
            ifs = self.variables.get("IFS", _DEFAULT_IFS)
            if ifs is None:
                return _Word(None, True)
            if quoted:
                joined = ifs[:1].join(items)
                return _Word([joined], dynamic, joined, grown=grown)
            return _Word([w for v in items for w in _split_fields(v, ifs)[0]], dynamic, grown=grown)
        assert isinstance(key, int)
        at = key + len(items) if key < 0 else key
        is_open = isinstance(value, _Array) and value.open
        if is_open and at >= len(items) - 1:
            at = len(items) - 1  # one of the files the glob matched
        if at < 0 or at >= len(items) or (at and not isinstance(value, _Array)):
            # unset (an expansion to nothing): taken as unknown, never as "no file"
            return _Word(None, True)
        return self.valued(items[at], quoted, dynamic)

    def subscript_of(self, node: Any) -> tuple[str, str | int | None] | None:
        """`${a[KEY]}` -> (a, KEY: "@", "*", the index, or None when it is unknown)."""
        children = node.children
        if node.type != "expansion" or len(children) != 3 or children[1].type != "subscript":
            return None
        parts = children[1].children
        if len(parts) != 4 or parts[0].type != "variable_name":
            return None
        key = self.text(parts[2])
        return self.text(parts[0]), key if key in ("@", "*") else self.index_of(parts[2])

    def indirect(self, target: str, quoted: bool) -> _Word | None:
        """`${!r}` where `r` holds a name the line knows: that variable's value
        (`r=f; f=~/.bashrc; ${!r}`, `r='a[1]'`, `r=1`); None when it is not a name."""
        match = _REFERENCE.fullmatch(target)
        if match is None:
            return None
        name, key = match.group(1) or match.group(3), match.group(2)
        if key is None:
            value = self.variables.get(name)
            if value is None:
                self.expanded.append(name)
                return _Word(None, True)
            return self.valued(value, quoted, name not in self.given)
        at: str | int | None = key if key in ("@", "*") else self.index_text(key)
        return self.element(name, at, quoted)

    def transformed(
        self, node: Any, name_node: Any, depth: int, via: str, walked: set[int]
    ) -> str | None:
        """`${X/old/new}` (`//`, `/#`, `/%`; `old` spelled out, `new` known),
        `${X^^}`, `${X,,}`, `${X^}`, `${X,}`, `${X@U}`, `${X@L}`, `${X@u}`, `${X@E}`,
        `${X:offset}`, `${X:offset:length}` of a value the line knows; None otherwise."""
        parts = [c for c in node.children if c.type not in ("${", "}")]
        if len(parts) < 2 or parts[0].id != name_node.id:
            return None
        operator = self.text(parts[1])
        replacement = ""
        if operator in _SUBSTITUTE and len(parts) == 5 and self.text(parts[3]) == "/":
            walked.add(parts[4].id)
            word = self.word(parts[4], depth, via, quoted=True)
            if word.values is None:
                return None
            replacement = " ".join(word.values)
        value = self.variables.get(self.text(name_node))
        if value is None or value.startswith("~"):
            # (a leading `~` is kept as written: whether bash expanded it, unknown)
            return None
        value = str(value)
        self.step(1 + len(value) // 64)
        if operator in _CASES and len(parts) == 2:
            return _CASES[operator](value)
        if operator == "@" and len(parts) == 3:
            letter = self.text(parts[2])
            if letter == "E":
                return _ansi_c(value)
            change = _CASES.get({"U": "^^", "L": ",,", "u": "^"}.get(letter, ""))
            return change(value) if change is not None else None
        if operator == ":" and len(parts) in (3, 5):
            return _substring(value, [self.text(p) for p in parts[2:]])
        if operator not in _SUBSTITUTE or len(parts) not in (3, 4, 5):
            return None
        pattern = self.text(parts[2])
        if parts[2].type not in ("regex", "word") or _PATTERN_SPECIAL.search(pattern):
            return None  # a glob or a quoted pattern: not worked out here
        if "&" in replacement or "\\" in replacement:
            return None  # `&` is the matched text (bash 5.2's patsub_replacement)
        if operator == "/#":
            return replacement + value[len(pattern) :] if value.startswith(pattern) else value
        if operator == "/%":
            if not value.endswith(pattern):
                return value
            return value[: len(value) - len(pattern)] + replacement
        if not pattern:
            return value
        if operator == "/":
            return value.replace(pattern, replacement, 1)
        return self.replaced(value, pattern, replacement)

    def arithmetic(self, node: Any, depth: int) -> None:
        """`[[ ]]`, `(( ))`, `$(( ))`, `$[ ]` and subscripts evaluate operands as
        arithmetic, and arithmetic runs the substitutions a quoted operand spells
        (`[[ 1 -eq 'a[$(id)]' ]]`): those are walked as commands."""
        for found in _descendants_of_kind(node, _QUOTED_KINDS, self):
            text = self.text(found)
            if "$(" in text or "`" in text:
                self.latent(text.replace("\\$", "$").replace("\\`", "`"), depth)

    def latent(self, text: str, depth: int) -> None:
        """Walk the command substitutions spelled inside `text`, a value bash may still
        evaluate (a subscript, an arithmetic operand, a prompt string)."""
        if isinstance(text, _Unknown) or ("`" not in text and "$(" not in text):
            return
        for body in _latent_bodies(text):
            self.substitution = True
            self.script(body.encode("utf-8", "surrogatepass"), depth + 1, "$()")

    def declaration(
        self, node: Any, depth: int, via: str, redirects: tuple[_Redirect, ...]
    ) -> None:
        """`export A=1`, `declare -x B`, `local c`, `unset d`: reported as commands."""
        words: list[str] = []
        dynamic = False
        named: list[str] = []
        own = list(redirects)
        for index, child in enumerate(node.children):
            kind = child.type
            if not child.is_named:
                if not words:
                    words.append(self.text(child))  # the keyword
                continue
            if kind == "variable_assignment":
                target = child.child_by_field_name("name")
                label = self.text(target) if target is not None else ""
                self.declared(words, label.split("[", 1)[0])
                word = self.assign(child, depth, via)
                named.append(label.split("[", 1)[0])
                if word.values is None:
                    words.append(_Unknown(f"{label}={word.template}"))
                    dynamic = True
                else:
                    words.append(f"{label}={' '.join(word.values)}")
                    dynamic = dynamic or word.dynamic
            elif kind in _REDIRECTS or node.field_name_for_child(index) == "redirect":
                found, _, after = self.redirect(child, depth, via)
                own += found
                for statement in after:
                    self.walk(statement, depth, via, ())
            else:
                word = self.word(child, depth, via)
                if kind == "variable_name":
                    named.append(self.text(child))
                    self.declared(words, self.text(child))
                dynamic = _add(words, word) or dynamic
        if not words:
            return
        options = "".join(w[1:] for w in words[1:] if w.startswith("-"))
        reference = words[0] in ("declare", "typeset", "local") and "n" in options
        if words[0] == "unset":
            # `unset 'a[1]'`, `unset -v "$x"`: what it names is no longer known
            named += [w.split("[", 1)[0] for w in words[1:] if not w.startswith("-")]
            if any(isinstance(w, _Unknown) for w in words):
                named += list(self.variables)
        if words[0] == "unset" or reference:
            for name in named:  # unset, or a name reference: value no longer known
                self.variables[name] = None
                if reference:
                    self.refs.add(name)
        self.emit(words, tuple(own), dynamic, depth, via, declaration=True)

    def declared(self, words: list[str], name: str) -> None:
        """The attributes `declare`, `typeset`, `local`, `export` or `readonly` (`words`
        so far: the keyword and its options) give `name` before its value is assigned:
        `-l`/`-u` (case), `-i` (integer), `-A` (associative)."""
        if not words or words[0] == "unset" or not _IDENTIFIER.match(name):
            return
        attributes = self.attributes.get(name, "")
        for option in words[1:]:
            if isinstance(option, _Unknown):
                attributes += "i"  # unknown attributes: no value is known
            elif option[:1] in "-+" and len(option) > 1:
                for letter in option[1:]:
                    attributes = attributes.replace(letter, "")
                    if option[0] == "-" and letter in "ilu":
                        if letter in "lu":
                            attributes = attributes.replace("l", "").replace("u", "")
                        attributes += letter
                    if option[0] == "-" and letter == "A":
                        self.assoc.add(name)
        self.attributes[name] = attributes

    # -- redirects

    def redirect(
        self, node: Any, depth: int, via: str
    ) -> tuple[list[_Redirect], list[_Word], list[Any]]:
        """A redirect -> (redirects, words that are really arguments of the command,
        statements that follow it)."""
        if node.type == "heredoc_redirect":
            return self.heredoc(node, depth, via)
        operator = ""
        target: _Word | None = None
        extra: list[_Word] = []
        trailing: list[Any] = []
        for child in node.children:
            kind = child.type
            if kind == "file_descriptor" or not child.is_named:
                operator += self.text(child)
            elif kind == "ERROR":
                trailing.append(child)
            elif target is None:
                target = self.word(child, depth, via)
            else:
                extra.append(self.word(child, depth, via))  # `ls > out x`: x is ls's
        descriptor, op = _split_operator(operator)
        stdin = op in ("<", "<>", "<&", "<<<") and descriptor in ("", "0")
        dynamic = target is not None and (target.values is None or target.dynamic)
        if target is None:
            shown, script = "", None
        elif target.values is None:
            # what is known of it stays (`"$(cmd)"/x.pth` -> `$?/x.pth`)
            shown, script = target.template, target.template
        else:
            shown = script = " ".join(target.values)
        if op == "<<<":  # a here-string is data, not a target
            known = target is not None and target.values is not None
            found = _Redirect(f"{operator}{shown}", stdin, script, False, dynamic, known)
        else:
            found = _Redirect(f"{operator}{shown}", stdin, None, dynamic)
        return [found], extra, trailing

    def heredoc(
        self, node: Any, depth: int, via: str
    ) -> tuple[list[_Redirect], list[_Word], list[Any]]:
        """`<<EOF ... EOF`. tree-sitter-bash misses substitutions in many bodies
        (backticks, a line starting with blanks), so the body is cut out of the source
        and its expansions parsed as those of a double-quoted string."""
        operator = ""
        start = end = None
        redirects: list[_Redirect] = []
        extra: list[_Word] = []
        trailing: list[Any] = []
        self.built(node.end_byte - node.start_byte)
        raw = self.source[node.start_byte : node.end_byte]
        line_end = -1  # where the line of `<<EOF` ends and the body begins (absolute)
        for index, child in enumerate(node.children):
            kind = child.type
            field_name = node.field_name_for_child(index)
            if kind == "heredoc_start":
                start = child
                newline = raw.find(b"\n", child.end_byte - node.start_byte)
                line_end = node.end_byte if newline < 0 else node.start_byte + newline
            elif kind == "heredoc_end":
                end = child
            elif kind == "heredoc_body" or (start is not None and child.start_byte >= line_end):
                continue  # the body (tree-sitter sometimes reads its first line as words)
            elif kind == "file_descriptor" or (not child.is_named and start is None):
                operator += self.text(child)
            elif not child.is_named:
                continue
            elif field_name == "argument":
                extra.append(self.word(child, depth, via))
            elif kind in _REDIRECTS or field_name == "redirect":
                found, words, after = self.redirect(child, depth, via)
                redirects += found
                extra += words
                trailing += after
            else:
                trailing.append(child)  # `cat <<EOF | sh`, `cat <<EOF && ls`
        delimiter = self.text(start) if start is not None else ""
        body = ""
        if start is not None and line_end < node.end_byte:
            begin = line_end + 1 - node.start_byte
            stop = end.start_byte - node.start_byte if end is not None else len(raw)
            body = raw[begin : max(begin, stop)].decode("utf-8", "surrogateescape")
            self.bodies.append((node.start_byte + begin, node.start_byte + max(begin, stop)))
        descriptor, op = _split_operator(operator)
        if op == "<<-":
            body = "\n".join(line.lstrip("\t") for line in body.split("\n"))
        expands = False
        if not any(quote in delimiter for quote in "'\"\\"):
            expands = _HEREDOC_EXPANSION.search(body) is not None
            if expands:
                self.heredoc_expansions(body, node, depth, via)
            body = _unescape_heredoc(body)
        stdin = descriptor in ("", "0")
        redirects.insert(
            0, _Redirect(f"{operator}{delimiter}", stdin, body, False, expands, not expands)
        )
        return redirects, extra, trailing

    def heredoc_expansions(self, body: str, node: Any, depth: int, via: str) -> None:
        """Walk the substitutions of an unquoted here-document body."""
        self.parse_work(len(body) // 16)  # `_double_quoted` goes through it in Python
        source = f': "{_double_quoted(body)}"'.encode("utf-8", "surrogatepass")
        tree, parsed = _parse(source, self, False)  # (its pipes are quoted)
        root = tree.root_node
        statement = root.named_children[0] if root.named_child_count else None
        argument = None
        if statement is not None and statement.type == "command":
            argument = statement.child_by_field_name("argument")
        if (root.has_error or argument is None) and not self.error:
            row, col = node.start_point
            self.error = f"cannot parse the here-document at {row + 1}:{col + 1}"
        outer, self.source = self.source, parsed
        try:
            if argument is None:
                self.walk(root, depth, via, ())
            else:
                self.word(argument, depth, via, quoted=True)
        finally:
            self.source = outer

    # -- simple commands

    def command(
        self,
        node: Any,
        depth: int,
        via: str,
        redirects: tuple[_Redirect, ...],
        extra: tuple[_Word, ...],
    ) -> None:
        words: list[str] = []
        dynamic = False
        own = list(redirects)
        more = list(extra)
        trailing: list[Any] = []
        seen_name = False
        prefix: list[str] = []
        start = len(self.found)
        pipe = self.pipe
        outer_expanded, self.expanded = self.expanded, []
        for index, child in enumerate(node.children):
            field_name = node.field_name_for_child(index)
            kind = child.type
            if kind == "variable_assignment":
                # `X=1 cmd`: for cmd only; but substitutions in it still run.
                value = self.assign(child, depth, via, track=False)
                target = child.child_by_field_name("name")
                label = self.text(target) if target is not None else ""
                shown = " ".join(value.values) if value.values is not None else value.template
                prefix.append(f"{label}={shown}")
                continue
            if kind in _REDIRECTS or field_name == "redirect":
                found, words_after, after = self.redirect(child, depth, via)
                own += found
                more += words_after
                trailing += after
                continue
            if kind == "command_name":
                seen_name = True
                target = child.children[0] if child.children else child
            elif not child.is_named:
                continue
            else:
                target = child
            word = self.word(target, depth, via)
            dynamic = _add(words, word, quoted=self.braces_quoted(target)) or dynamic
        for word in more:
            dynamic = _add(words, word) or dynamic
        dynamic = dynamic or any(r.dynamic for r in own)
        expanded, self.expanded = self.expanded, outer_expanded
        if seen_name or words:
            self.pipe = pipe
            self.emit(
                words,
                tuple(own),
                dynamic,
                depth,
                via,
                prefix=prefix,
                inner=(start, len(self.found)),
                expanded=expanded,
            )
        for statement in trailing:
            self.walk(statement, depth, via, ())

    def emit(
        self,
        words: list[str],
        redirects: tuple[_Redirect, ...],
        dynamic: bool,
        depth: int,
        via: str,
        *,
        declaration: bool = False,
        prefix: list[str] | None = None,
        inner: tuple[int, int] = (0, 0),
        expanded: list[str] | None = None,
        piped_done: bool = False,
        wrapped: list[str] | None = None,
    ) -> None:
        unwrapped = _unwrap(_expand_braces(words, self))
        words, wrappers, assigned, chdir, replace = unwrapped[:5]
        for runner, spec in unwrapped.fetches:
            # `uv run --with URL cmd` installs URL first: judged as `uv install URL`
            self.emit([runner, "install", spec], (), dynamic, depth, f"{runner} run")
        for line in unwrapped.commands:
            # `systemd-run -p ExecStartPre=CMD true`: CMD runs as the unit's
            if line == _UNKNOWN:
                self.emit([_UNKNOWN], (), True, depth + 1, "systemd-run -p")
            elif line.strip():
                self.script(line.encode("utf-8", "surrogatepass"), depth + 1, "systemd-run -p")
        if unwrapped.inputs:
            # `xargs -a F CMD`: the arguments come from F, as `xargs CMD < F` takes them
            redirects = (
                *redirects,
                *(_Redirect("<" + i, False, None, False) for i in unwrapped.inputs),
            )
        if unwrapped.outputs:
            redirects = (
                *redirects,
                *(_Redirect(">" + o, False, None, False) for o in unwrapped.outputs),
            )
        if any(w.startswith("systemd-run") for w in wrappers) and chdir is None:
            chdir = "/"  # systemd-run starts the command in / unless told otherwise
        elif chdir == "":
            chdir = None
        words = [self.tilde(w) for w in words]
        if not words and not redirects:
            return
        self.step(1 + len(words))
        self.words += len(words)
        if self.words > MAX_WORDS:
            raise _too_many_words("the commands have")
        if "xargs" in wrappers and not piped_done:
            items = self.piped_items(split=unwrapped.split)
            if items is not None:
                # what comes down the pipe is known: xargs's arguments are those words
                runs = (
                    [[self.replaced(w, replace, item) for w in words] for item in items]
                    if replace
                    else [[*words, *items]]
                )
                for run in runs:
                    self.emit(
                        run,
                        redirects,
                        dynamic,
                        depth,
                        via,
                        prefix=[*(prefix or ()), *assigned],
                        inner=inner,
                        expanded=expanded,
                        piped_done=True,
                        wrapped=[*wrappers],
                    )
                return
        program = words[0] if words else ""
        name = "" if program in ("", _UNKNOWN) else _program_name(program)
        args = words[1:]
        flags = _flags(args)
        if wrapped:
            wrappers = [*wrapped, *wrappers]
        if "xargs" in wrappers and not piped_done:
            dynamic = True  # more arguments come from standard input
        if len(wrappers) >= _MAX_WRAPPERS:
            dynamic = True  # `sudo sudo sudo ... rm`: not unwrapped to the end
        argv = tuple(str(word) for word in words)
        own = [*(prefix or ()), *assigned]
        named = {a.split("=", 1)[0] for a in own}
        own += [f"{k}={v}" for k, v in self.acting.items() if k not in named]
        cwd = self.cwd
        if chdir is not None:
            cwd = self.changed_dir(chdir, own)
        index = len(self.found)
        if index >= MAX_COMMANDS:
            raise _TooComplex("analysis.max_commands", f"more than {MAX_COMMANDS} commands")
        self.found.append(
            SimpleCommand(
                name=name,
                argv=argv,
                args=argv[1:],
                flags=flags,
                redirects=tuple(r.text for r in redirects),
                raw=" ".join(argv),
                dynamic=dynamic,
                via=via,
                wrappers=tuple(str(w) for w in wrappers),
                assignments=tuple(str(a) for a in own),  # plain str: CEL takes no subclass
                cwd=cwd,
                unknown=tuple(w.template for w in words if isinstance(w, _Unknown)),
                pipe=self.pipe,
                function=self.function,
                inner=inner,
                parent=self.parent,
                stdin=next((r.script for r in reversed(redirects) if r.stdin), None),
                variables=tuple(dict.fromkeys(expanded or ())),
                fed=piped_done,
            )
        )
        if not declaration:
            self.forget(name, args)
            if name == "read":
                self.read_given(args, redirects, own)
            elif name in ("mapfile", "readarray"):
                self.mapfile_given(args, redirects)
            elif name == "printf":
                self.printf_given(args)
            elif name in ("set", "shift"):
                self.positional_given(name, args)
            if name in _DIRECTORY_CHANGERS:
                self.change_dir(name, args, own)
        self.nested(index, name, args, redirects, depth)

    # -- the working directory

    def changed_dir(self, target: str, assignments: list[str]) -> str | None:
        """Where `cd target` lands from the current directory; None when unknown."""
        if isinstance(target, _Unknown) or _UNKNOWN in target:
            return None
        if target == "~" or target.startswith("~/") or target == "":
            if not self.home:
                return None
            target = self.home + target[1:] if target else self.home
        elif target.startswith("~"):
            return None  # another user's home: not known here
        if not target.startswith("/"):
            relative_to_cdpath = not target.startswith(("./", "../")) and target not in (".", "..")
            cdpath = self.variables.get("CDPATH") if "CDPATH" in self.variables else ""
            given = [a.split("=", 1)[1] for a in assignments if a.startswith("CDPATH=")]
            if given:
                cdpath = given[-1]
            if relative_to_cdpath and cdpath != "":
                # CDPATH sends it elsewhere: to the one directory it names (bash tries
                # each entry in turn; with several, where it lands is not known here)
                entries = (cdpath or "").split(":")
                if cdpath is None or len(entries) != 1 or _UNKNOWN in cdpath:
                    return None
                base = entries[0] or self.cwd
                if base is None or not base.startswith("/"):
                    return None
                return _normal_dir(f"{base}/{target}")
            if self.cwd is None:
                return None
            target = f"{self.cwd}/{target}" if self.cwd else target
        return _normal_dir(target)

    def change_dir(self, name: str, args: list[str], assignments: list[str]) -> None:
        """Follow `cd`, `pushd` and `popd` (options skipped; `cd -` is $OLDPWD)."""
        operands = [a for a in args if not (a.startswith("-") and a != "-" and len(a) > 1)]
        if any(a.startswith("+") or (a.startswith("-") and a[1:].isdigit()) for a in args):
            self.set_cwd(None)  # pushd +N / popd -N rotate the stack
            return
        before = self.cwd
        if name == "popd":
            self.set_cwd(self.dirs.pop() if self.dirs else None)
        elif name == "pushd" and not operands:
            top = self.dirs.pop() if self.dirs else None
            self.dirs.append(before)
            self.set_cwd(top)
        else:
            target = operands[0] if operands else "~"
            new = self.oldpwd if target == "-" else self.changed_dir(target, assignments)
            if name == "pushd":
                self.dirs.append(before)
            self.set_cwd(new)
        self.oldpwd = before

    def set_cwd(self, cwd: str | None) -> None:
        self.cwd = cwd
        if cwd is not None and cwd.startswith("/"):
            self.variables["PWD"] = cwd
            self.given.add("PWD")
        else:
            self.variables["PWD"] = None
            self.given.discard("PWD")

    def forget(self, program: str, args: list[str]) -> None:
        """A command may set a variable it names (`read X`, `printf -v X`, `let X=1`);
        a builtin that sets one that changes what runs (`printf -v HOME`, `read PATH`)
        is an assignment of it, to a value nobody knows."""
        setter = program in _SETTERS
        if not self.variables and not setter:
            return
        for arg in args:
            name = arg.split("=", 1)[0].split("[", 1)[0]
            if name in self.variables:
                self.variables[name] = None
            if setter and not isinstance(arg, _Unknown) and acting_variable(name):
                self.acting[name] = f"{_UNKNOWN}<{program}>"

    def read_given(
        self, args: list[str], redirects: tuple[_Redirect, ...], assignments: list[str]
    ) -> None:
        """`read X <<< word`, `IFS= read -r A B <<EOF`, `read -a A <<< ...`: the line
        read is known, so are the variables, split as bash splits it. Left unknown
        (`forget`) when it is not: input from elsewhere or of several lines (a loop
        reads them one by one), `-u`, `-n`, `-N`, backslashes without `-r`, an `$IFS`
        with other characters than blanks."""
        if any(isinstance(a, _Unknown) for a in args):
            return
        options, names = _getopt(args, "adinNptu")
        if any(letter in options for letter in "unN"):
            return
        text = _fed_text(redirects)
        if text is None:
            return
        delimiter = options.get("d", "\n")
        delimiter = delimiter[:1] if isinstance(delimiter, str) and delimiter else "\0"
        line, _, more = text.partition(delimiter)
        if more.strip("\n") or ("\\" in line and "r" not in options):
            return
        ifs = next(
            (a.split("=", 1)[1] for a in reversed(assignments) if a.startswith("IFS=")),
            self.variables.get("IFS", _DEFAULT_IFS),
        )
        if ifs is None or isinstance(ifs, _Unknown) or _UNKNOWN in ifs or ifs.strip(_DEFAULT_IFS):
            return
        array = options.get("a")
        if isinstance(array, str):
            fields = _split_fields(line, ifs)[0] if ifs else [line]
            self.store(array, _Array(fields) if fields else None)
            return
        names = names or ["REPLY"]
        if ifs and len(names) > 1:
            blank = f"[{re.escape(ifs)}]+"
            fields = re.split(blank, line.strip(ifs), maxsplit=len(names) - 1)
        else:
            fields = [line.strip(ifs)] if ifs else [line]
        for index, name in enumerate(names):
            self.store_named(name, fields[index] if index < len(fields) else "")

    def mapfile_given(self, args: list[str], redirects: tuple[_Redirect, ...]) -> None:
        """`mapfile -t A <<< ...`, `readarray A <<EOF`: A's elements are the known lines
        (with `-d`, `-s`, `-n`); unknown with `-u`, `-O`, `-C` (a callback: code)."""
        if any(isinstance(a, _Unknown) for a in args):
            return
        options, names = _getopt(args, "dnOsuCc")
        text = _fed_text(redirects)
        if text is None or any(letter in options for letter in "uOC"):
            return
        delimiter = options.get("d", "\n")
        delimiter = delimiter[:1] if isinstance(delimiter, str) and delimiter else "\0"
        counts = [options.get(letter, "0") for letter in "sn"]
        if not all(isinstance(c, str) and c.isdigit() for c in counts):
            return
        skip, most = (int(c) for c in counts)
        pieces = text.split(delimiter)
        keep = "" if "t" in options else delimiter
        lines = [piece + keep for piece in pieces[:-1]] + ([pieces[-1]] if pieces[-1] else [])
        self.step(len(lines))
        lines = lines[skip:]
        if most:
            lines = lines[:most]
        self.store_named(names[0] if names else "MAPFILE", _Array(lines) if lines else None)

    def printf_given(self, args: list[str]) -> None:
        """`printf -v X FORMAT ARGS`: X holds what printf would print, when that is
        known (policy.analysis.literal)."""
        from policy.analysis import literal

        rest = list(args)
        target: str | None = None
        while rest and rest[0].startswith("-") and not isinstance(rest[0], _Unknown):
            option = rest.pop(0)
            if option == "--":
                break
            if option == "-v" and rest:
                target = rest.pop(0)
            elif option.startswith("-v") and len(option) > 2:
                target = option[2:]
            else:
                return  # an option printf does not take: it prints nothing
        if target is None or isinstance(target, _Unknown) or not rest:
            return
        printed = None
        if not any(isinstance(a, _Unknown) for a in rest):
            fake = SimpleCommand("printf", ("printf", *rest), tuple(rest), ())
            printed = literal.output_of([fake])
            if printed is not None:
                self.delivered(len(printed))
        self.store_named(target, printed)

    def store_named(self, target: str, value: str | None) -> None:
        """`value` into what a builtin names: a variable or an array element (`a[1]`)."""
        name, bracket, rest = target.partition("[")
        if not _IDENTIFIER.match(name):
            return
        if not bracket:
            self.store(name, value)
            return
        key = rest[:-1] if rest.endswith("]") else ""
        at = None if name in self.assoc else self.index_text(key)
        self.set_element(name, at, value, appended=False)

    def positional_given(self, name: str, args: list[str]) -> None:
        """`set -- A B`, `set A B`, `set -e -- A`, `shift [N]`: the positional
        parameters `$1`..., `$@` (at the top of the line, or in a script or function)."""
        values: list[str] | None
        if name == "shift":
            count = args[0] if args else "1"
            if self.positional is None or isinstance(count, _Unknown) or not count.isdigit():
                values = None
            else:
                values = self.positional[int(count) :]
        else:
            rest = list(args)
            ended = False
            while rest and not ended:
                word = rest[0]
                if isinstance(word, _Unknown):
                    break
                if word in ("--", "-"):
                    rest.pop(0)
                    ended = word == "--"
                    break
                if len(word) > 1 and word[0] in "-+":
                    rest.pop(0)
                    if word in ("-o", "+o") and rest and not rest[0].startswith(("-", "+")):
                        rest.pop(0)
                    continue
                break
            if not rest and not ended:
                return  # options alone: the parameters stay as they were
            values = None if any(isinstance(w, _Unknown) for w in rest) else list(rest)
        self.positional = values
        for number in range(1, 10):
            known = values[number - 1] if values is not None and number <= len(values) else None
            self.variables[str(number)] = known
            self.given.discard(str(number))

    def nested(
        self,
        index: int,
        name: str,
        args: list[str],
        redirects: tuple[_Redirect, ...],
        depth: int,
    ) -> None:
        """Scripts a command runs from its arguments or its standard input: `bash -c`,
        `sh <<EOF`, `su -c`, `eval`, `find -exec`, `ssh HOST CMD`, `watch CMD`, `alias`,
        `trap`, `at <<EOF`, `script -c`, `flock -c`. Their commands name `index` as
        their parent."""
        outer = self.parent
        self.parent = index
        try:
            self._nested(index, name, args, redirects, depth)
        finally:
            self.parent = outer

    def _nested(
        self,
        index: int,
        name: str,
        args: list[str],
        redirects: tuple[_Redirect, ...],
        depth: int,
    ) -> None:
        body = self.functions.get(name)
        if body is not None and args and self.function != name:
            self.run_string(index, body, depth, "function", positional=[name, *args])
        if name in _SUBSCRIPT_EVALUATORS:
            # `test -v 'a[$(id)]'`, `printf -v 'a[$(id)]'`, `unset 'a[$(id)]'`: bash
            # evaluates the subscript, substitutions included
            for arg in _evaluated_names(name, args):
                self.latent(arg, depth)
        if name in _STRING_RUNNERS:
            given = _string_script(name, args)
            if given is not None:
                self.substitution = True
                text, is_argv = given
                if is_argv:
                    unknown = any(isinstance(word, _Unknown) for word in text)
                    if depth + 1 > MAX_DEPTH:
                        raise _too_deep("scripts")
                    self.emit(list(text), (), unknown, depth + 1, name)
                else:
                    self.run_string(index, _joined(text), depth, name)
            return
        if name == "parallel":
            self.parallel(index, args, depth)
            return
        if name in ("at", "batch"):
            stdin = next((r for r in reversed(redirects) if r.stdin), None)
            if stdin is not None and stdin.script is not None:
                self.substitution = True
                self.script(stdin.script.encode("utf-8", "surrogatepass"), depth + 1, name)
            return
        if name in _SHELLS:
            mode, script, at = shell_script_at(args)
            if mode == "file":
                return
            self.substitution = True
            if mode == "stdin":
                stdin = next((r for r in reversed(redirects) if r.stdin), None)
                if stdin is None or stdin.script is None:
                    self.mark_dynamic(index)  # `curl x | sh`, `sh < file`
                    return
                if stdin.expands:
                    self.mark_dynamic(index)
                self.script(stdin.script.encode("utf-8", "surrogatepass"), depth + 1, "bash -c")
                return
            self.run_string(index, script, depth, "bash -c", positional=args[at + 1 :])
        elif name in _SU:
            has_script, su_script = _su_script(args)
            if has_script:
                self.substitution = True
                self.run_string(index, su_script, depth, "bash -c")
        elif name == "eval":
            self.substitution = True
            if any(isinstance(arg, _Unknown) for arg in args):
                self.mark_dynamic(index)
            text = " ".join(_template(arg) for arg in args)
            if text.strip() and text.strip() != _UNKNOWN:
                self.script(text.encode("utf-8", "surrogatepass"), depth + 1, "eval")
        elif name in ("source", "."):
            self.substitution = True
            for variable in self.variables:
                self.variables[variable] = None
            if args and args[0] in _STDIN_FILES:
                stdin = next((r for r in reversed(redirects) if r.stdin), None)
                if stdin is None or stdin.script is None or stdin.expands:
                    self.mark_dynamic(index)
                if stdin is not None and stdin.script is not None:
                    self.script(stdin.script.encode("utf-8", "surrogatepass"), depth + 1, name)
        elif name in ("fd", "fdfind"):
            self.fd_exec(args, depth)
        elif name == "find":
            places = find_found(args)
            for start, arg in enumerate(args):
                if arg in _FIND_EXEC:
                    self.substitution = True
                    if depth + 1 > MAX_DEPTH:
                        raise _too_deep("scripts")
                    inner: list[str] = []
                    for word in args[start + 1 :]:
                        if word in (";", "+"):
                            break
                        # `{}` is each file found: below the start points (or, with no
                        # test to pick some, the start points themselves too)
                        if "{}" in word and not isinstance(word, _Unknown):
                            inner.extend(self.replaced(word, "{}", place) for place in places)
                        else:
                            inner.append(word)
                    if inner:
                        unknown = any(isinstance(word, _Unknown) for word in inner)
                        self.emit(inner, (), unknown, depth + 1, "find -exec")

    def run_string(
        self,
        index: int,
        script: str | None,
        depth: int,
        via: str,
        *,
        positional: list[str] | None = None,
    ) -> None:
        """The script of `sh -c SCRIPT [NAME ARGS...]`: parsed when known, its unknown
        parts as `$?`, with `$0`, `$1`, ... the words after it."""
        if script is None:
            self.mark_dynamic(index)
            return
        if isinstance(script, _Unknown):
            self.mark_dynamic(index)
            script = script.template
            if script.strip() == _UNKNOWN:
                return
        saved = {str(n): self.variables.get(str(n)) for n in range(10)}
        given = set(self.given)
        outer_positional = self.positional
        for number in range(10):
            value = positional[number] if positional and number < len(positional) else None
            self.variables[str(number)] = None if isinstance(value, _Unknown) else value
        arguments = positional[1:] if positional else []
        self.positional = (
            None if any(isinstance(a, _Unknown) for a in arguments) else list(arguments)
        )
        try:
            self.script(script.encode("utf-8", "surrogatepass"), depth + 1, via)
        finally:
            self.positional = outer_positional
            for key, value in saved.items():
                if value is None:
                    self.variables.pop(key, None)
                else:
                    self.variables[key] = value
            self.given = given

    def defaulted(
        self, node: Any, name_node: Any, depth: int, via: str, walked: set[int]
    ) -> str | None:
        """`${X:-word}`, `${X-word}`, `${X:=word}`, `${X=word}`, `${X:?msg}`, `${X:+word}`:
        the value when it can be told — X's own when the line or context knows it, else
        the default word (a variable the line does not set is taken as unset)."""
        parts = [c for c in node.children if c.type not in ("${", "}")]
        if len(parts) < 2 or parts[0].id != name_node.id:
            return None
        operator = self.text(parts[1])
        if operator not in (":-", "-", ":=", "=", ":?", "?", ":+", "+"):
            return None
        variable = self.text(name_node)
        current = self.variables.get(variable)
        default = ""
        if len(parts) > 2:
            walked.add(parts[2].id)
            word = self.word(parts[2], depth, via, quoted=True)
            if not parts[2].child_count:
                self.latent(self.text(parts[2]), depth)  # `${x:-`id`}`: a plain word
            if word.values is None:
                default_known = False
            else:
                default_known = True
                default = " ".join(word.values)
        else:
            default_known = True
        self.expanded.append(variable)
        if operator in (":+", "+"):
            return None
        if current is not None and (current != "" or ":" not in operator):
            return current
        if operator in (":?", "?") or not default_known:
            return None
        if operator in (":=", "="):
            self.variables[variable] = default
        return default

    def fd_exec(self, args: list[str], depth: int) -> None:
        """`fd PATTERN [PATH] -x CMD` / `-X CMD`: CMD runs on what fd finds below PATH
        (`{}` and its variants stand for each file)."""
        for at, arg in enumerate(args):
            if arg in ("-x", "--exec", "-X", "--exec-batch"):
                break
            if arg.startswith(("--exec=", "--exec-batch=")):
                option, _, value = arg.partition("=")
                args = [*args[:at], option, value, *args[at + 1 :]]
                break
        else:
            return
        before: list[str] = []  # fd's operands: PATTERN [PATH...]
        skip = False
        for arg in args[:at]:
            if skip:
                skip = False
            elif arg.startswith("-"):
                skip = arg in _FD_VALUE_OPTIONS
            else:
                before.append(arg)
        place = (before[1] if len(before) > 1 else ".").rstrip("/") + "/**"
        command = list(args[at + 1 :])
        if ";" in command:
            command = command[: command.index(";")]
        if not command:
            return
        self.substitution = True
        if depth + 1 > MAX_DEPTH:
            raise _too_deep("scripts")
        if any(_FD_TOKEN.search(w) for w in command if not isinstance(w, _Unknown)):
            command = [
                w if isinstance(w, _Unknown) else self.substituted(_FD_TOKEN, place, w)
                for w in command
            ]
        else:
            command.append(place)
        unknown = any(isinstance(w, _Unknown) for w in command)
        self.emit(command, (), unknown, depth + 1, "fd -x")

    def trimmed(self, node: Any, name_node: Any) -> str | None:
        """`${X%pat}`, `${X%%pat}`, `${X#pat}`, `${X##pat}` of a value the line knows
        (`${HOME%/}`), with a pattern spelled out; None otherwise."""
        parts = [c for c in node.children if c.type not in ("${", "}")]
        if len(parts) != 3 or parts[0].id != name_node.id or parts[2].child_count:
            return None
        operator = self.text(parts[1])
        if operator not in ("%", "%%", "#", "##"):
            return None
        value = self.variables.get(self.text(name_node))
        pattern = self.text(parts[2])
        if value is not None and operator.startswith("#") and value.startswith("~"):
            return None  # (a leading `~` is kept as written: whether bash expanded it, unknown)
        if value is None or len(value) > _MAX_TRIMMED or any(c in pattern for c in "$`\\'\"[("):
            return None  # (a long value is not trimmed: each cut is a match)
        if len(pattern) > 64:
            return None
        self.step((len(value) + 1) * (1 + len(pattern) // 8))
        return _trim(value, operator, pattern)

    def parallel(self, index: int, args: list[str], depth: int) -> None:
        """GNU parallel: `parallel CMD ::: ARGS` runs CMD once per argument (put where
        `{}` is, else appended); with no CMD each argument is a command line; with no
        `:::` the arguments come down the pipe."""
        rest = list(args)
        template: list[str] = []
        while rest and rest[0].startswith("-") and rest[0] not in (":::", "::::"):
            option = rest.pop(0)
            if option in _PARALLEL_OPTION_ARGS and rest:
                rest.pop(0)
        while rest and rest[0] not in (":::", "::::", ":::+", "::::+"):
            template.append(rest.pop(0))
        items: list[str] | None = []
        group = ""
        for word in rest:
            if word in (":::", "::::", ":::+", "::::+"):
                group = word
                continue
            if group.startswith("::::") or isinstance(word, _Unknown):
                items = None  # arguments read from a file, or unknown
                break
            assert items is not None
            items.append(word)
        if not rest:
            own = self.found[index]
            items = self.piped_items(own.pipe, own.parent)
        self.substitution = True
        if items is None or not items:
            if template:
                unknown = any(isinstance(w, _Unknown) for w in template)
                self.emit(template, (), True if items is None else unknown, depth + 1, "parallel")
            else:
                self.mark_dynamic(index)
            return
        for item in items:  # each run is charged: the caps bound how many
            if not template:
                self.run_string(index, item, depth, "parallel")
                continue
            if any(_PARALLEL_TOKEN.search(w) for w in template if not isinstance(w, _Unknown)):
                run = [
                    w if isinstance(w, _Unknown) else self.substituted(_PARALLEL_TOKEN, item, w)
                    for w in template
                ]
            else:
                run = [*template, item]
            self.emit(run, (), False, depth + 1, "parallel")

    def piped_items(
        self, pipe: tuple[int, int] | None = None, parent: int | None = None, split: str = " "
    ) -> list[str] | None:
        """The words coming down the pipe into the command being emitted (or at
        `pipe`), when the stages before it print literal text (`echo / | xargs rm
        -rf`); else None."""
        from policy.analysis import literal

        number, stage = self.pipe if pipe is None else pipe
        parent = self.parent if parent is None else parent
        if not number or not stage:
            return None
        self.step(len(self.found))
        before = [c for c in self.found if c.pipe[0] == number and c.pipe[1] < stage]
        if not before or len(before) != stage or any(c.parent != parent for c in before):
            return None
        output = literal.output_of(sorted(before, key=lambda c: c.pipe[1]))
        if output is None:
            return None
        self.delivered(len(output))
        if split == " ":
            return output.split()
        items = output.split(split)
        return items[:-1] if items and items[-1] == "" else items

    def output(self, start: int) -> str | None:
        """What the commands found from `start` on (one substitution's) print, when
        they are literal producers and decoders (policy.analysis.literal)."""
        from policy.analysis import literal

        stages = self.found[start:]
        # `$(dirname $(find ~ -name x))`: a substitution nested in a stage's words is
        # already in that stage's words (as what it prints), not a stage of its own
        nested = {i for c in stages for i in range(*c.inner) if c.inner[0] >= start}
        if nested:
            stages = [c for i, c in enumerate(stages, start) if i not in nested]
        if not stages or len(stages) > 8 or any(c.parent >= start for c in stages):
            return None
        pipes = {c.pipe[0] for c in stages}
        if len(stages) > 1 and (len(pipes) != 1 or 0 in pipes):
            return None
        ordered = sorted(stages, key=lambda c: c.pipe[1])
        if len(ordered) == 1 and ordered[0].name == "find" and not ordered[0].dynamic:
            # `$(find rules -name '*.yaml')`: the files found, as the patterns they match
            # (what -exec would be handed), so a command on them is judged on them
            found = find_found(list(ordered[0].args))
            if all(_UNKNOWN not in p and " " not in p for p in found):
                return " ".join(found)
        return literal.output_of(ordered)

    def tilde(self, word: str) -> str:
        """`~+` is $PWD and `~-` is $OLDPWD, as far as the line tells them."""
        if isinstance(word, _Unknown) or not word.startswith(("~+", "~-")):
            return word
        rest = word[2:]
        if rest and not rest.startswith("/"):
            return word
        place = self.cwd if word[1] == "+" else self.oldpwd
        return place + rest if place and place.startswith("/") else word

    def braces_quoted(self, node: Any) -> bool:
        """True when every `{` of the word `node` is inside quotes (no brace expansion)."""
        if "{" not in self.text(node):
            return False
        if node.type in ("string", "raw_string", "ansi_c_string", "translated_string"):
            return True
        if node.type != "concatenation":
            return False
        return all(
            "{" not in self.text(part)
            for part in node.children
            if part.type not in ("string", "raw_string", "ansi_c_string", "translated_string")
        )

    def mark_dynamic(self, index: int) -> None:
        self.found[index] = _lazy_dataclass.replace(self.found[index], dynamic=True)

    # -- words

    def word(self, node: Any, depth: int, via: str, *, quoted: bool = False) -> _Word:
        """A word's fields (brace expansion aside), with substitutions walked.
        `quoted`: inside double quotes or an assignment, where no field splitting happens."""
        if node is None:
            return _Word([""], False)
        self.step()
        self.nest()  # `${a:-${a:-...}}`: the recursion is bounded
        try:
            return self.expand(node, depth, via, quoted)
        finally:
            self.level -= 1

    def expand(self, node: Any, depth: int, via: str, quoted: bool) -> _Word:
        kind = node.type
        if kind in _LITERAL_KINDS:
            # text of the source: bounded by it, but copied again each time a loop or a
            # function walks it, so charged each time
            self.built(node.end_byte - node.start_byte)
            if kind == "raw_string":
                return _Word([self.text(node)[1:-1]], False)
            if kind == "ansi_c_string":
                return _Word([_ansi_c(self.text(node)[2:-1])], False)
            if kind == "string_content":
                return _Word([_unescape_double(self.text(node))], False)
            if kind == "heredoc_content":
                return _Word([self.text(node)], False)
            return _Word([_unescape(self.text(node))], False)
        if kind in ("string", "translated_string"):
            return self.concat(node, depth, via, quoted=True)
        if kind == "concatenation":
            return self.concat(node, depth, via, quoted=quoted)
        if kind in ("simple_expansion", "expansion"):
            return self.expansion(node, depth, via, quoted=quoted)
        if kind in _SUBSTITUTIONS:
            self.substitution = True
            if depth + 1 > MAX_DEPTH:
                raise _too_deep("substitutions")
            start = len(self.found)
            self.walk(node, depth + 1, via, ())
            output = self.output(start) if kind == "command_substitution" else None
            if output is None:
                return _Word(None, True)
            output = output.rstrip("\n")  # as bash strips it
            self.delivered(len(output))
            if quoted:
                return _Word([output], True, output, grown=len(output))
            fields, before, after = _split_fields(output, self.variables.get("IFS") or _DEFAULT_IFS)
            return _Word(fields, True, output, before, after, grown=len(output))
        # Arithmetic, arrays, globs with expansions...: walk for commands, value unknown.
        self.walk(node, depth, via, ())
        if any(True for _ in _descendants_of_kind(node, _DYNAMIC_KINDS, self)):
            return _Word(None, True)
        self.built(node.end_byte - node.start_byte)
        return _Word([self.text(node)], False)

    def concat(self, node: Any, depth: int, via: str, *, quoted: bool) -> _Word:
        """Adjacent parts of one word (`"r"m`, `a$X`); a quoted string is one field,
        an unquoted concatenation joins the split fields of its expansions. The bytes
        expansions put into it are counted before it is built (`$v$v`, doubled again
        and again, must not be)."""
        fields: list[list[str]] = []  # each field as its pieces, joined at the end
        joinable = False
        dynamic = False
        unknown = False
        template: list[str] = []
        grown = 0
        for child in node.children:
            if not child.is_named:
                if quoted:
                    continue  # the quotes themselves
                part = _Word([self.text(child)], False)
            else:
                part = self.word(child, depth, via, quoted=quoted)
            if part.grown:
                grown += part.grown
                self.expanded_word(grown)
            template.append(part.template)
            dynamic = dynamic or part.dynamic
            if part.values is None:
                unknown = True  # keep walking: later parts may hold substitutions
                continue
            if unknown:
                continue
            if quoted:
                # One field, except that "$@" keeps each argument a field of its own
                # ("a$@b" with x y: `ax`, `yb`), as bash does.
                if not fields:
                    fields = [[]]
                if part.values:
                    fields[-1].append(part.values[0])
                    fields.extend([value] for value in part.values[1:])
                continue
            if not part.values:
                joinable = joinable and not (part.split_before or part.split_after)
                continue
            if fields and joinable and not part.split_before:
                fields[-1].append(part.values[0])
                fields.extend([value] for value in part.values[1:])
            else:
                fields.extend([value] for value in part.values)
            joinable = not part.split_after
        if unknown:
            return _Word(None, True, "".join(template), grown=grown)
        joined = ["".join(pieces) for pieces in fields]
        if quoted and not joined:
            joined = [""]
        return _Word(joined, dynamic, "".join(template), grown=grown)

    def expansion(self, node: Any, depth: int, via: str, *, quoted: bool) -> _Word:
        self.step(node.child_count)  # (each child is looked at, some more than once)
        names = [c for c in node.children if c.type == "variable_name"]
        if names and any(c.type == "!" for c in node.children):
            # `${!k}`: the variable `k` names; its value is not known, its name may be
            target = self.variables.get(self.text(names[0]))
            if target is not None and len(node.children) == 4:
                resolved = self.indirect(target, quoted)
                if resolved is not None:
                    return resolved
            # a name nobody can tell may be any variable's: read as the environment
            self.expanded.extend([self.text(names[0]), target or _ANY_VARIABLE])
            return _Word(None, True)
        plain = len(node.children) == (2 if node.type == "simple_expansion" else 3)
        defaulted: str | None = None
        walked: set[int] = set()
        if not plain and names and node.type == "expansion":
            defaulted = self.defaulted(node, names[0], depth, via, walked)
            if defaulted is None:
                defaulted = self.trimmed(node, names[0])
            if defaulted is None:
                defaulted = self.transformed(node, names[0], depth, via, walked)
        for child in node.children:  # `${X:-$(id)}`: the default may run
            if child.id not in walked and (child.type in _SUBSTITUTIONS or child.child_count):
                self.word(child, depth, via, quoted=True)
            elif child.id not in walked and not child.child_count:
                # tree-sitter leaves `${x:-`id`}` and `${x%`id`}` operands as plain words
                self.latent(self.text(child), depth)
        if defaulted is not None:
            grown = len(defaulted)
            self.delivered(grown)
            if quoted:
                return _Word([defaulted], True, defaulted, grown=grown)
            separators = self.variables.get("IFS") or _DEFAULT_IFS
            fields, before, after = _split_fields(defaulted, separators)
            return _Word(fields, True, defaulted, before, after, grown=grown)
        if plain and not names and self.positional is not None:
            special = [c for c in node.children if c.type == "special_variable_name"]
            if special and self.text(special[0]) in ("@", "*"):
                grown = sum(len(p) + 1 for p in self.positional)
                self.delivered(grown)
                self.step(len(self.positional))
                # "$@" is each argument a word of its own; "$*" joins them
                if quoted and self.text(special[0]) == "*":
                    separator = self.variables.get("IFS", _DEFAULT_IFS)
                    if separator is None:
                        return _Word(None, True)
                    joined = separator[:1].join(self.positional)  # "$*": by $IFS's first
                    return _Word([joined], True, joined, grown=grown)
                if quoted:
                    return _Word(list(self.positional), True, grown=grown)
                ifs = self.variables.get("IFS", _DEFAULT_IFS)
                if ifs is None:
                    return _Word(None, True)
                # unquoted, each argument is split again at $IFS
                return _Word(
                    [w for p in self.positional for w in _split_fields(p, ifs)[0]],
                    True,
                    grown=grown,
                )
        subscript = self.subscript_of(node)
        if subscript is not None:
            return self.element(*subscript, quoted)
        if not (plain and names):
            self.expanded.extend(self.text(n) for n in names)
            return _Word(None, True)
        variable = self.text(names[0])
        known = self.variables.get(variable)
        if known is None:
            self.expanded.append(variable)
            return _Word(None, True)
        return self.valued(known, quoted, variable not in self.given)


def _fed_text(redirects: tuple[_Redirect, ...]) -> str | None:
    """What a here-string or a here-document feeds to standard input, as a program
    reads it (a here-string ends with a newline); None when it is not known."""
    stdin = next((r for r in reversed(redirects) if r.stdin), None)
    if stdin is None or stdin.script is None or not stdin.known:
        return None
    if stdin.text.lstrip("0123456789").startswith("<<<"):
        return stdin.script + "\n"
    return stdin.script


def _evaluated_names(name: str, args: list[str]) -> list[str]:
    """The words a variable-naming builtin evaluates as names or arithmetic: what
    follows `-v`/`-R` (test, printf), every operand (unset, let, read, ...), and
    for declarations the name part (the value too under `-i`, an integer)."""
    if name in ("test", "[", "[[", "printf"):
        return [args[i + 1] for i, a in enumerate(args[:-1]) if a in ("-v", "-R")]
    if name in ("declare", "typeset", "local", "export", "readonly"):
        integer = any(a.startswith("-") and "i" in a for a in args)
        return [a if integer else a.split("=", 1)[0] for a in args if not a.startswith("-")]
    return [a for a in args if not a.startswith("-")]


def _latent_bodies(text: str) -> list[str]:
    """The bodies of the `...` and $(...) substitutions spelled in `text` (not $((...)),
    which is arithmetic), every one: each is walked, and charged, as a script."""
    bodies: list[str] = []
    index = 0
    while index < len(text):
        if text[index] == "`":
            end = text.find("`", index + 1)
            if end < 0:
                bodies.append(text[index + 1 :])
                break
            bodies.append(text[index + 1 : end])
            index = end + 1
            continue
        if text.startswith("$(", index) and not text.startswith("$((", index):
            level, end = 1, index + 2
            while end < len(text) and level:
                level += {"(": 1, ")": -1}.get(text[end], 0)
                end += 1
            bodies.append(text[index + 2 : end - 1 if not level else end])
            index = end
            continue
        index += 1
    return [b for b in bodies if b.strip()]


def _descendants_of_kind(node: Any, kinds: frozenset[str], walker: _Walker) -> Any:
    """The nodes of `kinds` below `node`; each node looked at is a step of `walker`."""
    stack = list(node.children)
    while stack:
        current = stack.pop()
        walker.step()
        if current.type in kinds:
            yield current
        stack.extend(current.children)


def _split_operator(operator: str) -> tuple[str, str]:
    """`2>` -> ("2", ">"); `<<-` -> ("", "<<-")."""
    digits = len(operator) - len(operator.lstrip("0123456789"))
    return operator[:digits], operator[digits:]


def _normal_dir(path: str) -> str:
    """A directory path without `.`, `..` and `//` (lexically, as `cd` does by default);
    a relative one stays relative ("" for the starting directory)."""
    collapsed = _paths._collapse(path)
    return "" if collapsed == "." else collapsed


def _flags(args: list[str]) -> tuple[str, ...]:
    flags: list[str] = []
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("--") and len(arg) > 2:
            flags.append(arg[2:].split("=", 1)[0])
        elif arg.startswith("-") and len(arg) > 1 and not arg[1:].isdigit():
            flags.extend(arg[1:])
    return tuple(flags)
