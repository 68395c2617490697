"""No request gives a 500: every route of the OpenAPI document, sent odd values.

Each property of each JSON body is sent, one at a time, a blank or whitespace string, a NUL,
a string past any limit, a number out of range, and a value of the wrong type; each path
parameter an odd name. Whatever the answer (a 4xx that says what is wrong, or a 200 that
abstains), it is not a server error.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.anyio

ODD_VALUES: tuple[Any, ...] = (
    "",
    " \n\t ",
    "\x00",
    "x" * 20_000,
    "../../etc/passwd",
    -1,
    10**12,
    None,
    [],
    {"a": {"b": [None]}},
)
ODD_PATH_PARTS = ("..%2F..%2Fetc", "%00", "x" * 600, "%F0%9F%92%A5", "notes%2F..%2F..")
_PARAMETER = ("{name}", "{vault}", "{path}", "{session_id}")


def _schema(spec: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        schema = spec["components"]["schemas"][schema["$ref"].rsplit("/", 1)[-1]]
    return schema


def _body_schema(spec: dict[str, Any], operation: dict[str, Any]) -> dict[str, Any] | None:
    content = operation.get("requestBody", {}).get("content", {})
    if "application/json" not in content:
        return None
    return _schema(spec, content["application/json"]["schema"])


def _valid(name: str) -> Any:
    """A value the route takes for a required property."""
    return {"question": "budget?", "query": "budget", "message": "budget?"}.get(name, "notes")


def _requests(spec: dict[str, Any]) -> list[tuple[str, str, Any]]:
    out: list[tuple[str, str, Any]] = []
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            if method == "delete" and path == "/vaults/{name}":
                continue  # removing the vault is an answer, not an error
            paths = [path]
            if any(p in path for p in _PARAMETER):
                for part in ODD_PATH_PARTS:
                    odd = path
                    for parameter in _PARAMETER:
                        odd = odd.replace(parameter, part)
                    paths.append(odd)
            schema = _body_schema(spec, operation)
            bodies: list[Any] = [None]
            if schema is not None:
                required = {name: _valid(name) for name in schema.get("required", [])}
                bodies = [required, [required]]
                for name in schema.get("properties", {}):
                    bodies.extend({**required, name: value} for value in ODD_VALUES)
            out.extend((method.upper(), p, body) for p in paths for body in bodies)
    return out


async def test_no_odd_request_to_any_route_is_a_server_error(indexed: httpx.AsyncClient) -> None:
    spec = (await indexed.get("/openapi.json")).json()
    requests = _requests(spec)
    assert len(requests) > 300  # every route is reached
    failures = []
    for method, path, body in requests:
        with_body = {} if body is None else {"json": body}
        response = await indexed.request(method, path, **with_body)
        if response.status_code >= 500:
            failures.append((method, path, str(body)[:80], response.status_code))
    assert not failures
