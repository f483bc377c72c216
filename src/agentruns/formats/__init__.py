"""One module per format: a reader and a writer around the canonical run (the pandoc pattern).

A format's module is imported when its name is first read here (``agentruns.formats.ATIF``,
``BUILT_IN``): the registry reads ``BUILT_IN`` on first use, so that importing the format base
(``agentruns.formats._base``) loads no format's models."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from agentruns.formats._base import Format
    from agentruns.formats.agentrun import AGENTRUN, AgentRunFormat
    from agentruns.formats.atif import ATIF, AtifFormat
    from agentruns.formats.cortex import CORTEX, CortexFormat
    from agentruns.formats.portable import PORTABLE, PortableFormat

    BUILT_IN: tuple[Format[Any], ...]
    """The formats agentruns ships, by name (plugins register more)."""

__all__ = [
    "AGENTRUN",
    "ATIF",
    "BUILT_IN",
    "CORTEX",
    "PORTABLE",
    "AgentRunFormat",
    "AtifFormat",
    "CortexFormat",
    "PortableFormat",
]

_HOMES = {
    "AGENTRUN": "agentrun",
    "AgentRunFormat": "agentrun",
    "ATIF": "atif",
    "AtifFormat": "atif",
    "CORTEX": "cortex",
    "CortexFormat": "cortex",
    "PORTABLE": "portable",
    "PortableFormat": "portable",
}


def __getattr__(name: str) -> object:
    if name == "BUILT_IN":
        value: object = tuple(
            __getattr__(one) for one in ("AGENTRUN", "ATIF", "CORTEX", "PORTABLE")
        )
    elif name in _HOMES:
        value = getattr(import_module(f"{__name__}.{_HOMES[name]}"), name)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
