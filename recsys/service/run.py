"""Starting the server: the model checked before anything listens, then uvicorn."""

from __future__ import annotations

import json
import os
import shutil
import socket
import tempfile
from dataclasses import asdict
from pathlib import Path

from ..errors import ParameterError


def run(model_dir: str | Path, *, host: str = "127.0.0.1", port: int = 8000, workers: int = 1,
        admin_token: str | None = None, max_body: int = 1_000_000, requests_per_connection: int = 100,
        quiet: bool = False) -> None:  # fmt: skip
    """Serve ``model_dir`` until interrupted (see :mod:`recsys.service.app`)."""
    try:
        import fastapi  # noqa: F401
        import uvicorn
    except ImportError as exc:
        raise ParameterError(f"recsys serve needs {exc.name}: pip install 'hblcoclust[serve]'") from None

    from .app import Settings, create_app
    from .slot import Served

    if workers < 1:
        raise ParameterError(f"--workers must be at least 1, got {workers}")
    if max_body < 1_000:
        raise ParameterError(f"--max-body must be at least 1000 bytes, got {max_body}")
    if requests_per_connection < 0:
        raise ParameterError(f"--requests-per-connection must be 0 (never) or more, got {requests_per_connection}")
    if not 0 <= port <= 65535:
        raise ParameterError(f"--port must be between 0 and 65535, got {port}")
    control_dir = tempfile.mkdtemp(prefix="recsys-serve-")
    settings = Settings(str(Path(model_dir).resolve()), os.path.join(control_dir, "model.json"), admin_token, max_body,
                        requests_per_connection=requests_per_connection or None)  # fmt: skip
    log = "warning" if quiet else "info"
    try:
        # a broken model is one error line, before anything listens: one worker loads it here for
        # good; several load their own, so it is only checked here
        app = create_app(settings) if workers == 1 else Served.load(model_dir, 0)
        _check_free(host, port)
        if workers == 1:
            uvicorn.run(app, host=host, port=port, log_level=log)
        else:  # each worker process builds its own app from the same settings
            os.environ["RECSYS_SERVE"] = json.dumps(asdict(settings))
            uvicorn.run("recsys.service.app:from_environment", factory=True, host=host, port=port, workers=workers,
                        log_level=log)  # fmt: skip
    finally:
        shutil.rmtree(control_dir, ignore_errors=True)


def _check_free(host: str, port: int) -> None:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError as exc:
            message = f"cannot listen on {host}:{port} ({exc.strerror}); choose another --port or --host"
            raise ParameterError(message) from None
