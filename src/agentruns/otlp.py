"""Runs as OpenTelemetry traces: OTLP/JSON following the GenAI semantic conventions.

Observability tools (Phoenix, Langfuse, Jaeger, any OTLP backend) read agent runs as traces:
an ``invoke_agent`` span for the run, an ``execute_tool`` child for each tool call and a
``chat`` child for each model output (a message or a thought of the agent). What else
happened (a user's message, a status event) is an event of the run's span. Attribute names
come from the pinned ``opentelemetry-semantic-conventions`` (the ``otel`` extra), so they are
the conventions' own; what a run holds that the conventions have no attribute for is an
``agentruns.*`` attribute (every canonical field, as JSON when it is not a scalar), so a trace
loses nothing of the run.

Ids are derived, not random: the trace id from the run's id (or, for a run without one, from
its content), each span id from the trace id and the span's place in the run, so exporting
the same runs again gives the same bytes and a backend sees the same trace.

The JSON follows the OTLP/JSON encoding (protobuf's JSON mapping with hex trace and span ids,
64-bit integers as strings, enums as numbers): one ``ResourceSpans`` per run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import fields
from datetime import UTC, datetime, timedelta
from functools import cache
from typing import TYPE_CHECKING, Final, NoReturn, Protocol

from pydantic import MISSING, JsonValue

from agentruns._json_text import compact
from agentruns.batch import read_model
from agentruns.canonical import Run, RunStep
from agentruns.conversion import to_canonical
from agentruns.derivations import derive_started_at, step_failed
from agentruns.errors import MissingDependency, OutputError
from agentruns.io import Raw, parse
from agentruns.pipeline import Outcome, SessionStep
from agentruns_generated._json import date_time_text

if TYPE_CHECKING:
    import http.client
    from types import ModuleType

    from agentruns.transcripts import Transcript

__all__ = [
    "RUN_ATTRIBUTES",
    "SCHEMA_URL",
    "Collector",
    "MissingOtel",
    "TracesFile",
    "otlp_document",
    "place_of",
    "require_otel",
    "resource_spans",
    "session_spans",
    "traces_data",
]

SCHEMA_URL: Final = "https://opentelemetry.io/schemas/1.44.0"
"""The semantic conventions version the pinned ``opentelemetry-semantic-conventions`` (0.66b2)
implements; written as every ``ResourceSpans``' and ``ScopeSpans``' ``schemaUrl``."""

_INTERNAL: Final = 1  # SPAN_KIND_INTERNAL: the run happened in the agent's own process
_OK: Final = 1
_ERROR: Final = 2
_EPOCH: Final = datetime(1970, 1, 1, tzinfo=UTC)
_INT64: Final = range(-(2**63), 2**63)
_UINT64_MAX: Final = 2**64 - 1

Attributes = list[JsonValue]


class MissingOtel(MissingDependency):
    """The ``otel`` extra is not installed."""


def require_otel() -> None:
    """Raise ``MissingOtel`` (with the command that installs it) unless the extra is there."""
    _conventions()


@cache
def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("agentruns")
    except PackageNotFoundError:  # run from a checkout without installing
        return "0"


@cache
def _conventions() -> ModuleType:
    try:
        from opentelemetry.semconv._incubating.attributes import gen_ai_attributes
    except ImportError:
        raise MissingOtel(
            "OTLP export needs the GenAI semantic conventions: pip install 'agentruns[otel]'"
        ) from None
    return gen_ai_attributes


# -- values ---------------------------------------------------------------------------------


def _value(value: JsonValue) -> dict[str, JsonValue]:
    """An ``AnyValue``: scalars as themselves, anything else as its JSON text."""
    if isinstance(value, bool):
        return {"boolValue": value}
    if isinstance(value, int):
        return {"intValue": str(value)} if value in _INT64 else {"stringValue": str(value)}
    if isinstance(value, float):
        return {"doubleValue": value}
    if isinstance(value, str):
        return {"stringValue": value}
    return {"stringValue": _json(value)}


def _json(value: object) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)


def _add(attributes: Attributes, key: str, value: object) -> None:
    """The attribute, if the value is there (``MISSING`` and ``None`` are not)."""
    if value is MISSING or value is None:
        return
    if isinstance(value, datetime):
        value = date_time_text(value)
    elif isinstance(value, tuple):  # files, transcript references: JSON values
        value = list(value)
    attributes.append({"key": key, "value": _value(value)})  # type: ignore[arg-type]


def _nanos(at: datetime) -> int:
    """Nanoseconds since the epoch, within what OTLP's unsigned 64-bit times hold (1970 to
    2554); a time outside is at the nearest end, and its text is an attribute all the same
    (``agentruns.run.started_at``, ``agentruns.step.started_at``...)."""
    nanos = (at - _EPOCH) // timedelta(microseconds=1) * 1000
    return min(max(nanos, 0), _UINT64_MAX)


def _id(*parts: str, size: int) -> str:
    digest = hashlib.sha256("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()
    found = digest[: size * 2]
    # an all-zero id is invalid in OTLP; a digest that starts so is astronomically rare
    return found if found.strip("0") else "1".rjust(size * 2, "0")


# -- one run ---------------------------------------------------------------------------------

RUN_ATTRIBUTES: Final = (
    ("agent_id", "GEN_AI_AGENT_ID"),
    ("agent_version", "GEN_AI_AGENT_VERSION"),
    ("run_id", "GEN_AI_CONVERSATION_ID"),
    ("model", "GEN_AI_REQUEST_MODEL"),
    ("input_tokens", "GEN_AI_USAGE_INPUT_TOKENS"),
    ("output_tokens", "GEN_AI_USAGE_OUTPUT_TOKENS"),
    ("cache_read_tokens", "GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS"),
    ("cache_creation_tokens", "GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS"),
    ("reasoning_tokens", "GEN_AI_USAGE_REASONING_OUTPUT_TOKENS"),
)
"""Canonical run field -> the conventions' attribute it is on the ``invoke_agent`` span (by
its name in ``opentelemetry.semconv``'s GenAI attributes): the one declaration the spans and
docs/crosswalk.md's otlp column follow."""

