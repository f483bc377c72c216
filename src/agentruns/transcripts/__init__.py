"""Run records from what an agent printed or kept: Claude Code, Codex, Cline and OpenCode
event streams; the agents' own session files (Claude Code sessions, Codex rollouts, Gemini
CLI sessions, GitHub Copilot CLI events, OpenCode storage, Cline task folders); and any
harness described in eval-magic's TOML descriptor format.

``read(path, harness=...)`` gives the canonical run, which any format writes
(``agentruns.from_canonical``); ``load`` gives the run with everything the reading met: each
round's summary, the problems (bad lines, unpaired calls, a stream cut short), the event
types skipped and the permission denials. A stream is read line by line; a bad line is a
problem, never a stop.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from importlib import resources
from itertools import chain, islice
from pathlib import Path
from typing import Literal, TypeVar, get_args

from pydantic import MISSING, BaseModel, TypeAdapter, ValidationError

from agentruns._harnesses import HarnessName
from agentruns._rejects import rejection
from agentruns.canonical import STEP_FAILED, Run, RunStep, Status
from agentruns.derivations import derive_total_tokens
from agentruns.errors import (
    AgentrunsError,
    DescriptorError,
    InputError,
    RecordError,
    TranscriptError,
)
from agentruns.transcripts import (
    _aider,
    _claude,
    _claude_light,
    _claude_session,
    _cline,
    _cline_task,
    _codex,
    _codex_rollout,
    _copilot,
    _declarative,
    _gemini,
    _opencode,
    _opencode_storage,
    _pi,
)
from agentruns.transcripts._declarative import Descriptor, ParserName
from agentruns.transcripts._stream import JsonObject, events
from agentruns.transcripts._summary import (
    Denial,
    Message,
    Problem,
    Summary,
    ToolCall,
    top_model,
)
from agentruns_generated._json import JsonValue

__all__ = [
    "HARNESSES",
    "Denial",
    "Descriptor",
    "DescriptorError",
    "Message",
    "Problem",
    "RunImport",
    "Summary",
    "ToolCall",
    "Transcript",
    "TranscriptError",
    "Unreadable",
    "candidates",
    "descriptor",
    "detect",
    "import_run",
    "load",
    "open_session",
    "read",
    "sessions",
]

HARNESSES: tuple[HarnessName, ...] = get_args(HarnessName)
"""The built-in harnesses, by the names ``--harness`` takes: what the agents print when run
by a script, then the agents' own session files."""

DEFAULT_MAX_RESULT = 1 << 20
"""Largest tool result kept whole, in characters; a longer one is cut there and the cut
reported (eval-magic keeps results whole; one command's megabytes of output would make a
record nobody can open)."""


S = TypeVar("S", int, float, str)

_Reader = Callable[[str, Summary], None]


def _claude_session_read(path: str, summary: Summary) -> None:
    """A Claude Code session, by the one-pass reader, else (``Unusual``) by the first one."""
    light = Summary(summary.harness, summary.source)
    try:
        _claude_light.read(path, light)
    except _claude_light.Unusual:
        _claude_session.read(path, summary)
        return
    for name in Summary.__dataclass_fields__:
        setattr(summary, name, getattr(light, name))


@dataclass(frozen=True, slots=True)
class _Harness:
    """A built-in harness, declared once: its name, the reader its descriptor's ``parser``
    names (None: the descriptor's own tables read it), and the look of an event only it
    writes (None: recognized otherwise, by a file's first bytes)."""

    name: HarnessName
    parser: ParserName | None
    read: _Reader | None
    looks: Callable[[JsonObject], bool] | None


