"""Compressed inputs and outputs (.gz, .zst): the same results as the plain files, streamed,
and a cut archive costs only the records after the cut."""

from __future__ import annotations

import gzip
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import zstandard
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agentruns.cli import main
from agentruns.io import read_raw

FIXTURES = Path(__file__).parent / "fixtures"
CORTEX = json.loads((FIXTURES / "cortex.min.json").read_text())
PORTABLE = json.loads((FIXTURES / "portable.min.json").read_text())


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def compress(kind: str, data: bytes) -> bytes:
    if kind == "gz":
        return gzip.compress(data, mtime=0)
    return zstandard.ZstdCompressor().compress(data)


def decompress(kind: str, data: bytes) -> bytes:
    if kind == "gz":
        return gzip.decompress(data)
    return zstandard.ZstdDecompressor().stream_reader(data, read_across_frames=True).read()


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    """JSONL with valid records of two formats, an invalid one and a line that is not JSON."""
    lines = [json.dumps(dict(CORTEX, run_id=f"R-{i}")) for i in range(300)]
    lines[7] = json.dumps(dict(CORTEX, status="dispatching"))
    lines[20] = json.dumps(PORTABLE)
    lines[40] = '{"run_id": '
    path = tmp_path / "runs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return path


def _packed(plain: Path, kind: str) -> Path:
    packed = plain.with_name(f"{plain.name}.{'gz' if kind == 'gz' else 'zst'}")
    packed.write_bytes(compress(kind, plain.read_bytes()))
    return packed


