"""Issue 33: every MindSpore 2.10 name pycompile has is covered by a recorded conformance case that
pycompile passes (tools/name_coverage.py decides: a case naming it, or another spelling of the same
pycompile object), except the exemptions below, each with its reason.

Run with `-s` to see the per-namespace table (present / covered / uncovered).
"""
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))

import name_coverage as N  # noqa: E402

# why a present name has no case that counts; the cases named are in tests/conformance/cases_cov33_*.py
NO_KERNEL = "MindSpore 2.10's CPU build has no kernel for it in either mode: its recorded case is skipped"
MS_SPARSE = "the wheel's CPU PyNative call fails inside it ('Response is empty' / 'Get response before Open()')"
CRASH = "the wheel's process dies (SIGSEGV) calling it outside a distributed launch: nothing to record"
MS_BUG = "MindSpore 2.10's call raises an internal error (its case is marked oracle_bug / not recorded)"
KNOWN = "pycompile differs from the wheel on purpose or for now: KNOWN_DIFFERENCES in test_conformance.py"
FIXTURE = "needs a dataset in its full file format (CelebA, CIFAR, COCO, MindRecord, QMNIST, TFRecord, VOC)"
NO_RUN = ("the 2.10 wheel cannot run it in either mode ('no attr __infer__'); its documented behaviour is "
          "checked in both modes in tests/ops/test_prim36.py")
DATA_SINK = "the wheel refuses data sinking on the CPU (ValueError); pycompile runs the sunk loop"
SPLIT_MINDIR = "a multi-device MindIR split (Ascend parallel export) that the CPU wheel cannot run"
PIPELINE = "pipeline-parallel gradient accumulation: needs stages on several devices"
# recorded from the wheel in both modes by a test outside the table (its Parameters after an update, a
# run-time length, a printed message: not what the table's cases compare)
FIX33_NAMES = "recorded from the wheel in both modes by tests/ops/test_fix33_names.py (data/fix33_names.json)"
MODULE = "a module: its Primitives (CdistGrad) have recorded tests (tests/ops/test_fix33_names.py)"

NEEDS_ASCEND = ("the CPU wheel raises RuntimeError without the Ascend plugin (its case is marked oracle_bug; "
                "the unit test named there checks it)")