_SHAPE: Final = {
    "steps": "`execute_tool` and `chat` child spans; other steps are span events",
    "subagents": "`invoke_agent` child spans, under the call that started them",
    "parent_call_id": "the subagent span's parent",
}
"""Canonical run fields a trace says by its shape rather than by an attribute."""

_MAPPED: Final = frozenset({field for field, _ in RUN_ATTRIBUTES} | set(_SHAPE))
"""Canonical fields said by a convention attribute, the span's times or its children; every
other field is an ``agentruns.run.*`` attribute."""

_RUN_FIELDS: Final = tuple(f.name for f in fields(Run) if f.name not in _MAPPED)


def _agent_name(run: Run) -> str:
    for name in (run.agent_id, run.framework):
        if isinstance(name, str) and name:
            return name
    return "agent"


class _Spans:
    """The spans of one trace, built run by run (subagents are runs inside it)."""

    def __init__(self, trace_id: str) -> None:
        self.trace_id = trace_id
        self.spans: list[JsonValue] = []

    def span_id(self, place: str) -> str:
        return _id(self.trace_id, place, size=8)

    def add_run(self, run: Run, place: str, parent: str | None, fmt: str | None) -> None:
        g = _conventions()
        start = run.started_at if isinstance(run.started_at, datetime) else None
        start = start or derive_started_at(run).value
        steps = run.steps if isinstance(run.steps, tuple) else ()
        span_id = self.span_id(place)
        name = _agent_name(run)
        attributes: Attributes = []
        _add(attributes, g.GEN_AI_OPERATION_NAME, "invoke_agent")
        _add(attributes, g.GEN_AI_AGENT_NAME, name)
        for field, constant in RUN_ATTRIBUTES:
            _add(attributes, getattr(g, constant), getattr(run, field))
        _add(attributes, "agentruns.format", fmt)
        for field in _RUN_FIELDS:
            _add(attributes, f"agentruns.run.{field}", getattr(run, field))
        events: list[JsonValue] = []
        here = len(self.spans)  # the run's span goes before its steps'
        ends = [self._end(start, run.ended_at, run.duration_ms)]
        children: dict[str, str] = {}
        for position, step in enumerate(steps):
            at = step.started_at if isinstance(step.started_at, datetime) else start
            end = self._end(at, MISSING, step.duration_ms)
            ends.append(end)
            kind = _step_span(step)
            if kind is None:
                events.append(_event(step, position, at))
                continue
            step_place = f"{place}/steps/{position}"
            self.spans.append(self._step(step, position, step_place, span_id, kind, run, at, end))
            if step.kind == "tool_call" and isinstance(step.call_id, str):
                children.setdefault(step.call_id, self.span_id(step_place))
        status: dict[str, JsonValue] = {}
        if run.status == "failed":
            status = {"code": _ERROR, "message": "the run failed"}
        elif run.status == "completed":
            status = {"code": _OK}
        span: dict[str, JsonValue] = {
            "traceId": self.trace_id,
            "spanId": span_id,
            "name": f"invoke_agent {name}",
            "kind": _INTERNAL,
            "startTimeUnixNano": str(_nanos(start)),
            "endTimeUnixNano": str(max(ends)),
            "attributes": attributes,
        }
        if parent is not None:
            span["parentSpanId"] = parent
        if events:
            span["events"] = events
        if status:
            span["status"] = status
        self.spans.insert(here, span)
        for number, sub in enumerate(run.subagents if isinstance(run.subagents, tuple) else ()):
            caller = (
                children.get(sub.parent_call_id) if isinstance(sub.parent_call_id, str) else None
            )
            self.add_run(sub, f"{place}/subagents/{number}", caller or span_id, None)

    @staticmethod
    def _end(start: datetime, ended: object, duration_ms: object) -> int:
        if isinstance(ended, datetime):
            return max(_nanos(ended), _nanos(start))
        if isinstance(duration_ms, int) and 0 <= duration_ms < 2**40:
            return min(_nanos(start) + duration_ms * 1_000_000, _UINT64_MAX)
        return _nanos(start)

    def _step(
        self,
        step: RunStep,
        position: int,
        place: str,
        parent: str,
        kind: str,
        run: Run,
        at: datetime,
        end: int,
    ) -> JsonValue:
        g = _conventions()
        attributes: Attributes = []
        extra = step.extra if isinstance(step.extra, dict) else {}
        if kind == "execute_tool":
            name = step.name if isinstance(step.name, str) else "tool"
            _add(attributes, g.GEN_AI_OPERATION_NAME, "execute_tool")
            _add(attributes, g.GEN_AI_TOOL_NAME, step.name)
            _add(attributes, g.GEN_AI_TOOL_CALL_ID, step.call_id)
            if step.input is not MISSING:
                _add(attributes, g.GEN_AI_TOOL_CALL_ARGUMENTS, _json(step.input))
            if step.output is not MISSING:
                output = step.output
                _add(
                    attributes,
                    g.GEN_AI_TOOL_CALL_RESULT,
                    output if isinstance(output, str) else _json(output),
                )
            title = f"execute_tool {name}"
        else:
            named = extra.get("model_name")
            model = named if isinstance(named, str) else run.model
            _add(attributes, g.GEN_AI_OPERATION_NAME, "chat")
            _add(attributes, g.GEN_AI_REQUEST_MODEL, model)
            part = "reasoning" if step.kind == "thought" else "text"
            text = step.message if isinstance(step.message, str) else ""
            message = [{"role": "assistant", "parts": [{"type": part, "content": text}]}]
            _add(attributes, g.GEN_AI_OUTPUT_MESSAGES, _json(message))
            metrics = extra.get("metrics")
            if isinstance(metrics, dict):  # an ATIF turn's usage
                _add(attributes, g.GEN_AI_USAGE_INPUT_TOKENS, metrics.get("prompt_tokens"))
                _add(attributes, g.GEN_AI_USAGE_OUTPUT_TOKENS, metrics.get("completion_tokens"))
                _add(
                    attributes, g.GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS, metrics.get("cached_tokens")
                )
            title = f"chat {model}" if isinstance(model, str) else "chat"
        _add(attributes, "agentruns.step.position", position)
        _step_attributes(attributes, step)
        span: dict[str, JsonValue] = {
            "traceId": self.trace_id,
            "spanId": self.span_id(place),
            "parentSpanId": parent,
            "name": title,
            "kind": _INTERNAL,
            "startTimeUnixNano": str(_nanos(at)),
            "endTimeUnixNano": str(end),
            "attributes": attributes,
        }
        if step_failed(step):
            span["status"] = {"code": _ERROR, "message": "the step failed"}
        return span


