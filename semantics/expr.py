"""The user-expression grammar: text -> IR term, by our own parser (never eval).

Grammar (C precedence and associativity, lowest first)::

    expr    := xor ('|' xor)*
    xor     := and ('^' and)*
    and     := shift ('&' shift)*
    shift   := add (('<<' | '>>') add)*
    add     := unary (('+' | '-') unary)*
    unary   := ('~' | '-' | '+') unary | primary
    primary := NUMBER | NAME | FUNC '(' expr (',' expr)* ')' | '(' expr ')'
    FUNC    := rol(x, n) | ror(x, n) | bswap(x)

NUMBER is ASCII decimal or ``0x`` hex and must fit 32 bits (``numerals.py``:
``b+١٢`` is refused at column 3, never read as ``b+12``); NAME is a 32-bit
variable (``[A-Za-z_][A-Za-z0-9_]*``, not a function name). Shift and rotate
counts are taken mod 32 (``ir.py``).

Bounded work on hostile input: text longer than ``MAX_CHARS`` is refused
before tokenizing, nesting deeper than ``MAX_DEPTH`` is refused when reached,
and the parser is linear in the number of tokens. Errors are one line:
``column N: expected X, found Y``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sha1opt.semantics.errors import ParseError
from sha1opt.semantics.ir import MASK32, Builder, Term
from sha1opt.semantics.numerals import describe, non_ascii_digit

MAX_CHARS = 65536   # far above any round function; a 1 MB paste is refused
MAX_DEPTH = 100     # parentheses / unary / call nesting (each level costs ~3 Python frames)

FUNCTIONS = {"rol": 2, "ror": 2, "bswap": 1}

_TOKEN = re.compile(
    r"""\s*(?:
        (?P<num>0[xX][0-9A-Fa-f]+|[0-9]+)
      | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
      | (?P<op><<|>>|[~&|^+\-(),])
    )""",
    re.VERBOSE,
)


@dataclass(frozen=True, slots=True)
class Token:
    kind: str   # "num", "name", "op", "end"
    text: str
    col: int    # 1-based column of the token's first character


def tokenize(text: str) -> list[Token]:
    if len(text) > MAX_CHARS:
        raise ParseError(f"expression is {len(text)} characters; the limit is {MAX_CHARS}")
    toks: list[Token] = []
    pos = 0
    n = len(text)
    while True:
        while pos < n and text[pos].isspace():
            pos += 1
        if pos >= n:
            break
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            ch = text[pos]
            if non_ascii_digit(ch) is not None:
                raise ParseError(f"column {pos + 1}: {describe(ch)}")
            raise ParseError(f"column {pos + 1}: unexpected character {ch!r}")
        kind = m.lastgroup or "op"
        toks.append(Token(kind, m.group(kind), m.start(kind) + 1))
        pos = m.end()
    toks.append(Token("end", "", n + 1))
    return toks


class _Parser:
    def __init__(self, text: str, builder: Builder) -> None:
        self.toks = tokenize(text)
        self.i = 0
        self.b = builder
        self.depth = 0

    @property
    def tok(self) -> Token:
        return self.toks[self.i]

    def _fail(self, expected: str) -> ParseError:
        t = self.tok
        found = "end of input" if t.kind == "end" else repr(t.text)
        return ParseError(f"column {t.col}: expected {expected}, found {found}")

    def _eat(self, text: str) -> None:
        if self.tok.kind == "op" and self.tok.text == text:
            self.i += 1
        else:
            raise self._fail(repr(text))

    def _enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ParseError(f"column {self.tok.col}: nesting deeper than {MAX_DEPTH} levels")

    def parse(self) -> Term:
        t = self._binary(0)
        if self.tok.kind != "end":
            raise self._fail("an operator or end of input")
        return t

    # Binary operators -> (precedence, IR op); higher binds tighter (C order).
    _BINARY = {
        "|": (1, "or"),
        "^": (2, "xor"),
        "&": (3, "and"),
        "<<": (4, "shl"), ">>": (4, "shr"),
        "+": (5, "add"), "-": (5, "sub"),
    }

    def _binary(self, min_prec: int) -> Term:
        # Precedence climbing: left-associative, and only a bounded number of
        # Python frames per parenthesis level (keeps MAX_DEPTH far from the
        # interpreter's recursion limit).
        left = self._unary()
        while self.tok.kind == "op" and self.tok.text in self._BINARY:
            prec, op = self._BINARY[self.tok.text]
            if prec < min_prec:
                break
            self.i += 1
            right = self._binary(prec + 1)
            left = self.b.node(op, (left, right))
        return left

    def _unary(self) -> Term:
        t = self.tok
        if t.kind == "op" and t.text in "~-+" and len(t.text) == 1:
            self.i += 1
            self._enter()
            x = self._unary()
            self.depth -= 1
            if t.text == "~":
                return self.b.node("not", (x,))
            if t.text == "-":
                return self.b.node("neg", (x,))
            return x
        return self._primary()

    def _primary(self) -> Term:
        t = self.tok
        if t.kind == "num":
            self.i += 1
            v = int(t.text, 0) if t.text.lower().startswith("0x") else int(t.text, 10)
            if v > MASK32:
                raise ParseError(f"column {t.col}: constant {t.text} does not fit in 32 bits")
            return self.b.const(v)
        if t.kind == "name":
            self.i += 1
            nxt = self.tok
            is_call = nxt.kind == "op" and nxt.text == "("
            if t.text in FUNCTIONS:
                if not is_call:
                    raise self._fail(f"'(' after function {t.text}")
                return self._call(t)
            if is_call:
                raise ParseError(
                    f"column {t.col}: unknown function {t.text!r} (known: {', '.join(sorted(FUNCTIONS))})"
                )
            return self.b.var(t.text)
        if t.kind == "op" and t.text == "(":
            self.i += 1
            self._enter()
            x = self._binary(0)
            self._eat(")")
            self.depth -= 1
            return x
        raise self._fail("a number, a variable, a function call or '('")

    def _call(self, name: Token) -> Term:
        self._eat("(")
        self._enter()
        args = [self._binary(0)]
        while self.tok.kind == "op" and self.tok.text == ",":
            self.i += 1
            args.append(self._binary(0))
        self._eat(")")
        self.depth -= 1
        want = FUNCTIONS[name.text]
        if len(args) != want:
            raise ParseError(
                f"column {name.col}: {name.text} takes {want} argument{'s' * (want > 1)}, got {len(args)}"
            )
        return self.b.node(name.text, args)


def parse(text: str, builder: Builder | None = None) -> Term:
    """Parse ``text`` into a term of ``builder`` (a new one if omitted)."""
    return _Parser(text, builder if builder is not None else Builder()).parse()
