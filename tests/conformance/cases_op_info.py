"""The conformance table: `mindspore.ops.op_info_register` - the operator-information builders
(CustomRegOp, CpuRegOp, AiCPURegOp, TBERegOp, AkgAscendRegOp, AkgGpuRegOp), the DataType table and the
decorators op_info_register / custom_info_register (src/pycompile/ops/op_info_register.py). Pure
Python in both frameworks: the dicts get_op_info() returns and the builders' argument errors, recorded
from the wheel. Part of the table loaded after cases.py."""
group("op_info")

_PY = dict(graph=False, reason="builds operator information in Python, outside any compiled code")


def _dt():
    return ops.DataType


def _probe(x):
    return x + 1


@case("ops.CustomRegOp", "ops.DataType", **_PY)
def op_info_custom_ascend_example():
    return (ops.CustomRegOp().input(0, "x", "dynamic").output(0, "y")
            .dtype_format(_dt().F16_Default, _dt().F16_Default).dtype_format(_dt().F32_Default, _dt().F32_Default)
            .target("Ascend").get_op_info())


@case("ops.CustomRegOp", "ops.DataType", **_PY)
def op_info_custom_attrs_and_extensions():
    return (ops.CustomRegOp("my_add").input(0, "x1").input(1, "x2", "optional", shape="all").output(0, "y")
            .attr("scale", "required", "float", value="1.0").attr("axis", "optional", "listInt", default_value="1,2")
            .attr().input().dtype_format(_dt().F32_Default, _dt().F32_Default, _dt().I32_Default_Tuple,
                                         _dt().F32_Default)
            .fusion_type("OPAQUE").target("CPU").get_op_info())


@case("ops.CustomRegOp", **_PY)
def op_info_custom_unset_target():
    return ops.CustomRegOp("op").get_op_info(), ops.CustomRegOp("op").target().get_op_info()


@case("ops.CpuRegOp", "ops.AiCPURegOp", "ops.DataType", **_PY)
def op_info_cpu_and_aicpu():
    cpu = (ops.CpuRegOp("Add").input(0, "x", "required").input(1, "y", "optional", extra=1).output(0, "z")
           .attr("a", "int", "all").dtype_format(_dt().F32_Default, _dt().F32_Default, _dt().F32_Default))
    aicpu = (ops.AiCPURegOp("Add").fusion_type("OPAQUE").input(0, "x", "required").output(0, "y", "required")
             .attr("seed", "int").dtype_format(_dt().I32_Default, _dt().I32_Default))
    return cpu.get_op_info(), aicpu.get_op_info()


@case("ops.AkgGpuRegOp", "ops.AkgAscendRegOp", "ops.DataType", **_PY)
def op_info_akg():
    gpu = (ops.AkgGpuRegOp("Add").fusion_type("ELEMWISE").input(0, "x").output(0, "y").attr("a", "required", "int")
           .dtype_format(_dt().F32_Default, _dt().F32_Default))
    return gpu.get_op_info(), ops.AkgAscendRegOp("Add").input(0, "x", "dynamic").output(0, "y").get_op_info()


@case("ops.TBERegOp", "ops.DataType", **_PY)
def op_info_tbe_documented_example():
    return (ops.TBERegOp("Abs").fusion_type("ELEMWISE").async_flag(False).binfile_name("abs.so").compute_cost(10)
            .kernel_name("abs").partial_flag(True).op_pattern("formatAgnostic").input(0, "x", None, "required", None)
            .output(0, "y", True, "required", "all").dtype_format(_dt().F16_None, _dt().F16_None)
            .dtype_format(_dt().F32_None, _dt().F32_None).dtype_format(_dt().I32_None, _dt().I32_None).get_op_info())


@case("ops.TBERegOp", **_PY)
def op_info_tbe_flags():
    return (ops.TBERegOp("X").dynamic_shape(True).dynamic_rank_support(True).dynamic_compile_static(True)
            .need_check_supported(True).is_dynamic_format(True).reshape_type("NC").real_input_index([1, 0])
            .input_to_attr_index([1]).unknown_shape_formats(["ND"]).unknown_shape_formats(["NCHW", "ND"])
            .attr("a", "required", "int", "all", default_value="1").input(0, "x", False, "required", "all", "optional")
            .op_pattern().get_op_info())


@case("ops.DataType", **_PY)
def op_info_datatype_table():
    return sorted((k, v) for k, v in vars(ops.DataType).items() if not k.startswith("_"))


@case("ops.op_info_register", "ops.custom_info_register", "ops.CustomRegOp", **_PY)
def op_info_decorators():
    info = ops.CustomRegOp().input(0, "x").output(0, "y").get_op_info()

    @ops.custom_info_register(info, "{}")
    def f(x):
        return x + 1

    @ops.op_info_register('{"op_name": "X"}')
    def g(x):
        return x * 2
    return f(3), f.reg_info, f.__name__, g(4), g.__name__


@case("ops.op_info_register", **_PY)
def op_info_register_text_not_json():
    wrapped = ops.op_info_register("{op")(_probe)        # MindSpore's oplib logs an error and goes on
    return wrapped(2), wrapped.__name__


for _id, _names, _build in [
    ("op_info_err_name_int", "ops.CustomRegOp", lambda: ops.CustomRegOp(1)),
    ("op_info_err_name_blank", "ops.CustomRegOp", lambda: ops.CustomRegOp(" ")),
    ("op_info_err_index_str", "ops.CustomRegOp", lambda: ops.CustomRegOp("op").input("0", "x")),
    ("op_info_err_target_int", "ops.CustomRegOp", lambda: ops.CustomRegOp("op").target(1)),
    ("op_info_err_fusion_int", "ops.CustomRegOp", lambda: ops.CustomRegOp("op").fusion_type(1)),
    ("op_info_err_custom_row_size", "ops.CustomRegOp",
     lambda: ops.CustomRegOp("op").input(0, "x").dtype_format(*(("float32", "DefaultFormat"),) * 2)),
    ("op_info_err_row_not_tuple", "ops.CustomRegOp", lambda: ops.CustomRegOp("op").input(0, "x").dtype_format("f")),
    ("op_info_err_row_part_int", "ops.CpuRegOp", lambda: ops.CpuRegOp("op").input(0, "x").dtype_format(("f", 1))),
    ("op_info_err_cpu_row_size", "ops.CpuRegOp", lambda: ops.CpuRegOp("op").dtype_format(("f", "g"))),
    ("op_info_err_cpu_name_int", "ops.CpuRegOp", lambda: ops.CpuRegOp("Add").input(0, 1)),
    ("op_info_err_tbe_flag_int", "ops.TBERegOp", lambda: ops.TBERegOp("X").async_flag(1)),
    ("op_info_err_tbe_cost_str", "ops.TBERegOp", lambda: ops.TBERegOp("X").compute_cost("a")),
    ("op_info_err_tbe_index_int", "ops.TBERegOp", lambda: ops.TBERegOp("X").real_input_index(1)),
    ("op_info_err_tbe_shapes_str", "ops.TBERegOp", lambda: ops.TBERegOp("X").unknown_shape_formats("ND")),
    ("op_info_err_register_list", "ops.op_info_register", lambda: ops.op_info_register([1])(len)),
]:
    add(_id, (_names,), _build, [], error=True, **_PY)
