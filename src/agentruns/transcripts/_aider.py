"""Aider's chat history: ``.aider.chat.history.md`` in the repository.

Markdown, appended to by every session: ``# aider chat started at <local time>`` opens one,
``#### `` lines are what the user typed, ``> `` lines what aider printed (the model it uses:
``> Main model: ...``), everything else the model's answers. There are no structured tool calls
and no exact tokens (aider prints them rounded, ``12k sent``), and its times carry no offset, so
none are read (a time zone is never guessed). The run is the whole file.
"""

from __future__ import annotations

from pathlib import Path

from agentruns._read import up_to
from agentruns.errors import InputError
from agentruns.io import MAX_RECORD_SIZE
from agentruns.transcripts._summary import Message, Summary

OPENING = "# aider chat started at "


def looks_like(head: bytes) -> bool:
    return head.lstrip().startswith(OPENING.encode())


def read(path: str, summary: Summary) -> None:
    try:
        with Path(path).open("rb") as stream:
            data = up_to(stream, MAX_RECORD_SIZE)
    except OSError as error:
        raise InputError(f"{path}: cannot read: {error.strerror or error}") from None
    if len(data) > MAX_RECORD_SIZE:
        summary.problem(0, f"larger than {MAX_RECORD_SIZE} bytes: the rest is not read")
    text = data[:MAX_RECORD_SIZE].decode("utf-8", "replace")
    answer: list[str] = []
    answer_line = 0
    sessions = 0
    texts: list[str] = []

    def close() -> None:
        said = "\n".join(answer).strip()
        if said:
            texts.append(said)
            summary.events.append(Message(said, answer_line))
        answer.clear()

    for number, line in enumerate(text.splitlines(), 1):
        bare = line.rstrip()
        if bare.startswith(OPENING):
            close()
            sessions += 1
        elif bare.startswith("####"):
            close()
            typed = bare.removeprefix("####").strip()
            if summary.prompt is None and typed and not typed.startswith("/"):
                summary.prompt = typed
        elif bare.startswith(">"):
            close()
            said = bare.removeprefix(">").strip()
            if said.startswith("Main model: "):
                model = said.removeprefix("Main model: ").split(" with ")[0].strip()
                if model:
                    summary.models[model] += 0
        else:
            if not answer:
                answer_line = number
            if answer or bare:
                answer.append(line)
    close()
    if not sessions:
        raise InputError(f"{path}: not an Aider chat history (no {OPENING.strip()!r} line)")
    summary.final_text = texts[-1] if texts else None
    summary.ending = "completed"
