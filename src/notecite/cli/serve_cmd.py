"""`notecite serve`: the HTTP API on uvicorn."""

from __future__ import annotations

import errno
import socket

import click

from notecite.cli.state import CliState, pass_state


@click.command("serve")
@click.option("--host", help="Address to bind (default: server.host, 127.0.0.1).")
@click.option(
    "--port", type=click.IntRange(1, 65535), help="Port to listen on (default: server.port, 8765)."
)
@pass_state
def serve_command(state: CliState, host: str | None, port: int | None) -> None:
    """Serve the HTTP API and the web page (at /; OpenAPI at /openapi.json) until Ctrl+C.

    Binding to anything but loopback needs an API key (server.api_keys for the default
    tenant, server.tenant_keys for named tenants); clients then send
    'Authorization: Bearer KEY', and the key decides which tenant's notes they see.
    Only loopback host names are answered unless server.allowed_hosts lists others.
    """
    import uvicorn

    from notecite.api import create_app
    from notecite.api.security import is_loopback_host
    from notecite.cli.models_cmd import ModelReport

    settings = state.settings
    bind_host = host or settings.server.host
    bind_port = port or settings.server.port
    if not is_loopback_host(bind_host) and not settings.server.keys_by_tenant():
        raise click.UsageError(
            f"refusing to serve on {bind_host}, which is not loopback, without an API key: "
            "set server.api_keys (e.g. NOTECITE_SERVER__API_KEYS='[\"a-long-secret\"]') "
            "or bind to 127.0.0.1"
        )
    sock = bind_socket(bind_host, bind_port)
    click.echo(
        f"notecite on http://{bind_host}:{bind_port} (web page at /, OpenAPI at /openapi.json)",
        err=True,
    )
    config = uvicorn.Config(
        create_app(settings, model_progress=ModelReport()),  # the model loads before serving
        host=bind_host,
        port=bind_port,
        log_level="debug" if state.debug else "info",
    )
    with sock:
        uvicorn.Server(config).run(sockets=[sock])


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, bound before the URL is printed.

    Raises:
        click.ClickException: the address is in use or cannot be bound (exit 1).
    """
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
        family, kind, proto, _, address = infos[0]
        sock = socket.socket(family, kind, proto)
    except OSError as exc:
        raise click.ClickException(f"cannot serve on {host}:{port}: {exc}") from exc
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        busy = exc.errno == errno.EADDRINUSE
        why = "the port is in use (another notecite serve?)" if busy else exc.strerror
        raise click.ClickException(
            f"cannot serve on {host}:{port}: {why}; pass another --port"
        ) from exc
    sock.set_inheritable(True)
    return sock
