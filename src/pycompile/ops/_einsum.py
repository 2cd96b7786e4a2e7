"""einsum as table ops: reductions, transposes, reshapes and BatchMatMul.

An equation names each operand's axes with letters ("bhqd,bhkd->bhqk"); an implicit output
("ij,jk") is the letters that appear once, in alphabetical order. Operands are combined left to
right. For each pair the letters fall in four classes: batch (in both operands and still needed
later), contracted (in both, needed by nobody else), and the free letters of either side. A
letter only one operand has and nobody needs is summed away first. The pair then is one
BatchMatMul of (batch, free_a, contracted) by (batch, contracted, free_b), so attention scores,
matrix products, outer products and row sums compile to the same BLAS calls and loops as their
spelled-out forms. Repeated letters within one operand (diagonals) and '...' are refused.
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import type_of
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError


def _parse(equation: str, n: int):
    eq = equation.replace(" ", "")
    if "." in eq:
        raise OpValueError(f"For 'Einsum', '...' is not supported, but got {equation!r}")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != n:
        raise OpValueError(f"For 'Einsum', the equation {equation!r} names {len(terms)} operands, but got {n}")
    for term in terms:
        if not term.isalpha() and term:
            raise OpValueError(f"For 'Einsum', subscripts must be letters, but got {equation!r}")
        if len(set(term)) != len(term):
            raise OpValueError(f"For 'Einsum', a letter repeated within one operand (a diagonal) is not supported: "
                               f"{equation!r}")
    if not arrow:
        counts = {c: lhs.count(c) for c in set(lhs) if c.isalpha()}
        out = "".join(sorted(c for c, k in counts.items() if k == 1))
    if len(set(out)) != len(out) or any(c not in lhs for c in out):
        raise OpValueError(f"For 'Einsum', the output {out!r} must name distinct letters of the inputs")
    return terms, out


def _sum_letters(x, term: str, letters: set):
    """x summed over the axes whose letters are in `letters`."""
    axes = tuple(i for i, c in enumerate(term) if c in letters)
    if not axes:
        return x, term
    return F.sum(x, axes), "".join(c for c in term if c not in letters)


def _transpose_to(x, term: str, order: str):
    if term == order:
        return x
    return F.transpose(x, tuple(term.index(c) for c in order))


def einsum(equation: str, operands: list):
    terms, out = _parse(equation, len(operands))
    sizes: dict = {}
    for x, term in zip(operands, terms):
        shape = type_of(x).shape
        if len(shape) != len(term):
            raise OpValueError(f"For 'Einsum', operand '{term}' has rank {len(shape)}")
        for c, d in zip(term, shape):
            if sizes.setdefault(c, d) != d:
                raise OpValueError(f"For 'Einsum', letter '{c}' has sizes {sizes[c]} and {d}")
    acc, acc_term = operands[0], terms[0]
    for k in range(1, len(operands)):
        b, b_term = operands[k], terms[k]
        later = set(out).union(*terms[k + 1:])
        acc, acc_term = _sum_letters(acc, acc_term, set(acc_term) - set(b_term) - later)
        b, b_term = _sum_letters(b, b_term, set(b_term) - set(acc_term) - later)
        batch = "".join(c for c in acc_term if c in b_term and c in later)
        contracted = "".join(c for c in acc_term if c in b_term and c not in later)
        free_a = "".join(c for c in acc_term if c not in b_term)
        free_b = "".join(c for c in b_term if c not in acc_term)

        def size(letters):
            return int(np.prod([sizes[c] for c in letters], dtype=np.int64))
        a3 = F.reshape(_transpose_to(acc, acc_term, batch + free_a + contracted),
                       (size(batch), size(free_a), size(contracted)))
        b3 = F.reshape(_transpose_to(b, b_term, batch + contracted + free_b),
                       (size(batch), size(contracted), size(free_b)))
        prod = F.bmm(a3, b3)
        acc_term = batch + free_a + free_b
        acc = F.reshape(prod, tuple(sizes[c] for c in acc_term))
    acc, acc_term = _sum_letters(acc, acc_term, set(acc_term) - set(out))
    return _transpose_to(acc, acc_term, out)