def _step_span(step: RunStep) -> str | None:
    """The span a step is (None: an event of the run's span)."""
    if step.kind == "tool_call":
        return "execute_tool"
    source = step.extra.get("source") if isinstance(step.extra, dict) else None
    if step.kind in ("message", "thought") and source in (None, "agent"):
        return "chat"
    return None


_STEP_FIELDS: Final = tuple(f.name for f in fields(RunStep))


def _step_attributes(attributes: Attributes, step: RunStep) -> None:
    """Every field of the step as an ``agentruns.step.*`` attribute."""
    for field in _STEP_FIELDS:
        _add(attributes, f"agentruns.step.{field}", getattr(step, field))


def _event(step: RunStep, position: int, at: datetime) -> JsonValue:
    attributes: Attributes = []
    _add(attributes, "agentruns.step.position", position)
    _step_attributes(attributes, step)
    return {
        "timeUnixNano": str(_nanos(at)),
        "name": f"agentruns.step {step.kind}",
        "attributes": attributes,
    }


_STEP_PLACES: Final = {
    "name": "GEN_AI_TOOL_NAME",
    "call_id": "GEN_AI_TOOL_CALL_ID",
    "input": "GEN_AI_TOOL_CALL_ARGUMENTS",
    "output": "GEN_AI_TOOL_CALL_RESULT",
    "message": "GEN_AI_OUTPUT_MESSAGES",
}


