"""CEL source to a syntax tree, for the engine that compiles conditions to Python
(`policy.packs.cel.native`).

Only sources the checker (cel-expr-python's own parser and type checker) has already
accepted reach this parser, so its job is to read valid CEL exactly as CEL reads it —
precedence, literals, escapes — not to explain invalid CEL. Whatever it does not read
with certainty (bytes and unsigned literals, message construction, optional syntax, a
leading-dot name) raises `Unsupported`, and the program is evaluated by cel-expr-python
instead.

The tree is tuples whose first item names the node:

    ("lit", value)                     ("id", name)
    ("sel", operand, field)            ("has", operand, field)
    ("index", operand, index)          ("call", name, target | None, (args...))
    ("list", (items...))               ("map", ((key, value)...))
    ("cond", test, then, otherwise)    ("and", left, right)    ("or", left, right)
    ("not", operand)                   ("neg", operand)
    ("op", symbol, left, right)        ("macro", name, target, variable, (args...))
"""

from __future__ import annotations

import functools
import re
from typing import Any

from policy.analysis._lazy_re import LazyPattern

__all__ = ["IDENTIFIER", "Node", "Unsupported", "literal", "parse", "tree_depth"]

Node = tuple[Any, ...]

#: Int64 range: a literal outside it is not read here.
_INT_MAX = (1 << 63) - 1
#: How deep a source may nest (parentheses, operands of unary operators) and be read
#: here: the compiled forms recurse as deep as the tree, and Python's stack is bounded.
_DEPTH = 60
#: ... and how deep its tree may be (a chain of `||` nests one level an operand).
TREE_DEPTH = 240


class Unsupported(Exception):
    """A source this parser does not read with certainty (cel-expr-python evaluates it)."""


_TOKEN = LazyPattern(
    r"""(?P<space>[ \t\r\n\f]+|//[^\n]*)
    |(?P<float>(?:[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?|[0-9]+[eE][+-]?[0-9]+|\.[0-9]+(?:[eE][+-]?[0-9]+)?))
    |(?P<int>0[xX][0-9a-fA-F]+[uU]?|[0-9]+[uU]?)
    |(?P<string>[rRbB]{0,2}(?:\"\"\"|'''|"|'))
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<punct>&&|\|\||==|!=|<=|>=|[<>!?:.,()\[\]{}+\-*/%])""",
    re.VERBOSE,
)

#: Escapes of a (not raw) CEL string.
_SIMPLE_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "`": "`",
    "?": "?",
}

_MACROS = frozenset({"exists", "all", "exists_one", "map", "filter"})
#: What a name (a variable, a field, a function, a macro's variable) is made of.
IDENTIFIER = LazyPattern(r"[A-Za-z_][A-Za-z0-9_]*")
#: Words CEL reserves: never an identifier.
_RESERVED = frozenset(
    {
        "as", "break", "const", "continue", "else", "for", "function", "if", "import",
        "let", "loop", "package", "namespace", "return", "var", "void", "while",
    }
)  # fmt: skip


