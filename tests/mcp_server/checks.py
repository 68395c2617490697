"""What the MCP tests check on either transport, through the SDK's own client."""

from __future__ import annotations

from typing import Any

from mcp import Client
from mcp.types import CallToolResult, TextContent

TOOLS = {"search", "ask", "get_note", "list_vaults"}
OFF_TOPIC = "What is the boiling point of tungsten?"


def error_text(result: CallToolResult) -> str:
    """The message of a tool error (the call must have failed)."""
    assert result.is_error, result.structured_content
    (content,) = result.content
    assert isinstance(content, TextContent)
    return content.text


def structured(result: CallToolResult) -> dict[str, Any]:
    """The structured result of a call that must have succeeded."""
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def check_tools_listed(client: Client) -> None:
    """The four tools, each with a description, an input and an output schema."""
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert len(tool.description or "") > 80, tool.name
        assert tool.output_schema is not None, tool.name
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint
    assert tools["search"].input_schema["required"] == ["query"]
    assert tools["ask"].input_schema["required"] == ["question"]
    assert set(tools["ask"].input_schema["properties"]) == {
        "question",
        "vaults",
        "folders",
        "detail",
        "filters",
    }
    assert "filters" in tools["search"].input_schema["properties"]
    assert tools["get_note"].input_schema["required"] == ["vault", "path"]
    assert "abstained" in tools["ask"].output_schema["properties"]
    templates = (await client.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["notecite://{vault}/{+path}"]


async def search_paths(client: Client, query: str, **scope: Any) -> list[str]:
    """``vault/path`` of each hit of ``search``, best first."""
    result = structured(await client.call_tool("search", {"query": query, "k": 5, **scope}))
    return [f"{hit['vault']}/{hit['path']}" for hit in result["hits"]]


async def check_search(client: Client, query: str, expected: str) -> None:
    """``search`` ranks ``expected`` (``vault/path``) first, with its span and resource."""
    result = structured(await client.call_tool("search", {"query": query, "k": 3}))
    top = result["hits"][0]
    assert f"{top['vault']}/{top['path']}" == expected
    assert 1 <= top["line_start"] <= top["line_end"]
    assert top["snippet"]
    assert top["uri"] == f"notecite://{expected}"
    read = await client.read_resource(top["uri"])
    (content,) = read.contents
    assert getattr(content, "text", "").startswith("# ")


async def check_ask(client: Client) -> None:
    """A cited answer about Foam's daily notes; an abstention on an off-topic question."""
    answer = structured(
        await client.call_tool("ask", {"question": "How do I open today's daily note?"})
    )
    assert not answer["abstained"]
    assert "[N1]" in answer["answer"]
    first = answer["references"][0]
    assert first["id"] == "N1"
    assert first["vault"] == "foam"
    assert first["quote"]  # each reference carries the line that supports the answer
    assert any("Alt+D" in (ref["quote"] or "") for ref in answer["references"])
    assert any("daily" in ref["path"] for ref in answer["references"])

    off_topic = structured(await client.call_tool("ask", {"question": OFF_TOPIC}))
    assert off_topic["abstained"]
    assert off_topic["abstain_reason"] is not None
    assert off_topic["references"] == []
    assert "[N" not in off_topic["answer"]


async def check_get_note(client: Client) -> None:
    """A line span of a note; paths that leave the vault refused, by ``..`` or a symlink."""
    span = structured(
        await client.call_tool(
            "get_note",
            {"vault": "foam", "path": "user/tools/cli/daily.md", "start_line": 1, "end_line": 3},
        )
    )
    assert span["text"] == "# foam daily\n\nShow or create the daily note for a date."
    assert (span["start_line"], span["end_line"]) == (1, 3)
    assert span["total_lines"] > 3

    for path, refusal in (
        ("../outside/secret.md", "leaves its vault"),
        ("/etc/passwd", "must be relative to its vault"),
        ("leak.md", "no note 'leak.md' in this vault"),
    ):
        result = await client.call_tool("get_note", {"vault": "small", "path": path})
        message = error_text(result)
        assert refusal in message, message
        assert "4711" not in message
