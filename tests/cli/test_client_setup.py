"""`agent-zot setup` on fixture home folders laid out as macOS, Windows and Linux (no real client needed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from agent_zot.cli import setup_cmd
from agent_zot.cli.main import cli
from agent_zot.zotero.builder import ZoteroLibraryBuilder

ENV_LIBRARY = "AGENT_ZOT_ZOTERO_DATA_DIR"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fixture home (conftest points HOME here), with a Zotero library where Zotero puts it, and a PATH
    on which only the test's own executables are found."""
    home = tmp_path / "home"
    b = ZoteroLibraryBuilder(home / "Zotero")
    b.add_item("journalArticle", title="A paper", creators=[("Ada", "Lovelace")])
    b.build()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    monkeypatch.setenv("APPDATA", str(home / "AppData" / "Roaming"))
    monkeypatch.setattr(setup_cmd, "_system", lambda: "Linux")
    return home


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, ["setup", *args], catch_exceptions=False)


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def backups(path: Path) -> list[Path]:
    return sorted(path.parent.glob(f"{path.name}.agent-zot-backup-*"))


LAYOUTS = {
    "Darwin": {
        "claude-desktop": "Library/Application Support/Claude/claude_desktop_config.json",
        "vscode": "Library/Application Support/Code/User/mcp.json",
    },
    "Windows": {
        "claude-desktop": "AppData/Roaming/Claude/claude_desktop_config.json",
        "vscode": "AppData/Roaming/Code/User/mcp.json",
    },
    "Linux": {
        "claude-desktop": ".config/Claude/claude_desktop_config.json",
        "vscode": ".config/Code/User/mcp.json",
    },
}


