"""Presentation: what a person reads of a model — explanations (their numbers come from
:mod:`recsys.model.explanation`) as HTML reports, exported profiles, scored pairs, and the command
line's plain text; the model never imports this package.

=====================  ============================================================
module                 what it holds
=====================  ============================================================
``text``               plain text of explanations, recommendations, profiles, relation counts
``digest``             a list's reasons as a person reads them
``report``             self-contained HTML profile pages (Jinja2 templates in ``templates/``)
``evaluation_report``  an evaluation as a self-contained HTML page
``html``               the Jinja2 environment of every page
``export``             every user's profiles as JSON or CSV
``lists``              recommendation lists as files: ratings in, lists out
``pairs``              scoring the pairs of a file, writing the records
=====================  ============================================================
"""
