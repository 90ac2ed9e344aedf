"""The ``recsys`` command line: a thin face over :mod:`ingest`, :mod:`coclust` and :mod:`recsys`.

``base`` holds the Typer app and turns a user's mistakes into one line and exit code 2;
``options`` defines every option once, and the groups that ``train``, ``evaluate`` and
``relations`` share; ``commands`` holds the commands.
"""

from .commands import app

__all__ = ["app"]
