"""The conformance table: ms.Layout (a device matrix with axis names; called with axis names per tensor
dimension it gives the tensor map, `to_dict()`) and ms.shard (outside semi-auto / auto parallel the
function or Cell runs as it is). Ids start with ``layout_``."""
group("layout_shard")

_LY_HOST = dict(graph=False, reason="Layout and shard are set up on the host")


def _ly_dict(layout):
    d = layout.to_dict()
    return tuple((k, repr(d[k])) for k in sorted(d))


def _ly_case(name, fn):
    add(f"layout_{name}", "ms.Layout", fn, **_LY_HOST)


_ly_case("plain", lambda: _ly_dict(ms.Layout((2, 2, 2), ("dp", "sp", "mp"))("dp", "mp")))
_ly_case("none_axis", lambda: _ly_dict(ms.Layout((2, 4), ("dp", "mp"))("dp", "None")))
_ly_case("tuple_axis", lambda: _ly_dict(ms.Layout((2, 2, 2), ("dp", "sp", "mp"))(("dp", "sp"), "mp")))
_ly_case("tuple_with_none", lambda: _ly_dict(ms.Layout((2, 2), ("dp", "mp"))(("dp", "None"), "mp")))
_ly_case("interleaved", lambda: _ly_dict(ms.Layout((2, 2, 2), ("dp", "sp", "interleaved_parallel"))(
    ("dp", "interleaved_parallel"), "sp")))
_ly_case("rank_list", lambda: _ly_dict(ms.Layout((2, 2), ("dp", "mp"), rank_list=[3, 2, 1, 0])("mp", "dp")))
_ly_case("reused_layout", lambda: (lambda lay: (_ly_dict(lay("dp", "mp")), _ly_dict(lay("mp", "None"))))(
    ms.Layout((2, 2), ("dp", "mp"))))
_ly_case("to_dict_before_call", lambda: error_words(lambda: ms.Layout((2, 2), ("dp", "mp")).to_dict()))


def _ly_called_in_place():
    lay = ms.Layout((2, 2), ("dp", "mp"))
    lay("mp", "dp")
    return _ly_dict(lay)


_ly_case("call_sets_the_layout_itself", _ly_called_in_place)
for _name, _fn in (
        ("err_matrix_list", lambda: ms.Layout([2, 2], ("dp", "mp"))),
        ("err_alias_list", lambda: ms.Layout((2, 2), ["dp", "mp"])),
        ("err_lengths", lambda: ms.Layout((2, 2), ("dp",))),
        ("err_matrix_float", lambda: ms.Layout((2.0, 2), ("dp", "mp"))),
        ("err_alias_int", lambda: ms.Layout((2, 2), ("dp", 1))),
        ("err_alias_empty", lambda: ms.Layout((2, 2), ("dp", ""))),
        ("err_alias_none", lambda: ms.Layout((2, 2), ("dp", "None"))),
        ("err_alias_repeated", lambda: ms.Layout((2, 2), ("dp", "dp"))),
        ("err_interleaved_not_last", lambda: ms.Layout((2, 2), ("interleaved_parallel", "dp"))),
        ("err_rank_list_tuple", lambda: ms.Layout((2, 2), ("dp", "mp"), rank_list=(0, 1, 2, 3))),
        ("err_rank_list_str", lambda: ms.Layout((2, 2), ("dp", "mp"), rank_list=[0, 1, "2", 3])),
        ("err_unknown_axis", lambda: ms.Layout((2, 2), ("dp", "mp"))("dp", "xx")),
        ("err_axis_twice", lambda: ms.Layout((2, 2), ("dp", "mp"))("dp", "dp")),
        ("err_axis_twice_in_tuple", lambda: ms.Layout((2, 2), ("dp", "mp"))(("dp", "mp"), "mp"))):
    _ly_case(_name, lambda _fn=_fn: error_words(_fn))


class _LyNet(nn.Cell):
    def construct(self, x):
        return x * 2 + 1


def _ly_shard_fn(x, y):
    return ops.matmul(x, y) + 1


@case("ms.shard", inputs=[rnd(2, 3), rnd(3, 2)], **_LY_HOST)
def layout_shard_function(x, y):
    return ms.shard(_ly_shard_fn, in_strategy=((1, 1), (1, 1)))(x, y)


@case("ms.shard", inputs=[rnd(2, 3)], **_LY_HOST)
def layout_shard_cell(x):
    return ms.shard(_LyNet(), in_strategy=((2, 1),), out_strategy=((2, 1),))(x)


@case("ms.shard", inputs=[rnd(2, 3)], **_LY_HOST)
def layout_shard_layout_strategy(x):
    lay = ms.Layout((2, 1), ("dp", "mp"))
    return ms.shard(_LyNet(), in_strategy=(lay("dp", "mp"),))(x)


def _ly_shard_err(name, **kw):
    def run():
        return error_words(lambda: ms.shard(_LyNet(), **kw))
    add(f"layout_shard_err_{name}", "ms.shard", run, **_LY_HOST)


_ly_shard_err("in_strategy_list", in_strategy=[(1, 1)])
_ly_shard_err("out_strategy_list", in_strategy=((1, 1),), out_strategy=[(1, 1)])
_ly_shard_err("parameter_plan_list", in_strategy=((1, 1),), parameter_plan=[1])
