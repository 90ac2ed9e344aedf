"""The errors a user of :mod:`ingest` can cause, each naming what was wrong and what to do.

All derive from :class:`DataError`, and also from the built-in class they refine, so callers
that catch ``ValueError`` or ``FileNotFoundError`` keep working.  A command line catches
:class:`DataError` alone to turn a user's mistake into one line and exit code 2.
"""

from __future__ import annotations


class DataError(Exception):
    """Something is wrong with the data a user gave or asked for."""


class DataFormatError(DataError, ValueError):
    """A data file is malformed; the message names the file and the line."""


class MissingDataError(DataError, FileNotFoundError):
    """A data file is not where it should be; the message says where to get it."""


class DataRequestError(DataError, ValueError):
    """An unknown data set, split, attribute kind or an invalid option value."""


class DownloadError(DataError, OSError):
    """A download failed or was rejected (checksum, truncated body, HTTP error)."""
