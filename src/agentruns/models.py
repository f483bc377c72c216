"""The typed models for the three run record formats, generated from the schemas in schemas/.

One stable import place: the generated package's module layout may change when the generator
or a schema changes; these names do not.
"""

from __future__ import annotations

from agentruns_generated.agentrun import (
    AgentRun,
    AgentRunField,
    Metrics,
    MetricsField,
    Result,
    ResultField,
    Step,
    StepField,
)
from agentruns_generated.cortex import (
    CortexRunJournal,
    CortexRunJournalField,
    Event,
    EventField,
    TranscriptRef,
    TranscriptRefField,
)
from agentruns_generated.portable import (
    AssistantMessage,
    CompletedConversation,
    Conversation,
    ConversationEvent,
    ConversationTool,
    PortableRunRecord,
    PortableRunRecordField,
    StoppedConversation,
    ToolInvocation,
    ToolInvocationField,
    UserMessage,
)

__all__ = [
    "AgentRun",
    "AgentRunField",
    "AssistantMessage",
    "CompletedConversation",
    "Conversation",
    "ConversationEvent",
    "ConversationTool",
    "CortexRunJournal",
    "CortexRunJournalField",
    "Event",
    "EventField",
    "Metrics",
    "MetricsField",
    "PortableRunRecord",
    "PortableRunRecordField",
    "Result",
    "ResultField",
    "Step",
    "StepField",
    "StoppedConversation",
    "ToolInvocation",
    "ToolInvocationField",
    "TranscriptRef",
    "TranscriptRefField",
    "UserMessage",
]
