"""Starting the server: the model checked before anything listens, then uvicorn."""

from __future__ import annotations

import functools
import ipaddress
import json
import os
import shutil
import socket
import tempfile
from dataclasses import asdict
from pathlib import Path

from ..errors import ParameterError


def run(
    model_dir: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    workers: int = 1,
    admin_token: str | None = None,
    max_body: int = 1_000_000,
    requests_per_connection: int = 100,
    forwarded_allow_ips: str | None = None,
    allowed_hosts: list[str] | None = None,
    header_timeout: float = 5.0,
    body_timeout: float = 5.0,
    limit_concurrency: int = 200,
    docs: bool = True,
    quiet: bool = False,
) -> None:
    """Serve ``model_dir`` until interrupted (see :mod:`recsys.service.app`).

    ``forwarded_allow_ips``: the proxies whose ``X-Forwarded-For`` is believed (uvicorn's setting;
    none by default, whatever ``FORWARDED_ALLOW_IPS`` says); ``allowed_hosts``: names the ``Host``
    header may carry besides the loopback names and ``host``; ``header_timeout`` and
    ``body_timeout``: seconds a request's headers and then its body may take to arrive;
    ``limit_concurrency``: connections and requests at once in one worker before 503s."""
    uvicorn = _serve_extra()
    from .app import Settings, create_app
    from .slot import Served

    _check_options(port, workers, max_body, requests_per_connection, header_timeout, body_timeout, limit_concurrency)
    hosts = _allowed_hosts(host, allowed_hosts)
    control_dir = tempfile.mkdtemp(prefix="recsys-serve-")
    settings = Settings(
        str(Path(model_dir).resolve()),
        os.path.join(control_dir, "model.json"),
        admin_token,
        max_body,
        requests_per_connection=requests_per_connection or None,
        local=_is_loopback(host),
        behind_proxy=bool(forwarded_allow_ips),
        allowed_hosts=hosts,
        docs=docs,
    )
    server = _uvicorn_options(host, port, quiet, forwarded_allow_ips, limit_concurrency, header_timeout, body_timeout)
    try:
        # a broken model is one error line, before anything listens: one worker loads it here for
        # good; several load their own, so it is only checked here
        app = create_app(settings) if workers == 1 else Served.load(model_dir, 0)
        _check_free(host, port)
        if workers == 1:
            uvicorn.run(app, **server)
        else:  # each worker process builds its own app from the same settings
            os.environ["RECSYS_SERVE"] = json.dumps(asdict(settings))
            uvicorn.run("recsys.service.app:from_environment", factory=True, workers=workers, **server)
    finally:
        shutil.rmtree(control_dir, ignore_errors=True)


def _serve_extra():
    """uvicorn, once the serve extra is known to be installed (a :class:`ParameterError` saying how
    to install it otherwise)."""
    try:
        import fastapi  # noqa: F401
        import httptools  # noqa: F401  (the protocol the deadlines are set on)
        import uvicorn
    except ImportError as exc:
        raise ParameterError(f"recsys serve needs {exc.name}: pip install 'hblcoclust[serve]'") from None
    return uvicorn


def _check_options(
    port: int,
    workers: int,
    max_body: int,
    requests_per_connection: int,
    header_timeout: float,
    body_timeout: float,
    limit_concurrency: int,
) -> None:
    """A :class:`ParameterError` naming the first option out of its range."""
    if workers < 1:
        raise ParameterError(f"--workers must be at least 1, got {workers}")
    if max_body < 1_000:
        raise ParameterError(f"--max-body must be at least 1000 bytes, got {max_body}")
    if requests_per_connection < 0:
        raise ParameterError(f"--requests-per-connection must be 0 (never) or more, got {requests_per_connection}")
    if not 0 <= port <= 65535:
        raise ParameterError(f"--port must be between 0 and 65535, got {port}")
    for name, seconds in (("--header-timeout", header_timeout), ("--body-timeout", body_timeout)):
        if not 0 < seconds <= 3600:
            raise ParameterError(f"{name} must be between 0 and 3600 seconds, got {seconds:g}")
    if limit_concurrency < 1:
        raise ParameterError(f"--limit-concurrency must be at least 1, got {limit_concurrency}")


def _uvicorn_options(
    host: str,
    port: int,
    quiet: bool,
    forwarded_allow_ips: str | None,
    limit_concurrency: int,
    header_timeout: float,
    body_timeout: float,
) -> dict:
    """uvicorn's settings.  uvicorn believes X-Forwarded-For from FORWARDED_ALLOW_IPS (127.0.0.1
    unless set) by default: here the client's address is the proxy's word only when
    --forwarded-allow-ips names the proxy."""
    from .deadlines import DeadlineProtocol

    return {
        "host": host,
        "port": port,
        "log_level": "warning" if quiet else "info",
        "proxy_headers": bool(forwarded_allow_ips),
        "forwarded_allow_ips": forwarded_allow_ips or "",
        "limit_concurrency": limit_concurrency,
        "http": functools.partial(DeadlineProtocol, header_timeout=header_timeout, body_timeout=body_timeout),
        "server_header": False,
    }


def _check_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            message = f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port or --host"
            raise ParameterError(message) from None


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _allowed_hosts(host: str, extra: list[str] | None) -> list[str]:
    from .headers import allowed_hosts

    names = allowed_hosts(host, [n for item in extra or [] for n in item.split(",")])
    for name in names:
        if name != "*" and ("*" in name[1:] or (name.startswith("*") and not name.startswith("*."))):
            raise ParameterError(f"--allowed-hosts: {name!r} is not a host name or a pattern like '*.example.org'")
    return names
