"""``python -m recsys.cli``: the same as the ``recsys`` command."""

from .commands import app

app()
