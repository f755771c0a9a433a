"""The shell route to the seven tools: `agent-zot search|summarize|explore QUERY` and `agent-zot call TOOL`,
for assistants that work in a terminal. Each command's options are generated from its tool's spec
(services/catalog.py), and each call goes through the same service entry as the MCP tool
(services/tools.call), so the two routes give the same routing and the same answers."""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NoReturn

import click
from pydantic.fields import FieldInfo

from agent_zot.cli.common import State, _emit, json_option, tool_arguments
from agent_zot.errors import AgentZotError, AmbiguousNameError, NotFoundError
from agent_zot.services.catalog import BY_NAME
from agent_zot.services.shell import SHELL_VERBS, shell_flag
from agent_zot.services.spec import ToolSpec, described

if TYPE_CHECKING:
    from agent_zot.services.response import ToolResponse

# Exit codes: what a script (or a shell agent) needs to tell apart.
EXIT_OK, EXIT_NOTHING, EXIT_BAD_ARGUMENT = 0, 1, 2
_EXIT_NOTE = "Exits 0 with an answer, 1 when nothing was found, 2 on a bad argument."

_ARG_HELP = (
    "Any tool argument, as the assistant passes it (JSON or text; repeatable): "
    "--arg limit=5 --arg 'tags=[\"nlp\"]'. Beats the option of the same name."
)


def _plain(annotation: Any) -> tuple[Any, ...]:
    """The types a field takes, None left out (``str | list[str] | None`` → (str, list[str]))."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        return tuple(a for a in typing.get_args(annotation) if a is not type(None))
    return (annotation,)


def _option(name: str, info: FieldInfo) -> click.Option | None:
    """The option of one request field, or None for one only `--arg` can carry (a list of objects)."""
    kinds = _plain(info.annotation)
    flag = shell_flag(name)
    text = described(info)
    if typing.get_origin(kinds[0]) is Literal:
        choices = [str(v) for v in typing.get_args(kinds[0])]
        return click.Option([flag, name], type=click.Choice(choices), default=None, help=text)
    if kinds == (bool,):
        return click.Option([f"{flag}/--no-{flag[2:]}", name], default=None, help=text)
    if kinds in ((int,), (str,)):
        return click.Option([flag, name], type=kinds[0], default=None, help=text)
    items = [typing.get_args(k)[0] for k in kinds if typing.get_origin(k) is list]
    if items and items[0] is str:  # list[str], or str | list[str]: one value per use
        return click.Option([flag, name], multiple=True, help=f"{text} Repeatable.")
    return None


def _given(ctx: click.Context, spec: ToolSpec, values: dict[str, Any]) -> dict[str, Any]:
    """The arguments the user gave, as the MCP tool takes them: an option left at its default is not
    given (None), so the tool knows what the caller chose, as it does for an MCP call."""
    given: dict[str, Any] = {}
    for name, value in values.items():
        if ctx.get_parameter_source(name) is click.core.ParameterSource.DEFAULT or value in ((), None):
            continue
        if isinstance(value, tuple):  # a str | list[str] field takes one value as text
            takes_text = str in _plain(spec.request.model_fields[name].annotation)
            value = value[0] if takes_text and len(value) == 1 else list(value)
        given[name] = value
    return given


def _answer(state: State, spec: ToolSpec, arguments: dict[str, Any], as_json: bool) -> None:
    """Run the tool as the MCP server does and print its answer: the text, or with --json the
    structured content; exit with what went wrong."""
    from agent_zot.services.tools import call

    try:
        ctx = state.context()
        try:
            response = call(ctx, spec.name, **arguments)
        finally:
            ctx.close()
    except AgentZotError as exc:  # the exception root: a message for the user, never a traceback
        _fail(exc, as_json)
    _emit(response.data, response.text, as_json)
    if response.images and not as_json:
        count = len(response.images)
        click.echo(f"({count} image{'s' if count > 1 else ''} not shown: the MCP tool sends them.)", err=True)
    if _nothing(response):
        sys.exit(EXIT_NOTHING)


def _fail(exc: AgentZotError, as_json: bool) -> NoReturn:
    """Exit with what went wrong: 1 for a thing not found, 2 for the rest (a bad argument, as every
    command's errors). With --json, the MCP tool's structured error too."""
    if as_json:
        error: dict[str, Any] = {"type": type(exc).__name__, "message": exc.message, "hint": exc.hint}
        if isinstance(exc, AmbiguousNameError):
            error["candidates"] = exc.candidates
        _emit({"error": error}, "", True)
    click.echo(f"Error: {exc}", err=True)
    sys.exit(EXIT_NOTHING if isinstance(exc, NotFoundError) else EXIT_BAD_ARGUMENT)


def _nothing(response: ToolResponse) -> bool:
    """An error answer, or a listing that found nothing (every listing counts its rows in ``total``)."""
    return response.is_error or response.data.get("total") == 0


def _tool_command(command_name: str, spec: ToolSpec) -> click.Command:
    options = [
        o for name, info in spec.request.model_fields.items() if name != "query" if (o := _option(name, info))
    ]

    @click.pass_context
    def command(
        ctx: click.Context, query: str, arguments: tuple[str, ...], as_json: bool, **values: Any
    ) -> None:
        given = _given(ctx, spec, values) | tool_arguments(arguments)
        _answer(ctx.obj, spec, {"query": query, **given}, as_json)

    summary = " ".join(spec.description.split())
    return click.Command(
        command_name,
        callback=command,
        params=[
            click.Argument(["query"], required=False, default=""),
            *options,
            click.Option(["--arg", "arguments"], multiple=True, metavar="NAME=VALUE", help=_ARG_HELP),
            *_params_of(json_option),
        ],
        help=f"{spec.name} from the shell: {summary} Modes: {', '.join(spec.mode_names)}. {_EXIT_NOTE}",
        short_help=summary.split(":")[0] + f" ({spec.name}).",
    )


def _params_of(decorator: Callable[[Any], Any]) -> list[click.Parameter]:
    """The parameters a click option decorator adds, for a command built without decorators."""
    holder = decorator(lambda: None)
    return list(reversed(holder.__click_params__))


@click.command(name="call")
@click.argument("tool")
@click.argument("query", required=False, default="")
@click.option("--arg", "arguments", multiple=True, metavar="NAME=VALUE", help=_ARG_HELP)
@json_option
@click.pass_obj
def call_cmd(state: State, tool: str, query: str, arguments: tuple[str, ...], as_json: bool) -> None:
    """Call any of the seven tools (zot_search … zot_export, or a short name: tags, notes, export) with
    QUERY and its arguments, as an assistant calls the MCP tool: `agent-zot call zot_manage_tags --arg
    mode=list` (mode is force_mode). Exits 0 with an answer, 1 when nothing was found, 2 on a bad
    argument."""
    from agent_zot.services.tools import spec_for

    try:
        spec = spec_for(tool)
    except AgentZotError as exc:
        _fail(exc, as_json)
    _answer(state, spec, {"query": query, **tool_arguments(arguments)}, as_json)


ASK_COMMANDS: tuple[click.Command, ...] = (
    *(_tool_command(name, BY_NAME[tool]) for name, tool in SHELL_VERBS.items()),
    call_cmd,
)
