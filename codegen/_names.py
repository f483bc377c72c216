"""Names for generated classes, from schema names and file names."""

from __future__ import annotations

import re

_WORD = re.compile(r"[^\W_]+")  # letters and digits; anything else separates words


def pascal(name: str) -> str:
    """``run-record.schema`` -> ``RunRecordSchema``; ``tool_call`` -> ``ToolCall``."""
    return "".join(word[:1].upper() + word[1:] for word in _WORD.findall(name))


def is_class_name(name: str) -> bool:
    """Whether the generator takes ``name`` as a root class name: the generator's own test
    (an identifier of the Python the models are made for, not a keyword), so the build step
    refuses with its own words what the generator would refuse with a warning."""
    from datamodel_code_generator import PythonVersion
    from datamodel_code_generator.reference import ModelResolver

    return ModelResolver.validate_name(name, PythonVersion.PY_311)


def class_name_from(name: str) -> str:
    """A class name made of ``name`` (a file's or a schema's): its words joined, and
    ``Model`` before it when they do not make a class name by themselves (a name that starts
    with a digit, ``2020-12.json``, or spells a keyword, ``none.json``); ``Model`` when it
    has no word."""
    # (``\w`` is wider than a name: ``²`` is a digit to it, and no part of a name)
    joined = "".join(char for char in pascal(name) if f"_{char}".isidentifier())
    if not joined:
        return "Model"
    for made in (joined, f"Model{joined}"):
        if is_class_name(made):
            return made
    return "Model"
