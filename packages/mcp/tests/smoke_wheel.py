"""toolerr-mcp as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): a real MCP server in-process, one failure delivered, a success unchanged."""

import anyio
from mcp_servers import FIXABLE_TEXT, connect, make_server  # the test server, beside this file
from toolerr_mcp import RecoveringSession


async def main() -> None:
    async with connect(make_server()) as client:
        session = RecoveringSession(client)
        failed = await session.call_tool("convert", {"value": 1.0, "unit": "kelvins"})
        texts = [block.text for block in failed.content]
        assert getattr(failed, "is_error", getattr(failed, "isError", None)) is True, failed
        assert FIXABLE_TEXT in texts[0] and "call the tool again with the corrected value" in texts[-1], texts
        plain = await client.call_tool("echo", {"text": "hi"})
        echoed = await session.call_tool("echo", {"text": "hi"})
        assert echoed.model_dump() == plain.model_dump(), (echoed, plain)


anyio.run(main)
print("toolerr-mcp smoke: ok")
