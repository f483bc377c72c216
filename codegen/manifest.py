"""The manifest of vendored schemas: what each one is and where it came from."""

from __future__ import annotations

import json
import keyword
import re
from dataclasses import dataclass
from pathlib import Path

from codegen._json import Json, load_json
from codegen.diagnostics import DiagnosticSink

MANIFEST_NAME = "manifest.json"


@dataclass(frozen=True)
class SchemaEntry:
    name: str
    file: str
    language: str
    class_name: str
    repository: str
    upstream_path: str
    sha256: str
    commit: str = ""
    """The upstream commit the vendored file corresponds to."""
    date: str = ""
    relation: str = ""
    """``identical`` (the upstream bytes) or ``as given in the seed document``."""
    differences: str = ""
    """What differs from the upstream file at ``commit`` (``none: ...`` when identical)."""

    @property
    def is_structure(self) -> bool:
        return self.language.startswith("json-structure")


def _text(entry: dict[str, Json], key: str, where: Path) -> str:
    value = entry.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{where}: every schema entry needs a string {key!r}")
    return value


_MODULE_NAME = re.compile(r"[a-z][a-z0-9_]*")
_CLASS_NAME = re.compile(r"[A-Z][A-Za-z0-9_]*")
_FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_RESERVED = frozenset({"_json", "schemas", "py"})
_RELATIONS = frozenset({"identical", "json-equal", "as given in the seed document", "derived"})
"""How the vendored bytes relate to the upstream file at ``commit``: the same bytes; the same
JSON value (whitespace or key order differ); the seed's copy, whose differences
``differences`` says; or ``derived`` by the command ``differences`` records from a released
package (no upstream schema file exists; ``commit`` then names the release, ``atif==1.8.0``)."""
_COMMIT = re.compile(r"[0-9a-f]{7}")
"""One form for every entry: git's short hash (the full one is not known for every upstream,
and a generated module that names a 12-digit hash for one format and 7 for another changes
with whoever wrote it)."""
_RELEASE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*==[0-9][A-Za-z0-9.+!-]*")
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")


def read_manifest(schemas_dir: Path) -> list[SchemaEntry]:
    """The manifest's entries, each checked before anything is read or written with it.

    Names become module names, class names and lines of ``__init__.py``; files are read
    from ``schemas/`` and copied under ``generated/``. So a name must be an identifier (no
    newline can put code into a module) and a file a plain name inside ``schemas/`` (no
    ``../`` reads or writes elsewhere).
    """
    path = schemas_dir / MANIFEST_NAME
    document = load_json(path)
    entries = document.get("schemas") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected an object with a 'schemas' array")
    result: list[SchemaEntry] = []
    sink = DiagnosticSink(str(path))
    seen: dict[str, set[str]] = {"name": set(), "class_name": set(), "file": set()}
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: every schema entry must be an object")
        item = SchemaEntry(
            name=_text(entry, "name", path),
            file=_text(entry, "file", path),
            language=_text(entry, "language", path),
            class_name=_text(entry, "class_name", path),
            repository=_text(entry, "repository", path),
            upstream_path=_text(entry, "upstream_path", path),
            sha256=_text(entry, "sha256", path),
            commit=_text(entry, "commit", path),
            date=_text(entry, "date", path),
            relation=_text(entry, "relation", path),
            differences=_text(entry, "differences", path),
        )
        if item.relation not in _RELATIONS:
            sink.error(f"/schemas/{index}/relation", f"must be one of {sorted(_RELATIONS)}")
        if item.relation == "derived":
            if not _RELEASE.fullmatch(item.commit):
                sink.error(
                    f"/schemas/{index}/commit",
                    "a derived schema names the release it is derived from (package==version)",
                )
        elif not _COMMIT.fullmatch(item.commit):
            sink.error(
                f"/schemas/{index}/commit",
                "must be a git commit hash, in its short form (7 hex digits)",
            )
        if not (_DATE.fullmatch(item.date) or item.date == "unknown"):
            sink.error(f"/schemas/{index}/date", "must be a date, YYYY-MM-DD, or unknown")
        at = f"/schemas/{index}"
        if not _MODULE_NAME.fullmatch(item.name) or keyword.iskeyword(item.name):
            sink.error(f"{at}/name", f"{item.name!r} is not a lower-case Python identifier")
        elif item.name in _RESERVED:
            sink.error(f"{at}/name", f"{item.name!r} is reserved in the generated package")
        if not _CLASS_NAME.fullmatch(item.class_name) or keyword.iskeyword(item.class_name):
            sink.error(f"{at}/class_name", f"{item.class_name!r} is not a class name")
        if not _FILE_NAME.fullmatch(item.file) or not item.file.endswith(".json"):
            sink.error(
                f"{at}/file",
                f"{item.file!r} must be a plain .json file name inside schemas/ (no folders)",
            )
        elif (schemas_dir / item.file).is_symlink():
            sink.error(f"{at}/file", f"{item.file!r} is a symlink; vendor the file itself")
        for key in seen:
            value = getattr(item, key)
            if value in seen[key]:
                sink.error(f"{at}/{key}", f"{value!r} is used by another entry")
            seen[key].add(value)
        result.append(item)
    sink.raise_if(strict=False)
    return result


def manifest_with_hashes(schemas_dir: Path, hashes: dict[str, str]) -> tuple[list[str], str | None]:
    """The schemas whose sha256 changed, and the manifest's new text (None: unchanged)."""
    path = schemas_dir / MANIFEST_NAME
    document = json.loads(path.read_text(encoding="utf-8"))
    changed: list[str] = []
    for entry in document["schemas"]:
        new = hashes.get(entry["name"])
        if new is not None and entry["sha256"] != new:
            entry["sha256"] = new
            changed.append(entry["name"])
    if not changed:
        return [], None
    return changed, json.dumps(document, indent=2, ensure_ascii=False) + "\n"
