"""Errors a user of :mod:`recsys` can cause.  The command line catches exactly these (and
:class:`ingest.errors.DataError`) and prints them as one line with exit code 2; anything else is
a bug and keeps its traceback.  Each also derives from the built-in class it refines, so code
that catches ``ValueError`` or ``KeyError`` keeps working."""

from __future__ import annotations


class RecsysError(Exception):
    """A mistake in what the user asked for or gave."""


class ParameterError(RecsysError, ValueError):
    """An invalid parameter or option value."""


class NotFittedError(RecsysError, AttributeError):
    """The model is used before ``fit``."""


class UnknownIdError(RecsysError, KeyError):
    """A user or item id the model has never seen."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class ModelFileError(RecsysError, ValueError):
    """A model directory is missing, corrupt or written by a newer version."""


class InputFileError(RecsysError, ValueError):
    """A malformed input file (e.g. the pairs to score); the message names file and line."""


class RatingsError(RecsysError, ValueError):
    """Ratings a model cannot learn from: not a ratings table, repeated pairs, too few to hold
    some out for the weights."""


class MemoryEstimateError(RecsysError, MemoryError):
    """A fit would need more memory than allowed (or available): said before it starts."""
