"""CLEO's protocol stack: choose a subagent's protocols and assemble its prompt.

`select(task, overrides)` explains which protocols load and why; `assemble(task, skill,
budget)` builds the prompt within a token budget, saying what it cut.
"""
from sarp.stack.assemble import DEFAULT_BUDGET, Prompt, TokenCounter, assemble, estimate_tokens
from sarp.stack.registry import Protocol, Registry, Section, StackError, load_protocol
from sarp.stack.select import Decision, Overrides, Selection, Strategy, Task, select

__all__ = ["DEFAULT_BUDGET", "Decision", "Overrides", "Prompt", "Protocol", "Registry",
           "Section", "Selection", "StackError", "Strategy", "Task", "TokenCounter",
           "assemble", "estimate_tokens", "load_protocol", "select"]