EXEMPT = {
    "Tensor.pin_memory": NEEDS_ASCEND,
    # FIX33_NAMES, MODULE
    "ops.Assert": FIX33_NAMES, "ops.operations.Assert": FIX33_NAMES,
    "ops.FusedAdaFactor": FIX33_NAMES, "ops.operations.FusedAdaFactor": FIX33_NAMES,
    "ops.FusedAdaFactorWithGlobalNorm": FIX33_NAMES, "ops.operations.FusedAdaFactorWithGlobalNorm": FIX33_NAMES,
    "ops.SubAndFilter": FIX33_NAMES, "ops.operations.SubAndFilter": FIX33_NAMES, "ops.auto_generate": MODULE,
    # CRASH
    "nn.DistributedGradReducer": CRASH, "ops.AllGather": CRASH, "ops.AllReduce": CRASH, "ops.Broadcast": CRASH,
    "ops.ReduceScatter": CRASH, "ops.all_reduce": CRASH, "ops.barrier": CRASH, "ops.operations.AllGather": CRASH,
    "ops.operations.AllReduce": CRASH, "ops.operations.Broadcast": CRASH, "ops.operations.ReduceScatter": CRASH,
    # DATA_SINK
    "ms.data_sink": DATA_SINK, "train.data_sink": DATA_SINK,
    # FIXTURE
    "dataset.CelebADataset": FIXTURE, "dataset.Cifar100Dataset": FIXTURE, "dataset.Cifar10Dataset": FIXTURE,
    "dataset.CocoDataset": FIXTURE, "dataset.MindDataset": FIXTURE, "dataset.QMnistDataset": FIXTURE,
    "dataset.TFRecordDataset": FIXTURE, "dataset.VOCDataset": FIXTURE,
    # NO_RUN
    "ops.ScalarToArray": NO_RUN, "ops.operations.ScalarToArray": NO_RUN, "ops.scalar_to_array": NO_RUN,
    "ops.functional.scalar_to_array": NO_RUN,
    # KNOWN
    "Tensor.requires_grad_": KNOWN, "communication.init": KNOWN, "ms.float_": KNOWN, "ms.int_": KNOWN,
    "ms.uint": KNOWN, "ops.Print": KNOWN, "ops.get_backend": KNOWN, "ops.get_rank": KNOWN,
    "ops.get_world_size": KNOWN, "ops.init_process_group": KNOWN, "ops.new_group": KNOWN,
    "ops.operations.Print": KNOWN,
    # MS_BUG
    "Tensor.fill_diagonal_": MS_BUG, "Tensor.kthvalue": MS_BUG, "Tensor.put_": MS_BUG,
    "Tensor.triangular_solve": MS_BUG, "ops.ApplyAdagradDA": MS_BUG, "ops.all_to_all_v_c": MS_BUG,
    "ops.operations.ApplyAdagradDA": MS_BUG,
    # MS_SPARSE
    "ops.coo2csr": MS_SPARSE, "ops.csr2coo": MS_SPARSE, "ops.csr_div": MS_SPARSE, "ops.csr_gather": MS_SPARSE,
    "ops.csr_mul": MS_SPARSE, "ops.csr_mv": MS_SPARSE, "ops.csr_reduce_sum": MS_SPARSE,
    "ops.functional.coo2csr": MS_SPARSE, "ops.functional.csr2coo": MS_SPARSE, "ops.functional.csr_div": MS_SPARSE,
    "ops.functional.csr_gather": MS_SPARSE, "ops.functional.csr_mul": MS_SPARSE, "ops.functional.csr_mv": MS_SPARSE,
    "ops.functional.csr_reduce_sum": MS_SPARSE,
    # NO_KERNEL
    "ops.MoveTo": NO_KERNEL, "ops.operations.MoveTo": NO_KERNEL, "ops.move_to": NO_KERNEL,
    "ops.functional.move_to": NO_KERNEL, "ops.stop_gradient_": NO_KERNEL, "ops.functional.stop_gradient_": NO_KERNEL,
    "Tensor.addcdiv": NO_KERNEL, "Tensor.addmm_": NO_KERNEL, "Tensor.bernoulli": NO_KERNEL,
    "Tensor.bernoulli_": NO_KERNEL, "Tensor.bitwise_not": NO_KERNEL, "Tensor.clamp_": NO_KERNEL,
    "Tensor.clone": NO_KERNEL, "Tensor.erfinv_": NO_KERNEL, "Tensor.exponential_": NO_KERNEL,
    "Tensor.fill_": NO_KERNEL, "Tensor.fills": NO_KERNEL, "Tensor.floor_": NO_KERNEL, "Tensor.fmin": NO_KERNEL,
    "Tensor.index_add_": NO_KERNEL, "Tensor.index_copy_": NO_KERNEL, "Tensor.index_fill_": NO_KERNEL,
    "Tensor.index_put_": NO_KERNEL, "Tensor.log_": NO_KERNEL, "Tensor.masked_fill_": NO_KERNEL,
    "Tensor.masked_scatter_": NO_KERNEL, "Tensor.nanquantile": NO_KERNEL, "Tensor.new_full": NO_KERNEL,
    "Tensor.nonzero": NO_KERNEL, "Tensor.normal_": NO_KERNEL, "Tensor.ormqr": NO_KERNEL, "Tensor.quantile": NO_KERNEL,
    "Tensor.random_": NO_KERNEL, "Tensor.repeat": NO_KERNEL, "Tensor.roll": NO_KERNEL, "Tensor.scatter_": NO_KERNEL,
    "Tensor.scatter_add_": NO_KERNEL, "Tensor.sigmoid_": NO_KERNEL, "Tensor.sign_": NO_KERNEL,
    "Tensor.tanh_": NO_KERNEL, "Tensor.to_": NO_KERNEL, "Tensor.uniform": NO_KERNEL, "Tensor.uniform_": NO_KERNEL,
    "Tensor.unique": NO_KERNEL, "Tensor.zero_": NO_KERNEL, "nn.AvgPool1dExt": NO_KERNEL, "nn.AvgPool2dExt": NO_KERNEL,
    "nn.AvgPool3dExt": NO_KERNEL, "nn.InstanceNorm1d": NO_KERNEL, "nn.InstanceNorm2d": NO_KERNEL,
    "nn.InstanceNorm3d": NO_KERNEL, "nn.L1LossExt": NO_KERNEL, "nn.LayerNormExt": NO_KERNEL,
    "nn.MatDet": NO_KERNEL, "nn.MatInverse": NO_KERNEL, "nn.MatrixDiag": NO_KERNEL, "nn.MatrixDiagPart": NO_KERNEL,
    "nn.MatrixSetDiag": NO_KERNEL, "nn.MaxPool2dExt": NO_KERNEL, "nn.MultilabelMarginLoss": NO_KERNEL,
    "nn.Roll": NO_KERNEL, "nn.SoftMarginLoss": NO_KERNEL, "nn.TrainOneStepWithLossScaleCell": NO_KERNEL,
    "nn.TripletMarginLoss": NO_KERNEL, "nn.Unfold": NO_KERNEL, "ops.ApplyKerasMomentum": NO_KERNEL,
    "ops.Einsum": NO_KERNEL, "ops.EuclideanNorm": NO_KERNEL, "ops.Fills": NO_KERNEL, "ops.FloatStatus": NO_KERNEL,
    "ops.Fmin": NO_KERNEL, "ops.LARSUpdate": NO_KERNEL, "nn.LARS": NO_KERNEL, "ops.LerpScalar": NO_KERNEL, "ops.MatrixExp": NO_KERNEL,
    "ops.NPUAllocFloatStatus": NO_KERNEL, "ops.NPUClearFloatStatus": NO_KERNEL, "ops.NPUGetFloatStatus": NO_KERNEL,
    "ops.Ormqr": NO_KERNEL, "ops.RmsNorm": NO_KERNEL, "ops.Roll": NO_KERNEL, "ops.SoftMarginLoss": NO_KERNEL,
    "ops.SparseApplyAdadelta": NO_KERNEL, "ops.SparseApplyFtrlV2": NO_KERNEL,
    "ops.SparseApplyProximalAdagrad": NO_KERNEL, "ops.SparseGatherV2": NO_KERNEL, "ops.SplitV": NO_KERNEL,
    "ops.TripletMarginLoss": NO_KERNEL, "ops.adaptive_avg_pool2d_ext": NO_KERNEL, "ops.add_layer_norm": NO_KERNEL,
    "ops.add_rms_norm": NO_KERNEL, "ops.all_gather_into_tensor": NO_KERNEL,
    "ops.all_gather_into_tensor_uneven": NO_KERNEL, "ops.all_to_all": NO_KERNEL, "ops.all_to_all_single": NO_KERNEL,
    "ops.batch_isend_irecv": NO_KERNEL, "ops.bernoulli_": NO_KERNEL, "ops.clamp_": NO_KERNEL,
    "ops.conv_transpose2d": NO_KERNEL, "ops.csr_mm": NO_KERNEL, "ops.einsum": NO_KERNEL,
    "ops.exponential_": NO_KERNEL, "ops.fills": NO_KERNEL, "ops.fmin": NO_KERNEL,
    "ops.functional.adaptive_avg_pool2d_ext": NO_KERNEL, "ops.functional.add_layer_norm": NO_KERNEL,
    "ops.functional.add_rms_norm": NO_KERNEL, "ops.functional.bernoulli_": NO_KERNEL,
    "ops.functional.clamp_": NO_KERNEL, "ops.functional.conv_transpose2d": NO_KERNEL,
    "ops.functional.csr_mm": NO_KERNEL, "ops.functional.einsum": NO_KERNEL, "ops.functional.exponential_": NO_KERNEL,
    "ops.functional.fills": NO_KERNEL, "ops.functional.fmin": NO_KERNEL, "ops.functional.inplace_sigmoid": NO_KERNEL,
    "ops.functional.layer_norm": NO_KERNEL, "ops.functional.list_len": NO_KERNEL,
    "ops.functional.make_coo_tensor": NO_KERNEL, "ops.functional.make_csr_tensor": NO_KERNEL,
    "ops.functional.make_sparse_tensor": NO_KERNEL, "ops.functional.make_tuple": NO_KERNEL,
    "ops.functional.matrix_exp": NO_KERNEL, "ops.functional.mse_loss_ext": NO_KERNEL,
    "ops.functional.nanquantile": NO_KERNEL, "ops.functional.normal_": NO_KERNEL, "ops.functional.ormqr": NO_KERNEL,
    "ops.functional.put_": NO_KERNEL, "ops.functional.quantile": NO_KERNEL, "ops.functional.random_": NO_KERNEL,
    "ops.functional.rms_norm": NO_KERNEL, "ops.functional.roll": NO_KERNEL,
    "ops.functional.rotary_position_embedding": NO_KERNEL, "ops.functional.soft_margin_loss": NO_KERNEL,
    "ops.functional.swiglu": NO_KERNEL, "ops.functional.take": NO_KERNEL, "ops.functional.tanh_": NO_KERNEL,
    "ops.functional.triplet_margin_loss": NO_KERNEL, "ops.functional.tuple_getitem": NO_KERNEL,
    "ops.functional.tuple_reversed": NO_KERNEL, "ops.functional.tuple_setitem": NO_KERNEL,
    "ops.functional.type_as": NO_KERNEL, "ops.functional.uniform_": NO_KERNEL, "ops.functional.zero_": NO_KERNEL,
    "ops.inplace_sigmoid": NO_KERNEL, "ops.layer_norm": NO_KERNEL, "ops.list_len": NO_KERNEL,
    "ops.make_coo_tensor": NO_KERNEL, "ops.make_csr_tensor": NO_KERNEL, "ops.make_sparse_tensor": NO_KERNEL,
    "ops.make_tuple": NO_KERNEL, "ops.matrix_exp": NO_KERNEL, "ops.mse_loss_ext": NO_KERNEL,
    "ops.nanquantile": NO_KERNEL, "ops.normal_": NO_KERNEL, "ops.operations.ApplyKerasMomentum": NO_KERNEL,
    "ops.operations.Einsum": NO_KERNEL, "ops.operations.EuclideanNorm": NO_KERNEL, "ops.operations.Fills": NO_KERNEL,
    "ops.operations.FloatStatus": NO_KERNEL, "ops.operations.Fmin": NO_KERNEL, "ops.operations.LARSUpdate": NO_KERNEL,
    "ops.operations.LerpScalar": NO_KERNEL, "ops.operations.MatrixExp": NO_KERNEL,
    "ops.operations.NPUAllocFloatStatus": NO_KERNEL, "ops.operations.NPUClearFloatStatus": NO_KERNEL,
    "ops.operations.NPUGetFloatStatus": NO_KERNEL, "ops.operations.Ormqr": NO_KERNEL,
    "ops.operations.RmsNorm": NO_KERNEL, "ops.operations.Roll": NO_KERNEL, "ops.operations.SoftMarginLoss": NO_KERNEL,
    "ops.operations.SparseApplyAdadelta": NO_KERNEL, "ops.operations.SparseApplyFtrlV2": NO_KERNEL,
    "ops.operations.SparseApplyProximalAdagrad": NO_KERNEL, "ops.operations.SparseGatherV2": NO_KERNEL,
    "ops.operations.SplitV": NO_KERNEL, "ops.operations.TripletMarginLoss": NO_KERNEL, "ops.ormqr": NO_KERNEL,
    "ops.put_": NO_KERNEL, "ops.quantile": NO_KERNEL, "ops.random_": NO_KERNEL, "ops.reduce": NO_KERNEL,
    "ops.reduce_scatter_tensor": NO_KERNEL, "ops.reduce_scatter_tensor_uneven": NO_KERNEL, "ops.rms_norm": NO_KERNEL,
    "ops.roll": NO_KERNEL, "ops.rotary_position_embedding": NO_KERNEL, "ops.soft_margin_loss": NO_KERNEL,
    "ops.swiglu": NO_KERNEL, "ops.take": NO_KERNEL, "ops.tanh_": NO_KERNEL, "ops.triplet_margin_loss": NO_KERNEL,
    "ops.tuple_getitem": NO_KERNEL, "ops.tuple_reversed": NO_KERNEL, "ops.tuple_setitem": NO_KERNEL,
    "ops.type_as": NO_KERNEL, "ops.uniform_": NO_KERNEL, "ops.zero_": NO_KERNEL,
    # PIPELINE
    "nn.PipelineGradReducer": PIPELINE,
    "ops.functional.Roll": NO_KERNEL, "ops.functional.auto_generate": MODULE,
    # SPLIT_MINDIR
    "ms.export_split_mindir": SPLIT_MINDIR, "train.export_split_mindir": SPLIT_MINDIR,
}

