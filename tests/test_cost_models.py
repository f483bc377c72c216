"""A call is priced as the model its tokens are booked under: the cost's models and the
tokens' models are one list. A harness that says its model once for the session (Copilot's
shutdown totals, a Codex rollout's turn context) makes calls that name none; those are the
session's model's calls, in the tokens by model and in the cost alike."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given

from agentruns.stats import RunFacts, _session_facts
from tests.test_transcript_properties import _SETTINGS, USAGE, Action, _materialize, actions

LOGS = Path(__file__).parent / "fixtures" / "upstream" / "agent-logs"


def _facts(path: Path) -> RunFacts:
    outcome = _session_facts((str(path), None))
    assert outcome.value is not None, outcome
    return outcome.value


def _booked(facts: RunFacts) -> set[str]:
    """The models the run's tokens are booked under (``tokens_by_model``)."""
    return set(facts.models) if facts.models else {facts.model or "(none)"}


def _costed(facts: RunFacts) -> set[str]:
    """The models the run's cost names: priced, or unpriced with their tokens."""
    return {model for _, model, _ in facts.cost} | set(facts.unpriced)


@pytest.mark.parametrize("harness", sorted(USAGE))
@given(plan=actions.filter(bool))
@_SETTINGS
def test_the_cost_names_only_models_the_tokens_are_booked_under(
    harness: str, plan: list[Action], tmp_path_factory: pytest.TempPathFactory
) -> None:
    facts = _facts(_materialize(harness, plan, tmp_path_factory.mktemp(harness)))
    assert facts.tokens, "the generated session spends tokens"
    assert _costed(facts) <= _booked(facts)
    assert {named for _, _, _, named, *_ in facts.calls} <= _booked(facts)


def test_a_copilot_session_s_totals_are_priced_as_its_model() -> None:
    """jazzy's Copilot session: 120 tokens in the shutdown's totals, which name no model; the
    session ran on gpt-5-mini (its only model), which the table prices."""
    facts = _facts(LOGS / "copilot" / "jazzy-copilot-small.jsonl")
    assert facts.model == "gpt-5-mini"
    assert facts.unpriced == {}
    assert [model for _, model, _ in facts.cost] == ["gpt-5-mini"]
    assert sum(usd for *_, usd in facts.cost) > 0


def test_a_run_that_names_no_model_leaves_its_calls_unpriced() -> None:
    """A ``codex exec --json`` stream says no model at all: its tokens stay unpriced under
    "(none)", never priced as a guess."""
    facts = _facts(LOGS / "codex-exec-json" / "agentcmd-stream-output-1.jsonl")
    assert facts.model is None
    assert facts.cost == []
    assert facts.unpriced == {"(none)": facts.tokens}
