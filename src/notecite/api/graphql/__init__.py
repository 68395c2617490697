"""GraphQL at ``/graphql`` (Strawberry): chat sessions with their RAG settings, and chat.

Thin resolvers over the same services as the REST routes, for the request's tenant.
"""

from notecite.api.graphql.schema import graphql_router, schema

__all__ = ["graphql_router", "schema"]
