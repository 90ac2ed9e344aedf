"""The ``recsys`` command line: a thin face over :mod:`ingest`, :mod:`coclust` and :mod:`recsys`.

``base`` holds the Typer app and turns a user's mistakes into one line and exit code 2;
``options`` defines every option once, and the groups that ``train``, ``evaluate`` and
``relations`` share; ``commands`` holds the commands.
"""

import atexit
import gc

from .commands import app

# A command's objects are freed with the process: the collector's last pass over them at exit
# (0.4-0.5 s after a 1 M-rating train, a third of its fixed cost) is skipped.  Only at exit, so
# the tests' in-process runs and a library user's session collect as usual.
atexit.register(gc.freeze)

__all__ = ["app"]
