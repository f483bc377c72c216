"""The typed models for the three run record formats, generated from the schemas in schemas/.

One stable import place: the generated package's module layout may change when the generator
or a schema changes; these names do not.
"""

from __future__ import annotations

from agentruns_generated.agentrun import (
    AgentRun,
    AgentRunField,
    AgentRunStatus,
    Metrics,
    MetricsField,
    Result,
    ResultField,
    Step,
    StepField,
    StepType,
)
from agentruns_generated.cortex import (
    CortexRunJournal,
    CortexRunJournalField,
    CortexRunJournalKind,
    CortexRunJournalStatus,
    Event,
    EventField,
    TranscriptRef,
    TranscriptRefField,
)
from agentruns_generated.portable import (
    AssistantMessage,
    Codebase,
    CompletedConversation,
    Conversation,
    ConversationEvent,
    ConversationTool,
    Origin,
    PortableRunRecord,
    PortableRunRecordField,
    ResponderOutcome,
    SkillSource,
    StoppedConversation,
    TimedOutConversation,
    ToolInvocation,
    ToolInvocationField,
    UserMessage,
)

__all__ = [
    "AgentRun",
    "AgentRunField",
    "AgentRunStatus",
    "AssistantMessage",
    "Codebase",
    "CompletedConversation",
    "Conversation",
    "ConversationEvent",
    "ConversationTool",
    "CortexRunJournal",
    "CortexRunJournalField",
    "CortexRunJournalKind",
    "CortexRunJournalStatus",
    "Event",
    "EventField",
    "Metrics",
    "MetricsField",
    "Origin",
    "PortableRunRecord",
    "PortableRunRecordField",
    "ResponderOutcome",
    "Result",
    "ResultField",
    "SkillSource",
    "Step",
    "StepField",
    "StepType",
    "StoppedConversation",
    "TimedOutConversation",
    "ToolInvocation",
    "ToolInvocationField",
    "TranscriptRef",
    "TranscriptRefField",
    "UserMessage",
]
