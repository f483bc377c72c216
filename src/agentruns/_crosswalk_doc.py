"""docs/crosswalk.md's field tables, rendered from the formats' crosswalk tables.

``python -m agentruns._crosswalk_doc docs/crosswalk.md`` rewrites the part of the file between
the markers; ``tests/test_crosswalk.py`` fails when it differs from the tables, so the document
says what the code does.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from agentruns.crosswalk import Crosswalk, Row
from agentruns.formats._base import Format

BEGIN = "<!-- begin generated: python -m agentruns._crosswalk_doc docs/crosswalk.md -->"
END = "<!-- end generated -->"


def _places(fmt: Format[Any]) -> dict[tuple[str, str], str]:
    """(canonical class, canonical field) -> where the format keeps it."""
    found: dict[tuple[str, str], str] = {}
    table = fmt.crosswalk
    if table is None:
        return found
    for part, at in _parts(table, ""):
        for row in part.rows:
            where = f"{at}/{part.wire(row.field)}"
            if row.as_extra is not None:  # one key of the extras, in a field of its own
                found.setdefault((part.canonical.__name__, "extra"), f"`{where}` (that key)")
            elif row.target is not None:
                found[(part.canonical.__name__, row.target)] = f"`{where}`"
        if part.extras is not None:
            found[(part.canonical.__name__, part.extras.target)] = (
                f"extra properties of `{at or '/'}`"
            )
            for key, (name, _) in part.extras.named.items():
                found[(part.canonical.__name__, name)] = f"`{at}/{key}` (an extra property)"
    return found


def _parts(table: Crosswalk[Any, Any], at: str) -> list[tuple[Crosswalk[Any, Any], str]]:
    """Each table with the pointer of its object (``*`` for any item of a list)."""
    found = [(table, at)]
    for row in table.rows:
        if row.table is not None:
            where = f"{at}/{table.wire(row.field)}"
            found += _parts(row.table, where if row.nested else f"{where}/*")
    return found


def _otherwise(fmt: Format[Any]) -> str:
    carries = fmt.carry_place is not None or type(fmt).carry is not Format.carry
    return "carried" if carries else "lost"


def _canonical(row: Row[Any, Any], part: Crosswalk[Any, Any]) -> str:
    if row.target is None:
        return "—"
    return f"`{part.canonical.__name__}.{row.target}`"


def render() -> str:
    from agentruns.formats import BUILT_IN
    from agentruns.otlp import place_of

    formats = list(BUILT_IN)  # the document is about the formats agentruns ships
    places = {fmt.name: _places(fmt) for fmt in formats}
    lines: list[str] = []
    for fmt in formats:
        table = fmt.crosswalk
        if table is None:
            continue
        others = [other for other in formats if other is not fmt]
        lines += [
            f"### {fmt.name} (`{fmt.model.__name__}`)",
            "",
            "| "
            + " | ".join(
                [
                    f"{fmt.name}",
                    "canonical",
                    "written from the run",
                    *(o.name for o in others),
                    "otlp (export)",
                ]
            )
            + " |",
            "|" + "---|" * (4 + len(others)),
        ]
        for part, at in _parts(table, ""):
            for row in part.rows:
                if row.nested:
                    continue
                key = (part.canonical.__name__, row.target or "")
                cells = [
                    f"`{at}/{part.wire(row.field)}`",
                    _canonical(row, part) + (" (read whole, as JSON)" if row.whole else ""),
                    row.doc or "as it is",
                    *(
                        "—" if row.target is None else places[o.name].get(key, _otherwise(o))
                        for o in others
                    ),
                    "—" if row.target is None else place_of(*key),
                ]
                lines.append("| " + " | ".join(cells) + " |")
            if part.extras is not None:
                key = (part.canonical.__name__, part.extras.target)
                cells = [
                    f"extra properties of `{at or '/'}`",
                    f"`{part.canonical.__name__}.{part.extras.target}`",
                    "as they are (a key naming a declared field is left out)",
                    *(places[o.name].get(key, _otherwise(o)) for o in others),
                    place_of(*key),
                ]
                lines.append("| " + " | ".join(cells) + " |")
                for extra, (name, _) in part.extras.named.items():
                    key = (part.canonical.__name__, name)
                    cells = [
                        f"`{at}/{extra}` (an extra property)",
                        f"`{part.canonical.__name__}.{name}`",
                        "as it is (another value there is the record's own extra property)",
                        *(places[o.name].get(key, _otherwise(o)) for o in others),
                        place_of(*key),
                    ]
                    lines.append("| " + " | ".join(cells) + " |")
            for name, value in part.fixed.items():
                lines.append(
                    f"| (every `{at or '/'}`) | `{part.canonical.__name__}.{name}` = "
                    f"`{value!r}` | — |" + " — |" * (len(others) + 1)
                )
        lines.append("")
    return "\n".join(lines)


def updated(document: str) -> str:
    """The document with its generated part rendered anew."""
    head, found, rest = document.partition(BEGIN)
    if not found or END not in rest:
        raise ValueError(f"the document has no {BEGIN!r} ... {END!r} part")
    tail = rest.split(END, 1)[1]
    return f"{head}{BEGIN}\n\n{render()}\n{END}{tail}"


def main(argv: list[str]) -> int:
    for name in argv:
        path = Path(name)
        elsewhere = _other_checkout(path)
        if elsewhere is not None:
            sys.stderr.write(
                f"{name}: the tables would come from the agentruns in {elsewhere}, not this "
                "checkout's; install this one (pip install -e .) and run again\n"
            )
            return 2
        path.write_text(updated(path.read_text(encoding="utf-8")), encoding="utf-8")
    return 0


def _other_checkout(document: Path) -> Path | None:
    """The checkout the imported agentruns comes from, when the document is in another one
    (a second clone whose venv holds the first one's editable install rendered the first
    one's tables into it, silently)."""
    here = Path(__file__).resolve().parents[2]  # src/agentruns/_crosswalk_doc.py -> root
    if not (here / "pyproject.toml").is_file():
        return None  # an installed package, not a checkout: nothing to compare with
    root = next((p for p in document.resolve().parents if (p / "pyproject.toml").is_file()), None)
    return None if root is None or root == here else here


if __name__ == "__main__":
    import agentruns  # noqa: F401  (registers the formats)

    sys.exit(main(sys.argv[1:]))
