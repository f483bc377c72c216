"""The typed models for the three run record formats, generated from the schemas in schemas/.

One stable import place: the generated package's module layout may change when the generator
or a schema changes; these names do not.
"""

from __future__ import annotations

from agentruns_generated.agentrun import AgentRun, Metrics, Result, Step
from agentruns_generated.cortex import CortexRunJournal, Event, TranscriptRef
from agentruns_generated.portable import (
    AssistantMessage,
    CompletedConversation,
    Conversation,
    ConversationEvent,
    ConversationTool,
    PortableRunRecord,
    StoppedConversation,
    ToolInvocation,
    UserMessage,
)

__all__ = [
    "AgentRun",
    "AssistantMessage",
    "CompletedConversation",
    "Conversation",
    "ConversationEvent",
    "ConversationTool",
    "CortexRunJournal",
    "Event",
    "Metrics",
    "PortableRunRecord",
    "Result",
    "Step",
    "StoppedConversation",
    "ToolInvocation",
    "TranscriptRef",
    "UserMessage",
]
