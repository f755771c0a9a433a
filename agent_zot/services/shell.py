"""How the shell route names the tools and their arguments: the verbs of `agent-zot search|summarize|
explore` and the option of each request field. The CLI builds its commands from these, and the skill for
coding agents (services/setup/skill.py) names the same commands, so neither can drift from the specs."""

from __future__ import annotations

# The tools a researcher asks most, by the verb the shell names them with; `agent-zot call` reaches all.
SHELL_VERBS: dict[str, str] = {
    "search": "zot_search",
    "summarize": "zot_summarize",
    "explore": "zot_explore_graph",
}


def shell_flag(field: str) -> str:
    """The option of a request field: ``item_key`` → ``--item-key``; ``force_mode`` → ``--mode``, the
    name the route gives it (`route.mode`, `agent-zot route --mode`)."""
    return "--mode" if field == "force_mode" else "--" + field.replace("_", "-")
