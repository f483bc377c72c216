"""JSON Schema regular expressions (ECMA-262) for a linear-time engine (Rust's ``regex``).

The models check patterns with pydantic-core's Rust engine, which never backtracks
(``^(a+)+$`` stays linear). Its syntax is close to ECMA-262 but not equal, and where it is
equal in spelling it can differ in meaning: ``\\d``, ``\\w``, ``\\s`` and ``\\b`` are Unicode-
aware there and ASCII (``\\s``: ECMA's own whitespace set) in ECMA-262; ``.`` excludes only
``\\n`` there, and ECMA's four line terminators here. So each pattern is rewritten token by
token into the Rust spelling of its ECMA meaning, then compiled once by pydantic-core; what
has no linear-time form (lookaround, backreferences) or does not compile is refused, with the
reason, at build time, never left to fail (or to switch a whole model to Python's
backtracking ``re``) when a model is first used.
"""

from __future__ import annotations

from functools import cache

_DIGIT = "0-9"
_WORD = "A-Za-z0-9_"
# ECMA-262 WhiteSpace and LineTerminator
_SPACE = r"\t\n\x0B\x0C\r \xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000\uFEFF"
_CLASSES = {"d": _DIGIT, "w": _WORD, "s": _SPACE}
_LINE_TERMINATORS = r"\n\r\u2028\u2029"
# Escapes are written as \xHH and \uHHHH, which Rust, ECMA-262 and Python all read the same
# way: the published schema keeps working in other validators.


class PatternError(ValueError):
    """A pattern with no exact linear-time form, or not a valid regular expression."""


class NeedsBacktracking(PatternError):
    """A pattern with lookaround or backreferences: valid, but no linear-time engine runs it
    (``codegen.ecma`` does, within a step budget)."""


def to_rust(pattern: str) -> str:
    """The Rust ``regex`` spelling of an ECMA-262 pattern, checked to compile."""
    out: list[str] = []
    index = 0
    in_class = False
    length = len(pattern)
    while index < length:
        char = pattern[index]
        if char == "\\":
            if index + 1 >= length:
                raise PatternError("the pattern ends with a lone backslash")
            text, index = _escape(pattern, index + 1, in_class)
            out.append(text)
            continue
        if in_class:
            if char == "]":
                in_class = False
            elif char in "[&~" or (char == "-" and pattern.startswith("--", index)):
                char = "\\" + char  # literals in ECMA-262; nesting and set operators in Rust
            out.append(char)
            index += 1
            continue
        if pattern.startswith("[^]", index):
            out.append("(?s:.)")  # any character at all
            index += 3
            continue
        if pattern.startswith("[]", index):
            out.append(r"[^\x00-\U0010FFFF]")  # no character at all
            index += 2
            continue
        if char == "[":
            in_class = True
            out.append(char)
            index += 1
            if pattern.startswith("^", index):
                out.append("^")
                index += 1
            if pattern.startswith("]", index):  # a literal ] first in the class
                out.append(r"\]")
                index += 1
            continue
        if char == "(" and pattern.startswith(("(?=", "(?!", "(?<=", "(?<!"), index):
            raise NeedsBacktracking("lookaround has no linear-time form")
        if char == ".":
            out.append(f"[^{_LINE_TERMINATORS}]")
            index += 1
            continue
        out.append(char)
        index += 1
    if in_class:
        raise PatternError("a character class is not closed")
    translated = "".join(out)
    _compile(translated)
    return translated


def _escape(pattern: str, index: int, in_class: bool) -> tuple[str, int]:
    """The Rust spelling of the escape whose letter is at ``index``; the index after it."""
    char = pattern[index]
    lower = char.lower()
    if lower in _CLASSES:
        members = _CLASSES[lower]
        if char.islower():
            return (members if in_class else f"[{members}]"), index + 1
        return f"[^{members}]", index + 1
    if char in "bB":
        if in_class:
            return (r"\x08" if char == "b" else "B"), index + 1  # [\b] is a backspace
        return rf"(?-u:\{char})", index + 1
    if char == "c" and index + 1 < len(pattern) and pattern[index + 1].isalpha():
        return _code_point(ord(pattern[index + 1].upper()) - 64), index + 2
    if char == "u":
        return _unicode_escape(pattern, index)
    if char == "0" and not pattern[index + 1 : index + 2].isdigit():
        return r"\x00", index + 1
    if char.isdigit() or char == "k":
        raise NeedsBacktracking("backreferences have no linear-time form")
    if char == "/":
        return "/", index + 1
    return "\\" + char, index + 1


def _unicode_escape(pattern: str, index: int) -> tuple[str, int]:
    if pattern.startswith("u{", index):
        end = pattern.find("}", index)
        if end == -1:
            raise PatternError("an unterminated \\u{...} escape")
        try:
            code = int(pattern[index + 2 : end], 16)
        except ValueError:
            raise PatternError("a malformed \\u{...} escape") from None
        return _code_point(code), end + 1
    digits = pattern[index + 1 : index + 5]
    if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
        return "u", index + 1  # ECMA-262 without the u flag: an identity escape
    code = int(digits, 16)
    after = index + 5
    if 0xD800 <= code <= 0xDBFF and pattern.startswith("\\u", after):
        low_digits = pattern[after + 2 : after + 6]
        if len(low_digits) == 4 and all(c in "0123456789abcdefABCDEF" for c in low_digits):
            low = int(low_digits, 16)
            if 0xDC00 <= low <= 0xDFFF:
                code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                after += 6
    if 0xD800 <= code <= 0xDFFF:
        raise PatternError("a lone surrogate escape cannot match Unicode text")
    return _code_point(code), after


def _code_point(code: int) -> str:
    if code > 0x10FFFF:
        raise PatternError("a code point beyond U+10FFFF")
    if code < 0x100:
        return rf"\x{code:02X}"
    if code < 0x10000:
        return rf"\u{code:04X}"
    return chr(code)  # a literal: every engine reads it as that character


@cache
def _compile(translated: str) -> None:
    from pydantic_core import SchemaError, SchemaValidator, core_schema

    try:
        SchemaValidator(
            core_schema.str_schema(pattern=translated),
            config=core_schema.CoreConfig(regex_engine="rust-regex"),
        )
    except SchemaError as error:
        lines = [line.strip() for line in str(error).splitlines() if line.strip()]
        detail = next((line for line in lines if line.startswith("error:")), lines[-1])
        raise PatternError(f"not a valid regular expression ({detail})") from None
