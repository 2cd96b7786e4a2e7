"""What the layers below nn need to know of a Cell, without importing nn.

The compiler's frontend (a call of a Cell inlines its `construct`; lazy_inline shares its
subgraph) and the compile cache's fingerprints (a Cell is hashed by class and attributes, its
Parameters found again by path) both recognise a Cell, but sit below or beside nn: layers
import downward only (tests/test_layering.py). So the type they test for lives here, and
nn.Cell derives from it.

`CellBase` holds no behaviour: `isinstance(v, CellBase)` means "v is an nn.Cell". What the
layers below then use of a Cell is its public surface (`construct`, `cells_and_names()`,
`parameters_and_names()`) and the instance attributes nn/cell.py keeps (`_params`,
`_attr_version`, `_mode_version`, `cell_init_args`, `_mixed_precision`).
"""
from __future__ import annotations


# Moves whenever any Cell's attributes, sub-Cells, train / eval mode or precision change (`bump`,
# and nn.Cell.__delattr__): nn.Cell._graph_key keeps its subtree's key while it has not moved,
# instead of walking every sub-Cell on each compiled call (15 us for W5's 13 Cells).
KEY_EPOCH = [0]


def bump(cell) -> None:
    """Record that an attribute of `cell` changed: its version (what compiled calls of it are keyed
    by) and the key epoch."""
    object.__setattr__(cell, "_attr_version", cell.__dict__.get("_attr_version", 0) + 1)
    KEY_EPOCH[0] += 1


class CellBase:
    """The base class of `pycompile.nn.Cell` (see the module docstring)."""

    __slots__ = ()


def subtree_version(cell) -> int:
    """Changes whenever an attribute of the Cell or of one of its sub-Cells is assigned: a
    lazy_inline Cell whose version moved after __init__ no longer matches its cell_init_args.
    `set_train` does not count: the mode is part of the shared subgraph's key instead."""
    return sum(c.__dict__.get("_attr_version", 0) - c.__dict__.get("_mode_version", 0)
               for _, c in cell.cells_and_names())
