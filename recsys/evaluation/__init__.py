"""The evaluation: one protocol for every compared method, its metrics, intervals and tables.

===================  ====================================================================
module               what it holds
===================  ====================================================================
``protocol``         :func:`evaluate`: the split, the tuned cut-offs, ablations, controls
``methods``          the method protocol (fit / score / rank) and the non-Surprise methods
``surprise_methods`` Surprise's rating predictors behind the same protocol
``metrics``          AUC, like/dislike metrics at a cut-off, ranking metrics
``intervals``        paired bootstrap intervals
``topn``             top-N lists of every ranking method
``summary``          the figures as text (terminal) and Markdown (results files)
===================  ====================================================================
"""

from .protocol import ABLATIONS, CONTROLS, METHODS, Protocol, Setup, evaluate, split_for_tuning

__all__ = ["evaluate", "Protocol", "Setup", "split_for_tuning", "METHODS", "ABLATIONS", "CONTROLS"]
