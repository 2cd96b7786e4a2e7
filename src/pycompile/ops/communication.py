"""`mindspore.ops.communication`: the communication functions (comm_func.py: collectives;
comm_p2p.py: point to point, objects, process groups), also under pycompile.ops."""
from pycompile.ops.comm_func import *  # noqa: F401,F403
from pycompile.ops.comm_func import __all__ as _collectives
from pycompile.ops.comm_p2p import *  # noqa: F401,F403
from pycompile.ops.comm_p2p import __all__ as _p2p

__all__ = list(_collectives) + list(_p2p)
