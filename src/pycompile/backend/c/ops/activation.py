"""The activation rows (pycompile.ops.defs.activation) have no C of their own: each is a
decomposition into core rows (`decompose=` on the row), which the pre-render pass
(compiler/passes/decompose.py) puts in its place, so their C is the fused C of their parts
(docs/architecture.md, "The core"). Before that, this module held one hand-written expression
per activation (git history: max(x, 0) + log1p(exp(-|x|)) for Softplus and its relatives, which
the decompositions write with rows)."""
