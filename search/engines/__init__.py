"""The engines that search the space: ``exact`` (CP-SAT modulo schedule of a round
template, with its certificate), ``anneal`` (seeded simulated annealing over
candidates), ``greedy`` (list scheduling by the model's own clock on floating registers, for
in-order models), ``dispatch`` (a candidate reordered as the model's out-of-order core dispatches it:
the annealer's move where the reservation station binds), ``cluster`` (the Dask cluster a search runs on: local or an existing scheduler),
``portfolio`` (the search's tasks on that cluster, improvements streamed back), ``hybrid`` (cost and
grid + annealing search of ``space.hybrid`` blocks) and ``shani`` (grid search of ``space.shani`` blocks).

May import: ``sha1opt.semantics``, ``search.space``, ``search.cost``, ``search.objective``.
"""