_BUILT_IN: tuple[_Harness, ...] = (  # in the order detection tries their looks
    _Harness("codex", None, None, _codex.looks_like),
    _Harness("codex-rollout", "codex-rollout", _codex_rollout.read, _codex_rollout.looks_like),
    _Harness("copilot", "copilot-events", _copilot.read, _copilot.looks_like),
    _Harness("gemini", "gemini-session", _gemini.read, _gemini.looks_like),
    _Harness(
        "claude-code-session", "claude-session", _claude_session_read, _claude_session.looks_like
    ),
    _Harness(
        "opencode-storage",
        "opencode-storage",
        _opencode_storage.read,
        _opencode_storage.looks_like_session,
    ),
    _Harness("cline-task", "cline-task", _cline_task.read, _cline_task.looks_like),
    _Harness("pi", "pi-events", _pi.read, _pi.looks_like),
    _Harness("pi-session", "pi-session", _pi.read_session, _pi.looks_like_session),
    _Harness("cline", "cline-json", _cline.read, _cline.looks_like),
    _Harness("opencode", "opencode-events", _opencode.read, _opencode.looks_like),
    _Harness("claude-code", "claude-stream-json", _claude.read, _claude.looks_like),
    _Harness("aider", "aider-history", _aider.read, None),  # a chat log: its first bytes say
)

_NAMED: dict[ParserName, _Reader] = {
    h.parser: h.read for h in _BUILT_IN if h.parser is not None and h.read is not None
}
"""The code each named parser is (a descriptor, built in or a user's, names one)."""


@cache
def _builtin(name: HarnessName) -> Descriptor:
    text = resources.files(__name__).joinpath("harnesses", f"{name}.toml").read_text("utf-8")
    import tomllib

    return _declarative.parse(tomllib.loads(text), f"{name}.toml")


def descriptor(harness: str) -> Descriptor:
    """A built-in harness's descriptor by name, or one read from a ``.toml`` file."""
    if harness in HARNESSES:
        return _builtin(harness)
    if harness.endswith(".toml"):
        try:
            return _declarative.load(harness)
        except DescriptorError as error:
            raise TranscriptError(str(error)) from None
    choices = ", ".join((*HARNESSES, "auto"))
    raise TranscriptError(f"unknown harness {harness!r} (choose {choices}, or a .toml file)")


_LOOKS: tuple[tuple[HarnessName, Callable[[JsonObject], bool]], ...] = tuple(
    (h.name, h.looks) for h in _BUILT_IN if h.looks is not None
)
_SNIFF = 50
"""Events looked at to recognize a harness (the first few are enough: every harness opens
with events only it writes)."""


def detect(path: str) -> HarnessName:
    """The harness that wrote a transcript, from its first events (a folder or a database:
    from what it holds)."""
    base, mark, _ = path.partition("#")
    if mark and (
        _opencode_storage.is_database(base)
        or (Path(base).is_dir() and _opencode_storage.storage_root(Path(base)) is not None)
    ):
        return "opencode-storage"  # one session of a tree or a database (``storage#<id>``)
    if Path(path).is_dir():
        if _cline_task.folder_of(path) is not None:
            return "cline-task"
        if _opencode_storage.storage_root(Path(path)) is not None:
            return "opencode-storage"
        raise TranscriptError(
            f"{path}: a folder with no session of a known harness in it (not a Cline task "
            "or OpenCode storage; `agentruns import FOLDER` finds the sessions under it)"
        )
    try:
        if _opencode_storage.is_database(path):
            return "opencode-storage"
        if path != "-":
            with Path(path).open("rb") as stream:
                if _aider.looks_like(stream.read(4096)):
                    return "aider"
    except OSError as error:
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    scratch = Summary("auto", path)
    opening: list[JsonObject] = []  # the first event, to say what the file is if no harness's

    def kept(read: Iterable[tuple[int, JsonObject]]) -> Iterator[JsonObject]:
        for _, value in read:
            if not opening:
                opening.append(value)
            yield value

    try:
        voted = _vote(kept(events(path, scratch)))
    except InputError as error:
        raise TranscriptError(str(error)) from None
    except OSError as error:
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    if voted is None:
        # no telling event (an empty capture, say): the file name eval-magic captures to
        for name in HARNESSES:
            if Path(path).name.endswith(_builtin(name).transcript.events_filename):
                return name
        # what was wrong with the lines, if anything was (a broken archive, lines of no JSON):
        # the reason there was no event to tell, said before the way out
        first = scratch.problems[0] if scratch.problems else None
        found = f" (line {first.line}: {first.message})" if first is not None else ""
        if opening and (held := _records_of(opening[0])) is not None:
            raise TranscriptError(
                f"{path}: {held} run records, not a session: `agentruns convert` converts "
                "them; or name the harness that wrote it (--harness)"
            )
        raise TranscriptError(
            f"{path}: no event of a known harness in its first {_SNIFF} lines{found}; "
            "name the harness (--harness)"
        )
    return voted