@pytest.mark.parametrize("system", sorted(LAYOUTS))
def test_each_os_layout_gets_each_clients_file_shape(
    home: Path, system: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = {key: home / rel for key, rel in LAYOUTS[system].items()}
    paths |= {"cursor": home / ".cursor" / "mcp.json", "claude-code": home / ".claude.json"}
    for key in ("claude-desktop", "vscode", "cursor"):
        paths[key].parent.mkdir(parents=True)  # the app is installed
    (home / ".claude").mkdir()
    monkeypatch.setattr(setup_cmd, "_system", lambda: system)
    result = run()
    assert result.exit_code == 0, result.output
    library = str((home / "Zotero").resolve())
    for key, path in paths.items():
        servers = load(path)["servers" if key == "vscode" else "mcpServers"]
        entry = servers["agent-zot"]
        assert entry["env"] == {ENV_LIBRARY: library}
        assert ("type" in entry) == (key in ("vscode", "claude-code")) and entry.get(
            "type", "stdio"
        ) == "stdio"
        command = Path(entry["command"])
        assert command.is_absolute() and command.is_file() and os.access(command, os.X_OK)
        if system == "Windows":  # no agent-zot.exe beside this interpreter: the module fallback
            assert entry["command"] == sys.executable and entry["args"] == ["-m", "agent_zot", "serve"]
        else:
            assert command == Path(sys.executable).absolute().parent / "agent-zot" and entry["args"] == [
                "serve"
            ]
    assert f"Claude Desktop: added agent-zot to {paths['claude-desktop']}." in result.output
    assert f"Library: {library} (default data directory)" in result.output
    assert result.output.rstrip().endswith("Restart the client to load agent-zot.")
    assert not list(home.rglob("*.agent-zot-backup-*"))  # new files: nothing to back up


def test_only_installed_clients_are_configured_and_none_found_says_where_it_looked(home: Path) -> None:
    nothing = run()
    assert nothing.exit_code == 2
    for place in (
        ".config/Claude",
        ".claude",
        ".cursor",
        ".config/Code/User",
        "`claude` on PATH",
        "--client",
    ):
        assert place in nothing.output
    (home / ".cursor").mkdir()
    assert run().exit_code == 0
    assert (home / ".cursor" / "mcp.json").is_file() and not (home / ".config").exists()
    forced = run("--client", "vscode", "--client", "claude-desktop")  # created even though not installed
    assert forced.exit_code == 0 and "Cursor" not in forced.output
    assert "agent-zot" in load(home / ".config" / "Code" / "User" / "mcp.json")["servers"]
    assert "agent-zot" in load(home / ".config" / "Claude" / "claude_desktop_config.json")["mcpServers"]


ORIGINAL = """{
    "globalShortcut": "Ctrl+Space",
    "mcpServers": {
        "other": {"command": "npx", "args": ["-y", "other-server"], "env": {"TOKEN": "s3cr\\u00e9t"}},
        "agent-zot": {"command": "/old/agent-zot", "args": ["serve"], "env": {"OLLAMA_HOST": "x"}, "disabled": false}
    },
    "preferences": {"zeta": 1, "alpha": [1.5, null, true]}
}
"""


def test_update_is_idempotent_backs_up_and_keeps_everything_else(home: Path) -> None:
    path = home / ".config" / "Claude" / "claude_desktop_config.json"
    path.parent.mkdir(parents=True)
    path.write_text(ORIGINAL, encoding="utf-8")
    first = run()
    assert first.exit_code == 0, first.output
    (backup,) = backups(path)
    assert backup.read_bytes() == ORIGINAL.encode() and f"(backup: {backup})" in first.output
    before, after = json.loads(ORIGINAL), load(path)
    assert list(after) == list(before) and after["preferences"] == before["preferences"]
    assert list(after["mcpServers"]) == ["other", "agent-zot"]
    assert after["mcpServers"]["other"] == before["mcpServers"]["other"]
    entry = after["mcpServers"]["agent-zot"]
    assert entry["command"] != "/old/agent-zot" and entry["disabled"] is False  # the user's key stays
    assert entry["env"] == {"OLLAMA_HOST": "x", ENV_LIBRARY: str((home / "Zotero").resolve())}
    assert "updated agent-zot in" in first.output
    assert path.read_text(encoding="utf-8").startswith('{\n    "globalShortcut"')  # its 4-space indent
    written = path.read_bytes()
    second = run()
    assert second.exit_code == 0 and "already set up" in second.output and "Restart" not in second.output
    assert path.read_bytes() == written and backups(path) == [backup]


def test_dry_run_prints_a_diff_and_writes_nothing(home: Path) -> None:
    path = home / ".cursor" / "mcp.json"
    path.parent.mkdir()
    path.write_text('{"mcpServers": {}}', encoding="utf-8")
    result = run("--dry-run")
    assert result.exit_code == 0
    assert f"--- {path}" in result.output and '+    "agent-zot": {' in result.output
    assert "would add agent-zot" in result.output and "Dry run: nothing was written." in result.output
    assert path.read_text(encoding="utf-8") == '{"mcpServers": {}}' and not backups(path)
    data = json.loads(run("--dry-run", "--json").output)
    assert data["changes"][0]["action"] == "add" and data["library"] == str((home / "Zotero").resolve())
    assert path.read_text(encoding="utf-8") == '{"mcpServers": {}}' and not backups(path)


def test_remove_takes_out_only_our_entry(home: Path) -> None:
    path = home / ".config" / "Code" / "User" / "mcp.json"
    path.parent.mkdir(parents=True)
    path.write_text('{"inputs": [], "servers": {"other": {"type": "stdio", "command": "x"}}}\n', "utf-8")
    assert run().exit_code == 0
    added = path.read_bytes()
    removed = run("--remove")
    assert removed.exit_code == 0 and f"removed agent-zot from {path}" in removed.output
    assert load(path) == {"inputs": [], "servers": {"other": {"type": "stdio", "command": "x"}}}
    assert backups(path)[-1].read_bytes() == added
    again = run("--remove")
    assert again.exit_code == 0 and "nothing to remove" in again.output


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{\n  "mcpServers": {\n    "a": {"command": "x",}\n  }\n}\n', "line 3, column"),
        ("[1, 2]", "not a JSON object"),
        ('{"mcpServers": ["a"]}', '"mcpServers" in'),
        ('{"mcpServers": {}, "mcpServers": {"a": {}}}', 'the key "mcpServers" twice'),
    ],
)
def test_a_bad_file_is_left_untouched_and_the_others_go_on(home: Path, text: str, expected: str) -> None:
    bad = home / ".config" / "Claude" / "claude_desktop_config.json"
    bad.parent.mkdir(parents=True)
    bad.write_text(text, encoding="utf-8")
    (home / ".cursor").mkdir()
    result = run()
    assert result.exit_code == 1
    assert bad.read_text(encoding="utf-8") == text and not backups(bad)
    assert "Claude Desktop: error: " in result.stderr and str(bad) in result.stderr
    assert expected in result.stderr
    assert "agent-zot" in load(home / ".cursor" / "mcp.json")["mcpServers"]


