"""The process world behind pycompile.communication: MPI through mpi4py, imported only by init().

One `World` exists after init(): the MPI communicator of every group by name, and the binding of
the C runtime's collectives (csrc/comm.c) to the same MPI library, so compiled graphs reduce in
the native call of the step. Without mpi4py, init() makes a one-process world: every collective
is then the identity (a copy), in PyNative and in compiled code alike.

A failing rank must not leave the others waiting forever in a collective: init() installs a
sys.excepthook that prints the traceback under the rank's name and calls MPI_Abort, which makes
mpirun end every rank. A rank whose peers never join a collective (one exited, stopped, or called
fewer collectives) does not wait forever either: every collective, eager or compiled, runs in the
runtime (csrc/comm.c), started non-blocking and polled until PYCOMPILE_COMM_TIMEOUT or until a
member of its group has sent the exit notice each rank sends at exit (on `ctl`, a duplicate of
the world), and then raises. Eager collectives first all-gather what each rank passes (_agree.py),
so ranks whose shapes or dtypes differ get a clear error instead of MPI's truncation abort or a
silently mixed result.
"""
from __future__ import annotations

import atexit
import ctypes
import sys
import time
import traceback

import numpy as np

from pycompile.communication._agree import CHECK_SUFFIX

WORLD_NAMES = ("hccl_world_group", "nccl_world_group", "mccl_world_group")
MPI_FUNCS = ("MPI_Iallreduce", "MPI_Iallgather", "MPI_Ireduce_scatter_block", "MPI_Ibcast", "MPI_Test",
             "MPI_Iprobe", "MPI_Error_string")          # the order of csrc/comm.c's PC_MPI_*
EXIT_TAG = 7001                                          # the exit notice's tag on World.ctl
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
    ranks of its members in group-rank order. `check` duplicates the communicator for the records
    the ranks agree on before a collective (_agree.py), so a check that one rank makes and another
    does not never meets a collective carrying data; the runtime knows it as the group's name +
    CHECK_SUFFIX. `agreed`: hashes of compiled steps' collectives the ranks have agreed on."""

    def __init__(self, name, comm, world_ranks):
        self.name = name
        self.comm = comm
        self.world_ranks = tuple(world_ranks)
        self.check = None if comm is None else comm.Dup()
        self.agreed: set = set()

    def free(self, world: bool = False) -> None:
        if self.check is not None:
            self.check.Free()
            self.check = None
        if self.comm is not None and not world:
            self.comm.Free()

    @property
    def size(self) -> int:
        return len(self.world_ranks)


