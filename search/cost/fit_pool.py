"""Predictions of a fit's observations under many candidate models, in worker processes (``fit.fit(workers=N)``).

The fit spends its time simulating the same observations under models that differ in one row; the
candidates of one parameter are independent, so ``Evaluator.many`` prices them side by side in ``workers``
processes (each holds the observations from its start: only a model and names cross per task). A
candidate the engine cannot run comes back as None. With ``workers`` 1 nothing is started and every
prediction is made here: the same figures, the same simulator (``Simulator(model).simulate(items,
loop=True).cycles``).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Sequence

from sha1opt.search.cost.model import Model
from sha1opt.search.cost.simulator import Simulator

_OBS: dict[str, tuple] = {}         # a worker's observations: name -> items


def _start(items: dict[str, tuple]) -> None:
    _OBS.clear()
    _OBS.update(items)


def _predict(model: Model, names: Sequence[str], items: dict[str, tuple] | None = None) -> dict[str, float] | None:
    sim = Simulator(model)
    items = _OBS if items is None else items
    try:
        return {n: sim.simulate(items[n], loop=True).cycles for n in names}
    except Exception:       # noqa: BLE001 -- a candidate the engine cannot run is no candidate
        return None


class Evaluator:
    """``many(models, names)``: each model's predicted cycles of the named observations (None: not runnable)."""

    def __init__(self, items: dict[str, tuple], workers: int = 1) -> None:
        self._items = items
        self._workers = workers
        self._pool = ProcessPoolExecutor(workers, initializer=_start, initargs=(items,)) if workers > 1 else None

    def many(self, models: Sequence[Model], names: Sequence[Sequence[str]]) -> list[dict[str, float] | None]:
        if self._pool is None:
            return [_predict(m, n, self._items) for m, n in zip(models, names)]
        futures = [self._pool.submit(_predict, m, list(n)) for m, n in zip(models, names)]
        return [f.result() for f in futures]

    def all(self, model: Model, names: Sequence[str]) -> dict[str, float]:
        """``model``'s predictions of every named observation, split over the workers (raises when the model
        cannot run: it is the fit's own model, not a candidate)."""
        k = max(1, len(names) // max(1, self._workers))
        parts = [list(names[i:i + k]) for i in range(0, len(names), k)]
        out: dict[str, float] = {}
        for got in self.many([model] * len(parts), parts):
            if got is None:
                return {n: Simulator(model).simulate(self._items[n], loop=True).cycles for n in names}
            out.update(got)
        return out

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def __enter__(self) -> Evaluator:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
