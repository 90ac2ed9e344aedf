"""The Jinja2 environment of every HTML page the package writes (templates in ``templates/``,
autoescaped: text from data is shown as text, never read as markup)."""

from __future__ import annotations

from functools import cache


@cache
def environment():
    """The one environment of this process: it compiles each template once and keeps it (a page
    rendered again, or a request served, reads the compiled template)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

    return Environment(
        loader=PackageLoader("recsys.present", "templates"),
        autoescape=select_autoescape(["html", "j2", "svg"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def markup(s: str):
    """``s`` as markup the templates insert unescaped (SVG built by a template)."""
    from markupsafe import Markup

    return Markup(s)
