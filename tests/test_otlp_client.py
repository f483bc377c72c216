"""The OTLP/HTTP client against collectors that misbehave: every failure is an ``OutputError``
(exit 74) that says how many runs were delivered, never a hang or a bug's exit 70; a URL that
cannot be one is refused before anything is read (exit 2)."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

import pytest
from click.testing import CliRunner

from agentruns.cli import main
from agentruns.errors import OutputError
from agentruns.otlp import Collector

SPANS = b'{"resource":{},"scopeSpans":[]}'

Answer = Callable[[socket.socket, bytes], None]


def _request(conn: socket.socket) -> bytes:
    """One whole HTTP request (headers and a Content-Length body)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return data
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    while len(body) < length:
        body += conn.recv(65536)
    return head + b"\r\n\r\n" + body


@contextmanager
def collector(*answers: Answer) -> Iterator[tuple[str, list[bytes]]]:
    """A collector on a local port that answers each request with the next of ``answers``
    (the last one again when they run out); yields its URL and the requests it got."""
    server = socket.create_server(("127.0.0.1", 0))
    got: list[bytes] = []

    def serve() -> None:
        index = 0
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            with conn:
                request = _request(conn)
                got.append(request)
                answer = answers[min(index, len(answers) - 1)]
                index += 1
                with suppress(OSError):
                    answer(conn, request)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}/v1/traces", got
    finally:
        server.close()


def _http(status: str, body: bytes = b"", headers: str = "") -> Answer:
    def answer(conn: socket.socket, request: bytes) -> None:
        conn.sendall(
            f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\n{headers}\r\n".encode() + body
        )

    return answer


def _send(url: str, runs: int = 3, **options: float) -> Collector:
    client = Collector(url, **options)  # type: ignore[arg-type]
    for _ in range(runs):
        client.write(SPANS)
    client.flush()
    return client


def test_a_delivered_request_is_counted() -> None:
    with collector(_http("200 OK", b"{}")) as (url, got):
        assert _send(url).sent == 3
    assert len(got) == 1


def test_an_answer_that_is_not_http_is_an_output_error() -> None:
    def garbage(conn: socket.socket, request: bytes) -> None:
        conn.sendall(b"SSH-2.0-OpenSSH_9.0\r\n\r\n")

    with collector(garbage) as (url, _), pytest.raises(OutputError, match="BadStatusLine"):
        _send(url)


def test_an_answer_cut_mid_body_is_an_output_error() -> None:
    def cut(conn: socket.socket, request: bytes) -> None:
        conn.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{"partial')

    with collector(cut) as (url, _), pytest.raises(OutputError, match="IncompleteRead"):
        _send(url)


def test_a_redirect_is_not_followed_and_not_counted_as_delivered() -> None:
    moved = _http("302 Found", headers="Location: http://127.0.0.1:9/elsewhere\r\n")
    with collector(moved) as (url, got), pytest.raises(OutputError, match=r"302.*not followed"):
        _send(url)
    assert [request.split(b" ")[0] for request in got] == [b"POST"]


def test_spans_the_collector_rejects_are_a_failure_not_an_export() -> None:
    said = b'{"partialSuccess":{"rejectedSpans":5,"errorMessage":"too old"}}'
    rejected = "rejected 5 spans of this request: too old"
    with collector(_http("200 OK", said)) as (url, _), pytest.raises(OutputError, match=rejected):
        _send(url)


def test_a_busy_collector_is_asked_again_after_its_retry_after() -> None:
    busy = _http("429 Too Many Requests", headers="Retry-After: 0\r\n")
    with collector(busy, _http("503 Service Unavailable"), _http("200 OK")) as (url, got):
        assert _send(url).sent == 3
    assert len(got) == 3


def test_a_collector_busy_past_the_retries_fails_saying_what_was_delivered() -> None:
    busy = _http("503 Service Unavailable", headers="Retry-After: 0\r\n")
    with collector(_http("200 OK"), busy) as (url, _):
        client = Collector(url, batch=2, retries=2)
        client.write(SPANS)
        client.write(SPANS)  # the first request: delivered
        client.write(SPANS)
        with pytest.raises(OutputError, match=r"503.*2 runs were delivered before"):
            client.flush()


def test_a_collector_that_drips_its_answer_is_given_up_on_at_the_deadline() -> None:
    def drip(conn: socket.socket, request: bytes) -> None:
        for byte in b"HTTP/1.1 200 OK\r\n\r\n":
            conn.sendall(bytes([byte]))
            time.sleep(0.5)

    started = time.monotonic()
    with collector(drip) as (url, _), pytest.raises(OutputError, match="no answer within 1 s"):
        _send(url, timeout=1.0)
    assert time.monotonic() - started < 5


@pytest.mark.parametrize(
    "url",
    ["http://[::1/v1/traces", "http://127.0.0.1:notaport/v1/traces", "http:///v1/traces"],
)
def test_a_url_that_cannot_be_one_is_a_usage_error_before_reading(url: str) -> None:
    with pytest.raises(OutputError):
        Collector(url)
    result = CliRunner().invoke(
        main, ["export", "--to", "otlp", "--endpoint", url, "tests/fixtures/cortex.min.json"]
    )
    assert result.exit_code == 2, result.output
