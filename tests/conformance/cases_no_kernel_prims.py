"""The conformance table: Primitives the 2.10 CPU wheel has no kernel for, whose constructors it does
run: ops.ConfusionMatrix (deprecated in MindSpore 2.8, kept in 2.10; src/pycompile/ops/entries/
confusion_matrix.py), ops.MoveTo / ops.move_to (ops/entries/tensor_misc.py) and
ops.moe_token_permute / moe_token_unpermute / moe_init_routing_v2 (ops/entries/moe_permute.py). Their value cases
record the missing kernel ("Unsupported op [ConfusionMatrix] on CPU"); the values are checked by
their documentation in tests/ops/test_confusion_matrix.py, test_tensor_misc.py and
test_moe_permute.py. The constructors' type checks and attributes, and the functions' argument
conversions, are recorded here. Part of the table loaded after cases.py."""
group("no_kernel_prims")

_CTOR = dict(graph=False, reason="a Primitive's constructor: its arguments are checked when it is built, outside "
                                 "the compiled code")


@case("ops.ConfusionMatrix", inputs=[ints(4, hi=4), ints(4, hi=4)])
def confusion_matrix_values(labels, predictions):
    return ops.ConfusionMatrix(4)(labels, predictions)


for _id, _build in [("confusion_matrix_num_classes_float", lambda: ops.ConfusionMatrix(4.0)),
                    ("confusion_matrix_num_classes_bool", lambda: ops.ConfusionMatrix(True)),
                    ("confusion_matrix_dtype_int", lambda: ops.ConfusionMatrix(4, 1))]:
    add(_id, ("ops.ConfusionMatrix",), _build, [], error=True, **_CTOR)


@case("ops.ConfusionMatrix", **_CTOR)
def confusion_matrix_attributes():
    p, q = ops.ConfusionMatrix(4, "float32"), ops.ConfusionMatrix(-1, "abc")     # values checked when called
    return p.attrs["num_classes"], p.attrs["dtype"], q.attrs["num_classes"], q.attrs["dtype"]


@case("ops.move_to", inputs=[rnd(2, 3)])
def move_to_cpu(x):
    return ops.move_to(x, "CPU")


@case("ops.MoveTo", inputs=[rnd(2, 3)])
def move_to_primitive_cpu(x):
    return ops.MoveTo()(x, "CPU", False)


# ---- moe_token_permute / moe_token_unpermute (ops/entries/moe_permute.py; values: test_moe_permute.py) ---
@case("ops.moe_token_permute", inputs=[rnd(6, 3), ints(6, hi=6)])
def moe_permute_values(tokens, indices):
    return ops.moe_token_permute(tokens, indices)


@case("ops.moe_token_permute", inputs=[rnd(3, 2), ints(3, hi=2)], error=True)
def moe_permute_err_num_out_float(tokens, indices):
    return ops.moe_token_permute(tokens, indices, 2.0)


@case("ops.moe_token_unpermute", inputs=[ints(3, hi=3)], error=True)
def moe_unpermute_err_numpy_tokens(rows):
    return ops.moe_token_unpermute(np.ones((3, 2), np.float32), rows)


@case("ops.moe_init_routing_v2", inputs=[rnd(3, 3, dtype="float16"), ints(3, 3, hi=3)])
def moe_routing_v2_values(x, expert_idx):
    return ops.moe_init_routing_v2(x, expert_idx, 3, 2, 3, 1, 0, False)


@case("ops.moe_init_routing_v2", inputs=[rnd(3, 3, dtype="float16"), ints(3, 3, hi=3)], error=True)
def moe_routing_v2_err_active_float(x, expert_idx):
    return ops.moe_init_routing_v2(x, expert_idx, 3.0, 2, 3, 0, 0, False)
