"""The manifest of vendored schemas: what each one is and where it came from."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from codegen._json import Json, load_json

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

    @property
    def is_structure(self) -> bool:
        return self.language.startswith("json-structure")


def _text(entry: dict[str, Json], key: str, where: Path) -> str:
    value = entry.get(key)
    if not isinstance(value, str):
        raise ValueError(f"{where}: every schema entry needs a string {key!r}")
    return value


def read_manifest(schemas_dir: Path) -> list[SchemaEntry]:
    path = schemas_dir / MANIFEST_NAME
    document = load_json(path)
    entries = document.get("schemas") if isinstance(document, dict) else None
    if not isinstance(entries, list):
        raise ValueError(f"{path}: expected an object with a 'schemas' array")
    result: list[SchemaEntry] = []
    for entry in entries:
        if not isinstance(entry, dict):
            raise ValueError(f"{path}: every schema entry must be an object")
        result.append(
            SchemaEntry(
                name=_text(entry, "name", path),
                file=_text(entry, "file", path),
                language=_text(entry, "language", path),
                class_name=_text(entry, "class_name", path),
                repository=_text(entry, "repository", path),
                upstream_path=_text(entry, "upstream_path", path),
                sha256=_text(entry, "sha256", path),
            )
        )
    return result


def update_manifest_hashes(schemas_dir: Path, hashes: dict[str, str]) -> list[str]:
    """Record new sha256 values for changed schemas; return the names that changed."""
    path = schemas_dir / MANIFEST_NAME
    document = json.loads(path.read_text(encoding="utf-8"))
    changed: list[str] = []
    for entry in document["schemas"]:
        new = hashes.get(entry["name"])
        if new is not None and entry["sha256"] != new:
            entry["sha256"] = new
            changed.append(entry["name"])
    if changed:
        path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    return changed
