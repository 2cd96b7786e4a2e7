"""`mindspore.ops.operations.nn_ops` under pycompile's name: every class-form op of
`pycompile.ops.operations` (the same objects; pycompile does not split them by MindSpore's files)."""
from pycompile.ops.operations import *  # noqa: F401,F403
from pycompile.ops.operations import __all__  # noqa: F401
# the Primitives MindSpore keeps in nn_ops only (not in ops.operations)
from pycompile.ops.entries.flash_attention import FlashAttentionScore  # noqa: F401,E402
from pycompile.ops.entries.infer_attention import IncreFlashAttention, PromptFlashAttention  # noqa: F401,E402
