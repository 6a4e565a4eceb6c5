# `sarp` command line entry point: builds the command group, runs it, maps outcomes to
# exit codes in one place.
#
# Exit codes (SPEC §11): 0 ok; 1 the input has errors (or findings at or above
# --fail-on); 2 usage error (bad option, unreadable file, a file or stdout that refuses
# a write); 3 internal error; 130 interrupted. No traceback reaches the user except for
# an internal error, where the last line says it is a sarp bug.
from __future__ import annotations

import sys
from collections.abc import Sequence

import click

from sarp import __version__
from sarp.cli import (
    aggregate_cmd,
    convert,
    hook,
    lint,
    manifest_cmd,
    parse_cmd,
    prompt_cmd,
    stack_cmd,
)
from sarp.cli.common import UsageFailure
from sarp.cli.output import echo_text, guarded_stdout

__all__ = ["main", "run"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="sarp")
def cli() -> None:
    """sarp: parse, check and convert what LLM subagents report back."""


cli.add_command(parse_cmd.command)
cli.add_command(lint.command)
cli.add_command(convert.command)
cli.add_command(prompt_cmd.prompt_command)
cli.add_command(prompt_cmd.schema_command)
cli.add_command(prompt_cmd.reask_command)
cli.add_command(hook.hook)
cli.add_command(manifest_cmd.group)
cli.add_command(stack_cmd.command)
cli.add_command(aggregate_cmd.command)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI with `argv` (default: sys.argv[1:]) and return the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        with guarded_stdout():  # a refused write to stdout is an OutputFailure, not a bug
            code = cli.main(args=args, prog_name="sarp", standalone_mode=False)
    except click.UsageError as exc:
        if args[:1] == ["hook"]:
            # an agent runtime reads exit 2 from a hook as "block": a typo in the hook's
            # settings must not send every subagent back, so warn and let it stop
            click.echo(f"sarp hook: {_letting_it_stop(exc.format_message())}", err=True)
            return 0
        exc.show()
        return 2
    except UsageFailure as exc:  # and OutputFailure: stdout refused a write
        echo_text(f"sarp: error: {exc}", err=True)  # it may name a file of the run
        return 2
    except click.Abort:
        click.echo("sarp: interrupted", err=True)
        return 130
    except KeyboardInterrupt:
        click.echo("sarp: interrupted", err=True)
        return 130
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except SystemExit as exc:  # click exits with a command's return code
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
    except BrokenPipeError:
        return 0
    except Exception as exc:
        import traceback

        traceback.print_exc()
        echo_text(f"sarp: internal error: {type(exc).__name__}: {exc} (this is a sarp bug)",
                  err=True)
        return 3
    return code if isinstance(code, int) else 0


def _letting_it_stop(message: str) -> str:
    """click's message, then what the hook does about it. click writes whole sentences
    ("No such option '--wat'.", "... Did you mean '--dialect'?", or the group's help),
    so the hook's part is a sentence of its own rather than a clause glued to theirs."""
    message = message.rstrip()
    separator = "\n" if "\n" in message else " "  # after a help text: on a line of its own
    return f"{message}{separator}Letting the subagent stop."


def run() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
