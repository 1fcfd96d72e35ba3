"""The engines that search the space: ``exact`` (CP-SAT modulo schedule of a round
template, with its certificate), ``anneal`` (seeded simulated annealing over
candidates) and ``portfolio`` (several annealing runs in worker processes).

May import: ``sha1opt.semantics``, ``search.space``, ``search.cost``, ``search.objective``.
"""
