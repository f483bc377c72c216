"""The canonical run: one in-memory document model holding the union of what the formats say.

Readers turn a format's model into a ``Run``; writers turn a ``Run`` into a format's model.
Every field keeps the three states the formats distinguish: absent (``MISSING``), ``null``
(``None``) where some format allows it, and a value. Format-specific facts (cortex's worktree,
portable's eval id) live here too, so a run that passes through a format without room for them
can carry them and come back whole.
"""

from __future__ import annotations

from dataclasses import MISSING as NO_DEFAULT
from dataclasses import dataclass, fields
from typing import Final, Literal, TypeVar

from pydantic import MISSING

# pydantic's JsonValue, without a Python call per value; a date-time that keeps its text
from agentruns_generated._json import JsonDateTime, JsonValue

__all__ = [
    "FIELDS",
    "STEP_FAILED",
    "Run",
    "RunStep",
    "Status",
]


Status = Literal["queued", "running", "awaiting_human", "completed", "failed", "canceled"]
"""Run status, in one vocabulary (cortex says ``canceled``, AgentRun ``cancelled``)."""

STEP_FAILED: Final = "error"
"""The status of a step that failed (a tool call that returned an error, the event that ended a
failed run): one word, whatever the source said."""


# Plain frozen dataclasses, not pydantic models: readers build them from models that are
# already validated, so validating again would only cost time (conversion builds thousands).

_C = TypeVar("_C")


def _quick_init(cls: type[_C]) -> type[_C]:
    """The frozen dataclass's ``__init__``, setting each slot by its descriptor: a frozen
    dataclass sets a field by a global lookup and ``object.__setattr__``, which made a step
    cost 1.7 us, now 1.0 (a conversion makes every step three times). Same signature,
    defaults and refusals; ``tests/test_canonical_init.py`` holds the dataclass's own
    ``__init__`` as the oracle."""
    declared = fields(cls)  # type: ignore[arg-type]
    params = ", ".join(
        name if default is NO_DEFAULT else f"{name}=D_{name}"
        for name, default in ((f.name, f.default) for f in declared)
    )
    body = "".join(f"        S_{f.name}(self, {f.name})\n" for f in declared)
    outer = ", ".join([*(f"S_{f.name}" for f in declared), *(f"D_{f.name}" for f in declared)])
    source = (
        f"def make({outer}):\n    def __init__(self, *, {params}):\n{body}    return __init__\n"
    )
    names: dict[str, object] = {}
    exec(compile(source, f"<{cls.__name__} init>", "exec"), names)
    setters = [getattr(cls, f.name).__set__ for f in declared]
    made = names["make"](*setters, *(f.default for f in declared))  # type: ignore[operator]
    made.__qualname__ = f"{cls.__qualname__}.__init__"
    made.__doc__ = cls.__init__.__doc__
    cls.__init__ = made  # type: ignore[method-assign]
    return cls


@_quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class RunStep:
    """One thing that happened in a run: a tool call, a thought, a status event...

    Portable tool invocations, AgentRun steps and cortex events are all steps; ``kind`` says
    which (``tool_call``, ``tool_result``, ``thought``, ``message``, ``handoff``, ``decision``
    from AgentRun, ``event`` for a cortex journal event).
    """

    kind: str
    name: str | MISSING = MISSING
    index: int | MISSING = MISSING
    input: JsonValue | MISSING = MISSING
    output: JsonValue | MISSING = MISSING
    started_at: JsonDateTime | MISSING = MISSING
    duration_ms: int | MISSING = MISSING
    phase: str | MISSING | None = MISSING
    status: str | MISSING | None = MISSING
    activity: str | MISSING | None = MISSING
    message: str | MISSING | None = MISSING
    extra: dict[str, JsonValue] | MISSING = MISSING
    """Properties beyond the declared ones (AgentRun steps and cortex events allow them)."""
    call_id: str | MISSING = MISSING
    """The id the agent gave a tool call (what its result and a subagent's run refer to)."""


