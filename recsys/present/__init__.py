"""Presentation: what a person reads of a model — explanations (their numbers come from
:mod:`recsys.model.explanation`) as HTML reports, exported profiles, scored pairs, and the command
line's plain text; the model never imports this package.

=============  ====================================================================
module         what it holds
=============  ====================================================================
``report``     self-contained HTML pages (Jinja2 templates in ``templates/``)
``export``     every user's profiles as JSON or CSV
``pairs``      scoring the pairs of a file, writing the records
``text``       plain text of explanations, recommendations, profiles, relation counts
=============  ====================================================================
"""
