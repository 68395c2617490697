"""How much one GraphQL request may ask for.

A single request can otherwise repeat the work of many: 3,000 aliased queries, or 200 aliased
``sendMessage`` mutations that each run a model turn. Every request is therefore held to
:data:`MAX_TOKENS` tokens, :data:`MAX_DEPTH` levels of fields (introspection aside),
:data:`MAX_ALIASES` aliases, and one ``sendMessage``: a client with more messages sends more
requests, each of which the server can pace.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from graphql import FieldNode, GraphQLError, ValidationContext, ValidationRule
from strawberry.extensions import (
    AddValidationRules,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    QueryDepthLimiter,
    SchemaExtension,
)
from strawberry.extensions.query_depth_limiter import IgnoreContext

MAX_TOKENS = 2000
MAX_DEPTH = 8
MAX_ALIASES = 20
LLM_FIELDS = frozenset({"sendMessage"})


class OneModelTurn(ValidationRule):
    """A document may name at most one field that runs a model turn (``sendMessage``).

    Fields are counted where they are written, fragments included, so no spread or alias
    can run a second turn.
    """

    def __init__(self, context: ValidationContext) -> None:
        super().__init__(context)
        self.seen = 0

    def enter_field(self, node: FieldNode, *_args: Any) -> None:
        """Count the field when it runs a model turn; report the second one."""
        if node.name.value not in LLM_FIELDS:
            return
        self.seen += 1
        if self.seen == 2:
            self.report_error(
                GraphQLError(
                    "one sendMessage per request: each runs a model turn; send the others "
                    "as requests of their own",
                    node,
                )
            )


def _introspection(context: IgnoreContext) -> bool:
    return context.field_name.startswith("__")


def limit_extensions() -> list[Callable[[], SchemaExtension]]:
    """Factories of the schema extensions that enforce the limits of this module (a fresh
    extension for each request)."""
    return [
        partial(MaxTokensLimiter, max_token_count=MAX_TOKENS),
        partial(QueryDepthLimiter, max_depth=MAX_DEPTH, should_ignore=_introspection),
        partial(MaxAliasesLimiter, max_alias_count=MAX_ALIASES),
        partial(AddValidationRules, [OneModelTurn]),
    ]
