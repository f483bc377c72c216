"""Every regular expression of the schema in the Rust engine's spelling of its ECMA-262 meaning
(``codegen.regex``); one with no linear-time form is left for a rule's backtracking matcher
(said in a diagnostic), one that is no pattern refused."""

from __future__ import annotations

from codegen import ecma
from codegen._json import pointer
from codegen.regex import NeedsBacktracking, PatternError, to_rust
from codegen.schema_passes import walk
from codegen.schema_passes.context import Context


def translate_patterns(ctx: Context) -> None:
    """Every regular expression of the schema in the Rust engine's spelling of its
    ECMA-262 meaning (``codegen.regex``); one that has no such form is refused here."""
    for at, node in walk.subschemas_at(ctx.root):
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            node["pattern"] = _pattern(ctx, pattern, at + "/pattern")
        patterns = node.get("patternProperties")
        if isinstance(patterns, dict):
            node["patternProperties"] = {
                _pattern(ctx, key, at + pointer("patternProperties", key)): sub
                for key, sub in patterns.items()
            }


def _pattern(ctx: Context, pattern: str, at: str) -> str:
    """The pattern in the linear-time engine's spelling; one with lookaround or
    backreferences stays ECMA-262 as written, for a rule's backtracking matcher
    (``codegen.ecma``, step-bounded); one that is no pattern is refused."""
    try:
        return to_rust(pattern)
    except NeedsBacktracking:
        why = "has lookaround or backreferences"
    except PatternError as error:
        # ECMA-262 reads some patterns the Rust engine does not (Annex B: a brace that is
        # no quantifier is a literal): the backtracking matcher reads them as ECMA does
        why = f"has no linear-time form ({error})"
    try:
        ecma.parse(pattern)
    except ecma.PatternSyntaxError as error:
        ctx.sink.error(at, f"pattern {pattern!r}: {error}; refused")
        return pattern
    ctx.backtracking.add(pattern)
    ctx.sink.warn(
        at,
        f"pattern {pattern!r} {why}: matched in a rule by backtracking, refusing a value "
        f"past {ecma.MAX_STEPS} steps",
    )
    return pattern
