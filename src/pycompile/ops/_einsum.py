"""einsum as table ops: reductions, transposes, reshapes and BatchMatMul.

An equation names each operand's axes with letters ("bhqd,bhkd->bhqk"); an implicit output
("ij,jk") is the letters that appear once, in alphabetical order. Operands are combined left to
right. For each pair the letters fall in four classes: batch (in both operands and still needed
later), contracted (in both, needed by nobody else), and the free letters of either side. A
letter only one operand has and nobody needs is summed away first. The pair then is one
BatchMatMul of (batch, free_a, contracted) by (batch, contracted, free_b), so attention scores,
matrix products, outer products and row sums compile to the same BLAS calls and loops as their
spelled-out forms.

'...' stands for the leading axes an operand has beyond its letters; they are given letters no
operand uses, aligned from the right across operands and broadcast where one has size 1, as
NumPy does; an implicit output puts them first. A letter repeated within one operand (a
diagonal, "ii->i", "ii") is taken first, as a product with an identity matrix summed over one of
the two axes: a Mul and a ReduceSum, so it compiles and differentiates like everything else (it
reads n times the diagonal's elements: equations with diagonals are rare and small).
"""
from __future__ import annotations

import numpy as np

from pycompile.common.abstract import type_of
from pycompile.ops import functional as F
from pycompile.ops._table import OpValueError
from pycompile.ops.function_array import eye as eye_matrix


def _parse(equation: str, ranks: list):
    eq = equation.replace(" ", "")
    lhs, arrow, out = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        raise OpValueError(f"For 'Einsum', the equation {equation!r} names {len(terms)} operands, "
                           f"but got {len(ranks)}")
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in eq]
    ell_rank = 0
    for term, rank in zip(terms, ranks):
        if "..." in term:
            ell_rank = max(ell_rank, rank - len(term.replace("...", "")))
    ell = "".join(spare[:ell_rank])
    expanded = []
    for term, rank in zip(terms, ranks):
        if "..." in term:
            k = rank - len(term.replace("...", ""))
            if k < 0:
                raise OpValueError(f"For 'Einsum', operand '{term}' has rank {rank}")
            term = term.replace("...", ell[len(ell) - k:], 1)
        if not term.isalpha() and term:
            raise OpValueError(f"For 'Einsum', subscripts must be letters or '...', but got {equation!r}")
        expanded.append(term)
    if not arrow:
        letters = "".join(expanded)
        counts = {c: letters.count(c) for c in set(letters) if c not in ell}
        out = ell + "".join(sorted(c for c, k in counts.items() if k == 1))
    else:
        out = out.replace("...", ell, 1)
        if not out.isalpha() and out:
            raise OpValueError(f"For 'Einsum', subscripts must be letters or '...', but got {equation!r}")
    if len(set(out)) != len(out) or any(c not in "".join(expanded) for c in out):
        raise OpValueError(f"For 'Einsum', the output {out!r} must name distinct letters of the inputs")
    return expanded, out, set(ell)


def _diagonals(x, term: str, sizes: dict):
    """x with every repeated letter of `term` reduced to one axis (the diagonal)."""
    while len(set(term)) != len(term):
        c = next(c for c in term if term.count(c) > 1)
        first = term.index(c)
        second = term.index(c, first + 1)
        n = sizes[c]
        eye_shape = [1] * len(term)
        eye_shape[first] = eye_shape[second] = n
        eye = F.reshape(eye_matrix(n, n, type_of(x).dtype), tuple(eye_shape))
        x = F.sum(F.mul(x, eye), (second,))
        term = term[:second] + term[second + 1:]
    return x, term


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
    shapes = [type_of(x).shape for x in operands]
    terms, out, ell = _parse(equation, [len(sh) for sh in shapes])
    sizes: dict = {}
    for shape, term in zip(shapes, terms):
        if len(shape) != len(term):
            raise OpValueError(f"For 'Einsum', operand '{term}' has rank {len(shape)}")
        for c, d in zip(term, shape):
            known = sizes.setdefault(c, d)
            if known != d:
                if c in ell and 1 in (known, d):        # '...' axes broadcast
                    sizes[c] = max(known, d)
                else:
                    raise OpValueError(f"For 'Einsum', letter '{c}' has sizes {known} and {d}")
    operands = list(operands)
    for k, (shape, term) in enumerate(zip(shapes, terms)):
        full = tuple(sizes[c] for c in term)
        if full != tuple(shape):
            operands[k] = F.broadcast_to(operands[k], full)
        operands[k], terms[k] = _diagonals(operands[k], term, sizes)
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
