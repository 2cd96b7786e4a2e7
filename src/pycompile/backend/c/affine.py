"""Arena placement for a leading dimension known only at run time (backend/dynamic.py), used by the
memory planner (memory.Planner.allocate) while DYNAMIC[0] holds one of these allocators."""
from __future__ import annotations

ALIGN = 64                       # bytes: every arena slot's alignment and size granule


# ---- a leading dimension known only at run time (backend/dynamic.py) -----------------------------
# A graph compiled for a run-time batch size B is planned at sample sizes of B. Every slot's size
# is then a + b*B; the planner first records the sizes (SizeRecorder), then places slots with
# AffineAllocator: reuse of a free region only where it fits for every B (a and b both fit), sizes
# aligned per coefficient, so every offset is an affine a + b*B that holds for any B.
DYNAMIC: list = [None]


class SizeRecorder:
    """Records, per plan in order, the sizes of its slots (in a B-independent order)."""

    def __init__(self):
        self.plans: list = []

    def allocate(self, plan, spans):
        self.plans.append([s.nbytes for s, _, _ in spans])
        # a plain placement, so the sample still renders
        top = 0
        for s, _, _ in spans:
            s.offset = top
            top += max((s.nbytes + ALIGN - 1) // ALIGN * ALIGN, ALIGN)
        plan.arena_size = top


class AffineAllocator:
    """Places slots from their affine sizes (per plan, in recording order) for sample size `b`."""

    def __init__(self, sizes: list, b: int):
        self.sizes = sizes            # per plan: [(a, b)] per slot
        self.b = b
        self.k = 0

    def allocate(self, plan, spans):
        sizes = self.sizes[self.k]
        self.k += 1
        al = lambda x: (x + ALIGN - 1) // ALIGN * ALIGN       # noqa: E731
        order = sorted(range(len(spans)), key=lambda i: (spans[i][1], -sizes[i][1], -sizes[i][0], i))
        free: list = []
        active: list = []
        top = (0, 0)
        for i in order:
            s, start, end = spans[i]
            keep = []
            for a in active:
                (free if a[0] < start else keep).append(a[1:] if a[0] < start else a)
            active = keep
            need = (max(al(sizes[i][0]), ALIGN if sizes[i][1] == 0 else 0), al(sizes[i][1]))
            best = None
            for j, (off, size) in enumerate(free):
                if size[0] >= need[0] and size[1] >= need[1] and (
                        best is None or size[1] < free[best][1][1] or
                        (size[1] == free[best][1][1] and size[0] < free[best][1][0])):
                    best = j
            if best is not None:
                off, size = free.pop(best)
                if size != need:
                    free.append(((off[0] + need[0], off[1] + need[1]), (size[0] - need[0], size[1] - need[1])))
            else:
                off, top = top, (top[0] + need[0], top[1] + need[1])
            s.offset = off[0] + off[1] * self.b
            active.append((end, off, need))
        plan.arena_size = top[0] + top[1] * self.b
