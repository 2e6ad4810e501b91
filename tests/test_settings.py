"""Settings: defaults < YAML file < POLICY_* environment < arguments; bad values stop the start."""

from __future__ import annotations

from pathlib import Path

import pytest

from policy import Engine
from policy.errors import SettingsError
from policy.settings import Settings, load_settings


def test_defaults_are_picoclaws(tmp_path: Path) -> None:
    settings = Settings()
    assert (
        settings.observer_timeout_ms,
        settings.interceptor_timeout_ms,
        settings.approval_timeout_ms,
    ) == (500, 5000, 60000)
    assert settings.failure_policy == "fail"
    assert settings.cel_engine == "native"
    assert settings.limits_storage_uri is None  # shared SQLite under data_dir
    assert settings.state_store_uri == f"sqlite:///{tmp_path / 'xdg' / 'hookpolicy' / 'state.db'}"
    assert settings.audit_capture_args is False
    assert settings.data_dir == tmp_path / "xdg" / "hookpolicy"
    assert (
        settings.approvals_store_uri
        == f"sqlite:///{tmp_path / 'xdg' / 'hookpolicy' / 'approvals.db'}"
    )


def test_environment_overrides_the_file_and_arguments_override_both(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text(
        "interceptor_timeout_ms: 1000\nobserver_timeout_ms: 100\napproval_timeout_ms: 7\n"
    )
    monkeypatch.setenv("POLICY_OBSERVER_TIMEOUT_MS", "200")
    settings = load_settings(config, approval_timeout_ms=9)
    assert settings.interceptor_timeout_ms == 1000
    assert settings.observer_timeout_ms == 200
    assert settings.approval_timeout_ms == 9


def test_the_config_file_may_come_from_policy_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("cel_engine: cel-python\naliases: {run_in_terminal: bash}\n")
    monkeypatch.setenv("POLICY_CONFIG", str(config))
    settings = Settings()
    assert settings.cel_engine == "cel-python"
    assert settings.aliases == {"run_in_terminal": "bash"}


def test_nested_env_uses_double_underscores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICY_ALIASES__RUN_IN_TERMINAL", "bash")
    assert Settings().aliases == {"run_in_terminal": "bash"}


@pytest.mark.parametrize(
    ("value", "expected"),
    [("rules/", ["rules"]), ("a.yaml,b/", ["a.yaml", "b"]), ('["x y.yaml"]', ["x y.yaml"])],
)
def test_pack_paths_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: list[str]
) -> None:
    monkeypatch.setenv("POLICY_PACKS", value)
    assert Settings().packs == [Path(p) for p in expected]


def test_an_invalid_env_value_names_the_field_and_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("POLICY_INTERCEPTOR_TIMEOUT_MS", "-5")
    with pytest.raises(SettingsError) as error:
        Settings()
    assert (
        "interceptor_timeout_ms (from environment POLICY_INTERCEPTOR_TIMEOUT_MS): "
        "Input should be greater than 0"
    ) in str(error.value)


def test_an_unknown_policy_variable_is_an_error_with_a_suggestion(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("POLICY_PAKCS", "rules/")
    with pytest.raises(SettingsError, match=r"POLICY_PAKCS \(did you mean POLICY_PACKS\?\)"):
        Settings()


def test_an_invalid_file_value_names_file_line_and_column(tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("audit_capture_args: false\nfailure_policy: maybe\n")
    with pytest.raises(SettingsError) as error:
        load_settings(config)
    assert f"{config}:2:17: failure_policy: Input should be 'fail' or 'ignore'" in str(error.value)


def test_an_unknown_key_in_the_file_is_an_error_at_its_position(tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("observer_timeout_ms: 100\n\ninterceptor_timout_ms: 100\n")
    with pytest.raises(SettingsError) as error:
        load_settings(config)
    assert f"{config}:3:1: interceptor_timout_ms: Extra inputs are not permitted" in str(
        error.value
    )


def test_duplicate_keys_in_the_file_are_an_error(tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("failure_policy: fail\nfailure_policy: ignore\n")
    with pytest.raises(SettingsError) as error:
        load_settings(config)
    assert str(error.value) == (
        f"{config}:2:1: duplicate key 'failure_policy' (first at line 1, column 1)"
    )


def test_yaml_syntax_errors_have_positions(tmp_path: Path) -> None:
    config = tmp_path / "policy.yaml"
    config.write_text("packs: [a, b\n")
    with pytest.raises(SettingsError, match=rf"{config}:2:1: "):
        load_settings(config)


def test_a_missing_config_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="cannot read settings file"):
        load_settings(tmp_path / "nope.yaml")


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("limits_storage_uri", "postgres://x", "scheme must be one of"),
        ("approvals_store", "sqlite://relative.db", "sqlite stores are written sqlite:///PATH"),
        ("approvals_store", "ftp://x", "scheme must be one of"),
        ("cel_engine", "v8", "Input should be 'native', 'cel-expr-python' or 'cel-python'"),
        ("hook_workers", 0, "greater than or equal to 1"),
        ("audit_stream", "file", "Input should be 'stdout' or 'stderr'"),
    ],
)
def test_invalid_values_fail_with_the_field_name(field: str, value: object, message: str) -> None:
    with pytest.raises(SettingsError) as error:
        Settings(**{field: value})
    assert f"{field} (from arguments): " in str(error.value)
    assert message in str(error.value)


def test_settings_are_immutable() -> None:
    settings = Settings()
    with pytest.raises(Exception, match="frozen"):
        settings.failure_policy = "ignore"  # type: ignore[misc]


def test_conflicting_aliases_stop_the_engine(tmp_path: Path) -> None:
    with pytest.raises(SettingsError, match="'shell' already means 'bash'"):
        Engine(Settings(audit_path=tmp_path / "log", aliases={"shell": "read_file"}))
