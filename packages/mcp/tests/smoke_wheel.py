# wheels: extras fastmcp
"""toolerr-mcp as installed from the wheels (run by ``nox -s wheels`` in a fresh
virtualenv): a real MCP server in-process, one failure delivered, a success unchanged;
then the same through ToolErrorServerMiddleware inside a FastMCP server (the extra
``toolerr-mcp[fastmcp]``), on FastMCP's in-memory client. Installed without the extra (the
root README's from-a-clone line), the middleware's name must say how to get it instead."""

import importlib.util

import anyio
from mcp_servers import FIXABLE_TEXT, connect, make_server  # the test server, beside this file
from toolerr_mcp import RecoveringSession, _compat


async def main() -> None:
    async with connect(make_server()) as client:
        session = RecoveringSession(client)
        failed = await session.call_tool("convert", {"value": 1.0, "unit": "kelvins"})
        texts = [block.text for block in failed.content]
        assert _compat.is_error(failed), failed
        assert FIXABLE_TEXT in texts[0] and "call the tool again with the corrected value" in texts[-1], texts
        plain = await client.call_tool("echo", {"text": "hi"})
        echoed = await session.call_tool("echo", {"text": "hi"})
        assert echoed.model_dump() == plain.model_dump(), (echoed, plain)


async def server_side() -> None:
    from fastmcp import Client
    from fastmcp_server import build  # the FastMCP test server, beside this file
    from toolerr_mcp import ToolErrorServerMiddleware

    url = "http://127.0.0.1:9/unused"  # fetch_forecast is not called here
    async with Client(build(url, middleware=ToolErrorServerMiddleware())) as client:
        failed = await client.call_tool_mcp("read_secret", {"path": "/etc/shadow"})
        echoed = await client.call_tool_mcp("echo", {"text": "hi"})
    async with Client(build(url)) as bare:
        plain = await bare.call_tool_mcp("echo", {"text": "hi"})
    (block,) = failed.content
    assert failed.is_error and failed.meta["toolerr"]["kind"] == "unrecoverable", failed
    assert block.text.startswith("Error calling tool 'read_secret': [Errno 13]"), block.text
    assert block.text.endswith(
        "\nThis cannot be fixed by retrying or by changing the arguments. Tell the user what happened."
    )
    assert echoed.model_dump_json() == plain.model_dump_json(), (echoed, plain)


def without_the_extra() -> None:
    message = ""
    try:
        from toolerr_mcp import ToolErrorServerMiddleware  # noqa: F401
    except ImportError as exc:
        message = str(exc)
    if "pip install 'toolerr-mcp[fastmcp]'" not in message:
        raise AssertionError(f"without fastmcp the middleware's import should say how to get it: {message!r}")


anyio.run(main)
if importlib.util.find_spec("fastmcp") is not None:
    anyio.run(server_side)
    print("toolerr-mcp smoke: ok (with the fastmcp extra)")
else:
    without_the_extra()
    print("toolerr-mcp smoke: ok (without the fastmcp extra)")
