"""The public names of every public module, pinned (as httpx pins its own): a name added,
removed or renamed is a deliberate change of this list, never an accident."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import agentruns

PUBLIC: dict[str, list[str]] = {
    "agentruns": [
        "AgentRun",
        "AgentrunsError",
        "AtifTrajectory",
        "Conversion",
        "CortexRunJournal",
        "Derived",
        "Format",
        "Loss",
        "LossError",
        "PortableRunRecord",
        "Run",
        "RunRecord",
        "RunStep",
        "Status",
        "Written",
        "convert",
        "format_for",
        "from_canonical",
        "register",
        "to_canonical",
    ],
    "agentruns.batch": [
        "Batch",
        "Boundary",
        "Lines",
        "Outcome",
        "Problem",
        "Problems",
        "Tally",
        "collect",
        "convert_document",
        "convert_lines",
        "detect_document",
        "handle_lines",
        "known_format",
        "raws_of",
        "read_inputs",
        "read_model",
        "read_run",
        "reject_line",
        "rejection",
        "validate_document",
        "validate_lines",
    ],
    "agentruns.canonical": ["FIELDS", "Run", "RunStep", "STEP_FAILED", "Status"],
    "agentruns.cli": [
        "EXIT_INVALID",
        "EXIT_IO",
        "EXIT_OK",
        "EXIT_SOFTWARE",
        "EXIT_USAGE",
        "main",
        "run",
    ],
    "agentruns.conversion": [
        "CARRY_PROPERTY",
        "CARRY_VERSION",
        "CarryPlace",
        "Conversion",
        "Coverage",
        "Derived",
        "Format",
        "InExtras",
        "InObject",
        "Loss",
        "LossError",
        "Use",
        "WHOLE",
        "Written",
        "convert",
        "fields",
        "format_for",
        "format_named",
        "from_canonical",
        "is_carry",
        "models_by_name",
        "register",
        "registered_formats",
        "registrations",
        "resolve",
        "to_canonical",
        "unread_fields",
    ],
    "agentruns.crosswalk": [
        "Crosswalk",
        "Row",
        "Source",
        "Target",
        "Writing",
        "extras_for",
        "kept",
        "required",
    ],
    "agentruns.derivations": [
        "Derivation",
        "UNKNOWN_TIME",
        "derive_duration_ms",
        "derive_harness_total",
        "derive_run_id",
        "derive_started_at",
        "derive_status",
        "derive_total_tokens",
        "duration_ms",
        "run_id",
        "status",
        "step_failed",
        "total_tokens",
    ],
    "agentruns.detect": ["Detection", "MODELS", "detect"],
    "agentruns.distributed": [
        "NO_WORKER_TIMEOUT",
        "PART_BYTES",
        "Part",
        "convert_files",
        "export_files",
        "parts_of",
        "validate_files",
    ],
    "agentruns.errors": [
        "AgentrunsError",
        "ClusterError",
        "ConversionError",
        "DescriptorError",
        "FormatError",
        "InputError",
        "LossError",
        "MissingDependency",
        "OutputError",
        "RecordError",
        "TranscriptError",
    ],
    "agentruns.io": [
        "InputError",
        "Layout",
        "MAX_RECORD_SIZE",
        "Raw",
        "Record",
        "count_lines",
        "error_pointers",
        "layout_of",
        "line_end_after",
        "parse",
        "read_range",
        "read_raw",
        "read_records",
        "too_large",
        "validate",
    ],
    "agentruns.schemas": ["schema_text"],
    "agentruns.show": ["header", "render", "render_run", "timeline"],
    "agentruns.stats": [
        "EXACT",
        "LargeRun",
        "MAX_KEYS",
        "OTHER",
        "RunFacts",
        "RunStats",
        "Sketch",
        "TOKEN_KINDS",
        "add_sessions",
        "render",
        "stats_document",
    ],
    "agentruns.tables": [
        "BLOCK",
        "Exported",
        "MissingPyarrow",
        "ParquetExport",
        "RunIds",
        "export_blocks",
        "export_lines",
        "export_raws",
        "export_session_blocks",
        "require_pyarrow",
        "runs_schema",
        "steps_schema",
    ],
    "agentruns.transcripts": [
        "Denial",
        "Descriptor",
        "DescriptorError",
        "HARNESSES",
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
    ],
    "agentruns.formats": [
        "AGENTRUN",
        "ATIF",
        "AgentRunFormat",
        "AtifFormat",
        "BUILT_IN",
        "CORTEX",
        "CortexFormat",
        "PORTABLE",
        "PortableFormat",
    ],
    "agentruns.formats.agentrun": [
        "AGENTRUN",
        "AgentRunFormat",
        "CARRY_KEY",
        "METRICS",
        "RESULT",
        "RUN",
        "STEP",
    ],
    "agentruns.formats.atif": [
        "AGENT",
        "ATIF",
        "ATIF_VERSION",
        "AtifFormat",
        "CARRY_KEY",
        "FINAL_METRICS",
        "NULL_AS_ABSENT",
        "RAW_STEP",
        "TRAJECTORY",
    ],
    "agentruns.engine": [
        "Committable",
        "Outputs",
        "drive",
    ],
    "agentruns.pipeline": [
        "Candidate",
        "Committable",
        "ImportStep",
        "NotRead",
        "Outcome",
        "Outputs",
        "Problem",
        "RunItem",
        "SessionStep",
        "Stream",
        "Tally",
        "is_folder_of_sessions",
        "read_session",
        "run",
        "runs_of",
        "session_items",
        "session_size",
    ],
    "agentruns.otlp": [
        "Collector",
        "MissingOtel",
        "RUN_ATTRIBUTES",
        "SCHEMA_URL",
        "TracesFile",
        "otlp_document",
        "place_of",
        "require_otel",
        "resource_spans",
        "session_spans",
        "traces_data",
    ],
    "agentruns.formats.cortex": [
        "CARRY_EVENT",
        "CORTEX",
        "CortexFormat",
        "CortexKind",
        "EVENT",
        "JOURNAL",
    ],
    "agentruns.formats.portable": [
        "PORTABLE",
        "PortableFormat",
        "RECORD",
        "TOOL",
        "ToolArgs",
        "ToolResult",
    ],
}


DEPRECATED: dict[str, str] = {"agentruns.engine": "agentruns.pipeline"}
"""Modules kept for one release as re-exports of the module that replaced them."""


@pytest.mark.parametrize("name", sorted(DEPRECATED))
def test_a_deprecated_module_only_re_exports_its_replacement(name: str) -> None:
    module = importlib.import_module(name)
    replacement = importlib.import_module(DEPRECATED[name])
    said = module.__doc__ or ""
    assert said.startswith("Deprecated")
    assert DEPRECATED[name] in said
    held = {id(value) for value in vars(replacement).values()}
    for public in module.__all__:
        assert id(getattr(module, public)) in held, f"{name}.{public} is not {DEPRECATED[name]}'s"


DEPRECATED_NAMES: dict[str, dict[str, str]] = {
    "agentruns.batch": {
        "Boundary": "agentruns.pipeline._stream",
        "Outcome": "agentruns.pipeline",
        "Problem": "agentruns.pipeline",
        "Problems": "agentruns.pipeline._outcome",
        "Tally": "agentruns.pipeline",
        "handle_lines": "",
    },
}
"""Names a module keeps for one release: re-exports of the module that now holds them, or
(no home) names whose replacement the module's docstring gives."""


