"""The process world behind pycompile.communication: MPI through mpi4py, imported only by init().

One `World` exists after init(): the MPI communicator of every group by name, and the binding of
the C runtime's collectives (csrc/comm.c) to the same MPI library, so compiled graphs reduce in
the native call of the step. Without mpi4py, init() makes a one-process world: every collective
is then the identity (a copy), in PyNative and in compiled code alike.

A failing rank must not leave the others waiting forever in a collective: init() installs a
sys.excepthook that prints the traceback under the rank's name and calls MPI_Abort, which makes
mpirun end every rank.
"""
from __future__ import annotations

import ctypes
import sys
import traceback

import numpy as np


WORLD_NAMES = ("hccl_world_group", "nccl_world_group", "mccl_world_group")
MPI_FUNCS = ("MPI_Allreduce", "MPI_Allgather", "MPI_Reduce_scatter_block", "MPI_Bcast", "MPI_Iallreduce",
             "MPI_Wait", "MPI_Test")
# pc_dtype code -> mpi4py datatype name (float16 has none in MPI 3: eager reduces it as float32;
# bool goes as bytes: max / min are or / and)
_MPI_TYPES = {0: "UINT8_T", 1: "INT8_T", 2: "INT16_T", 3: "INT32_T", 4: "INT64_T", 5: "UINT8_T", 6: "UINT16_T",
              7: "UINT32_T", 8: "UINT64_T", 10: "FLOAT", 11: "DOUBLE"}
REDUCE_OPS = ("sum", "max", "min", "prod")          # ReduceOp codes 0..3 (csrc/comm.c)


def _signed(handle: int) -> int:
    """An MPI handle as the int64 the runtime stores (mpi4py may give MPICH's int handles
    sign-extended to 64 unsigned bits)."""
    handle = int(handle) & 0xFFFFFFFFFFFFFFFF
    return handle - (1 << 64) if handle >= 1 << 63 else handle


class Group:
    """A communication group: its MPI communicator (None in the one-process world) and the world
    ranks of its members in group-rank order."""

    def __init__(self, name, comm, world_ranks):
        self.name = name
        self.comm = comm
        self.world_ranks = tuple(world_ranks)

    @property
    def size(self) -> int:
        return len(self.world_ranks)


