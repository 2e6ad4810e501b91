"""The JSON Schema of a pack file, for editors: generated from the models, shipped
with the package, named on the first line of every example pack.

No JSON Schema validator is a dependency (nor installed in the dev environment), so
the packs are checked against the schema here by a walk over the parts of JSON Schema
it uses (`type`, `properties`, `required`, `additionalProperties`,
`patternProperties`, `items`, `enum`, `const`, `anyOf`, `$ref`, `pattern`): enough to
prove the key names, the closed objects and the types agree with the packs we ship.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from policy._yaml import load_yaml
from policy.cli import main
from policy.packs.json_schema import SCHEMA_PATH, pack_json_schema, render_pack_json_schema

ROOT = Path(__file__).resolve().parent.parent
REFRESH = "policy schema --output policy/packs/pack.schema.json"
SHIPPED = sorted((ROOT / "rules").glob("*.yaml")) + sorted((ROOT / "examples").rglob("*.yaml"))
PACKS = [p for p in SHIPPED if "kind: RulePack" in p.read_text()]
EXAMPLE_PACKS = [p for p in PACKS if p.is_relative_to(ROOT / "examples")]


def test_the_shipped_schema_is_the_one_the_models_generate() -> None:
    assert SCHEMA_PATH.read_text() == render_pack_json_schema(), (
        f"policy/packs/pack.schema.json is stale: the pack models changed. Run `{REFRESH}`."
    )


def test_policy_schema_prints_it_and_writes_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["schema"]) == 0
    assert capsys.readouterr().out == render_pack_json_schema()

    target = tmp_path / "pack.schema.json"
    assert main(["schema", "--output", str(target)]) == 0
    assert json.loads(target.read_text()) == pack_json_schema()


def test_it_ships_with_the_package() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "pack.schema.json" in config["tool"]["setuptools"]["package-data"]["policy.packs"]


def test_keys_are_the_yaml_names_and_every_object_is_closed() -> None:
    schema = pack_json_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert list(schema["properties"])[:4] == ["apiVersion", "kind", "name", "revision"]
    assert schema["required"] == ["apiVersion", "kind", "name"]
    rule = schema["$defs"]["Rule"]
    assert "set" in rule["properties"] and "set_" not in rule["properties"]
    assert rule["properties"]["action"]["enum"] == [
        "allow",
        "deny",
        "ask",
        "respond",
        "modify",
        "abort_turn",
        "hard_abort",
        "log",
    ]
    # extra="forbid" on every model: a misspelt key is marked in the editor
    for name, model in [("RulePack", schema), *schema["$defs"].items()]:
        assert model["additionalProperties"] is False, name
    # `variables` names must be identifiers, and nothing else is admitted
    assert schema["properties"]["variables"]["additionalProperties"] is False
    # shapes the models accept through a `before` validator are in the schema too
    rate_tools = schema["$defs"]["RateLimit"]["properties"]["tools"]["anyOf"]
    assert {"type": "string", "minLength": 1} in rate_tools


def test_a_misspelt_key_and_a_wrong_type_do_not_validate() -> None:
    schema = pack_json_schema()
    good = {
        "apiVersion": "hookpolicy/v1",
        "kind": "RulePack",
        "name": "p",
        "rules": [{"id": "r", "action": "deny", "tools": ["bash"]}],
    }
    assert problems(good, schema) == []
    typo = {**good, "rules": [{"id": "r", "action": "deny", "tool": ["bash"]}]}
    assert problems(typo, schema) == ["$.rules[0]: unknown key 'tool'"]
    wrong = {**good, "priority": "high"}
    assert problems(wrong, schema) == ["$.priority: not integer"]


@pytest.mark.parametrize("pack", PACKS, ids=[str(p.relative_to(ROOT)) for p in PACKS])
def test_every_shipped_pack_validates_against_the_schema(pack: Path) -> None:
    data = load_yaml(pack.read_bytes(), pack).data  # as the engine reads it (`on:` a key)
    assert problems(data, pack_json_schema()) == []


@pytest.mark.parametrize(
    "pack", EXAMPLE_PACKS, ids=[str(p.relative_to(ROOT)) for p in EXAMPLE_PACKS]
)
def test_every_example_pack_names_the_schema_on_its_first_line(pack: Path) -> None:
    first = pack.read_text().splitlines()[0]
    match = re.fullmatch(r"# yaml-language-server: \$schema=(\S+)", first)
    assert match, first
    assert (pack.parent / match[1]).resolve() == SCHEMA_PATH


# ------------------------------------------- the parts of JSON Schema it uses

_TYPES: dict[str, Any] = {
    "object": dict,
    "array": list,
    "string": str,
    "boolean": bool,
    "null": type(None),
}


def problems(
    value: Any, schema: dict[str, Any], root: dict[str, Any] | None = None, where: str = "$"
) -> list[str]:
    root = root or schema
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        return problems(value, root["$defs"][name], root, where)
    if "anyOf" in schema:
        found = [problems(value, option, root, where) for option in schema["anyOf"]]
        return [] if any(not f for f in found) else min(found, key=len)
    kind = schema.get("type")
    if kind == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            return [f"{where}: not integer"]
    elif kind is not None and not isinstance(value, _TYPES[kind]):
        return [f"{where}: not {kind}"]
    if "const" in schema and value != schema["const"]:
        return [f"{where}: not {schema['const']!r}"]
    if "enum" in schema and value not in schema["enum"]:
        return [f"{where}: {value!r} not one of {schema['enum']}"]
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        return [f"{where}: {value!r} does not match {schema['pattern']}"]
    found: list[str] = []
    if isinstance(value, list) and "items" in schema:
        for index, item in enumerate(value):
            found += problems(item, schema["items"], root, f"{where}[{index}]")
    if isinstance(value, dict):
        found += [
            f"{where}: missing {key!r}" for key in schema.get("required", ()) if key not in value
        ]
        for key, item in value.items():
            path = f"{where}.{key}"
            if key in schema.get("properties", {}):
                found += problems(item, schema["properties"][key], root, path)
                continue
            patterns = [
                s for p, s in schema.get("patternProperties", {}).items() if re.search(p, key)
            ]
            extra = schema.get("additionalProperties", True)
            if patterns:
                found += problems(item, patterns[0], root, path)
            elif extra is False:
                found.append(f"{where}: unknown key {key!r}")
            elif isinstance(extra, dict):
                found += problems(item, extra, root, path)
    return found
