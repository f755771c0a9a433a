"""Settings precedence and validation; finding the Zotero library and its preferences."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agent_zot.config import Settings, load_settings
from agent_zot.errors import ConfigError, LibraryNotFoundError
from agent_zot.services.context import AppContext
from agent_zot.zotero.discovery import discover_library, read_zotero_prefs
from tests.factories import FullLibrary


def test_every_setting_has_a_description() -> None:
    for name, field in Settings.model_fields.items():
        assert field.description and len(field.description) > 15, name


def test_precedence_defaults_file_env_overrides(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path / "config.toml"
    config.write_text('include_trash = true\nexport_dir = "/from/file"\nhttp_port = 9000\n')
    settings = load_settings(config)
    assert settings.include_trash and settings.export_dir == Path("/from/file") and settings.http_port == 9000
    monkeypatch.setenv("AGENT_ZOT_EXPORT_DIR", "/from/env")
    assert load_settings(config).export_dir == Path("/from/env")
    assert load_settings(config, export_dir=Path("/from/flag")).export_dir == Path("/from/flag")
    assert load_settings(config, include_trash=False).include_trash is False


def test_default_config_location_is_used_when_present(tmp_path: Path) -> None:
    from agent_zot.config import default_config_path

    path = default_config_path()
    assert str(path).startswith(str(tmp_path))  # isolated HOME/XDG in tests
    path.parent.mkdir(parents=True)
    path.write_text("allow_absolute_export_paths = true\n")
    assert load_settings().allow_absolute_export_paths


def test_bad_config_gives_actionable_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ConfigError, match="does not exist"):
        load_settings(tmp_path / "nope.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("include_trash = \n")
    with pytest.raises(ConfigError, match="Cannot read config file"):
        load_settings(broken)
    typo = tmp_path / "typo.toml"
    typo.write_text("zotero_dir = '/x'\n")
    with pytest.raises(ConfigError, match=r"Unknown setting.*zotero_dir") as err:
        load_settings(typo)
    assert "zotero_data_dir" in str(err.value)  # lists the valid names
    monkeypatch.setenv("AGENT_ZOT_HTTP_PORT", "eighty")
    with pytest.raises(ConfigError, match="AGENT_ZOT_HTTP_PORT"):
        load_settings()


def test_secrets_are_masked(tmp_path: Path) -> None:
    settings = load_settings(None, zotero_api_key="s3cr3t-key")
    assert "s3cr3t" not in settings.to_toml() and "s3cr3t" not in str(settings.masked())
    assert settings.zotero_api_key.get_secret_value() == "s3cr3t-key"


def test_discovery_explicit_path_dir_or_file(full_lib: FullLibrary) -> None:
    assert discover_library(full_lib.data_dir).db_path == full_lib.db_path
    assert discover_library(full_lib.db_path).db_path == full_lib.db_path
    with pytest.raises(LibraryNotFoundError, match="No Zotero database at"):
        discover_library(full_lib.data_dir / "nowhere")


def test_discovery_finds_default_dir_then_reports_where_it_looked(
    full_lib: FullLibrary, tmp_path: Path
) -> None:
    home = tmp_path / "fakehome"
    home.mkdir()
    with pytest.raises(LibraryNotFoundError) as err:
        discover_library(home=home)
    assert str(home / "Zotero") in str(err.value) and "--library" in str(err.value)
    shutil.copytree(full_lib.data_dir, home / "Zotero")
    found = discover_library(home=home)
    assert found.db_path == home / "Zotero" / "zotero.sqlite" and found.how == "default data directory"


def test_prefs_js_custom_data_dir_and_base_attachment_path(full_lib: FullLibrary, tmp_path: Path) -> None:
    home = tmp_path / "fakehome"
    profile = home / ".zotero" / "zotero" / "abcd1234.default"
    profile.mkdir(parents=True)
    (profile / "prefs.js").write_text(
        "// Mozilla User Preferences\n"
        f'user_pref("extensions.zotero.dataDir", "{full_lib.data_dir}");\n'
        'user_pref("extensions.zotero.useDataDir", true);\n'
        f'user_pref("extensions.zotero.baseAttachmentPath", "{full_lib.linked_base}");\n'
    )
    prefs = read_zotero_prefs(home)
    assert prefs.data_dir == full_lib.data_dir and prefs.base_attachment_path == full_lib.linked_base
    found = discover_library(home=home)
    assert found.db_path == full_lib.db_path and "custom data directory" in found.how
    # The context picks up the base directory, so relative linked files resolve without configuration.
    ctx = AppContext(Settings(data_dir=tmp_path / "state"), home=home)
    rel = next(a for a in ctx.library().attachments if a.key == full_lib.keys["book_linked_rel"])
    assert rel.exists


def test_demo_library_when_nothing_is_found(tmp_path: Path) -> None:
    ctx = AppContext(Settings(data_dir=tmp_path / "state"), home=tmp_path / "empty")
    assert ctx.source().is_demo
    library = ctx.library()
    assert len(library.items) >= 5 and library.collections and library.annotations
    again = AppContext(Settings(data_dir=tmp_path / "state"), home=tmp_path / "empty")
    assert again.source().db_path == ctx.source().db_path  # built once, reused
    with pytest.raises(LibraryNotFoundError):
        AppContext(
            Settings(data_dir=tmp_path / "s2", demo_when_missing=False), home=tmp_path / "empty"
        ).source()


def test_context_reloads_only_when_the_database_changes(full_lib: FullLibrary, tmp_path: Path) -> None:
    folder = tmp_path / "Zotero"
    shutil.copytree(full_lib.data_dir, folder)
    ctx = AppContext(Settings(zotero_data_dir=folder, data_dir=tmp_path / "state"), home=tmp_path)
    first = ctx.library()
    assert ctx.library() is first
    import sqlite3

    conn = sqlite3.connect(folder / "zotero.sqlite")  # Zotero edits a title
    conn.execute("UPDATE itemDataValues SET value = 'Renamed' WHERE value = 'Undated memo'")
    conn.commit()
    conn.close()
    second = ctx.library()
    assert second is not first and "Renamed" in {i.title for i in second.items.values()}


def test_a_missing_config_file_says_what_named_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file may come from --config or from AGENT_ZOT_CONFIG (a client's configuration sets the
    variable): the fix named is the one that applies."""
    from click.testing import CliRunner

    from agent_zot.cli.main import cli

    missing = tmp_path / "gone.toml"
    by_option = CliRunner().invoke(cli, ["--config", str(missing), "status"])
    assert by_option.exit_code == 2 and "drop --config" in by_option.output
    monkeypatch.setenv("AGENT_ZOT_CONFIG", str(missing))
    by_variable = CliRunner().invoke(cli, ["status"])
    assert by_variable.exit_code == 2
    assert (
        "named by AGENT_ZOT_CONFIG" in by_variable.output and "unset AGENT_ZOT_CONFIG" in by_variable.output
    )
    assert "drop --config" not in by_variable.output
