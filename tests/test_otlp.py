"""``agentruns export --to otlp``: runs as OTLP/JSON traces with the GenAI conventions, read
back by opentelemetry-proto's own message classes."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import fields
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, ClassVar

import pytest
from click.testing import CliRunner
from google.protobuf import json_format
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.trace.v1.trace_pb2 import Span, TracesData
from pydantic import MISSING, TypeAdapter

from agentruns import Run, RunStep
from agentruns import otlp as otlp_module
from agentruns.cli import EXIT_IO, EXIT_USAGE, main
from agentruns.otlp import MissingOtel, require_otel, resource_spans
from agentruns_generated._json import JsonDateTime

FIXTURES = Path(__file__).parent / "fixtures"
RECORDS = sorted(FIXTURES.glob("*.min.json"))


_DATE_TIME: TypeAdapter[datetime] = TypeAdapter(JsonDateTime)


def _proto(document: dict[str, Any]) -> TracesData:
    """OTLP/JSON read as the collector reads it: protobuf's JSON mapping, except that trace
    and span ids are hex (the mapping's bytes are base64)."""

    def ids(node: Any) -> Any:
        if isinstance(node, list):
            return [ids(item) for item in node]
        if isinstance(node, dict):
            return {
                key: base64.b64encode(bytes.fromhex(value)).decode()
                if key in ("traceId", "spanId", "parentSpanId") and isinstance(value, str)
                else ids(value)
                for key, value in node.items()
            }
        return node

    return json_format.Parse(json.dumps(ids(document)), TracesData())


def _export(*args: str) -> Any:
    return CliRunner().invoke(main, ["export", "--to", "otlp", *args])


def _command(*args: str) -> subprocess.CompletedProcess[str]:
    """The installed command, as a user runs it (exit codes and messages of failed writes
    are the entry point's)."""
    return subprocess.run(
        [sys.executable, "-m", "agentruns", "export", "--to", "otlp", *args],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def _attributes(span: Span) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for attribute in span.attributes:
        kind = attribute.value.WhichOneof("value")
        found[attribute.key] = getattr(attribute.value, kind) if kind else None
    return found


def _spans(data: TracesData) -> list[list[Span]]:
    return [
        [span for scope in resource.scope_spans for span in scope.spans]
        for resource in data.resource_spans
    ]


@pytest.fixture
def traces(tmp_path: Path) -> TracesData:
    out = tmp_path / "traces.json"
    result = _export("-o", str(out), *map(str, RECORDS))
    assert result.exit_code == 0, result.output
    return _proto(json.loads(out.read_bytes()))


def test_every_fixture_is_a_trace_that_opentelemetry_proto_reads(traces: TracesData) -> None:
    assert len(traces.resource_spans) == len(RECORDS)
    for spans in _spans(traces):
        assert len({span.trace_id for span in spans}) == 1
        assert all(len(span.trace_id) == 16 and len(span.span_id) == 8 for span in spans)


def test_each_run_has_one_root_span_invoking_the_agent(traces: TracesData) -> None:
    for spans in _spans(traces):
        roots = [span for span in spans if not span.parent_span_id]
        assert len(roots) == 1
        assert roots[0].name.startswith("invoke_agent ")
        assert _attributes(roots[0])["gen_ai.operation.name"] == "invoke_agent"


def test_each_tool_call_is_a_child_span_with_the_genai_tool_attributes(tmp_path: Path) -> None:
    from agentruns.conversion import to_canonical
    from agentruns.detect import MODELS, detect

    for path, spans in zip(RECORDS, _spans(_traces_of(tmp_path)), strict=True):
        name = detect(json.loads(path.read_text())).format
        assert name is not None
        run = to_canonical(MODELS[name].model_validate_json(path.read_bytes()))
        calls = [s for s in (run.steps or ()) if s.kind == "tool_call"]  # type: ignore[union-attr]
        tools = [s for s in spans if _attributes(s).get("gen_ai.operation.name") == "execute_tool"]
        root = next(s for s in spans if not s.parent_span_id)
        ours = [s for s in tools if s.parent_span_id == root.span_id]
        assert len(ours) == len(calls), path.name
        for call, span in zip(calls, ours, strict=True):
            attributes = _attributes(span)
            assert attributes["gen_ai.tool.name"] == call.name
            assert span.name == f"execute_tool {call.name}"
            if isinstance(call.call_id, str):
                assert attributes["gen_ai.tool.call.id"] == call.call_id


def _traces_of(tmp_path: Path) -> TracesData:
    out = tmp_path / "again.json"
    result = _export("-o", str(out), *map(str, RECORDS))
    assert result.exit_code == 0, result.output
    return _proto(json.loads(out.read_bytes()))


def test_a_re_export_is_byte_identical(tmp_path: Path) -> None:
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    assert _export("-o", str(first), *map(str, RECORDS)).exit_code == 0
    assert _export("-o", str(second), *map(str, RECORDS)).exit_code == 0
    assert first.read_bytes() == second.read_bytes()


def test_the_trace_id_is_derived_from_the_run_id() -> None:
    one = resource_spans(Run(run_id="r-1"))
    again = resource_spans(Run(run_id="r-1", goal="changed"))
    other = resource_spans(Run(run_id="r-2"))

    def trace_id(spans: dict[str, Any]) -> str:
        return str(spans["scopeSpans"][0]["spans"][0]["traceId"])

    assert trace_id(one) == trace_id(again) != trace_id(other)


def test_a_subagent_is_an_invoke_agent_span_under_the_call_that_started_it() -> None:
    child = Run(run_id="c", agent_id="helper", parent_call_id="t1")
    run = Run(
        run_id="p",
        steps=(RunStep(kind="tool_call", name="Task", call_id="t1", input={}),),
        subagents=(child,),
    )
    spans = _spans(_proto({"resourceSpans": [resource_spans(run)]}))[0]
    task = next(s for s in spans if s.name == "execute_tool Task")
    helper = next(s for s in spans if s.name == "invoke_agent helper")
    assert helper.parent_span_id == task.span_id


def test_usage_and_model_are_the_conventions_attributes() -> None:
    run = Run(run_id="u", model="m-1", input_tokens=10, output_tokens=3, cache_read_tokens=4)
    root = _spans(_proto({"resourceSpans": [resource_spans(run)]}))[0][0]
    attributes = _attributes(root)
    assert attributes["gen_ai.request.model"] == "m-1"
    assert attributes["gen_ai.usage.input_tokens"] == 10
    assert attributes["gen_ai.usage.output_tokens"] == 3
    assert attributes["gen_ai.usage.cache_read.input_tokens"] == 4


def test_every_field_of_the_run_is_an_attribute_of_its_span() -> None:
    from agentruns.formats.atif import ATIF
    from agentruns.models import AtifTrajectory

    run = ATIF.read(AtifTrajectory.model_validate_json((FIXTURES / "atif.min.json").read_bytes()))
    root = _spans(_proto({"resourceSpans": [resource_spans(run)]}))[0][0]
    keys = set(_attributes(root))
    for field in fields(Run):
        if getattr(run, field.name) is MISSING or field.name in otlp_module._MAPPED:
            continue
        assert f"agentruns.run.{field.name}" in keys, field.name


def test_an_integer_beyond_64_bits_is_kept_as_text() -> None:
    document: Any = json.loads(json.dumps(resource_spans(Run(run_id="big", input_tokens=2**70))))
    attributes = document["scopeSpans"][0]["spans"][0]["attributes"]
    value = next(a["value"] for a in attributes if a["key"] == "gen_ai.usage.input_tokens")
    assert value == {"stringValue": str(2**70)}


def test_a_jsonl_output_has_one_traces_data_per_run(tmp_path: Path) -> None:
    out = tmp_path / "traces.jsonl"
    assert _export("-o", str(out), *map(str, RECORDS)).exit_code == 0
    lines = out.read_bytes().splitlines()
    assert len(lines) == len(RECORDS)
    for line in lines:
        assert len(_proto(json.loads(line)).resource_spans) == 1


def test_no_records_is_an_empty_traces_document(tmp_path: Path) -> None:
    empty, out = tmp_path / "empty.jsonl", tmp_path / "traces.json"
    empty.write_bytes(b"")
    assert _export("-o", str(out), str(empty)).exit_code == 0
    assert json.loads(out.read_bytes()) == {"resourceSpans": []}


class _Collector(BaseHTTPRequestHandler):
    received: ClassVar[list[tuple[str, str, bytes]]] = []
    answer: ClassVar[int] = 200

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        type(self).received.append((self.path, self.headers["Content-Type"], body))
        self.send_response(type(self).answer)
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return None


@pytest.fixture
def collector() -> Iterator[tuple[str, type[_Collector]]]:
    handler = type("Handler", (_Collector,), {"received": [], "answer": 200})
    server = HTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/v1/traces", handler
    finally:
        server.shutdown()
        server.server_close()


def test_the_endpoint_receives_the_traces_as_an_otlp_http_json_request(
    collector: tuple[str, type[_Collector]],
) -> None:
    url, handler = collector
    result = _export("--endpoint", url, *map(str, RECORDS))
    assert result.exit_code == 0, result.output
    [(path, content_type, body)] = handler.received
    assert path == "/v1/traces"
    assert content_type == "application/json"
    assert len(_proto(json.loads(body)).resource_spans) == len(RECORDS)


def test_a_collector_that_says_no_fails_the_export_with_its_answer(
    collector: tuple[str, type[_Collector]], tmp_path: Path
) -> None:
    url, handler = collector
    handler.answer = 503
    out = tmp_path / "traces.json"
    result = _command("-o", str(out), "--endpoint", url, *map(str, RECORDS))
    assert result.returncode == EXIT_IO
    assert "503" in result.stderr
    assert "Traceback" not in result.stderr
    assert not out.exists()  # nothing half done is left


def test_an_unreachable_collector_fails_the_export_without_a_traceback() -> None:
    result = _command("--endpoint", "http://127.0.0.1:9/v1/traces", str(RECORDS[0]))
    assert result.returncode == EXIT_IO
    assert "error: --endpoint http://127.0.0.1:9/v1/traces" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_url_that_is_no_http_is_a_usage_error() -> None:
    result = _export("--endpoint", "file:///etc/passwd", str(RECORDS[0]))
    assert result.exit_code == EXIT_USAGE


def test_otlp_needs_an_output_or_an_endpoint() -> None:
    assert _export(str(RECORDS[0])).exit_code == EXIT_USAGE


def test_without_the_otel_extra_the_export_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "opentelemetry.semconv._incubating.attributes", None)
    otlp_module._conventions.cache_clear()
    try:
        with pytest.raises(MissingOtel, match=r"agentruns\[otel\]"):
            require_otel()
        result = _export("-o", "-", str(RECORDS[0]))
        assert result.exit_code == EXIT_USAGE
        assert "agentruns[otel]" in result.output
    finally:
        otlp_module._conventions.cache_clear()


_AWARE = st.datetimes(
    min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
)


@settings(max_examples=60, deadline=None, database=None)
@given(
    start=_AWARE,
    end=st.none() | _AWARE,
    at=st.none() | _AWARE,
    duration=st.none() | st.integers(min_value=0, max_value=2**62),
    tokens=st.none() | st.integers(min_value=-(2**80), max_value=2**80),
)
def test_any_times_and_counts_a_run_may_hold_make_a_trace_the_protocol_reads(
    start: datetime, end: datetime | None, at: datetime | None, duration: int | None,
    tokens: int | None,
) -> None:  # fmt: skip
    step = RunStep(
        kind="tool_call",
        name="t",
        call_id="c",
        started_at=MISSING if at is None else at,
        duration_ms=MISSING if duration is None else duration,
    )
    run = Run(
        run_id="times",
        started_at=start,
        ended_at=MISSING if end is None else end,
        steps=(step,),
        input_tokens=MISSING if tokens is None else tokens,
    )
    spans = _spans(_proto({"resourceSpans": [resource_spans(run)]}))[0]
    assert all(span.start_time_unix_nano <= span.end_time_unix_nano for span in spans)
    root = _attributes(spans[0])
    # the time as the run's record writes it, too
    assert root["agentruns.run.started_at"] == json.loads(_DATE_TIME.dump_json(start))
