"""The evaluation: one protocol for every compared method, its metrics, intervals and tables.

===================  ====================================================================
module               what it holds
===================  ====================================================================
``protocol``         :func:`evaluate`: the split, the choices, the cut-offs, ablations, controls
``grids``            every method's declared grid (small and full)
``selection``        the one procedure that picks a setting from a grid on the tuning part
``methods``          the method protocol (fit / score / rank / fold in) and our methods
``surprise_methods`` Surprise's rating predictors behind the same protocol
``anchors``          the top-N anchors: EASE, ItemKNN, RP3beta, iALS, BPR
``registry``         every method by name (breaks the methods ↔ anchors import cycle)
``search``           the search rule: a choice on an open edge of a setting is extended
``blends``           the lists' blend given to other rankers (like-for-like rows)
``metrics``          AUC and the like/dislike metrics at a cut-off
``ranking``          top-N lists and their metrics, for tuning, test and new users
``strong``           lists for users held out of training (strong generalisation)
``intervals``        paired bootstrap intervals over users
``beside``           work that runs on one core, done in a second process meanwhile
``summary``          the figures as text (terminal) and Markdown (results files)
===================  ====================================================================
"""

from .protocol import ABLATIONS, CONTROLS, METHODS, RANKERS, Protocol, Setup, evaluate, split_for_tuning

__all__ = ["evaluate", "Protocol", "Setup", "split_for_tuning", "METHODS", "RANKERS", "ABLATIONS", "CONTROLS"]