def _records_of(value: JsonObject) -> str | None:
    """The format of run records whose every required property ``value`` has, if any."""
    from agentruns.detect import detect as format_of

    return format_of(value).format


def _vote(values: Iterable[JsonObject]) -> HarnessName | None:
    """The harness most of a stream's first events are of (each event votes for the first
    harness whose look it has), or None when none has a look of any."""
    votes: Counter[HarnessName] = Counter()
    for looked, value in enumerate(islice(values, _SNIFF), start=1):
        for name, looks in _LOOKS:
            if looks(value):
                votes[name] += 1
                break
        leading = votes.most_common(2)
        lead = leading[0][1] - (leading[1][1] if len(leading) > 1 else 0) if leading else 0
        if lead > _SNIFF - looked:
            break  # the events left cannot change the answer
    return votes.most_common(1)[0][0] if votes else None


def sessions(
    folder: str | Path,
    unreadable: Callable[[str, str], None] | None = None,
    *,
    passed: Callable[[str, os.stat_result], bool] | None = None,
) -> Iterator[tuple[str, HarnessName]]:
    """Every session under a folder, as (what ``load`` takes, its harness), in path order:
    the ``candidates``, each file among them kept when a harness recognizes it."""
    for name, harness in candidates(folder, unreadable, passed=passed):
        if harness is not None:
            yield name, harness
            continue
        try:
            yield name, detect(name)
        except TranscriptError:
            continue  # not a session of any harness


def candidates(
    folder: str | Path,
    unreadable: Callable[[str, str], None] | None = None,
    *,
    passed: Callable[[str, os.stat_result], bool] | None = None,
) -> Iterator[tuple[str, HarnessName | None]]:
    """What may be a session under a folder (or ``folder`` itself, a file), in path order:
    (what ``load`` takes, its harness), the harness None for a file not sniffed yet
    (``detect`` says whether it is one; a caller with worker processes has them sniff it).

    A Cline task folder and an OpenCode storage tree or database are sessions (one, or one a
    session they hold); any other file is sniffed, and kept when a harness recognizes it. A
    Claude Code subagent file (``<session>/subagents/agent-*.jsonl``) belongs to its session
    and is not one of its own. The folder is walked lazily: a home directory's worth of
    sessions is never held at once.

    Only regular files are opened (a FIFO would block the walk for ever, ``/dev/zero`` never
    ends); such a file, one that cannot be opened and a database that cannot be read are
    given to ``unreadable`` (path, reason), never passed over in silence by a caller that
    asks. ``passed`` sees each regular file before it is opened: when it says so, the file is
    left alone (a cache that already holds what the file says, a file older than a range).
    """

    def skip(path: str, reason: str) -> None:
        if unreadable is not None:
            unreadable(path, reason)

    if not os.path.isdir(folder):  # one file: a session itself (or not: ``detect`` says)
        yield from _candidate(str(folder), skip, passed)
        return
    for top, dirs, files in os.walk(folder, onerror=None):
        dirs.sort()
        here = Path(top)
        if _cline_task.folder_of(top) == here:
            dirs.clear()
            yield top, "cline-task"
            continue
        if here.name == "storage" and (here / "session").is_dir():
            dirs.clear()
            for name in _opencode_storage.sessions(top):
                yield name, "opencode-storage"
            continue
        if here.name == "subagents" and here.parent.with_suffix(".jsonl").is_file():
            continue
        for name in sorted(files):
            if not name.endswith(_SESSION_SUFFIXES):
                continue
            if name.startswith("agent-") and _claude_session.belongs_to_a_session_beside(
                here / name
            ):
                continue  # a Claude Code 2.0.x subagent: read with its session
            yield from _candidate(str(here / name), skip, passed)