def _string_value(source: str, start: int, prefix: str, quote: str) -> tuple[str, int]:
    """The value of the string literal whose opening quote ends at `start`, and where
    it ends."""
    raw = "r" in prefix.lower()
    out: list[str] = []
    at = start
    while True:
        if at >= len(source):
            raise Unsupported("a string that does not end")
        if source.startswith(quote, at):
            return "".join(out), at + len(quote)
        char = source[at]
        if char in "\r\n" and len(quote) == 1:
            raise Unsupported("a line break in a one-line string")
        if char != "\\" or raw:
            out.append(char)
            at += 1
            continue
        escape = source[at + 1 : at + 2]
        if escape in _SIMPLE_ESCAPES:
            out.append(_SIMPLE_ESCAPES[escape])
            at += 2
        elif escape in ("x", "X", "u", "U"):
            width = {"x": 2, "X": 2, "u": 4, "U": 8}[escape]
            digits = source[at + 2 : at + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise Unsupported("a malformed escape")
            code = int(digits, 16)
            if 0xD800 <= code <= 0xDFFF or code > 0x10FFFF:
                raise Unsupported("an escape that is no character")
            out.append(chr(code))
            at += 2 + width
        elif escape in "0123":
            digits = source[at + 1 : at + 4]
            if len(digits) != 3 or not all(c in "01234567" for c in digits):
                raise Unsupported("a malformed octal escape")
            out.append(chr(int(digits, 8)))
            at += 4
        else:
            raise Unsupported(f"the escape \\{escape}")


def _tokens(source: str) -> list[tuple[str, Any, int]]:
    """(kind, value, offset) of every token, then ("end", None, len)."""
    found: list[tuple[str, Any, int]] = []
    at = 0
    while at < len(source):
        match = _TOKEN.match(source, at)
        if match is None:
            raise Unsupported(f"an unexpected character at {at}")
        kind = match.lastgroup
        text = match.group()
        if kind == "space":
            at = match.end()
            continue
        if kind == "string":
            quote = text.lstrip("rRbB")
            prefix = text[: len(text) - len(quote)]
            if "b" in prefix.lower():
                raise Unsupported("a bytes literal")
            if prefix and found and found[-1][0] in ("ident", "int", "float"):
                raise Unsupported("letters glued to a string")
            value, at = _string_value(source, match.end(), prefix, quote)
            found.append(("string", value, match.start()))
            continue
        if kind == "float":
            if text.startswith(".") and found and (
                found[-1][0] in ("ident", "int", "float", "string") or found[-1][1] in (")", "]")
            ):
                raise Unsupported("a number where a member belongs")
            found.append(("float", float(text), match.start()))
        elif kind == "int":
            if text[-1] in "uU":
                raise Unsupported("an unsigned literal")
            number = int(text, 16) if text[:2] in ("0x", "0X") else int(text)
            found.append(("int", number, match.start()))
        elif kind == "ident":
            if text in _RESERVED:
                raise Unsupported(f"the reserved word {text}")
            found.append(("ident", text, match.start()))
        else:
            found.append(("punct", text, match.start()))
        at = match.end()
    found.append(("end", None, len(source)))
    return found


class _Parser:
    def __init__(self, source: str) -> None:
        self.tokens = _tokens(source)
        self.at = 0
        self.depth = 0

    def peek(self, value: str) -> bool:
        kind, text, _ = self.tokens[self.at]
        return kind in ("punct", "ident") and text == value

    def take(self, value: str) -> bool:
        if self.peek(value):
            self.at += 1
            return True
        return False

    def expect(self, value: str) -> None:
        if not self.take(value):
            raise Unsupported(f"expected {value!r} at {self.tokens[self.at][2]}")

    def expr(self) -> Node:
        self.depth += 1
        if self.depth > _DEPTH:
            raise Unsupported("nesting deeper than this parser reads")
        test = self.or_()
        if self.take("?"):
            then = self.or_()
            self.expect(":")
            test = ("cond", test, then, self.expr())
        self.depth -= 1
        return test

    def or_(self) -> Node:
        node = self.and_()
        while self.take("||"):
            node = ("or", node, self.and_())
        return node

    def and_(self) -> Node:
        node = self.relation()
        while self.take("&&"):
            node = ("and", node, self.relation())
        return node

    def relation(self) -> Node:
        node = self.addition()
        while True:
            for symbol in ("<=", ">=", "==", "!=", "<", ">", "in"):
                if self.take(symbol):
                    node = ("op", symbol, node, self.addition())
                    break
            else:
                return node

    def addition(self) -> Node:
        node = self.multiplication()
        while True:
            if self.take("+"):
                node = ("op", "+", node, self.multiplication())
            elif self.take("-"):
                node = ("op", "-", node, self.multiplication())
            else:
                return node

    def multiplication(self) -> Node:
        node = self.unary()
        while True:
            for symbol in ("*", "/", "%"):
                if self.take(symbol):
                    node = ("op", symbol, node, self.unary())
                    break
            else:
                return node

    def unary(self) -> Node:
        """CEL's parser drops `!` and `-` in pairs: `!!x` is `x` (a string, if `x` is
        one), `--x` is `x`; an odd run is one operator. A `-` run before a number is
        part of the literal (`-9223372036854775808`)."""
        for symbol in ("!", "-"):
            if not self.peek(symbol):
                continue
            count = 0
            while self.take(symbol):
                count += 1
            if self.peek("!") or self.peek("-"):
                raise Unsupported("`!` and `-` mixed in one run")
            kind, value, _ = self.tokens[self.at]
            if symbol == "-" and count % 2 and kind in ("int", "float"):
                self.at += 1
                return self.member(self._number(-value))
            node = self.member(self.primary())
            if count % 2 == 0:
                return node
            return ("not", node) if symbol == "!" else ("neg", node)
        return self.member(self.primary())

    @staticmethod
    def _number(value: int | float) -> Node:
        if type(value) is int and not -_INT_MAX - 1 <= value <= _INT_MAX:
            raise Unsupported("an int literal outside int64")
        return ("lit", value)

    def args(self, closing: str) -> list[Node]:
        items: list[Node] = []
        if self.take(closing):
            return items
        while True:
            items.append(self.expr())
            if self.take(closing):
                return items
            self.expect(",")
            if closing != ")" and self.take(closing):  # a trailing comma
                return items

    def primary(self) -> Node:
        kind, value, _ = self.tokens[self.at]
        self.at += 1
        if kind in ("int", "float"):
            return self._number(value)
        if kind == "string":
            return ("lit", value)
        if kind == "ident":
            if value in ("true", "false", "null"):
                return ("lit", {"true": True, "false": False, "null": None}[value])
            if value == "in":
                raise Unsupported("`in` where an operand belongs")
            if self.take("("):
                args = self.args(")")
                if value == "has":
                    if len(args) != 1 or args[0][0] != "sel":
                        raise Unsupported("has() of something not a field")
                    return ("has", args[0][1], args[0][2])
                return ("call", value, None, tuple(args))
            if self.peek("{"):
                raise Unsupported("message construction")
            return ("id", value)
        if kind == "punct":
            if value == "(":
                node = self.expr()
                self.expect(")")
                return node
            if value == "[":
                return ("list", tuple(self.args("]")))
            if value == "{":
                pairs: list[tuple[Node, Node]] = []
                if not self.take("}"):
                    while True:
                        key = self.expr()
                        self.expect(":")
                        pairs.append((key, self.expr()))
                        if self.take("}"):
                            break
                        self.expect(",")
                        if self.take("}"):
                            break
                return ("map", tuple(pairs))
        raise Unsupported(f"cannot read {value!r} where an operand belongs")

    def member(self, node: Node) -> Node:
        while True:
            if self.take("."):
                kind, name, _ = self.tokens[self.at]
                if kind != "ident" or name in ("true", "false", "null", "in"):
                    raise Unsupported("a member that is not a name")
                self.at += 1
                if self.take("("):
                    args = self.args(")")
                    if name in _MACROS and args and args[0][0] == "id":
                        node = self._macro(name, node, args)
                    else:
                        node = ("call", name, node, tuple(args))
                else:
                    node = ("sel", node, name)
            elif self.take("["):
                if self.peek("?"):
                    raise Unsupported("optional indexing")
                index = self.expr()
                self.expect("]")
                node = ("index", node, index)
            else:
                return node

    @staticmethod
    def _macro(name: str, target: Node, args: list[Node]) -> Node:
        arity = {"exists": 2, "all": 2, "exists_one": 2, "filter": 2, "map": (2, 3)}[name]
        if len(args) not in (arity if isinstance(arity, tuple) else (arity,)):
            raise Unsupported(f"{name}() with {len(args)} arguments")
        return ("macro", name, target, args[0][1], tuple(args[1:]))


def literal(node: Node) -> tuple[bool, Any]:
    """(True, value) for a literal, or a list of literals (a tuple); else (False, None)."""
    if node[0] == "lit":
        return True, node[1]
    if node[0] == "list":
        values = [literal(item) for item in node[1]]
        if all(ok for ok, _ in values):
            return True, tuple(v for _, v in values)
    return False, None


def tree_depth(node: Node) -> int:
    """How deep the tree is (iteratively: a long `||` chain is as deep as it is long)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(node, 1)]
    while stack:
        item, depth = stack.pop()
        if type(item) is tuple:
            deepest = max(deepest, depth)
            stack.extend((part, depth + 1) for part in item)
    return deepest


@functools.lru_cache(maxsize=4096)
def parse(source: str) -> Node:
    """The tree of a CEL expression; raises `Unsupported` for what it does not read.
    (Kept by source, as it is a tuple nothing changes: each tool's program of a pack
    holds the conditions of its rules for every tool, which are parsed once.)"""
    parser = _Parser(source)
    node = parser.expr()
    if parser.tokens[parser.at][0] != "end":
        raise Unsupported(f"unexpected text at {parser.tokens[parser.at][2]}")
    if tree_depth(node) > TREE_DEPTH:
        raise Unsupported("a tree deeper than the compiled forms recurse")
    return node