class World:
    def __init__(self, mpi=None):
        self.MPI = mpi
        if mpi is None:
            self.rank, self.size, self.local_rank, self.local_size = 0, 1, 0, 1
            comm = None
        else:
            comm = mpi.COMM_WORLD
            self.rank, self.size = comm.Get_rank(), comm.Get_size()
            local = comm.Split_type(mpi.COMM_TYPE_SHARED, key=self.rank)
            self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
            local.Free()
        self.groups: dict = {}
        world = Group(WORLD_NAMES[0], comm, range(self.size))
        for name in WORLD_NAMES:
            self.groups[name] = world
        self._bind_runtime()

    # ---- the C runtime's collectives ------------------------------------------------------------
    def _bind_runtime(self):
        from pycompile._rt import ffi, lib
        if self.MPI is None:
            lib.pc_comm_bind(-1, ffi.new("int64_t[]", len(MPI_FUNCS)), len(MPI_FUNCS), ffi.new("int64_t[12]"),
                             ffi.new("int64_t[4]"))
        else:
            MPI = self.MPI
            # dlsym on mpi4py's extension module searches its dependencies: the libmpi it runs on
            ext = ctypes.CDLL(MPI.__file__)
            fns = [ctypes.cast(getattr(ext, name), ctypes.c_void_p).value or 0 for name in MPI_FUNCS]
            dtypes = [0] * 12
            for code, name in _MPI_TYPES.items():
                t = getattr(MPI, name, None)
                if t is not None and t != MPI.DATATYPE_NULL:
                    dtypes[code] = _signed(MPI._handleof(t))
            ops = [_signed(MPI._handleof(getattr(MPI, n.upper()))) for n in REDUCE_OPS]
            size = MPI._sizeof(MPI.Comm)
            lib.pc_comm_bind(size, ffi.new("int64_t[]", fns), len(fns), ffi.new("int64_t[]", dtypes),
                             ffi.new("int64_t[]", ops))
        from pycompile.common import knobs
        lib.pc_comm_set_progress(1 if knobs.get("PYCOMPILE_COMM_PROGRESS") else 0)
        for name, group in self.groups.items():
            if group.comm is not None or self.MPI is None:
                self._bind_group(name, group)

    def rebind(self) -> None:
        """Bind the runtime again to the groups there are now (after destroy_group)."""
        self._bind_runtime()

    def _bind_group(self, name, group):
        from pycompile._rt import lib
        handle = 0 if group.comm is None else _signed(self.MPI._handleof(group.comm))
        if lib.pc_comm_add_group(name.encode(), handle, group.size) != 0:
            raise RuntimeError(f"For 'create_group', too many groups or a name longer than 127 bytes: {name!r}")

    def add_group(self, name, world_ranks):
        if self.MPI is None:
            group = Group(name, None, world_ranks)
        else:
            MPI = self.MPI
            world = MPI.COMM_WORLD
            sub = world.Get_group().Incl(list(world_ranks))
            comm = world.Create_group(sub) if self.rank in world_ranks else None
            sub.Free()
            group = Group(name, comm, world_ranks)
        self.groups[name] = group
        if group.comm is not None or self.MPI is None:
            self._bind_group(name, group)
        return group

    def release(self):
        from pycompile._rt import lib
        lib.pc_comm_unbind()
        for name, group in list(self.groups.items()):
            if name not in WORLD_NAMES and group.comm is not None:
                group.comm.Free()
        self.groups.clear()

    # ---- eager collectives (PyNative): NumPy buffers through mpi4py ------------------------------
    def comm_of(self, op_name, group_name):
        group = self.groups.get(group_name)
        if group is None:
            raise RuntimeError(f"For '{op_name}', the group '{group_name}' does not exist: create it with "
                               f"create_group first")
        if self.MPI is not None and group.comm is None:
            raise RuntimeError(f"For '{op_name}', rank {self.rank} is not a member of the group '{group_name}'")
        return group

    def _mpi_arrays(self, x):
        x = np.ascontiguousarray(x)
        # MPI has no float16 (MPI 3): reduce as float32 and round back
        work = x.astype(np.float32) if x.dtype == np.float16 else x
        work = work.view(np.uint8) if work.dtype == np.bool_ else work
        return x, work

    def allreduce(self, x, op, group_name):
        group = self.comm_of("AllReduce", group_name)
        x, work = self._mpi_arrays(x)
        if group.comm is None:
            return x.copy()
        out = np.empty_like(work)
        group.comm.Allreduce(work, out, op=getattr(self.MPI, REDUCE_OPS[op].upper()))
        return out.view(np.bool_) if x.dtype == np.bool_ else out.astype(x.dtype, copy=False)

    def allgather(self, x, group_name):
        group = self.comm_of("AllGather", group_name)
        x, work = self._mpi_arrays(x)
        if group.comm is None:
            return x.copy()
        out = np.empty((group.size,) + work.shape, work.dtype)
        group.comm.Allgather(work, out)
        out = out.reshape((group.size * x.shape[0],) + x.shape[1:]) if x.ndim else out
        return out.view(np.bool_) if x.dtype == np.bool_ else out.astype(x.dtype, copy=False)

    def reduce_scatter(self, x, op, group_name):
        group = self.comm_of("ReduceScatter", group_name)
        x, work = self._mpi_arrays(x)
        if group.comm is None:
            return x.copy()
        out = np.empty((x.shape[0] // group.size,) + x.shape[1:], work.dtype)
        group.comm.Reduce_scatter_block(work, out, op=getattr(self.MPI, REDUCE_OPS[op].upper()))
        return out.view(np.bool_) if x.dtype == np.bool_ else out.astype(x.dtype, copy=False)

    def broadcast(self, x, root, group_name):
        group = self.comm_of("Broadcast", group_name)
        x, work = self._mpi_arrays(x)
        out = work.copy()
        if group.comm is not None:
            group.comm.Bcast(out, root=root)
        return out.view(np.bool_) if x.dtype == np.bool_ else out.astype(x.dtype, copy=False)


def supported_dtype(dt) -> bool:
    """MPI reduces this dtype natively (compiled collectives: float16 is not one)."""
    return dt.code in _MPI_TYPES


def install_abort_hook(world: World) -> None:
    """An uncaught exception in one rank ends every rank (MPI_Abort) after printing its traceback
    under the rank's name, instead of leaving the others blocked in their next collective."""
    if world.MPI is None or world.size == 1:
        return
    previous = sys.excepthook
    rank, size, MPI = world.rank, world.size, world.MPI

    def hook(cls, exc, tb):
        text = "".join(traceback.format_exception(cls, exc, tb))
        sys.stderr.write(f"[pycompile rank {rank}/{size}] uncaught {cls.__name__}; aborting every rank:\n{text}")
        sys.stderr.flush()
        if cls is KeyboardInterrupt:
            previous(cls, exc, tb)
        try:
            MPI.COMM_WORLD.Abort(1)
        except Exception:       # noqa: BLE001  (already failing: the hook must still end the process)
            previous(cls, exc, tb)
    sys.excepthook = hook