def _candidate(
    path: str,
    skip: Callable[[str, str], None],
    passed: Callable[[str, os.stat_result], bool] | None,
) -> Iterator[tuple[str, HarnessName | None]]:
    """A file of a walk: nothing when it is passed or cannot be read (said to ``skip``),
    the sessions of an OpenCode database, else the file itself, to be sniffed."""
    import stat

    try:
        status = os.stat(path)
        if stat.S_ISREG(status.st_mode):
            if passed is not None and passed(path, status):
                return
            with open(path, "rb"):
                pass
    except OSError as error:
        skip(path, error.strerror or str(error))
        return
    if not stat.S_ISREG(status.st_mode):
        skip(path, "not a regular file (a FIFO, a device or a socket): not read")
        return
    if path.endswith(".db"):
        try:
            if not _opencode_storage.is_database(path):
                return
            found = _opencode_storage.sessions(path)
        except (OSError, InputError) as error:
            skip(path, str(error).removeprefix(f"{path}: "))
            return
        for session in found:
            yield session, "opencode-storage"
        return
    yield path, None


_SESSION_SUFFIXES = (".jsonl", ".json", ".ndjson", ".aider.chat.history.md", ".db")
"""The names a folder walk looks into (anything else is no session file)."""


def _summarize(
    path: str,
    harness: str = "auto",
    *,
    max_result: int = DEFAULT_MAX_RESULT,
    label: str | None = None,
) -> Summary:
    """One event stream read into its summary (``harness``: a name, ``auto`` or a ``.toml``;
    ``label``: the name problems give the stream, when not its path)."""
    spec = descriptor(detect(path) if harness == "auto" else harness)
    summary = Summary(spec.label, label or path)
    table = spec.transcript
    try:
        if table.parser is None:
            _declarative.run(spec, path, summary)
        elif table.parser == "codex-items":
            _declarative.run(_builtin("codex"), path, summary)
        else:
            _NAMED[table.parser](path, summary)
        denials = table.permission_denials_parser
        if denials == "codex-items":
            log = _codex.stderr_of(path)
            if log is not None:
                _codex.denials(log, summary)
        elif denials is not None and denials != table.parser:
            scratch = Summary(spec.label, path)
            _NAMED[denials](path, scratch)
            summary.denials.extend(scratch.denials)
    except InputError as error:
        raise TranscriptError(str(error)) from None
    except OSError as error:
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    if _nothing_recognized(summary):
        skipped = ", ".join(sorted(summary.skipped)[:5])
        raise TranscriptError(
            f"{label or path}: nothing in it is a {harness} event (events met: "
            f"{skipped or 'none'}); another harness wrote it (--harness auto)"
        )
    _cap_results(summary, max_result)
    return summary


def _nothing_recognized(summary: Summary) -> bool:
    """Events were read and none of them was one the reader knows: the wrong harness."""
    found = (
        summary.events,
        summary.session_id,
        summary.total_tokens,
        summary.input_tokens,
        summary.output_tokens,
        summary.final_text,
        summary.children,
    )  # not the time span: any event has a time
    return bool(summary.skipped) and not any(v is not None and v != [] for v in found)


def _cap_results(summary: Summary, limit: int) -> None:
    for call in summary.tool_invocations:
        if call.result is not None and len(call.result) > limit:
            size = len(call.result)
            call.result = call.result[:limit]
            summary.problem(
                call.line, f"tool result of {call.name} cut to {limit} of {size} characters"
            )


@dataclass(frozen=True, slots=True)
class Transcript:
    """A run read from one or more event streams (one per round of a multi-turn run)."""

    harness: str
    rounds: tuple[Summary, ...]
    run: Run
    problems: tuple[Problem, ...]
    denials: tuple[Denial, ...]
    skipped: Counter[str]
    harness_total_tokens: int | None = None
    """The total as the harness's own tools count it (eval-magic's number: Codex's leaves
    out cached input, Cline's cache reads); ``run.total_tokens`` is the one rule's."""

    @property
    def complete(self) -> bool:
        """Whether the run ended as its harness ends a successful run."""
        return self.run.status == "completed"


