"""The skill for coding agents (`agent-zot setup --skill`): a SKILL.md for Claude Code that teaches the
shell route (`agent-zot search|summarize|explore|call`). An agent loads only its name and description up
front, and the body when a request needs it; the MCP tool list is loaded whole into every conversation.
The body is written from the tool specs and the shell's names for them (services/shell.py), so the
commands it names are the CLI's."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from agent_zot.services.catalog import SPECS
from agent_zot.services.response import estimate_tokens
from agent_zot.services.setup.client_files import write_atomic, write_backup
from agent_zot.services.shell import SHELL_VERBS, shell_flag
from agent_zot.services.spec import ToolSpec

SKILL_NAME = "agent-zot"
DESCRIPTION = (
    "Answers questions from the user's Zotero library through the agent-zot command line: finds papers on "
    "a topic or by author and year, answers a question from one paper with page citations (how many, which "
    "method, what result), reads a paper's pages, figures and tables, weighs evidence for and against a "
    "claim, follows citations, co-authors and concepts, lists collections, tags, notes and annotations, and "
    "exports BibTeX, CSL-JSON or Markdown. Use it when the user asks about their papers, their library or "
    "what a paper says, or needs citations or references for their writing."
)

# Needs and the calls that meet them, one or more per tool (the test requires one for each tool); KEY
# stands for an item key from a search answer.
EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "zot_search": (
        ("papers on a topic", 'search "transformer models for scientific text" --limit 5'),
        ("papers by author, year, tag", 'search "papers by Devlin since 2018"'),
        ("evidence for and against a claim", 'search "pretraining on scientific text helps" --mode evidence'),
    ),
    "zot_summarize": (
        (
            "a question answered from one paper",
            'summarize "how many machines did the experiments use?" --item-key KEY',
        ),
        ("a paper's overview", 'summarize "the BERT paper"'),
        ("pages of its full text", "summarize --item-key KEY --pages 3-5"),
        ("a figure or table", 'summarize --item-key KEY --figure "Table 2"'),
    ),
    "zot_explore_graph": (
        ("what cites a paper, what it cites", 'explore "papers that cite KEY"'),
        ("collaborators", 'explore "who has Vaswani written with"'),
    ),
    "zot_manage_collections": (("the collection tree", "call zot_manage_collections --arg mode=list"),),
    "zot_manage_tags": (("tags with counts", "call zot_manage_tags --arg mode=list"),),
    "zot_manage_notes": (
        ("notes and highlights on a topic", 'call zot_manage_notes "attention" --arg mode=search'),
    ),
    "zot_export": (
        ("a BibTeX file of a collection", "call zot_export --arg path=refs.bib --arg collection=Thesis"),
    ),
}


def skill_text(program: str = "agent-zot") -> str:
    """SKILL.md: front matter (name, description), then which command answers which need. ``program`` is
    how the agent's shell reaches agent-zot: its path when it is not on PATH, said once."""
    lines = ["---", f"name: {SKILL_NAME}", f"description: {json.dumps(DESCRIPTION)}", "---", ""]
    lines += ["# agent-zot: the user's Zotero library from the shell", ""]
    if program != "agent-zot":
        lines += [f"`agent-zot` is not on PATH here: run it as `{program}`.", ""]
    lines += [
        "Each command prints a compact, page-cited answer; add `--json` for structured output. Exit codes: "
        "0 answer, 1 nothing found, 2 bad argument (the message says what to fix). Start with a search, then "
        "ask one paper by the key the search gave. `agent-zot COMMAND --help` lists every option; "
        '`agent-zot route TOOL "QUERY"` shows which mode a query would run, without running it.',
        "",
    ]
    verbs = {tool: verb for verb, tool in SHELL_VERBS.items()}
    for spec in SPECS:
        verb = verbs.get(spec.name)
        head = (
            f'`agent-zot {verb} "QUERY"` ({spec.name})' if verb else f'`agent-zot call {spec.name} "QUERY"`'
        )
        lines += [f"## {head}", "", " ".join(spec.description.split()), ""]
        lines.append(f"Modes ({'`--mode`' if verb else '`--arg mode=`'}): {', '.join(spec.mode_names)}.")
        lines.append(f"{'Options' if verb else 'Arguments'}: {', '.join(_arguments(spec, bool(verb)))}.")
        lines += [""] + [f"- {need}: `agent-zot {call}`" for need, call in EXAMPLES.get(spec.name, ())] + [""]
    return "\n".join(lines)


def _arguments(spec: ToolSpec, as_options: bool) -> Iterable[str]:
    """The request fields as the shell names them: options of a verb (`--item-key`), else `--arg` names."""
    for name in spec.request.model_fields:
        if name not in ("query", "force_mode"):
            yield f"`{shell_flag(name)}`" if as_options else name


def skill_path(scope: Literal["user", "project"], *, claude_dir: Path, project: Path) -> Path:
    """Where Claude Code looks for the skill: ``claude_dir`` (~/.claude, or CLAUDE_CONFIG_DIR) for the
    user's, ``project``/.claude for one project's."""
    base = claude_dir if scope == "user" else project / ".claude"
    return base / "skills" / SKILL_NAME / "SKILL.md"


@dataclass(frozen=True, slots=True)
class SkillChange:
    path: Path
    action: Literal["add", "update", "unchanged"]
    backup: Path | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": str(self.path),
            "action": self.action,
            "backup": str(self.backup) if self.backup else None,
        }


def install_skill(path: Path, text: str, *, write: bool, now: datetime | None = None) -> SkillChange:
    """Write ``text`` to ``path`` (with ``write``; else only say what would change). A file that differs
    is backed up first: the user may have edited it."""
    before = path.read_text(encoding="utf-8") if path.is_file() else None
    if before == text:
        return SkillChange(path, "unchanged")
    action: Literal["add", "update"] = "add" if before is None else "update"
    if not write:
        return SkillChange(path, action)
    stamp = (now or datetime.now()).strftime("%Y%m%dT%H%M%S")
    backup = write_backup(path, stamp) if before is not None else None
    write_atomic(path, text)
    return SkillChange(path, action, backup)


def up_front_tokens(tool_list: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """What each route costs an agent before it is used, in estimated tokens (characters / 4, as answers
    are measured): the MCP tool list as a client receives it (``tool_list``: each tool's JSON), and the
    skill's name and description, which is all an agent loads of it until a request needs the body."""
    listed = json.dumps(list(tool_list), ensure_ascii=False, separators=(",", ":"))
    return {
        "mcp_tool_list": estimate_tokens(listed),
        "skill_description": estimate_tokens(f"name: {SKILL_NAME}\ndescription: {DESCRIPTION}"),
        "skill_body": estimate_tokens(skill_text()),
    }
