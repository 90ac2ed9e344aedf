"""Presentation: what a person reads of a model — explanations, HTML reports, exported profiles,
scored pairs, and the command line's plain text.

=============  ====================================================================
module         what it holds
=============  ====================================================================
``explain``    a prediction's terms and the co-clusters behind them; profiles; reasons
``report``     self-contained HTML pages (Jinja2 templates in ``templates/``)
``export``     every user's profiles as JSON or CSV
``pairs``      scoring the pairs of a file, writing the records
``text``       plain text of explanations, recommendations, profiles, relation counts
=============  ====================================================================
"""
