"""The conformance table: Tensor.init and Tensor.init_data - a Tensor made with `init=` (or by
`initializer()`) keeps its Initializer until init_data() / asnumpy() fills it; init_data() returns the
Tensor itself, and is MindSpore's TypeError for a Tensor made without one; a Parameter's `init` is None
and its init_data() returns it. Ids start with ``tinit_``."""
group("tensor_init")

_TI_HOST = dict(graph=False, reason="Tensor construction and its init state are host-side")
_TI_INIT = ms.common.initializer


def _ti_name(obj):
    return "None" if obj is None else type(obj).__name__


def _tinit_fill():
    t = Tensor(shape=(2, 3), dtype=ms.float32, init=_TI_INIT.One())
    before = _ti_name(t.init)
    same = t.init_data() is t
    return before, same, _ti_name(t.init), t


def _tinit_twice():
    t = Tensor(shape=(2,), dtype=ms.float32, init=_TI_INIT.Constant(3.0))
    t.init_data()
    return error_words(t.init_data)


def _tinit_asnumpy():
    t = Tensor(shape=(2, 2), dtype=ms.float32, init=_TI_INIT.Constant(-1.5))
    values = t.asnumpy()
    return values, _ti_name(t.init)


def _tinit_initializer():
    t = _TI_INIT.initializer("ones", (2, 2), ms.float32)
    return _ti_name(t.init), t.init_data()


def _tinit_plain():
    t = Tensor(np.ones(3, np.float32))
    return _ti_name(t.init), error_words(t.init_data)


def _tinit_parameter():
    p = Parameter(Tensor(shape=(2,), dtype=ms.float32, init=_TI_INIT.One()), name="p")
    return _ti_name(p.init), p.init_data() is p, p.init_data()


for _name, _fn in (("fill", _tinit_fill), ("twice", _tinit_twice), ("asnumpy", _tinit_asnumpy),
                   ("initializer", _tinit_initializer), ("plain", _tinit_plain), ("parameter", _tinit_parameter)):
    add(f"tinit_{_name}", ("Tensor.init", "Tensor.init_data"), _fn, **_TI_HOST)
