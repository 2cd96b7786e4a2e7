"""The conformance table: ms.flops_collection on a compiled Cell, and FlopsUtilizationCollector's
argument errors (what it prints while training: tests/train/test_flops_collector.py, recorded by
tests/oracle/record_flops.py). Ids start with ``flops_``."""
group("flops")


@case("ms.flops_collection", inputs=[np.array([[0.5, -1.0], [2.0, 0.25], [1.0, 1.0]], np.float32)], graph=False,
      reason="it names a graph compiled by the call before it")
def flops_collection_dense(x):
    """Dense(2, 3) on 3 rows, compiled: 2 x 3 x 2 x 3 = 36 FLOPs in all four places."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = nn.Dense(2, 3, weight_init="ones")
        net(x)
        return ms.flops_collection(net.current_phase)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


@case("ms.flops_collection", inputs=[np.ones((4, 3, 6, 6), np.float32)], graph=False,
      reason="it names a graph compiled by the call before it")
def flops_collection_conv(x):
    """Conv2d(3, 5, 3, 'valid') on (4, 3, 6, 6): 2 x (4 x 5 x 4 x 4) x (3 x 3 x 3) FLOPs."""
    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = nn.Conv2d(3, 5, 3, pad_mode="valid", weight_init="ones")
        net(x)
        return ms.flops_collection(net.current_phase)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)


def _flops_err(name, kwargs):
    @case("train.FlopsUtilizationCollector", "ms.FlopsUtilizationCollector", id=f"flops_err_{name}", error=True,
          graph=False, reason="the arguments are checked when it is made")
    def f():
        return ms.train.FlopsUtilizationCollector(**kwargs)
    return f


for _name, _kw in (("data_size_zero", {"data_size": 0}), ("data_size_float", {"data_size": 1.5}),
                   ("full_flops_int", {"data_size": 1, "full_flops": 1}),
                   ("ma_str", {"data_size": 1, "enable_ma_collector": "no"})):
    _flops_err(_name, _kw)
