"""``python -m tests.fidelity [--profile ci|long]``: print the fidelity report per schema."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

from tests.fidelity.baseline import baseline_subjects
from tests.fidelity.oracles import format_checking_is_real, subjects
from tests.fidelity.runner import format_report, run
from tests.fidelity.spec_cases import spec_report

PROFILES = {
    # (instances per schema, mutations per instance)
    "ci": (40, 25),
    "long": (2000, 12),
}


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fidelity")
    parser.add_argument("--profile", choices=sorted(PROFILES), default="ci")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--only", choices=sorted(subjects()), action="append")
    parser.add_argument(
        "--baseline",
        action="store_true",
        help="judge models from plain datamodel-codegen (default options) instead",
    )
    parser.add_argument(
        "--mode",
        choices=["json", "python"],
        action="append",
        help="validation path: the JSON text, or the parsed value (default: both)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="fidelity-") as scratch:
        return _report(args, Path(scratch))


def _report(args: argparse.Namespace, scratch: Path) -> int:
    if not format_checking_is_real():
        print(
            "format checking is off: install jsonschema[format] (rfc3339-validator)",
            file=sys.stderr,
        )
        return 2
    instances, per_instance = PROFILES[args.profile]
    failed = False
    chosen = subjects()
    if args.baseline:
        chosen = baseline_subjects(scratch)
    for name, subject in chosen.items():
        if args.only and name not in args.only:
            continue
        for mode in args.mode or ["json", "python"]:
            started = time.perf_counter()
            report = run(
                subject,
                instances=instances,
                mutations_per_instance=per_instance,
                seed=args.seed,
                mode=mode,
            )
            print(format_report(report))
            print(f"  ({time.perf_counter() - started:.1f} s)")
            failed = failed or report.total_disagreements > 0
    lines, failures = spec_report(scratch)
    print("\n".join(lines))
    failed = failed or failures > 0
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