class World:
    def __init__(self, mpi=None):
        self.MPI = mpi
        self.ctl = None
        if mpi is None:
            self.rank, self.size, self.local_rank, self.local_size = 0, 1, 0, 1
            comm = None
        else:
            comm = mpi.COMM_WORLD
            self.rank, self.size = comm.Get_rank(), comm.Get_size()
            local = comm.Split_type(mpi.COMM_TYPE_SHARED, key=self.rank)
            self.local_rank, self.local_size = local.Get_rank(), local.Get_size()
            self.ctl = _control_comm(mpi)
        self.groups: dict = {}
        world = Group(WORLD_NAMES[0], comm, range(self.size))
        for name in WORLD_NAMES:
            self.groups[name] = world
        self._bind_runtime()
        self.shm = None
        if mpi is not None:
            if self.size > 1 and self.local_size == self.size:
                self.shm = _shared_segments(mpi, local)
            local.Free()

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
            # gradient buckets reduced in place (backend/c/collectives.py): MPI's own IN_PLACE value
            lib.pc_comm_set_in_place(_signed(int(MPI.IN_PLACE)))
        from pycompile.common import knobs
        lib.pc_comm_set_progress(knobs.get("PYCOMPILE_COMM_PROGRESS_US") if knobs.get("PYCOMPILE_COMM_PROGRESS") else -1)
        ctl = 0 if self.ctl is None else _signed(self.MPI._handleof(self.ctl))
        lib.pc_comm_set_watch(float(knobs.get("PYCOMPILE_COMM_TIMEOUT")), ctl, int(self.ctl is not None), EXIT_TAG,
                              self.rank, self.size)
        for name, group in self.groups.items():
            if group.comm is not None or self.MPI is None:
                self._bind_group(name, group)

    def rebind(self) -> None:
        """Bind the runtime again to the groups there are now (after destroy_group)."""
        self._bind_runtime()

    def _bind_group(self, name, group):
        from pycompile._rt import ffi, lib
        ranks = ffi.new("int[]", list(group.world_ranks))
        handle = 0 if group.comm is None else _signed(self.MPI._handleof(group.comm))
        bad = lib.pc_comm_add_group(name.encode(), handle, group.size, ranks) != 0
        if group.check is not None and not bad:
            check = _signed(self.MPI._handleof(group.check))
            bad = lib.pc_comm_add_group((name + CHECK_SUFFIX).encode(), check, group.size, ranks) != 0
        if bad:
            raise RuntimeError(f"For 'create_group', too many groups or a name longer than "
                               f"{126 - len(CHECK_SUFFIX)} bytes: {name!r}")

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
            if name != WORLD_NAMES[1] and name != WORLD_NAMES[2]:     # the world group is one object
                group.free(world=name == WORLD_NAMES[0])
        self.groups.clear()

    # ---- eager collectives (PyNative): NumPy buffers through the runtime's collectives ------------
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

    def _run(self, op_name, group, x, work, fn, out, *extra):
        """Agree with the group's other ranks on the call (_agree.eager), then run the runtime's
        collective `fn` (a pc_api member; `extra`: its reduction or root) from `work` (x as MPI
        sends it) into `out`; the result in x's dtype."""
        from pycompile.communication import _agree
        from pycompile._rt import ffi, lib
        if group.size > 1:
            _agree.eager(self, op_name, group, x, extra)
        count = out.size if op_name == "ReduceScatter" else work.size
        rc = getattr(lib.pc_get_api(), fn)(ffi.from_buffer(work), ffi.from_buffer(out), count,
                                           _DTYPE_CODES[work.dtype.str[1:]], *extra, group.name.encode())
        if rc != 0:
            raise RuntimeError(f"For '{op_name}', the collective on the group '{group.name}' failed: "
                               f"{_agree.last_error()}")
        return out.view(np.bool_) if x.dtype == np.bool_ else out.astype(x.dtype, copy=False)

    def allreduce(self, x, op, group_name):
        group = self.comm_of("AllReduce", group_name)
        x, work = self._mpi_arrays(x)
        if group.comm is None:
            return x.copy()
        return self._run("AllReduce", group, x, work, "allreduce", np.empty_like(work), op)

    def allgather(self, x, group_name):
        group = self.comm_of("AllGather", group_name)
        x, work = self._mpi_arrays(x)
        if group.comm is None:
            return x.copy()
        out = self._run("AllGather", group, x, work, "allgather", np.empty((group.size,) + work.shape, work.dtype))
        return out.reshape((group.size * x.shape[0],) + x.shape[1:]) if x.ndim else out

    def reduce_scatter(self, x, op, group_name):
        group = self.comm_of("ReduceScatter", group_name)
        x, work = self._mpi_arrays(x)
        if group.comm is None:
            return x.copy()
        out = np.empty((x.shape[0] // group.size,) + x.shape[1:], work.dtype)
        return self._run("ReduceScatter", group, x, work, "reduce_scatter", out, op)

    def broadcast(self, x, root, group_name):
        group = self.comm_of("Broadcast", group_name)
        x, work = self._mpi_arrays(x)
        if group.comm is None:
            return x.copy()
        return self._run("Broadcast", group, x, work, "broadcast", work.copy(), root)


# numpy dtype str (without byte order) -> pc_dtype code, for the dtypes _MPI_TYPES sends
_DTYPE_CODES = {"u1": 5, "i1": 1, "i2": 2, "i4": 3, "i8": 4, "u2": 6, "u4": 7, "u8": 8, "f4": 10, "f8": 11}


_EXIT = {"ctl": None, "registered": False}


def _control_comm(MPI):
    """The world's duplicate that carries exit notices (one per process, made by the first init())."""
    if _EXIT["ctl"] is None:
        _EXIT["ctl"] = MPI.COMM_WORLD.Dup()
        _EXIT["MPI"] = MPI
    if not _EXIT["registered"]:
        atexit.register(_announce_exit)
        _EXIT["registered"] = True
    return _EXIT["ctl"]


def _announce_exit():
    """At exit: tell every other rank this one is gone, so that a collective another rank waits
    in for this one fails within a second instead of at the timeout. After a collective of this
    rank failed, end with MPI_Abort instead: a request left behind could hold MPI_Finalize forever."""
    ctl, MPI = _EXIT["ctl"], _EXIT.get("MPI")
    if ctl is None or MPI is None or MPI.Is_finalized():
        return
    from pycompile._rt import lib
    if lib.pc_comm_faulted():
        sys.stdout.flush()
        sys.stderr.flush()
        MPI.COMM_WORLD.Abort(1)
    me = ctl.Get_rank()
    note = np.zeros(1, np.uint8)
    _EXIT["requests"] = [ctl.Isend(note, dest=k, tag=EXIT_TAG) for k in range(ctl.Get_size()) if k != me]
    _EXIT["note"] = note


_SEGMENTS: list = []


def _shared_segments(MPI, local):
    """One shared-memory segment per rank (an MPI shared window over `local`, the ranks of this
    machine, which are then the whole world) bound to the runtime's shared-memory all-reduce
    (csrc/comm_shm.c). Collective over the world: every rank makes the same choice (the size
    comes from rank 0). Returns the window (kept alive while the world is), or None where the
    knob turns it off or /dev/shm is too small. MPI frees the window at finalize."""
    import os
    from pycompile._rt import ffi, lib
    from pycompile.common import knobs
    cap = 0
    if local.Get_rank() == 0 and knobs.get("PYCOMPILE_COMM_SHM"):
        cap = knobs.get("PYCOMPILE_COMM_SHM_MB") << 20
        if os.path.isdir("/dev/shm"):          # (without it MPI places the window elsewhere: no bound)
            st = os.statvfs("/dev/shm")
            cap = min(cap, st.f_bavail * st.f_frsize // (8 * local.Get_size()))
        cap = cap // 4096 * 4096 if cap >= 1 << 20 else 0
    cap = local.bcast(cap, root=0)
    if cap == 0:
        return None
    # behind the data, as many bytes of arena for compiled steps' temporaries (direct all-reduces:
    # comm_shm.c); /dev/shm pages are only taken where they are written
    ctl = 8192                                  # comm_shm.c's PC_SHM_CTL
    win = MPI.Win.Allocate_shared(ctl + 2 * cap, 1, comm=local)
    bases = []
    for r in range(local.Get_size()):
        buf, _ = win.Shared_query(r)
        bases.append(np.frombuffer(buf, np.uint8).ctypes.data)
    np.frombuffer(win.Shared_query(local.Get_rank())[0], np.uint8)[:ctl] = 0    # this rank's flags
    local.Barrier()
    if lib.pc_comm_shm_bind(local.Get_size(), local.Get_rank(), ffi.new("int64_t[]", bases), cap, cap) != 0:
        return None
    _SEGMENTS.append(win)       # never freed before MPI's finalize: compiled modules' arenas live there
    return win


def supported_dtype(dt) -> bool:
    """MPI reduces this dtype natively (compiled collectives: float16 is not one)."""
    return dt.code in _MPI_TYPES


def _let_the_output_out(limit_s: float = 2.0) -> None:
    """Before MPI_Abort: wait (at most `limit_s`) until mpirun's proxy has read what this rank
    wrote to its stdout / stderr pipes, then a little more for it to pass it on. MPI_Abort makes
    mpirun kill every rank and its proxies; output still in a pipe is lost with them (a loaded
    machine lost a failing rank's whole traceback that way)."""
    import fcntl
    import termios
    sys.stdout.flush()
    sys.stderr.flush()
    t_end = time.monotonic() + limit_s
    for fd in (1, 2):
        while time.monotonic() < t_end:
            try:
                pending = np.zeros(1, np.int32)
                fcntl.ioctl(fd, termios.FIONREAD, pending, True)   # bytes not yet read (pipes, sockets)
            except OSError:                                        # not a pipe (a file, a terminal)
                break
            if pending[0] == 0:
                break
            time.sleep(0.005)
    time.sleep(0.1)


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
        _let_the_output_out()
        if cls is KeyboardInterrupt:
            previous(cls, exc, tb)
        try:
            MPI.COMM_WORLD.Abort(1)
        except Exception:       # noqa: BLE001  (already failing: the hook must still end the process)
            previous(cls, exc, tb)
    sys.excepthook = hook
