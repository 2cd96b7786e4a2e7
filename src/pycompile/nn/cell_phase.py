"""The compile bookkeeping MindSpore's Cell exposes and its FlopsUtilizationCollector reads:
`phase` ('train' at first, then what `set_train` says: 'train' / 'predict'; a string a user may
set), `compiled` (whether the Cell has been compiled in graph mode: it holds a compiled
specialization) and `current_phase` (the name of its compiled graph, which `ms.flops_collection`
takes; MindSpore's reads '<phase>.<creation time>.<id>.0', pycompile's '<phase>.<id>.0'). Reading
`current_phase` before the Cell is compiled is an AttributeError, as in MindSpore."""
from __future__ import annotations

import weakref

# current_phase -> the Cell, for ms.flops_collection (weak: a phase name does not keep a Cell alive)
PHASES: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


class Cell:
    """A mixin of nn.Cell (named Cell so Python's own messages read as MindSpore's)."""

    __slots__ = ()

    @property
    def phase(self) -> str:
        return self.__dict__.get("_phase", "train")

    @phase.setter
    def phase(self, value):
        if not isinstance(value, str):
            raise TypeError(f"For 'Cell', the property 'phase' must be string type, but got type {type(value)}.")
        self.__dict__["_phase"] = value

    @property
    def compiled(self) -> bool:
        return bool(self.__dict__.get("_pycompile_graph_cache"))

    @property
    def current_phase(self) -> str:
        if not self.compiled:
            raise AttributeError(f"'{type(self).__name__}' object has no attribute 'current_phase'")
        name = f"{self.phase}.{id(self)}.0"
        PHASES[name] = self
        return name

    def last_compiled(self):
        """The Compiled of this Cell's latest graph-mode specialization (None before any)."""
        cache = self.__dict__.get("_pycompile_graph_cache")
        if not cache:
            return None
        order = getattr(cache, "order", None)
        return cache[order[-1]] if order and order[-1] in cache else next(reversed(cache.values()))