@_quick_init
@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """A run of an AI agent, in every format's terms at once."""

    # -- shared by several formats ------------------------------------------------------
    run_id: str | MISSING = MISSING
    agent_id: str | MISSING | None = MISSING
    goal: str | MISSING = MISSING
    """The task given to the agent (portable ``prompt``, AgentRun ``goal``)."""
    status: Status | MISSING = MISSING
    started_at: JsonDateTime | MISSING = MISSING
    ended_at: JsonDateTime | MISSING | None = MISSING
    final_message: str | MISSING = MISSING
    """The agent's final output text (portable ``final_message``, AgentRun ``result.summary``)."""
    steps: tuple[RunStep, ...] | MISSING = MISSING
    total_tokens: int | MISSING | None = MISSING
    """Input plus output tokens (``agentruns.derivations.derive_total_tokens``: the one rule)."""
    input_tokens: int | MISSING = MISSING
    """Every token the model read: fresh input, cache reads and cache writes."""
    output_tokens: int | MISSING = MISSING
    """Every token the model wrote, reasoning included."""
    cache_creation_tokens: int | MISSING = MISSING
    """The part of ``input_tokens`` written to the prompt cache."""
    cache_read_tokens: int | MISSING = MISSING
    """The part of ``input_tokens`` read from the prompt cache."""
    reasoning_tokens: int | MISSING = MISSING
    """The part of ``output_tokens`` spent on reasoning."""
    model: str | MISSING = MISSING
    """The model the agent ran on (the one that wrote most of its output, when several did)."""
    tool_call_count: int | MISSING = MISSING
    cost_usd: float | MISSING = MISSING
    duration_ms: int | MISSING | None = MISSING

    # -- portable ---------------------------------------------------------------------
    eval_id: str | MISSING = MISSING
    condition: str | MISSING = MISSING
    skill_path: str | MISSING | None = MISSING
    files: tuple[str, ...] | MISSING = MISSING
    run_index: int | MISSING = MISSING
    conversation: JsonValue | MISSING = MISSING
    """The portable ``conversation`` object, as JSON."""
    codebase: JsonValue | MISSING = MISSING
    """The portable ``codebase`` object (what the run's environment was built from), as JSON."""
    skill_source: JsonValue | MISSING = MISSING
    """The portable ``skill_source`` object (the skill the run staged), as JSON."""

    # -- cortex -----------------------------------------------------------------------
    kind: str | MISSING = MISSING
    task_id: str | MISSING | None = MISSING
    mission_id: str | MISSING | None = MISSING
    role: str | MISSING | None = MISSING
    phase: str | MISSING | None = MISSING
    activity: str | MISSING | None = MISSING
    worktree_path: str | MISSING | None = MISSING
    branch: str | MISSING | None = MISSING
    base_commit: str | MISSING | None = MISSING
    head_commit: str | MISSING | None = MISSING
    updated_at: JsonDateTime | MISSING | None = MISSING
    next_action: str | MISSING | None = MISSING
    transcript_refs: tuple[JsonValue, ...] | MISSING = MISSING

    # -- AgentRun ---------------------------------------------------------------------
    framework: str | MISSING = MISSING
    trace_url: str | MISSING = MISSING
    result_output: dict[str, JsonValue] | MISSING = MISSING
    result_extra: dict[str, JsonValue] | MISSING = MISSING
    """Extras of AgentRun ``result``; ``{}`` when a result object exists without extras."""
    metrics_extra: dict[str, JsonValue] | MISSING = MISSING
    """Extras of AgentRun ``metrics``; ``{}`` when a metrics object exists without extras."""
    extra: dict[str, JsonValue] | MISSING = MISSING
    """Root properties beyond the declared ones (AgentRun allows them)."""

    # -- ATIF -------------------------------------------------------------------------
    atif_version: str | MISSING = MISSING
    """ATIF ``schema_version`` (``ATIF-v1.8``)."""
    agent_version: str | MISSING = MISSING
    """The version of the agent system (ATIF ``agent.version``)."""
    trajectory_id: str | MISSING | None = MISSING
    """The document's own id (ATIF; what an embedded subagent is referred to by)."""
    notes: str | MISSING | None = MISSING
    continued_trajectory_ref: str | MISSING | None = MISSING
    tool_definitions: JsonValue | MISSING = MISSING
    """The tools the agent had (ATIF ``agent.tool_definitions``: a list, or null), as JSON."""
    agent_extra: JsonValue | MISSING = MISSING
    """ATIF ``agent.extra`` (an object, or null), as JSON."""
    step_count: int | MISSING | None = MISSING
    """The step count the source states (ATIF ``final_metrics.total_steps``), which may
    differ from the number of steps."""

    # -- sessions -----------------------------------------------------------------------
    subagents: tuple[Run, ...] | MISSING = MISSING
    """Runs the agent started (Claude Code's Task subagents), each a run of its own."""
    parent_call_id: str | MISSING = MISSING
    """For a subagent's run: the ``call_id`` of the parent's tool call that started it."""


FIELDS: tuple[str, ...] = tuple(f.name for f in fields(Run))
