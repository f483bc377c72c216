"""Conformance of the build step against suites nobody here wrote."""
