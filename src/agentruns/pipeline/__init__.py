"""One record pipeline, without click: a job is items (the documents of files of records,
the lines of a partition, the sessions of a folder) -> one step per item (read the run once,
then validate, convert, count, make rows or spans) -> what is done with each outcome (write
it, reject it, add it up), the outputs committed together at the end or not at all.

Every command runs it, and so do the library's batch functions and the Dask parts: a
service gets the command's behaviour, item for item, by running the same stream::

    from functools import partial
    from agentruns.batch import convert_document
    from agentruns.pipeline import Stream, run

    tally = run(
        Stream(partial(convert_document, to="agentrun"), raws, jobs=4),
        accepted=lambda raw, outcome: out.write(outcome.output),
    )

Each step runs inside an error boundary (one item never costs another: whatever goes wrong
is that item's rejection), in worker processes when there are many items, and the outcomes
come back in input order. ``Tally`` always adds up: records = accepted + rejected.
"""

from agentruns.pipeline._import import ImportStep
from agentruns.pipeline._outcome import Outcome, Problem, Tally
from agentruns.pipeline._outputs import Committable, Outputs
from agentruns.pipeline._sessions import (
    Candidate,
    NotRead,
    RunItem,
    SessionStep,
    is_folder_of_sessions,
    read_session,
    runs_of,
    session_items,
    session_size,
)
from agentruns.pipeline._stream import Stream, run

__all__ = [
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
]