COVERAGE = N.measure()


def test_name_coverage_table(capsys):
    with capsys.disabled():
        print("\nMindSpore 2.10 names pycompile has, and those a recorded conformance case covers:")
        print(N.table(COVERAGE))
    assert sum(len(d["present"]) for d in COVERAGE.values()) > 3000


def test_every_present_name_is_covered_or_exempt():
    missing = sorted(f"{ns}.{n}" for ns, d in COVERAGE.items() for n in d["uncovered"] if f"{ns}.{n}" not in EXEMPT)
    assert not missing, ("these MindSpore names are present in pycompile but no recorded conformance case that "
                         "pycompile runs covers them (add a case in tests/conformance/cases_*.py and record it "
                         f"with record.py, or exempt it here with a reason): {missing}")


def test_exemptions_are_still_needed():
    covered = {f"{ns}.{n}" for ns, d in COVERAGE.items() for n in d["covered"]}
    present = {f"{ns}.{n}" for ns, d in COVERAGE.items() for n in d["present"]}
    stale = sorted(n for n in EXEMPT if n in covered or n not in present)
    assert not stale, f"remove these from EXEMPT (covered now, or no longer present): {stale}"


@pytest.mark.parametrize("spelled,expected", [("ops.relu", ("ops", "relu")), ("dataset.vision.Resize",
                                              ("dataset.vision", "Resize")), ("ops.operations.ReLU",
                                              ("ops.operations", "ReLU")), ("Tensor.abs", ("Tensor", "abs"))])
def test_case_names_split_by_the_longest_namespace(spelled, expected):
    assert N.split_name(spelled) == expected


def test_another_spelling_of_the_same_object_counts():
    import pycompile as ms
    case = type("C", (), {"names": ("ops.relu",)})
    cov = N.coverage([case])
    assert "relu" in cov["ops"]["covered"]
    if ms.ops.functional.relu is ms.ops.relu:
        assert "relu" in cov["ops.functional"]["covered"]
    assert "ReLU" not in cov["ops"]["covered"]       # a different object
    assert "float32" not in cov["ms"]["covered"]     # constants count only when named
