"""Harness descriptors: eval-magic's TOML description of a harness, and the engine that runs
its declarative tier (``[transcript.extract]``) over an event stream.

A descriptor is read as eval-magic reads it (its tables beyond ``transcript`` and
``conversation`` are about dispatching a harness and are ignored here), so eval-magic's own
descriptor files work unchanged. One table is ours: ``[agentruns.ending]`` says which events
end a run as completed or failed, so a stream cut short can be told from a finished one;
eval-magic has no such notion (its loader would refuse the table, so keep it in descriptors
written for agentruns).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from agentruns._json_text import compact
from agentruns._read import up_to
from agentruns.derivations import _elapsed_ms
from agentruns.errors import DescriptorError
from agentruns.transcripts._stream import (
    JsonObject,
    events,
    has,
    pick,
    rfc3339,
)
from agentruns.transcripts._summary import Message, Summary, ToolCall
from agentruns_generated._json import JsonValue

ParserName = Literal[
    "claude-stream-json",
    "cline-json",
    "codex-items",
    "opencode-events",
    "claude-session",
    "codex-rollout",
    "gemini-session",
    "copilot-events",
    "opencode-storage",
    "cline-task",
    "pi-events",
    "pi-session",
    "aider-history",
]
"""The named readers (code, for streams that need joins across events): eval-magic's four,
then agentruns' readers of the agents' own session files."""


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, defer_build=True)


class ToolsRule(_Table):
    where: dict[str, str] = {}
    item: str | None = None
    name_field: str = Field(min_length=1)
    skip_names: list[str] = []
    args_omit: list[str] = []
    result_coalesce: list[str] = []


class PickRule(_Table):
    where: dict[str, str] = {}
    field: str = Field(min_length=1)


class TokensRule(_Table):
    where: dict[str, str] = {}
    sum: list[str] = Field(min_length=1)
    subtract: list[str] = []


class DurationRule(_Table):
    where: dict[str, str] = {}
    field: str | None = None
    timestamp_spread: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> DurationRule:
        if (self.field is None) == (self.timestamp_spread is None):
            raise ValueError("declare exactly one of `field` and `timestamp_spread`")
        return self


class Extract(_Table):
    tools: ToolsRule | None = None
    final_text: PickRule | None = None
    assistant_messages: PickRule | None = None
    session_id: PickRule | None = None
    tokens: TokensRule | None = None
    duration: DurationRule | None = None
    session_surface: dict[str, JsonValue] | None = None
    """The skill/plugin roster: not a run-record field, accepted and not read."""

    @property
    def summarizes(self) -> bool:
        return any(
            rule is not None
            for rule in (
                self.tools,
                self.final_text,
                self.assistant_messages,
                self.session_id,
                self.tokens,
                self.duration,
            )
        )


class TranscriptTable(_Table):
    events_filename: str = Field(min_length=1)
    parser: ParserName | None = None
    permission_denials_parser: ParserName | None = None
    extract: Extract | None = None
    surfaces_skill_invocation: bool = False
    skill_tool: str | None = None
    skill_arg: str | None = None

    @model_validator(mode="after")
    def _one_reader(self) -> TranscriptTable:
        declarative = self.extract is not None and self.extract.summarizes
        if (self.parser is not None) != declarative:
            return self
        raise ValueError(
            "declare one summary reader: `parser` or [transcript.extract] outputs, not "
            + ("both" if declarative else "neither")
        )


class ConversationTable(_Lenient):
    token_usage_aggregation: Literal["sum", "last"] = "sum"


class EndingRules(_Table):
    completed: list[dict[str, str]] = []
    failed: list[dict[str, str]] = []
    reason: list[str] = []
    """Dotted paths, tried in order, to the text saying why a failed run failed."""


class UsageRule(_Table):
    """Token kinds in the one meaning (input counts cache, output counts reasoning): each a
    dotted path into the matching event; ``total_tokens`` is then input plus output."""

    where: dict[str, str] = {}
    input: list[str] = []
    output: list[str] = []
    cache_creation: list[str] = []
    cache_read: list[str] = []
    reasoning: list[str] = []


class AgentrunsTable(_Table):
    ending: EndingRules | None = None
    usage: UsageRule | None = None
    tool_failed: list[dict[str, str]] = []
    """Matches on a tool item that mark its call failed (``{ status = "failed" }``)."""


class Descriptor(_Lenient):
    label: str = Field(min_length=1)
    transcript: TranscriptTable
    # made when a descriptor lacks them, not at import (a default instance would build the
    # models' validators when this module is imported, by every command)
    conversation: ConversationTable = Field(default_factory=ConversationTable)
    agentruns: AgentrunsTable = Field(default_factory=AgentrunsTable)

    @property
    def aggregation(self) -> Literal["sum", "last"]:
        return self.conversation.token_usage_aggregation


MAX_DESCRIPTOR_SIZE = 1 << 20
"""A descriptor is a few kilobytes of tables; a larger file is refused before it is parsed."""
MAX_DESCRIPTOR_DEPTH = 32
"""Nesting of arrays and inline tables, and parts of a dotted key or header, a descriptor may
have (eval-magic's go three deep): deeper is refused before parsing, which would recurse."""


def load(path: str | Path) -> Descriptor:
    try:
        with Path(path).open("rb") as stream:
            raw = up_to(stream, MAX_DESCRIPTOR_SIZE)
        if len(raw) > MAX_DESCRIPTOR_SIZE:
            raise DescriptorError(
                f"{path}: larger than {MAX_DESCRIPTOR_SIZE} bytes: not a harness descriptor"
            )
        text = raw.decode("utf-8")
        _bounded(text, str(path))
        data = tomllib.loads(text)
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        raise DescriptorError(f"{path}: {error}") from None
    except RecursionError:
        raise DescriptorError(f"{path}: nested too deep to be a harness descriptor") from None
    return parse(data, str(path))


def _bounded(text: str, where: str) -> None:
    """Refuse nesting deeper than ``MAX_DESCRIPTOR_DEPTH``, counted outside strings and
    comments, in one pass over the text (line, then the offending construct)."""
    depth = 0
    dots = 0
    quote = ""
    line = 1
    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        if quote:
            if char == "\\" and quote == '"':
                index += 2
                continue
            if text.startswith(quote, index):
                index += len(quote)
                quote = ""
                continue
            if char == "\n":
                line += 1
            index += 1
            continue
        if char in "\"'":
            quote = char * 3 if text.startswith(char * 3, index) else char
            index += len(quote)
            continue
        if char == "#":
            end = text.find("\n", index)
            index = length if end < 0 else end
            continue
        if char == "\n":
            line += 1
            dots = 0
        elif char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
        elif char == ".":
            dots += 1
        elif char == "=" or char == ",":
            dots = 0
        if depth > MAX_DESCRIPTOR_DEPTH or dots > MAX_DESCRIPTOR_DEPTH:
            what = "arrays or tables nested" if depth > MAX_DESCRIPTOR_DEPTH else "a dotted key"
            raise DescriptorError(
                f"{where}:{line}: {what} deeper than {MAX_DESCRIPTOR_DEPTH}: "
                "not a harness descriptor"
            )
        index += 1


def parse(data: dict[str, object], where: str) -> Descriptor:
    try:
        return Descriptor.model_validate(data)
    except ValidationError as error:
        problems = "; ".join(
            f"/{'/'.join(str(part) for part in e['loc'])}: {e['msg']}" for e in error.errors()
        )
        raise DescriptorError(f"{where}: not a harness descriptor: {problems}") from None


def _matches(value: JsonObject, where: dict[str, str]) -> bool:
    return all(pick(value, path) == expected for path, expected in where.items())


@dataclass(slots=True)
class _Spread:
    """First and last parseable timestamp in file order, and how many there were."""

    first: datetime | None = None
    last: datetime | None = None
    count: int = 0

    def add(self, at: datetime) -> None:
        self.first = at if self.first is None else self.first
        self.last = at
        self.count += 1


def run(descriptor: Descriptor, path: str, summary: Summary) -> None:
    """Read ``path`` with the descriptor's declarative rules into ``summary``."""
    extract = descriptor.transcript.extract
    if extract is None or not extract.summarizes:
        raise DescriptorError(f"{descriptor.label}: no [transcript.extract] outputs to run")
    ending = descriptor.agentruns.ending
    duration = extract.duration
    tokens: int | None = None
    duration_field: int | None = None
    spread = _Spread()
    for line, value in events(path, summary):
        used = False
        at: datetime | None = None
        if duration is not None and _matches(value, duration.where):
            if duration.timestamp_spread is not None:
                at = rfc3339(pick(value, duration.timestamp_spread))
                if at is not None:
                    spread.add(at)
                    summary.seen(at)
            elif duration.field is not None:
                found = pick(value, duration.field)
                if isinstance(found, int) and not isinstance(found, bool):
                    duration_field = found
                    used = True
        if extract.tools is not None and _matches(value, extract.tools.where):
            call = _tool(extract.tools, value, summary.calls, line)
            if call is not None:
                item = value if extract.tools.item is None else pick(value, extract.tools.item)
                failed = descriptor.agentruns.tool_failed
                if isinstance(item, dict) and any(_matches(item, rule) for rule in failed):
                    call.is_error = True
                summary.next_ordinal()
                call.at = at
                summary.events.append(call)
                used = True
        messages, final = extract.assistant_messages, extract.final_text
        if messages is not None and _matches(value, messages.where):
            text = pick(value, messages.field)
            if isinstance(text, str):
                summary.events.append(Message(text, line, at))
                used = True
        if final is not None and _matches(value, final.where):
            text = pick(value, final.field)
            if isinstance(text, str):
                summary.final_text = text
                used = True
        if extract.session_id is not None and _matches(value, extract.session_id.where):
            found = pick(value, extract.session_id.field)
            if isinstance(found, str):
                summary.session_id = found
                used = True
        if extract.tokens is not None and _matches(value, extract.tokens.where):
            counted = _tokens(extract.tokens, value)
            if counted is not None:
                tokens = counted + (tokens or 0)
                used = True
        usage = descriptor.agentruns.usage
        if usage is not None and _matches(value, usage.where):
            used = _usage(usage, value, summary) or used
        if ending is not None:
            used = _ending(ending, value, summary) or used
        if not used:
            kind = value.get("type")
            summary.skipped[kind if isinstance(kind, str) else "?"] += 1
    summary.total_tokens = tokens
    if duration is not None and duration.field is not None:
        summary.duration_ms = duration_field
    elif spread.first is not None and spread.last is not None and spread.count >= 2:
        summary.duration_ms = _elapsed_ms(spread.first, spread.last)
    if ending is None:
        summary.ending = "completed"
    elif summary.ending == "cut":
        summary.reason = f"the stream ends without {descriptor.label}'s closing event"
        summary.problem(0, summary.reason)


def _ending(rules: EndingRules, value: JsonObject, summary: Summary) -> bool:
    if any(_matches(value, where) for where in rules.failed):
        summary.ending = "failed"
        for path in rules.reason:
            text = pick(value, path)
            if isinstance(text, str):
                summary.reason = text
                break
        else:
            summary.reason = compact(value)
        return True
    if any(_matches(value, where) for where in rules.completed):
        if summary.ending != "failed":
            summary.ending = "completed"
        return True
    return False


def _tool(rule: ToolsRule, value: JsonObject, ordinal: int, line: int) -> ToolCall | None:
    item = value if rule.item is None else pick(value, rule.item)
    if not isinstance(item, dict):
        return None
    name = item.get(rule.name_field)
    if not isinstance(name, str) or name in rule.skip_names:
        return None
    omitted = set(rule.args_omit)
    args: JsonObject = {key: v for key, v in item.items() if key not in omitted}
    result: str | None = None
    for key in rule.result_coalesce:
        if has(item, key) and item[key] is not None:  # a failed call's result is null
            found = item[key]
            result = found if isinstance(found, str) else compact(found)
            break
    return ToolCall(name=name, ordinal=ordinal, args=args or None, result=result, line=line)


def _usage(rule: UsageRule, value: JsonObject, summary: Summary) -> bool:
    def count(paths: list[str]) -> int | None:
        found = [pick(value, path) for path in paths]
        numbers = [n for n in found if isinstance(n, int) and not isinstance(n, bool)]
        return sum(numbers) if numbers else None

    kinds = (
        count(rule.input),
        count(rule.output),
        count(rule.cache_creation),
        count(rule.cache_read),
        count(rule.reasoning),
    )
    if all(v is None for v in kinds):
        return False
    fresh, out, creation, cached, reasoning = kinds
    summary.add_usage(
        input=fresh, output=out, cache_creation=creation, cache_read=cached, reasoning=reasoning
    )
    return True


def _tokens(rule: TokensRule, value: JsonObject) -> int | None:
    def number(path: str) -> int | None:
        found = pick(value, path)
        return found if isinstance(found, int) and not isinstance(found, bool) else None

    added = [number(path) for path in rule.sum]
    if all(n is None for n in added):
        return None
    total = sum(n or 0 for n in added) - sum(number(path) or 0 for path in rule.subtract)
    return max(total, 0)
