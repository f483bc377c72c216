"""ECMA-262 regular expressions with lookaround and backreferences, matched by backtracking
within a step budget.

A pattern the linear-time engine cannot run (lookaround, backreferences: ``codegen.regex``)
is matched here, only inside schema rules. Backtracking can take exponential time
(``^(a+)+$`` on ``aaaa...b``), so every match counts its steps and gives up past
``MAX_STEPS`` with ``PatternBudgetError``: the value is refused with that reason (fail
closed), never judged by a guess and never left to hang a service. The searches of one
validation also share ``MAX_RECORD_STEPS`` (the models open one budget per validation), so a
record of many hostile values is refused as fast as a few.

The build step copies this file into ``agentruns_generated/_ecma.py`` (the models use it at
run time) and parses each such pattern with it at build time, so a pattern the matcher
cannot read is refused when the model is generated, not when it is first used. Standard
library only: the generated package depends on nothing but pydantic.

Semantics are ECMA-262's without flags: ``\\d``, ``\\w``, ``\\b`` are ASCII, ``\\s`` is ECMA's
white space and line terminators, ``.`` stops at line terminators, ``^``/``$`` are the ends of
the text; lookbehind is matched backwards from the position it stands at.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar, Token
from dataclasses import dataclass
from functools import cache

MAX_STEPS = 200_000
"""Steps one search may take (each is one attempt of one pattern node at one position)."""

MAX_RECORD_STEPS = 1_000_000
"""Steps every search of one validation may take together (``one_budget``): a record of a
thousand hostile values is refused in about a second, not a thousand times the bound of one."""

_RECORD: ContextVar[list[int] | None] = ContextVar("agentruns_pattern_budget", default=None)


def open_budget() -> Token[list[int] | None] | None:
    """Start one budget for the searches of a validation (None: one is already open, and
    the outer validation's budget is the one). Close it with ``close_budget``."""
    if _RECORD.get() is not None:
        return None
    return _RECORD.set([MAX_RECORD_STEPS])


def close_budget(token: Token[list[int] | None] | None) -> None:
    if token is not None:
        _RECORD.reset(token)


_LINE_TERMINATORS = frozenset("\n\r\u2028\u2029")
_SPACE = frozenset(
    "\t\n\x0b\x0c\r \xa0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
_DIGITS = frozenset("0123456789")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_UNBOUNDED = -1


class PatternSyntaxError(ValueError):
    """Not a pattern this matcher reads (ECMA-262 syntax, no flags)."""


class PatternBudgetError(ValueError):
    """A match took more than ``MAX_STEPS`` steps: the pattern backtracks too much here."""


# -- the syntax tree -------------------------------------------------------------------


@dataclass(frozen=True)
class _Chars:
    test: Callable[[str], bool]


@dataclass(frozen=True)
class _Seq:
    items: tuple[object, ...]


@dataclass(frozen=True)
class _Alt:
    options: tuple[object, ...]


@dataclass(frozen=True)
class _Group:
    body: object
    index: int  # 0: not capturing


@dataclass(frozen=True)
class _Repeat:
    body: object
    low: int
    high: int  # _UNBOUNDED: no upper bound
    greedy: bool


@dataclass(frozen=True)
class _Assert:
    kind: str  # "^", "$", "b", "B"


@dataclass(frozen=True)
class _Look:
    body: object
    ahead: bool
    negative: bool


@dataclass(frozen=True)
class _Backref:
    index: int


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern: its tree and its number of capturing groups."""

    tree: object
    groups: int
    named: tuple[int, ...] = ()
    """The group of each ``\\k<name>``, in the order they appear (``_Backref(-1)`` is the
    first)."""


@cache
def parse(pattern: str) -> Pattern:
    """The pattern's tree; ``PatternSyntaxError`` when it is none."""
    parser = _Parser(pattern)
    tree = parser.alternation()
    if parser.index != len(pattern):
        raise PatternSyntaxError(f"unbalanced ')' at {parser.index}")
    named = parser.resolve_names()
    for index in parser.backrefs:
        if index > parser.groups:
            raise PatternSyntaxError(f"backreference \\{index} to a group that does not exist")
    return Pattern(tree, parser.groups, named)


class _Parser:
    def __init__(self, pattern: str) -> None:
        self.text = pattern
        self.index = 0
        self.groups = 0
        self.names: dict[str, int] = {}
        self.named_refs: list[str] = []
        self.backrefs: list[int] = []

    def peek(self, ahead: int = 0) -> str:
        at = self.index + ahead
        return self.text[at] if at < len(self.text) else ""

    def alternation(self) -> object:
        options = [self.sequence()]
        while self.peek() == "|":
            self.index += 1
            options.append(self.sequence())
        return options[0] if len(options) == 1 else _Alt(tuple(options))

    def sequence(self) -> object:
        items: list[object] = []
        while self.peek() not in ("", "|", ")"):
            items.append(self.quantified())
        return items[0] if len(items) == 1 else _Seq(tuple(items))

    def quantified(self) -> object:
        atom, quantifiable = self.atom()
        bounds = self.quantifier()
        if bounds is None:
            return atom
        if not quantifiable:
            raise PatternSyntaxError(f"nothing to repeat at {self.index}")
        low, high = bounds
        greedy = True
        if self.peek() == "?":
            self.index += 1
            greedy = False
        return _Repeat(atom, low, high, greedy)

    def quantifier(self) -> tuple[int, int] | None:
        char = self.peek()
        if char in ("*", "+", "?"):
            self.index += 1
            return {"*": (0, _UNBOUNDED), "+": (1, _UNBOUNDED), "?": (0, 1)}[char]
        if char == "{":
            end = self.text.find("}", self.index)
            body = self.text[self.index + 1 : end] if end != -1 else ""
            low_text, comma, high_text = body.partition(",")
            if end != -1 and low_text.isdigit() and (not high_text or high_text.isdigit()):
                low = int(low_text)
                high = low if not comma else int(high_text) if high_text else _UNBOUNDED
                if high != _UNBOUNDED and high < low:
                    raise PatternSyntaxError(f"numbers out of order in {{}} at {self.index}")
                self.index = end + 1
                return low, high
        return None  # a literal "{" (Annex B)

    def atom(self) -> tuple[object, bool]:
        char = self.peek()
        if char == "(":
            return self.group()
        if char in ("*", "+", "?"):
            raise PatternSyntaxError(f"nothing to repeat at {self.index}")
        if char == "{" and self.quantifier() is not None:
            raise PatternSyntaxError(f"nothing to repeat at {self.index}")
        self.index += 1
        if char == "^":
            return _Assert("^"), False
        if char == "$":
            return _Assert("$"), False
        if char == ".":
            return _Chars(lambda c: c not in _LINE_TERMINATORS), True
        if char == "[":
            return self.char_class(), True
        if char == "\\":
            return self.escape()
        return _literal(char), True

    def group(self) -> tuple[object, bool]:
        self.index += 1  # (
        look = None
        for prefix, ahead, negative in (
            ("?=", True, False),
            ("?!", True, True),
            ("?<=", False, False),
            ("?<!", False, True),
        ):
            if self.text.startswith(prefix, self.index):
                look = (ahead, negative)
                self.index += len(prefix)
                break
        index = 0
        if look is None:
            if self.text.startswith("?:", self.index):
                self.index += 2
            elif self.text.startswith("?<", self.index):
                end = self.text.find(">", self.index)
                name = self.text[self.index + 2 : end] if end != -1 else ""
                if not name.isidentifier() or name in self.names:
                    raise PatternSyntaxError(f"a bad group name at {self.index}")
                self.groups += 1
                index = self.groups
                self.names[name] = index
                self.index = end + 1
            elif self.peek() == "?":
                raise PatternSyntaxError(f"an unknown group kind at {self.index}")
            else:
                self.groups += 1
                index = self.groups
        body = self.alternation()
        if self.peek() != ")":
            raise PatternSyntaxError("a group is not closed")
        self.index += 1
        if look is not None:
            ahead, negative = look
            # Annex B: a lookahead may be quantified, a lookbehind may not
            return _Look(body, ahead, negative), ahead
        return _Group(body, index), True

    def escape(self) -> tuple[object, bool]:
        char = self.peek()
        if char == "":
            raise PatternSyntaxError("the pattern ends with a lone backslash")
        if char in "bB":
            self.index += 1
            return _Assert(char), False
        if char in "123456789":
            start = self.index
            while self.peek().isdigit():
                self.index += 1
            number = int(self.text[start : self.index])
            self.backrefs.append(number)
            return _Backref(number), True
        if char == "k" and self.peek(1) == "<":
            end = self.text.find(">", self.index)
            if end == -1:
                raise PatternSyntaxError("an unterminated \\k<name>")
            self.named_refs.append(self.text[self.index + 2 : end])
            self.index = end + 1
            return _Backref(-len(self.named_refs)), True  # resolved after parsing
        found = self.class_escape()
        return (_literal(found) if isinstance(found, str) else _Chars(found)), True

    def class_escape(self) -> str | Callable[[str], bool]:
        """The character of the escape whose letter is at the index (consumed), or the test
        of a class escape (``\\d``...)."""
        char = self.peek()
        self.index += 1
        sets = {"d": _DIGITS, "w": _WORD, "s": _SPACE}
        if char.lower() in sets:
            members = sets[char.lower()]
            if char.islower():
                return members.__contains__
            return lambda c: c not in members
        simple = {"t": "\t", "n": "\n", "r": "\r", "v": "\x0b", "f": "\x0c"}
        if char in simple:
            return simple[char]
        if char == "0" and not self.peek().isdigit():
            return "\x00"
        if char == "c" and self.peek().isascii() and self.peek().isalpha():
            code = ord(self.peek().upper()) - 64
            self.index += 1
            return chr(code)
        if char in "xu":
            width = 2 if char == "x" else 4
            digits = self.text[self.index : self.index + width]
            if len(digits) == width and all(d in "0123456789abcdefABCDEF" for d in digits):
                self.index += width
                return chr(int(digits, 16))
            if char == "u" and self.peek() == "{":
                end = self.text.find("}", self.index)
                digits = self.text[self.index + 1 : end] if end != -1 else ""
                if digits and all(d in "0123456789abcdefABCDEF" for d in digits):
                    code = int(digits, 16)
                    if code > 0x10FFFF:
                        raise PatternSyntaxError("a code point beyond U+10FFFF")
                    self.index = end + 1
                    return chr(code)
        return char  # an identity escape

    def char_class(self) -> _Chars:
        negated = self.peek() == "^"
        if negated:
            self.index += 1
        tests: list[Callable[[str], bool]] = []
        first = True
        while True:
            char = self.peek()
            if char == "":
                raise PatternSyntaxError("a character class is not closed")
            if char == "]" and not first:
                self.index += 1
                break
            if char == "]" and first:
                self.index += 1
                break  # "[]" matches nothing, "[^]" anything
            first = False
            low = self.class_atom()
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.index += 1
                high = self.class_atom()
                if isinstance(low, str) and isinstance(high, str):
                    if ord(low) > ord(high):
                        raise PatternSyntaxError("a range out of order in a character class")
                    tests.append(_between(low, high))
                    continue
                raise PatternSyntaxError("a range of a character class escape")
            tests.append(low.__eq__ if isinstance(low, str) else low)
        if negated:
            return _Chars(lambda c: not any(t(c) for t in tests))
        return _Chars(lambda c: any(t(c) for t in tests))

    def class_atom(self) -> str | Callable[[str], bool]:
        """One character of a class, or the test of a class escape (``\\d``...)."""
        char = self.peek()
        self.index += 1
        if char != "\\":
            return char
        letter = self.peek()
        if letter == "b":
            self.index += 1
            return "\x08"
        if letter == "-":
            self.index += 1
            return "-"
        return self.class_escape()

    def resolve_names(self) -> tuple[int, ...]:
        """``\\k<name>`` back references are numbered once every group is known."""
        for name in self.named_refs:
            if name not in self.names:
                raise PatternSyntaxError(f"\\k<{name}> names no group")
        return tuple(self.names[name] for name in self.named_refs)


def _between(low: str, high: str) -> Callable[[str], bool]:
    return lambda char: low <= char <= high


def _literal(char: str) -> _Chars:
    return _Chars(char.__eq__)


# -- matching ----------------------------------------------------------------------------


class _Match:
    def __init__(self, pattern: Pattern, text: str, limit: int = MAX_STEPS) -> None:
        self.text = text
        self.steps = 0
        self.limit = limit
        self.captures: list[tuple[int, int] | None] = [None] * (pattern.groups + 1)
        self.named = pattern.named

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.limit:
            if self.limit < MAX_STEPS:
                raise PatternBudgetError(
                    f"the patterns took more than {MAX_RECORD_STEPS} backtracking steps "
                    "on this record"
                )
            raise PatternBudgetError(
                f"the pattern took more than {MAX_STEPS} backtracking steps on this value"
            )

    def run(self, node: object, at: int, then: Callable[[int], bool]) -> bool:
        self.tick()
        text = self.text
        if isinstance(node, _Chars):
            return at < len(text) and node.test(text[at]) and then(at + 1)
        if isinstance(node, _Seq):
            return self._sequence(node.items, 0, at, then)
        if isinstance(node, _Alt):
            return any(self.run(option, at, then) for option in node.options)
        if isinstance(node, _Group):
            if node.index == 0:
                return self.run(node.body, at, then)
            saved = self.captures[node.index]

            def close(end: int, start: int = at, slot: int = node.index) -> bool:
                previous = self.captures[slot]
                self.captures[slot] = (start, end)
                if then(end):
                    return True
                self.captures[slot] = previous
                return False

            if self.run(node.body, at, close):
                return True
            self.captures[node.index] = saved
            return False
        if isinstance(node, _Repeat):
            return self._repeat(node, at, 0, then)
        if isinstance(node, _Assert):
            return self._assert(node.kind, at) and then(at)
        if isinstance(node, _Look):
            return self._look(node, at) and then(at)
        if isinstance(node, _Backref):
            span = self.captures[self._group_of(node)]
            if span is None:
                return then(at)  # an unset group matches the empty string
            piece = text[span[0] : span[1]]
            return text.startswith(piece, at) and then(at + len(piece))
        raise AssertionError(node)

    def _group_of(self, node: _Backref) -> int:
        return node.index if node.index > 0 else self.named[-node.index - 1]

    def _sequence(
        self, items: tuple[object, ...], position: int, at: int, then: Callable[[int], bool]
    ) -> bool:
        if position == len(items):
            return then(at)
        return self.run(
            items[position], at, lambda end: self._sequence(items, position + 1, end, then)
        )

    def _repeat(self, node: _Repeat, at: int, count: int, then: Callable[[int], bool]) -> bool:
        self.tick()
        if count < node.low:
            return self.run(node.body, at, lambda end: self._repeat(node, end, count + 1, then))
        if isinstance(node.body, _Chars):
            return self._repeat_chars(node, node.body, at, count, then)
        can_go = node.high == _UNBOUNDED or count < node.high

        def more(end: int) -> bool:
            # an iteration that matched nothing ends the loop (ECMA-262's empty check)
            return end != at and self._repeat(node, end, count + 1, then)

        if node.greedy:
            return (can_go and self.run(node.body, at, more)) or then(at)
        return then(at) or (can_go and self.run(node.body, at, more))

    def _repeat_chars(
        self, node: _Repeat, chars: _Chars, at: int, count: int, then: Callable[[int], bool]
    ) -> bool:
        """A repeated single character (``.*``, ``[a-z]+``): the run is measured once and
        each length tried in order, without a stack frame per character."""
        text = self.text
        end = at
        limit = len(text) if node.high == _UNBOUNDED else min(len(text), at + node.high - count)
        while end < limit and chars.test(text[end]):
            end += 1
        lengths = range(end, at - 1, -1) if node.greedy else range(at, end + 1)
        for stop in lengths:
            self.tick()
            if then(stop):
                return True
        return False

    def _assert(self, kind: str, at: int) -> bool:
        text = self.text
        if kind == "^":
            return at == 0
        if kind == "$":
            return at == len(text)
        before = at > 0 and text[at - 1] in _WORD
        after = at < len(text) and text[at] in _WORD
        return (before != after) if kind == "b" else (before == after)

    def _look(self, node: _Look, at: int) -> bool:
        saved = list(self.captures)
        if node.ahead:
            found = self.run(node.body, at, lambda _end: True)
        else:
            found = any(
                self.run(node.body, start, lambda end: end == at) for start in range(at, -1, -1)
            )
        if node.negative or not found:
            self.captures = saved
        return found != node.negative


def search(pattern: str, text: str) -> bool:
    """Whether ``pattern`` matches somewhere in ``text`` (``PatternSyntaxError``,
    ``PatternBudgetError``)."""
    parsed = parse(pattern)
    shared = _RECORD.get()
    match = _Match(parsed, text, MAX_STEPS if shared is None else min(MAX_STEPS, shared[0]))
    try:
        return any(
            match.run(parsed.tree, start, lambda _end: True) for start in range(len(text) + 1)
        )
    except RecursionError:
        raise PatternBudgetError("the pattern nests too deep on this value") from None
    finally:
        if shared is not None:
            shared[0] -= match.steps
