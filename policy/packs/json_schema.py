"""The JSON Schema of a pack file, generated from the pack models, for editors.

`policy/packs/pack.schema.json` ships with the package; a pack file names it on its
first line (`# yaml-language-server: $schema=...`) and an editor running the YAML
language server completes keys, shows the models' docstrings and marks a misspelt
key or a wrong type as it is typed. `policy schema` prints it, and
tests/test_pack_schema_json.py fails when the shipped file no longer matches the
models (`policy schema --output policy/packs/pack.schema.json` refreshes it).

The schema says what pydantic's own validation says (`extra="forbid"` is
`additionalProperties: false`, keys are the YAML names, the aliases), plus the few
shapes a `mode="before"` validator also accepts, which pydantic cannot see. It is an
editor's aid: `policy check` stays the judge (CEL, durations, lints).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["SCHEMA_PATH", "pack_json_schema", "render_pack_json_schema"]

#: Where the generated schema ships, beside the models it is generated from.
SCHEMA_PATH = Path(__file__).with_name("pack.schema.json")

_STRING = {"type": "string", "minLength": 1}
_STRING_LIST = {"type": "array", "items": {"type": "string"}}

#: Shapes a `mode="before"` validator turns into the declared type, by model and
#: field: the declared schema is kept and these are allowed beside it.
_ALSO_ACCEPTED: dict[tuple[str, str], list[dict[str, Any]]] = {
    # `revision: 3` is read as text (RulePack._revision_text)
    ("RulePack", "revision"): [{"type": "integer"}],
    # `tools: "sk_search_*"`, one pattern (RateLimit._tools)
    ("RateLimit", "tools"): [_STRING],
}
#: Dict fields whose values may be one string or a list (`path_args: {git: cwd}`).
_ONE_OR_MANY_VALUES = (("AutonomyConfig", "path_args"), ("ContractScopeConfig", "path_args"))


def pack_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of one pack file, from `RulePack` and its parts."""
    from policy.packs.schema import RulePack

    schema = RulePack.model_json_schema(by_alias=True, mode="validation")
    definitions: dict[str, Any] = schema.setdefault("$defs", {})
    models = {"RulePack": schema, **definitions}
    for (model, field), extra in _ALSO_ACCEPTED.items():
        prop = _property(models, model, field)
        declared = {k: prop.pop(k) for k in list(prop) if k not in ("title", "default")}
        prop["anyOf"] = [declared, *extra]
    for model, field in _ONE_OR_MANY_VALUES:
        prop = _property(models, model, field)
        prop["additionalProperties"] = {"anyOf": [{"type": "string"}, _STRING_LIST]}
    _close_pattern_properties(schema)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "hookpolicy rule pack (apiVersion hookpolicy/v1, kind RulePack)",
        "description": "Generated from the pack models by `policy schema`; `policy check` "
        "validates what a schema cannot (CEL, durations, lints). docs/packs.md.",
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


def render_pack_json_schema() -> str:
    """The schema as the shipped file holds it: indented JSON, one newline at the end."""
    return json.dumps(pack_json_schema(), indent=2, ensure_ascii=False) + "\n"


def _property(models: dict[str, Any], model: str, field: str) -> dict[str, Any]:
    try:
        prop: dict[str, Any] = models[model]["properties"][field]
    except KeyError:
        # A model or field was renamed: the table above must follow it.
        raise LookupError(f"the pack models have no field {model}.{field}") from None
    return prop


def _close_pattern_properties(node: Any) -> None:
    """A dict whose keys have a pattern (`variables`) admits no other key: pydantic
    writes `patternProperties` and leaves any other key allowed."""
    if isinstance(node, dict):
        if "patternProperties" in node and "additionalProperties" not in node:
            node["additionalProperties"] = False
        for value in node.values():
            _close_pattern_properties(value)
    elif isinstance(node, list):
        for item in node:
            _close_pattern_properties(item)
