"""Transformations of the generator's output, one small pass per module.

Each pass reads the module's syntax tree and edits the source only at the spans of the nodes
it changes, so docstrings, comments and string literals (enum values, patterns, property names)
are never touched by accident, and non-ASCII text cannot shift an edit (spans are UTF-8 byte
offsets, as ``ast`` reports them). Each pass has a golden test in ``tests/test_passes.py``.
"""