def read(
    paths: str | Path | Sequence[str | Path],
    harness: str = "auto",
    *,
    conversation: str | Path | None = None,
    max_result: int = DEFAULT_MAX_RESULT,
) -> Run:
    """The canonical run of a transcript (several paths: the rounds of one run, in order)."""
    return load(paths, harness, conversation=conversation, max_result=max_result).run


def load(
    paths: str | Path | Sequence[str | Path],
    harness: str = "auto",
    *,
    conversation: str | Path | None = None,
    max_result: int = DEFAULT_MAX_RESULT,
) -> Transcript:
    """The run and all that reading it met. ``conversation`` is eval-magic's runner-owned
    ``conversation.json`` for a multi-turn run; when given, the run's messages and tool calls
    are the conversation's (as eval-magic records them), the rounds give tokens and time."""
    names = [str(paths)] if isinstance(paths, str | Path) else [str(p) for p in paths]
    if not names:
        raise TranscriptError("no transcript given")
    with ExitStack() as stack:
        # standard input is read twice (to recognize the harness, then whole): kept first
        readable = [_spooled(stack) if name == "-" else name for name in names]
        try:
            chosen = detect(readable[0]) if harness == "auto" else harness
            spec = descriptor(chosen)
            rounds = tuple(
                _summarize(path, chosen, max_result=max_result, label=name)
                for path, name in zip(readable, names, strict=True)
            )
        except TranscriptError as error:
            text = str(error)
            for path, name in zip(readable, names, strict=True):
                text = text.replace(path, name)
            raise TranscriptError(text) from None
    problems = [p for r in rounds for p in r.problems]
    skipped: Counter[str] = Counter()
    for r in rounds:
        skipped.update(r.skipped)
    problems += _session_problems(rounds)
    talk = _conversation(conversation) if conversation is not None else None
    run = _run(spec, rounds, talk, problems)
    return Transcript(
        chosen if chosen in HARNESSES else spec.label,
        rounds,
        run,
        tuple(problems),
        tuple(d for r in rounds for d in r.denials),
        skipped,
        _total([r.total_tokens for r in rounds], spec.aggregation),
    )


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A session file that cannot be read, and why."""

    name: str
    reason: str
    """What went wrong (the file's name not repeated)."""


def open_session(
    name: str, harness: str | None = None, *, light: bool = True
) -> Transcript | Unreadable | None:
    """One candidate of a folder walk (``candidates``: what ``load`` takes, and its harness
    or None to recognize it here): its transcript, why it cannot be read, or None for a file
    no harness wrote. Every command that takes session files reads them through this.
    ``light=False``: ``light_summary`` was asked already (and said None)."""
    if light:
        read = _light_session(name, harness)
        if read is not None:
            return read  # a Claude Code session, recognized and read in one pass
    try:
        found = harness if harness is not None else detect(name)
    except TranscriptError:
        return None  # no session
    try:
        return load(name, found)
    except (AgentrunsError, OSError, ValueError) as error:
        return Unreadable(name, str(error).removeprefix(f"{name}: "))


LIGHT: HarnessName = "claude-code-session"
"""The harness ``light_summary`` reads."""


def light_summary(name: str, harness: str | None = None) -> Summary | None:
    """A Claude Code session file recognized as ``detect`` recognizes it and read as ``load``
    reads it, from one parse of its lines (``_claude_light``), into the summary ``load``
    builds its run from (the run's one round); None when ``load`` must read it (or
    ``detect`` recognize it). For a caller that needs the summary's figures, not the run
    (``stats``): ``open_session`` gives the transcript."""
    if harness not in (None, LIGHT) or not name.endswith(".jsonl") or "#" in name:
        return None
    try:
        data = _claude_light.head(name)  # read once: the probes look at its first bytes
        if data.startswith(_opencode_storage.SQLITE) or _aider.looks_like(data[:4096]):
            return None
        entries = _claude_light.lines(name, data)
        head = list(islice(entries, _SNIFF))
        if harness is None and _vote(value for _, value in head) != LIGHT:
            return None
        summary = Summary(descriptor(LIGHT).label, name)
        _claude_light.read(name, summary, chain(head, entries))
    except (_claude_light.Unusual, OSError, InputError):
        return None
    if _nothing_recognized(summary):
        return None  # ``load`` says why
    return summary


def _light_session(name: str, harness: str | None) -> Transcript | None:
    """``light_summary``'s session as ``load`` gives it."""
    summary = light_summary(name, harness)
    if summary is None:
        return None
    chosen = LIGHT
    spec = descriptor(chosen)
    _cap_results(summary, DEFAULT_MAX_RESULT)
    rounds = (summary,)
    problems = list(summary.problems)
    run = _run(spec, rounds, None, problems)
    return Transcript(
        chosen,
        rounds,
        run,
        tuple(problems),
        tuple(summary.denials),
        Counter(summary.skipped),
        _total([summary.total_tokens], spec.aggregation),
    )


def _spooled(stack: ExitStack) -> str:
    """Standard input copied to a temporary file (removed when ``stack`` closes)."""
    import shutil
    import sys
    import tempfile

    spool = stack.enter_context(tempfile.NamedTemporaryFile(prefix="agentruns-stdin-"))  # noqa: SIM115
    shutil.copyfileobj(sys.stdin.buffer, spool, 1 << 20)
    spool.flush()
    return spool.name


def _session_problems(rounds: tuple[Summary, ...]) -> list[Problem]:
    first = rounds[0].session_id
    return [
        Problem(r.source, 0, f"session {r.session_id!r} is not round 1's session {first!r}")
        for r in rounds[1:]
        if first is not None and r.session_id is not None and r.session_id != first
    ]


def _conversation(path: str | Path) -> JsonObject:
    from agentruns.models import Conversation

    adapter: TypeAdapter[Conversation] = TypeAdapter(Conversation)
    try:
        value = adapter.validate_json(Path(path).read_bytes())
    except OSError as error:
        raise TranscriptError(f"{path}: {error.strerror or error}") from None
    except ValidationError as error:
        first = error.errors()[0]
        where = "/" + "/".join(str(part) for part in first["loc"][1:])
        raise TranscriptError(f"{path}: not a conversation: {where}: {first['msg']}") from None
    dumped = adapter.dump_python(value, mode="json")
    if not isinstance(dumped, dict):
        raise TranscriptError(f"{path}: not a conversation")
    return dumped


def _total(values: list[int | None], how: Literal["sum", "last"]) -> int | None:
    if how == "last":
        return values[-1]
    return None if any(v is None for v in values) else sum(v for v in values if v is not None)


def _run(
    spec: Descriptor,
    rounds: tuple[Summary, ...],
    talk: JsonObject | None,
    problems: list[Problem],
) -> Run:
    last = rounds[-1]
    how = spec.aggregation
    steps: list[RunStep] = []
    if talk is None:
        calls = 0
        for r in rounds:
            for event in r.events:
                if isinstance(event, ToolCall):
                    steps.append(_tool_step(event, calls))
                    calls += 1
                else:
                    steps.append(_message_step(event.text, event.at))
        final = last.final_text
    else:
        final = None
        for item in _events_of(talk):
            if item.get("type") == "tool_invocation" and isinstance(item.get("name"), str):
                steps.append(_conversation_tool(item))
            elif item.get("type") == "assistant_message" and isinstance(item.get("text"), str):
                final = str(item["text"])
                steps.append(_message_step(final, None))
    status = round_status(last)
    reasons = [r.reason for r in rounds if r.ending != "completed" and r.reason is not None]
    ended = last.ended_at
    if status != "completed" and last.reason is not None:
        steps.append(
            RunStep(
                kind="event",
                name="error",
                status=STEP_FAILED,
                message=last.reason,
                started_at=MISSING if ended is None else ended,
            )
        )
    elif reasons:
        problems.append(Problem(last.source, 0, f"an earlier round did not finish: {reasons[0]}"))
    starts = [r.started_at for r in rounds if r.started_at is not None]
    ends = [r.ended_at for r in rounds if r.ended_at is not None]
    denials = [d.as_json() for r in rounds for d in r.denials]
    session = next((r.session_id for r in rounds if r.session_id is not None), None)
    version = next((r.agent_version for r in rounds if r.agent_version is not None), None)
    cost = [r.cost_usd for r in rounds]
    inputs = _total([r.input_tokens for r in rounds], how)
    outputs = _total([r.output_tokens for r in rounds], how)
    models: Counter[str] = Counter()
    for r in rounds:
        models.update(r.models)
    children = tuple(_child(spec, child, version) for r in rounds for child in r.children)
    return Run(
        run_id=session if session is not None else MISSING,
        framework=spec.label,
        status=status,
        started_at=min(starts) if starts else MISSING,
        ended_at=max(ends) if ends else MISSING,
        goal=_or_missing(rounds[0].prompt),
        final_message=final if final is not None else MISSING,
        steps=tuple(steps),
        total_tokens=_or_missing(_run_total(inputs, outputs, rounds, how)),
        input_tokens=_or_missing(inputs),
        output_tokens=_or_missing(outputs),
        cache_creation_tokens=_or_missing(_kind([r.cache_creation_tokens for r in rounds], how)),
        cache_read_tokens=_or_missing(_kind([r.cache_read_tokens for r in rounds], how)),
        reasoning_tokens=_or_missing(_kind([r.reasoning_tokens for r in rounds], how)),
        model=_or_missing(top_model(models)),
        agent_version=_or_missing(version),
        cost_usd=_or_missing(None if None in cost else sum(c for c in cost if c is not None)),
        duration_ms=_or_missing(_total([r.duration_ms for r in rounds], "sum")),
        conversation=talk if talk is not None else MISSING,
        extra={"permission_denials": list[JsonValue](denials)} if denials else MISSING,
        subagents=children if children else MISSING,
    )


def round_status(summary: Summary) -> Status:
    """The status of a run whose last round is ``summary``."""
    return "completed" if summary.ending == "completed" else "failed"


def stream_total(summary: Summary) -> int | None:
    """The total tokens of the run of one stream (a round, a subagent) as ``load`` states
    it (``_run_total``)."""
    return _run_total(summary.input_tokens, summary.output_tokens, (summary,), "sum")


def _run_total(
    inputs: int | None,
    outputs: int | None,
    rounds: tuple[Summary, ...],
    how: Literal["sum", "last"],
) -> int | None:
    """The run's total by the one rule (``derive_total_tokens``) where the kinds are known;
    else the harness's own (a declared harness that gives only a total)."""
    derived = derive_total_tokens(
        Run(input_tokens=_or_missing(inputs), output_tokens=_or_missing(outputs))
    )
    return derived.value if derived is not None else _total([r.total_tokens for r in rounds], how)


def _kind(values: list[int | None], how: Literal["sum", "last"]) -> int | None:
    """A kind of tokens over the rounds: counted where any round counts it (a round that
    says nothing of cache reads had none)."""
    if all(v is None for v in values):
        return None
    return _total([v or 0 for v in values], how)


def _child(spec: Descriptor, summary: Summary, version: str | None) -> Run:
    """A subagent's stream as a run of its own, linked to the call that started it; the
    agent's version its own lines say, else its parent's (the process that ran both)."""
    run = _run(spec, (summary,), None, [])
    return replace(
        run,
        framework=summary.harness,
        parent_call_id=summary.parent_call_id if summary.parent_call_id else MISSING,
        agent_version=run.agent_version
        if run.agent_version is not MISSING
        else _or_missing(version),
    )


def _or_missing(value: S | None) -> S | MISSING:
    return MISSING if value is None else value


def _events_of(talk: JsonObject) -> list[JsonObject]:
    found = talk.get("events")
    return [e for e in found if isinstance(e, dict)] if isinstance(found, list) else []


def _tool_step(call: ToolCall, ordinal: int) -> RunStep:
    return RunStep(
        kind="tool_call",
        call_id=call.call_id if call.call_id is not None else MISSING,
        name=call.name,
        index=ordinal,
        input=call.args,
        output=call.result if call.result is not None else MISSING,
        status=STEP_FAILED if call.is_error else MISSING,
        started_at=MISSING if call.at is None else call.at,
    )


def _conversation_tool(event: JsonObject) -> RunStep:
    ordinal = event.get("ordinal")
    result = event.get("result")
    return RunStep(
        kind="tool_call",
        name=str(event["name"]),
        index=ordinal if isinstance(ordinal, int) else MISSING,
        input=event.get("args", MISSING),
        output=result if isinstance(result, str) else MISSING,
    )


def _message_step(text: str, at: datetime | None) -> RunStep:
    return RunStep(kind="message", message=text, started_at=MISSING if at is None else at)


# -- one run of ``agentruns import`` ------------------------------------------------------------
# What the command does per run, without click: read the transcripts (the rounds of one run),
# write the run as a record of the target format with the values the user gave, and say what
# became of it (the record, or why not; the problems met reading; the lines for the rejects
# and losses files). The command only routes these to its outputs and messages.


@dataclass(frozen=True, slots=True)
class RunImport:
    """What became of one run."""

    names: tuple[str, ...]
    """Its transcripts (the rounds of the run, in order)."""
    record: BaseModel | None
    """The record; None when the run could not be one (see ``error``)."""
    error: str = ""
    problems: tuple[tuple[str, str], ...] = ()
    """Why the record was refused: (JSON pointer, message) each."""
    notes: tuple[str, ...] = ()
    """What reading the transcripts met (a truncated stream, an unknown event...)."""
    report: bytes | None = None
    """The run's line of a losses file (JSON): losses, derived values, problems, skipped."""
    kept: tuple[str, ...] = ()
    """Given values the session already holds: its own were kept (``override`` replaces)."""

    @property
    def where(self) -> str:
        """The run, as messages name it."""
        names = self.names
        return names[0] if len(names) == 1 else f"{names[0]} (+{len(names) - 1} rounds)"

    @property
    def rejected(self) -> bytes:
        """The run's line of a rejects file (the one shape every command writes)."""
        names = self.names
        error = self.error
        whole = error if len(names) == 1 else f"{error} (transcripts: {', '.join(names)})"
        return rejection(names[0] if names else "-", 0, self.problems, None, whole)


def import_run(
    names: Sequence[str],
    to: str,
    *,
    harness: str = "auto",
    values: Mapping[str, JsonValue] | None = None,
    conversation: str | None = None,
    override: bool = False,
) -> RunImport:
    """Read one run's transcripts and write it as a record of ``to`` (``values``: property
    names or JSON pointers the transcript does not give; with ``override``, also those it
    does). What ``to`` requires and the session does not state is derived from the session
    where it can be (the agent from the harness, the id from the file's name, cortex's kind),
    and reported as derived. Never raises for the run's own faults: a transcript that cannot
    be read, or a run no record of ``to`` can be, is a ``RunImport`` without a record."""
    given = tuple(names)
    try:
        transcript = load(list(given), harness, conversation=conversation)
    except TranscriptError as error:
        return RunImport(given, None, str(error))
    return _imported(given, transcript, to, values, override)


def _imported(
    given: tuple[str, ...],
    transcript: Transcript,
    to: str,
    values: Mapping[str, JsonValue] | None,
    override: bool,
) -> RunImport:
    """``import_run`` of transcripts read already (``open_session``'s, for a session of a
    folder: recognized and read in one pass)."""
    from agentruns.transcripts._record import to_record

    notes = tuple(str(problem) for problem in transcript.problems)
    try:
        imported = to_record(
            transcript.run, to, values or {}, source=given[0] if given else "", override=override
        )
    except RecordError as error:
        return RunImport(given, None, str(error), error.problems, notes)
    report = {
        "file": list(given),
        "harness": transcript.harness,
        "losses": [{"pointer": x.pointer, "reason": x.reason} for x in imported.losses],
        "derived": [
            {"pointer": d.pointer, "value": d.value, "reason": d.reason} for d in imported.derived
        ],
        "problems": list(notes),
        "skipped": dict(transcript.skipped),
    }
    return RunImport(
        given,
        imported.record,
        notes=notes,
        report=json.dumps(report).encode() + b"\n",
        kept=imported.kept,
    )
