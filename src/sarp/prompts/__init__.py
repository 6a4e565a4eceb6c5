"""The asking side: instructions, JSON Schemas and re-asks, from the dialect specs."""
from sarp.prompts.instructions import prompt
from sarp.prompts.reask import reask
from sarp.prompts.schema import schema

__all__ = ["prompt", "reask", "schema"]