def place_of(canonical: str, field: str) -> str:
    """Where a canonical field (of ``Run`` or ``RunStep``) is in a trace, for
    docs/crosswalk.md."""
    g = _conventions()
    if canonical == "Run":
        named = dict(RUN_ATTRIBUTES).get(field)
        if named is not None:
            return f"`{getattr(g, named)}`"
        return _SHAPE.get(field, f"`agentruns.run.{field}`")
    step = f"`agentruns.step.{field}`"
    named = _STEP_PLACES.get(field)
    if named is not None:
        return f"`{getattr(g, named)}` and {step}"
    if field in ("started_at", "duration_ms"):
        return f"the step span's times and {step}"
    return step


# -- the public surface ------------------------------------------------------------------------


def _trace_id(run: Run, content: str) -> str:
    if isinstance(run.run_id, str) and run.run_id:
        return _id("agentruns", "run", run.run_id, size=16)
    return _id("agentruns", "content", content, size=16)


def resource_spans(run: Run, *, fmt: str | None = None, content: str = "") -> dict[str, JsonValue]:
    """One run (and its subagents) as an OTLP ``ResourceSpans`` object.

    ``fmt``: the format the run was read from (an ``agentruns.format`` attribute);
    ``content``: what identifies a run without a ``run_id`` (its record's text), from which its
    trace id is derived.

    Raises ``MissingOtel`` without the ``otel`` extra.
    """
    spans = _Spans(_trace_id(run, content))
    spans.add_run(run, "run", None, fmt)
    service: Attributes = [{"key": "service.name", "value": {"stringValue": _agent_name(run)}}]
    return {
        "resource": {"attributes": service},
        "scopeSpans": [
            {
                "scope": {"name": "agentruns", "version": _version()},
                "spans": spans.spans,
                "schemaUrl": SCHEMA_URL,
            }
        ],
        "schemaUrl": SCHEMA_URL,
    }