def test_vscode_comments_are_refused_not_dropped(home: Path) -> None:
    path = home / ".config" / "Code" / "User" / "mcp.json"
    path.parent.mkdir(parents=True)
    text = '{\n  // my servers\n  "servers": {}\n}\n'
    path.write_text(text, encoding="utf-8")
    result = run()
    assert result.exit_code == 1 and "line 2, column 3" in result.stderr and "comments" in result.stderr
    assert path.read_text(encoding="utf-8") == text


def test_an_unwritable_folder_is_a_clear_error_and_changes_nothing(home: Path) -> None:
    folder = home / ".cursor"
    if os.geteuid() == 0:  # root writes anywhere: block the folder with a file instead
        folder.write_text("not a folder", encoding="utf-8")
        expected = f"Cannot create the folder {folder}: a file of that name is in the way"
    else:
        folder.mkdir()
        (folder / "mcp.json").write_text("{}", encoding="utf-8")
        folder.chmod(0o500)
        expected = f"Cannot write to {folder}: Permission denied"
    try:
        result = run("--client", "cursor")
    finally:
        if folder.is_dir():
            folder.chmod(0o700)
    assert result.exit_code == 1 and expected in result.stderr
    if folder.is_dir():
        assert sorted(p.name for p in folder.iterdir()) == ["mcp.json"]
        assert (folder / "mcp.json").read_text(encoding="utf-8") == "{}"
    else:
        assert folder.read_text(encoding="utf-8") == "not a folder"


FAKE_CLAUDE = """#!{python}
import json, os, pathlib, sys
args = sys.argv[1:]
with open({log!r}, "a") as fh:
    fh.write(json.dumps(args) + "\\n")
if os.environ.get("FAKE_CLAUDE_FAIL"):
    sys.exit("boom: cannot write config")
path = pathlib.Path(os.environ["HOME"]) / ".claude.json"
data = json.loads(path.read_text()) if path.exists() else {{}}
servers = data.setdefault("mcpServers", {{}})
if args[:2] == ["mcp", "add"]:
    rest = args[5:]
    cut = rest.index("--")
    env = dict(v.split("=", 1) for v in rest[1:cut:2])
    servers[args[4]] = {{"type": "stdio", "command": rest[cut + 1], "args": rest[cut + 2:], "env": env}}
elif args[:2] == ["mcp", "remove"]:
    del servers[args[4]]
path.write_text(json.dumps(data, indent=2))
"""