@pytest.mark.parametrize("name", sorted(DEPRECATED_NAMES))
def test_a_deprecated_name_is_its_new_home_s_and_the_module_says_so(name: str) -> None:
    module = importlib.import_module(name)
    for public, home in DEPRECATED_NAMES[name].items():
        assert public in module.__all__
        if home:  # moved: the same object, re-exported
            assert getattr(module, public) is getattr(importlib.import_module(home), public)
        assert f"``{public}``" in (module.__doc__ or ""), f"{name}'s docstring names {public}"


def test_the_public_surface_is_smaller_than_before_the_pipeline() -> None:
    """Deprecated names and modules do not count: they go in the next release."""
    names = sum(len(values) for values in PUBLIC.values())
    deprecated = sum(len(values) for values in DEPRECATED_NAMES.values())
    deprecated += sum(len(PUBLIC[module]) for module in DEPRECATED)
    assert names - deprecated < 245  # 245 public names at 2f2d290


@pytest.mark.parametrize("name", sorted(PUBLIC))
def test_the_public_names_of_each_module_are_pinned(name: str) -> None:
    module = importlib.import_module(name)
    assert sorted(module.__all__) == PUBLIC[name]
    for public in module.__all__:
        assert hasattr(module, public), f"{name}.__all__ names {public}, which it lacks"


def test_every_public_module_is_pinned() -> None:
    found = {"agentruns"}
    for info in pkgutil.walk_packages(agentruns.__path__, "agentruns."):
        if not any(part.startswith("_") for part in info.name.split(".")):
            found.add(info.name)
    assert found - {"agentruns.models"} == set(PUBLIC)


def test_the_models_module_exports_every_generated_name() -> None:
    import agentruns.models
    import agentruns_generated.models

    assert agentruns.models.__all__ == agentruns_generated.models.__all__


def test_the_models_module_exports_no_rule_machinery() -> None:
    """Aliases that only carry a lifted rule (named after where the rule stood) and the
    reference table stay in the format's module: not names for users."""
    import agentruns.models
    from agentruns_generated import atif

    exported = set(agentruns.models.__all__)
    assert "SCHEMA_REFS" not in exported
    assert not {name for name in exported if name.startswith("Value0")}
    assert hasattr(atif, "Value0Rule")  # still where the models use it
    assert {"AtifTrajectory", "AtifStep", "AtifStepField"} <= exported


def test_public_names_leave_out_rule_aliases_and_the_reference_table() -> None:
    from codegen.pipeline import public_names

    code = (
        "SCHEMA_REFS: dict[str, object] = {}\n"
        "Value0Rule = TypeAliasType('V', Annotated[JsonValue, SchemaRule({}, SCHEMA_REFS)])\n"
        "Name = TypeAliasType('Name', StrictStr)\n"
        "ID = TypeAliasType('ID', StrictStr)\n"
        "class Thing(JsonModel):\n    pass\n"
    )
    assert public_names(code) == ["Name", "ID", "Thing"]
