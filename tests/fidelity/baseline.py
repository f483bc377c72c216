"""The same subjects with models from plain datamodel-codegen (default options), for comparison.

Shows how many disagreements the pipeline removes. AgentRun goes through our translator (plain
datamodel-codegen cannot read JSON Structure); everything after that is stock.
"""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from dataclasses import replace
from pathlib import Path

from datamodel_code_generator import InputFileType, generate
from datamodel_code_generator.enums import DataModelType
from pydantic import BaseModel

from tests.fidelity.oracles import Subject, subjects

_ROOT_NAMES = {
    "portable": "PortableRunRecord",
    "cortex": "CortexAgentRunJournal",
    "agentrun": "AgentRun",
}


def baseline_subjects(workdir: Path) -> dict[str, Subject]:
    result: dict[str, Subject] = {}
    for name, subject in subjects().items():
        source = subject.oracles and subject.source_schema
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            code = generate(
                json.dumps(source),
                input_file_type=InputFileType.JsonSchema,
                output_model_type=DataModelType.PydanticV2BaseModel,
            )
        assert isinstance(code, str)
        path = workdir / f"baseline_{name}.py"
        path.write_text(code, encoding="utf-8")
        spec = importlib.util.spec_from_file_location(f"baseline_{name}", path)
        assert spec is not None
        assert spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[f"baseline_{name}"] = module
        spec.loader.exec_module(module)
        model = getattr(module, _ROOT_NAMES[name], None) or module.Model
        assert issubclass(model, BaseModel)
        model.model_rebuild(_types_namespace=vars(module))
        result[name] = replace(subject, model=model)
    return result