def test_claude_code_goes_through_its_cli_when_present(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = tmp_path / "claude-argv.jsonl"
    fake = tmp_path / "bin" / "claude"
    fake.write_text(FAKE_CLAUDE.format(python=sys.executable, log=str(log)), encoding="utf-8")
    fake.chmod(0o755)
    config = home / ".claude.json"
    config.write_text('{"numStartups": 3, "projects": {}}', encoding="utf-8")

    def calls() -> list[list[str]]:
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    first = run()  # detected by the executable on PATH alone
    assert first.exit_code == 0, first.output
    library = str((home / "Zotero").resolve())
    command = str(Path(sys.executable).absolute().parent / "agent-zot")
    assert calls() == [
        [
            "mcp",
            "add",
            "--scope",
            "user",
            "agent-zot",
            "-e",
            f"{ENV_LIBRARY}={library}",
            "--",
            command,
            "serve",
        ]
    ]
    assert "Claude Code: added agent-zot to" in first.output and "claude mcp add" in first.output
    assert backups(config)[0].read_text() == '{"numStartups": 3, "projects": {}}'
    assert load(config)["numStartups"] == 3
    assert "already set up" in run().output and len(calls()) == 1  # nothing to do: the CLI is not run
    assert run("--remove").exit_code == 0 and calls()[-1] == [
        "mcp",
        "remove",
        "--scope",
        "user",
        "agent-zot",
    ]
    monkeypatch.setenv("FAKE_CLAUDE_FAIL", "1")
    failed = run()
    assert failed.exit_code == 1 and "failed (exit 1): boom: cannot write config" in failed.stderr


def test_the_written_entry_launches_the_server(home: Path, tmp_path: Path) -> None:
    (home / ".cursor").mkdir()
    config_file = tmp_path / "agent-zot.toml"
    config_file.write_text("", encoding="utf-8")
    result = CliRunner().invoke(cli, ["--config", str(config_file), "setup"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    entry = load(home / ".cursor" / "mcp.json")["mcpServers"]["agent-zot"]
    assert entry["env"] == {
        ENV_LIBRARY: str((home / "Zotero").resolve()),
        "AGENT_ZOT_CONFIG": str(config_file),
    }
    done = subprocess.run(
        [entry["command"], *entry["args"], "--help"],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **entry["env"]},
        check=False,
    )
    assert done.returncode == 0 and "Run the MCP server" in done.stdout


def test_bad_arguments_write_nothing(home: Path, tmp_path: Path) -> None:
    (home / ".cursor").mkdir()
    assert run("--name", "agent zot").exit_code == 2
    missing = CliRunner().invoke(cli, ["--library", str(tmp_path / "nowhere"), "setup"])
    assert missing.exit_code == 2 and "No Zotero database" in missing.output
    assert list((home / ".cursor").iterdir()) == []


def test_no_library_found_writes_the_entry_without_one(home: Path) -> None:
    (home / "Zotero" / "zotero.sqlite").unlink()
    (home / ".cursor").mkdir()
    result = run()
    assert result.exit_code == 0 and "Library: none found" in result.output
    assert "env" not in load(home / ".cursor" / "mcp.json")["mcpServers"]["agent-zot"]


def test_file_style_and_symlinks_are_kept(home: Path) -> None:
    """CRLF line endings, a byte-order mark and no final newline survive; a dotfiles link stays a link."""
    real = home / "dotfiles" / "cursor-mcp.json"
    real.parent.mkdir(parents=True)
    original = '\ufeff{\r\n\t"mcpServers": {\r\n\t\t"other": {\r\n\t\t\t"command": "x"\r\n\t\t}\r\n\t}\r\n}'
    real.write_bytes(original.encode("utf-8"))
    (home / ".cursor").mkdir()
    link = home / ".cursor" / "mcp.json"
    link.symlink_to(real)
    assert run().exit_code == 0
    assert link.is_symlink()
    text = real.read_bytes().decode("utf-8")
    assert text.startswith('\ufeff{\r\n\t"mcpServers": {\r\n\t\t"other": {') and not text.endswith("\n")
    assert "\n" not in text.replace("\r\n", "")
    assert backups(link)[0].read_bytes() == original.encode("utf-8")


def test_the_shells_settings_go_with_the_entry_so_the_server_uses_the_same_index(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A custom data folder set in the shell that runs setup: the client starts the server without that
    shell, so the entry carries it (and every other AGENT_ZOT_* setting set there); otherwise the
    assistant would read another, empty index. Variables that are no setting stay out."""
    (home / ".cursor").mkdir()
    data = tmp_path / "my-index"
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(data))
    monkeypatch.setenv("AGENT_ZOT_INCLUDE_TRASH", "true")
    monkeypatch.setenv("AGENT_ZOT_NOT_A_SETTING", "x")
    assert run().exit_code == 0
    env = load(home / ".cursor" / "mcp.json")["mcpServers"]["agent-zot"]["env"]
    assert env == {
        "AGENT_ZOT_DATA_DIR": str(data),
        "AGENT_ZOT_INCLUDE_TRASH": "true",
        ENV_LIBRARY: str((home / "Zotero").resolve()),
    }
    removed = run("--remove")
    assert removed.exit_code == 0
    assert "agent-zot" not in load(home / ".cursor" / "mcp.json").get("mcpServers", {})