def traces_data(runs: Iterable[Run]) -> dict[str, JsonValue]:
    """Runs as one OTLP ``TracesData`` (the body of an OTLP/HTTP JSON export request)."""
    return {"resourceSpans": [resource_spans(run) for run in runs]}


def otlp_document(raw: Raw, fmt: str = "auto") -> Outcome:
    """Batch work: one record as its ``ResourceSpans``, one line of JSON."""
    record = parse(raw)
    name, model, problems = read_model(record, fmt)
    if model is None or name is None:
        return Outcome(name, problems)
    content = _json(record.value)
    spans = resource_spans(to_canonical(model), fmt=name, content=content)
    return Outcome(name, output=_json_line(spans))


def _transcript_spans(name: str, transcript: Transcript) -> Outcome:
    spans = resource_spans(transcript.run, fmt=transcript.harness, content=name)
    return Outcome(transcript.harness, output=_json_line(spans))


session_spans = SessionStep(_transcript_spans)
"""The step for a session (an item of ``agentruns.pipeline.session_items``): its
``ResourceSpans`` as one line of JSON (``output``), or why it cannot be read."""


def _json_line(value: JsonValue) -> bytes:
    return compact(value).encode() + b"\n"


# -- files and collectors ------------------------------------------------------------------------


class _Writable(Protocol):
    def write(self, data: bytes, /) -> object: ...


class TracesFile:
    """Where ``ResourceSpans`` lines go: one ``TracesData`` document (``{"resourceSpans":
    [...]}``, written as the runs come, so memory stays bounded), or with ``lines`` one
    ``TracesData`` per run per line (what the OpenTelemetry Collector's OTLP JSON file
    receiver reads)."""

    def __init__(self, out: _Writable, *, lines: bool) -> None:
        self.out = out
        self.lines = lines
        self.count = 0

    def write(self, spans: bytes) -> None:
        """One run's ``ResourceSpans`` (a line of JSON, as ``otlp_document`` makes it)."""
        body = spans.rstrip(b"\n")
        if self.lines:
            self.out.write(b'{"resourceSpans":[' + body + b"]}\n")
        else:
            self.out.write((b'{"resourceSpans":[' if not self.count else b",") + body)
        self.count += 1

    def finish(self) -> None:
        if not self.lines:
            self.out.write(b'{"resourceSpans":[' if not self.count else b"")
            self.out.write(b"]}\n")


