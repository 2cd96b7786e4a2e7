"""The conformance table: Parameter updates (assign, Depend) and the composite machinery
(vmap, MultitypeFuncGraph, HyperMap, Map). Part of the table loaded after cases.py."""
# ==== effects and composites =========================================================================
group("effects")


class AssignNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.zeros((2, 3), np.float32)), name="p")

    def construct(self, x):
        ops.assign(self.p, x)
        return self.p * 2


class AssignClassNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.ones((2, 3), np.float32)), name="p")
        self.assign = ops.Assign()
        self.depend = ops.Depend()

    def construct(self, x):
        old = self.p + 0
        out = self.depend(old, self.assign(self.p, x + 1))
        return out, self.p * 1


class DependNet(nn.Cell):
    def __init__(self):
        super().__init__()
        self.p = Parameter(Tensor(np.full((2, 3), 5.0, np.float32)), name="p")

    def construct(self, x):
        y = ops.depend(x * 2, ops.assign(self.p, x))
        return y + self.p


@cell("ops.assign", "nn.Cell", "ms.Parameter", inputs=[rnd(2, 3)])
def assign_in_cell():
    return AssignNet()


@cell("ops.Assign", "ops.Depend", "nn.Cell", inputs=[rnd(2, 3)])
def cls_Assign_Depend():
    return AssignClassNet()


@cell("ops.depend", "ops.assign", "nn.Cell", inputs=[rnd(2, 3)])
def depend_fn():
    return DependNet()


def _row_norm(a):
    return ops.sqrt(ops.sum(a * a))


@case("ops.vmap", inputs=[rnd(4, 3)])
def vmap_rows(x):
    return ops.vmap(_row_norm)(x)


def _scale_add(a, b):
    return a * 2 + b


@case("ops.vmap", inputs=[rnd(4, 3), rnd(3, 4)])
def vmap_in_axes(x, y):
    return ops.vmap(_scale_add, in_axes=(0, 1), out_axes=1)(x, y)


add_mt = new(ops, "MultitypeFuncGraph", "add_mt")


@add_mt.register("Tensor", "Tensor")
def _add_tensors(x, y):
    return x + y


@add_mt.register("Number", "Tensor")
def _add_number_tensor(x, y):
    return x * y


@case("ops.MultitypeFuncGraph", "ops.HyperMap", inputs=[rnd(2, 3), rnd(2, 3)])
def hypermap_multitype(x, y):
    return ops.HyperMap()(add_mt, (x, 2.0), (y, y))


@case("ops.Map", "ops.MultitypeFuncGraph", inputs=[rnd(2, 3), rnd(2, 3)])
def map_multitype(x, y):
    return ops.Map()(add_mt, (x, y), (y, x))
