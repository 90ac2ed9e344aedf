"""The options of ``recsys serve``, defined once (their checks are :func:`recsys.service.run.run`'s)."""

from __future__ import annotations

import typer

HOST = typer.Option("127.0.0.1", "--host", help="Address to listen on.")
PORT = typer.Option(8000, "--port", help="Port to listen on.")
WORKERS = typer.Option(1, "--workers", help="Worker processes (each loads the model once).")
ADMIN_TOKEN = typer.Option(
    None,
    "--admin-token",
    envvar="RECSYS_ADMIN_TOKEN",
    help="Allow POST /admin/reload with 'Authorization: Bearer TOKEN'.",
    show_default="none: reloads from loopback only",
)
MAX_BODY = typer.Option(1_000_000, "--max-body", help="Largest request body in bytes (413 above).")
REQUESTS_PER_CONNECTION = typer.Option(
    100,
    "--requests-per-connection",
    help="Close a kept-alive connection after this many answers, so that the workers share the load (0: never).",
)
FORWARDED_ALLOW_IPS = typer.Option(
    None,
    "--forwarded-allow-ips",
    help="Proxies (comma-separated addresses, '*' any) whose X-Forwarded-For names the client. "
    "A server behind a proxy reloads only with --admin-token.",
    show_default="none",
)
ALLOWED_HOSTS = typer.Option(
    None,
    "--allowed-hosts",
    help="Names the Host header may carry besides localhost, the loopback addresses and --host "
    "(repeat or comma-separate; '*.example.org' for subdomains, '*' for any). Others get 400.",
)
HEADER_TIMEOUT = typer.Option(5.0, "--header-timeout", help="Seconds a request's headers may take to arrive.")
BODY_TIMEOUT = typer.Option(
    5.0, "--body-timeout", help="Seconds a request's body may take to arrive after its headers."
)
LIMIT_CONCURRENCY = typer.Option(
    200, "--limit-concurrency", help="Connections and requests at once in one worker before 503s."
)
DOCS = typer.Option(True, "--docs/--no-docs", help="Serve the API's reference at /docs and /openapi.json.")