class Collector:
    """Posts ``ResourceSpans`` to an OTLP/HTTP endpoint (``http://host:4318/v1/traces``) as
    JSON export requests of at most ``batch`` runs (and about 4 MiB) each.

    The endpoint is checked when made (``OutputError``: a usage error for the command). Each
    request has one deadline (``timeout`` seconds for the whole exchange, however slowly the
    collector answers) and reads at most ``MAX_ANSWER`` bytes of the answer. A redirect is not
    followed (the POST would become a bodiless GET); 429, 502, 503 and 504 are retried, as
    OTLP/HTTP says, after ``Retry-After`` or a growing pause, ``retries`` times; spans the
    collector says it rejected (``partialSuccess``) are a failure. Every failure is an
    ``OutputError`` that says how many runs were delivered before it.
    """

    MAX_ANSWER = 1 << 20
    RETRYABLE = frozenset({429, 502, 503, 504})

    def __init__(
        self, endpoint: str, *, batch: int = 100, timeout: float = 30.0, retries: int = 4
    ) -> None:
        from urllib.parse import urlsplit

        try:
            parts = urlsplit(endpoint)
            port = parts.port
        except ValueError as error:
            raise OutputError(f"--endpoint {endpoint}: not a URL ({error})") from None
        if parts.scheme not in ("http", "https"):
            raise OutputError(f"--endpoint {endpoint}: an http:// or https:// URL is needed")
        if not parts.hostname:
            raise OutputError(f"--endpoint {endpoint}: the URL names no host")
        self.endpoint = endpoint
        self._https = parts.scheme == "https"
        self._host = parts.hostname
        self._port = port
        self._path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.batch = batch
        self.timeout = timeout
        self.retries = retries
        self.held: list[bytes] = []
        self.size = 0
        self.sent = 0

    def write(self, spans: bytes) -> None:
        self.held.append(spans.rstrip(b"\n"))
        self.size += len(spans)
        if len(self.held) >= self.batch or self.size >= 4 << 20:
            self.flush()

    def flush(self) -> None:
        """Send what is held; ``OutputError`` when the collector cannot be reached or says no."""
        if not self.held:
            return
        import time

        body = b'{"resourceSpans":[' + b",".join(self.held) + b"]}"
        for attempt in range(self.retries + 1):
            status, reason, headers, answer = self._exchange(body)
            if status in self.RETRYABLE and attempt < self.retries:
                time.sleep(_pause(headers.get("retry-after"), attempt))
                continue
            break
        if 300 <= status < 400:
            where = headers.get("location", "elsewhere")
            self._fail(f"the collector answered {status} {reason} (to {where}); not followed")
        if not 200 <= status < 300:
            self._fail(f"the collector answered {status} {reason}")
        rejected, said = _partial_success(answer)
        if rejected:
            self._fail(f"the collector rejected {rejected} spans of this request: {said}")
        self.sent += len(self.held)
        self.held.clear()
        self.size = 0

    def _fail(self, why: str) -> NoReturn:
        before = f"; {self.sent} runs were delivered before" if self.sent else ""
        raise OutputError(f"--endpoint {self.endpoint}: {why}{before}")

    def _exchange(self, body: bytes) -> tuple[int, str, dict[str, str], bytes]:
        """One POST under one deadline, in a thread of its own: a collector that answers a
        byte at a time cannot hold the export past ``timeout``."""
        import http.client
        import threading

        outcome: list[tuple[int, str, dict[str, str], bytes] | BaseException] = []
        connection = self._connection()

        def post() -> None:
            try:
                connection.request(
                    "POST", self._path, body=body, headers={"Content-Type": "application/json"}
                )
                response = connection.getresponse()
                answer = response.read(self.MAX_ANSWER)
                if len(answer) < self.MAX_ANSWER and response.length:
                    # the answer ended before the length it announced (read with a bound,
                    # http.client does not say so itself)
                    raise http.client.IncompleteRead(answer, response.length)
                headers = {k.lower(): v for k, v in response.getheaders()}
                outcome.append((response.status, response.reason, headers, answer))
            except BaseException as error:  # handed to the caller's thread
                outcome.append(error)

        worker = threading.Thread(target=post, daemon=True)
        worker.start()
        worker.join(self.timeout)
        connection.close()  # ends a request still running (its socket is closed under it)
        if worker.is_alive() or not outcome:
            self._fail(f"no answer within {self.timeout:g} s")
        found = outcome[0]
        if isinstance(found, BaseException):
            text = str(getattr(found, "reason", None) or found)
            self._fail(f"{type(found).__name__}: {text}" if text else type(found).__name__)
        return found

    def _connection(self) -> http.client.HTTPConnection:
        import http.client

        kind = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
        return kind(self._host, self._port, timeout=self.timeout)


def _pause(retry_after: str | None, attempt: int) -> float:
    """Seconds before a retry: the collector's ``Retry-After`` (within 30 s), else 0.5 s
    doubling."""
    if retry_after is not None:
        try:
            return min(max(float(retry_after), 0.0), 30.0)
        except ValueError:
            pass
    return min(0.5 * 2.0**attempt, 30.0)


def _partial_success(answer: bytes) -> tuple[int, str]:
    """Spans an OTLP/JSON answer says were rejected, and its message."""
    try:
        found = json.loads(answer) if answer.strip() else {}
    except ValueError:
        return 0, ""
    partial = found.get("partialSuccess") if isinstance(found, dict) else None
    if not isinstance(partial, dict):
        return 0, ""
    rejected = partial.get("rejectedSpans", 0)
    try:
        count = int(rejected)
    except (TypeError, ValueError):
        count = 0
    message = partial.get("errorMessage")
    return count, message if isinstance(message, str) else ""