@pytest.mark.parametrize("kind", ["gz", "zst"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_validate_says_of_a_compressed_file_what_it_says_of_the_plain_one(
    plain: Path, kind: str, jobs: str
) -> None:
    packed = _packed(plain, kind)
    one = invoke("validate", "-j", jobs, str(plain))
    other = invoke("validate", "-j", jobs, str(packed))
    assert other.exit_code == one.exit_code == 1
    assert other.stdout.replace(packed.name, plain.name) == one.stdout
    assert other.stderr == one.stderr


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_convert_output_from_a_compressed_input_is_byte_identical(
    plain: Path, kind: str, tmp_path: Path
) -> None:
    packed = _packed(plain, kind)
    outputs = []
    for source in (plain, packed):
        out = tmp_path / f"out-{source.name}.jsonl"
        invoke("convert", "--to", "agentrun", str(source), "-o", str(out), "-q")
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"\n") == 298


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_an_output_named_so_is_compressed(plain: Path, kind: str, tmp_path: Path) -> None:
    flat, packed = tmp_path / "out.jsonl", tmp_path / f"out.jsonl.{kind}"
    invoke("convert", "--to", "portable", str(plain), "-o", str(flat), "-q")
    invoke("convert", "--to", "portable", str(plain), "-o", str(packed), "-q")
    assert decompress(kind, packed.read_bytes()) == flat.read_bytes()
    # and it reads back as its plain twin
    again = invoke("validate", str(packed))
    assert again.stderr.startswith("298 records: 298 valid")


def test_concatenated_gzip_members_are_one_stream(plain: Path) -> None:
    data = plain.read_bytes()
    half = data.index(b"\n", len(data) // 2) + 1
    packed = plain.with_name("two.jsonl.gz")
    packed.write_bytes(gzip.compress(data[:half]) + gzip.compress(data[half:]))
    assert invoke("validate", str(packed)).stderr.startswith("300 records: 298 valid, 2 invalid")


@pytest.mark.parametrize("kind", ["gz", "zst"])
@given(cut=st.floats(0.05, 0.95))
@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_cut_archive_costs_only_the_records_after_the_cut(
    plain: Path, kind: str, cut: float
) -> None:
    whole = compress(kind, plain.read_bytes())
    packed = plain.with_name(f"cut.jsonl.{kind}")
    packed.write_bytes(whole[: int(len(whole) * cut)])
    raws = list(read_raw(str(packed)))
    *lines, last = raws
    assert last.error is not None
    assert "compressed input broken" in last.error
    expected = plain.read_bytes().split(b"\n")
    for raw in lines:  # every whole line before the cut, as it is
        assert raw.error is None
        assert raw.raw == expected[raw.line - 1]
    result = invoke("validate", str(packed))
    assert result.exit_code == 1
    assert "Traceback" not in result.output


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_a_file_that_is_not_what_its_extension_says_is_one_bad_record(
    kind: str, tmp_path: Path
) -> None:
    fake = tmp_path / f"runs.jsonl.{kind}"
    fake.write_text(json.dumps(CORTEX) + "\n")
    result = invoke("validate", str(fake))
    assert result.exit_code == 1
    assert f"runs.jsonl.{kind}:1:1: /: compressed input broken here: " in result.stdout


@pytest.mark.parametrize("kind", ["gz", "zst"])
def test_an_archive_of_the_other_codec_is_one_bad_record(
    plain: Path, kind: str, tmp_path: Path
) -> None:
    other = "zst" if kind == "gz" else "gz"
    packed = tmp_path / f"runs.jsonl.{kind}"
    packed.write_bytes(compress(other, plain.read_bytes()))
    for command in ("validate", "detect", "show", "stats"):
        result = invoke(command, str(packed))
        assert result.exit_code == 1, (command, result.output)
        assert "compressed input broken here: not a valid" in result.output


@pytest.mark.parametrize("kind", ["gz", "zst"])
@given(
    damage=st.lists(
        st.tuples(st.floats(0, 1, exclude_max=True), st.binary(min_size=1, max_size=8)), max_size=4
    )
)
@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_a_damaged_archive_is_read_up_to_the_damage_and_never_fails_the_command(
    plain: Path, kind: str, damage: list[tuple[float, bytes]]
) -> None:
    """Bytes overwritten anywhere in an archive (its header, its blocks, its checksum): the
    records decompressed before the codec notices are read, the rest is one bad record, and
    no command meets a codec's own error (an exit 70)."""
    data = bytearray(compress(kind, plain.read_bytes()))
    for where, patch in damage:
        at = int(where * len(data))
        data[at : at + len(patch)] = patch
    packed = plain.with_name(f"damaged.jsonl.{kind}")
    packed.write_bytes(bytes(data))
    raws = list(read_raw(str(packed)))  # raises nothing
    broken = [raw for raw in raws if raw.error and "compressed input broken" in raw.error]
    assert broken in ([], raws[-1:])  # at most one, and the last
    for command in ("validate", "stats"):
        result = invoke(command, str(packed))
        assert result.exit_code in (0, 1), (command, result.output)


def test_without_zstandard_a_zst_file_says_how_to_get_it(plain: Path, tmp_path: Path) -> None:
    packed = _packed(plain, "zst")
    code = (
        "import sys; sys.modules['zstandard'] = None\n"
        "from agentruns.cli import run\n"
        f"sys.argv = ['agentruns', 'validate', {str(packed)!r}]\n"
        "run()"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False
    )
    assert result.returncode == 1
    assert "pip install 'agentruns[zstd]'" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_compressed_transcript_imports_as_the_plain_one(tmp_path: Path) -> None:
    from agentruns.transcripts import read

    sample = FIXTURES / "upstream" / "eval-magic" / "transcripts" / "codex" / "full-summary.jsonl"
    packed = tmp_path / "codex-events.jsonl.gz"
    packed.write_bytes(gzip.compress(sample.read_bytes()))
    assert read(packed) == read(sample)


def _bomb(path: Path, kind: str, gib: int) -> Path:
    """A valid record, ``gib`` GiB of NUL bytes on one line, a valid record: a few hundred
    kilobytes (zstd) or a few megabytes (gzip) compressed."""
    line = json.dumps(
        json.loads((Path(__file__).parent / "fixtures" / "cortex.min.json").read_text())
    )
    zeros = b"\0" * (1 << 24)
    with path.open("wb") as sink:
        stream: Any = (
            zstandard.ZstdCompressor(level=1).stream_writer(sink, closefd=False)
            if kind == "zst"
            else gzip.GzipFile(fileobj=sink, mode="wb", compresslevel=1)
        )
        with stream:
            stream.write(line.encode() + b"\n")
            for _ in range(64 * gib):
                stream.write(zeros)
            stream.write(b"\n" + line.encode() + b"\n")
    return path


@pytest.mark.parametrize(("kind", "gib"), [("zst", 2), ("gz", 1)])
def test_an_archive_that_expands_past_memory_costs_only_its_long_line(
    kind: str, gib: int, tmp_path: Path
) -> None:
    import resource

    bomb = _bomb(tmp_path / f"bomb.jsonl.{kind}", kind, gib)
    assert bomb.stat().st_size < 8 << 20  # a thousandth of what it expands to, or less

    def limited() -> None:  # less address space than the archive expands to
        resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    script = str(Path(sys.executable).parent / "agentruns")
    result = subprocess.run(
        [script, "validate", "--max-record-size", "1000000", str(bomb)],
        capture_output=True,
        text=True,
        preexec_fn=limited,
        check=False,
        timeout=300,
    )
    assert "MemoryError" not in result.stdout + result.stderr
    assert result.returncode == 1
    assert "3 records: 2 valid, 1 invalid" in result.stderr
