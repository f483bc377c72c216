"""The registry of formats: the built-in formats are registered when it is first used (so
``import agentruns`` imports no format's models), and what it holds is never answered from a
stale cache. Each case runs in a fresh interpreter: what is imported, and what is registered,
is process-wide."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_importing_agentruns_imports_no_format_s_models() -> None:
    shown = _run(
        """
        import sys
        import agentruns
        print(sorted(m for m in sys.modules if m.startswith("agentruns_generated.")))
        """
    )
    assert shown == "['agentruns_generated._ecma', 'agentruns_generated._json']"


def test_naming_a_root_model_imports_that_format_s_models_alone() -> None:
    shown = _run(
        """
        import sys
        from agentruns import CortexRunJournal
        formats = {"agentrun", "atif", "cortex", "portable"}
        print(sorted(m.split(".")[1] for m in sys.modules
                     if m.startswith("agentruns_generated.") and m.split(".")[1] in formats))
        print(CortexRunJournal.__name__)
        """
    )
    assert shown.splitlines() == ["['cortex']", "CortexRunJournal"]


def test_the_registry_holds_the_built_in_formats_when_first_read() -> None:
    shown = _run(
        """
        from agentruns.conversion import models_by_name, format_named
        print(sorted(models_by_name()))
        print(format_named("atif").model.__name__)
        """
    )
    assert shown.splitlines() == ["['agentrun', 'atif', 'cortex', 'portable']", "AtifTrajectory"]


def test_a_name_registered_again_is_detected_as_the_format_registered_last() -> None:
    shown = _run(
        """
        from pydantic import BaseModel
        from agentruns import Format, register
        from agentruns.detect import detect

        class First(BaseModel):
            probe_first: str

        class Second(BaseModel):
            probe_second: str

        class Probe(Format[BaseModel]):
            def read(self, record):
                raise NotImplementedError

            def write(self, run):
                raise NotImplementedError

        class One(Probe):
            name = "probe"
            model = First

        class Two(Probe):
            name = "probe"
            model = Second

        register(One())
        print(detect({"probe_first": "x"}).format)
        register(Two())  # the same name, the same number of names: a new model
        print(detect({"probe_second": "x"}).format)
        print(detect({"probe_first": "x"}).format)
        """
    )
    assert shown.splitlines() == ["probe", "probe", "None"]


def test_a_plugin_registered_before_the_built_in_formats_keeps_its_name() -> None:
    shown = _run(
        """
        from pydantic import BaseModel
        from agentruns.conversion import Format, register, format_named

        class Mine(BaseModel):
            mine: str

        class MyAtif(Format[Mine]):
            name = "atif"
            model = Mine

            def read(self, record):
                raise NotImplementedError

            def write(self, run):
                raise NotImplementedError

        register(MyAtif())  # before anything read the registry
        print(format_named("atif").model.__name__)
        """
    )
    assert shown == "Mine"


def test_a_format_that_cannot_convert_is_refused_when_registered() -> None:
    shown = _run(
        """
        from pydantic import BaseModel
        from agentruns import Format, register

        class Log(BaseModel):
            text: str

        class Half(Format[Log]):
            name = "half"
            model = Log

            def read(self, record):  # no write, no crosswalk
                raise NotImplementedError

        for made in (Half(), object()):
            try:
                register(made)
            except TypeError as error:
                print(error)
        """
    )
    assert shown.splitlines() == [
        "format Half cannot be registered: no write (or a crosswalk)",
        "register() takes a Format instance, not object",
    ]


def test_the_package_s_modules_are_its_attributes_after_import_agentruns() -> None:
    shown = _run(
        """
        import agentruns
        print(agentruns.models.Step.__name__, agentruns.stats.RunStats.__name__)
        try:
            agentruns.no_such_thing
        except AttributeError as error:
            print(error)
        """
    )
    assert shown.splitlines() == [
        "Step RunStats",
        "module 'agentruns' has no attribute 'no_such_thing'",
    ]


def test_every_harness_is_declared_once_with_the_reader_its_descriptor_names() -> None:
    """One row a harness (``transcripts._BUILT_IN``): its name, the parser its descriptor
    names and that parser's code, its look. A harness added to the names and not the table,
    or a row whose parser is not its descriptor's, fails here, not at a user's."""
    from typing import get_args

    from agentruns import transcripts
    from agentruns.transcripts._declarative import ParserName

    rows = transcripts._BUILT_IN
    assert sorted(row.name for row in rows) == sorted(transcripts.HARNESSES)  # each once
    for row in rows:
        table = transcripts.descriptor(row.name).transcript
        assert row.parser == table.parser, row.name
        assert (row.read is None) == (row.parser is None), row.name
    denials = {
        table.permission_denials_parser
        for table in (transcripts.descriptor(name).transcript for name in transcripts.HARNESSES)
    } - {None}
    # eval-magic's Codex denials are read by its descriptor's tables, the others by a reader
    assert denials - set(transcripts._NAMED) == {"codex-items"}
    assert set(get_args(ParserName)) == set(transcripts._NAMED) | denials
    assert [name for name, _ in transcripts._LOOKS] == [r.name for r in rows if r.looks]
    assert {r.name for r in rows if r.looks is None} == {"aider"}  # a chat log: first bytes
