"""The runtime's small-product kernels (csrc/gemm.c, gemm_avx2.c) keep their accumulators in
registers: no fused multiply-add in them reads a stack slot. The AVX-512 7 x 64 tile needs 28
accumulators, and with four op(B) vectors and the broadcast that was 33 live vectors for 32
registers: GCC kept one accumulator on the stack, a load-FMA-store chain through memory at every
k that held the kernel at 89 % of a Zen 5 core's FMA peak (225 against 247 GFLOP/s once fixed,
bench/gemm_kernel.py 512x64x784T). Read from the runtime's machine code with objdump (binutils,
which the C compiler's assembler comes with)."""
from __future__ import annotations

import platform
import re
import shutil
import subprocess

import pytest

# the AVX-512 driver (its 7 x 64 tiles inlined), the narrow tiles, the AVX2 form's panel (and GCC's clones of it)
KERNELS = ("pc_sgemm_ep_avx512", "pc_sgemm_narrow", "pc_a2_panel")
STACK_FMA = re.compile(r"\bvfn?m(add|sub)\w*\s+[-0-9a-fx]*\(%r[bs]p\)")


def _functions(path: str) -> dict:
    """{name: its instructions' text} for the runtime's product kernels."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", path], capture_output=True, text=True,
                         check=True).stdout
    found, name = {}, None
    for line in out.splitlines():
        head = re.match(r"[0-9a-f]+ <([^>]+)>:$", line)
        if head:
            name = next((k for k in KERNELS if head.group(1).split(".")[0] == k), None)
            if name:
                found.setdefault(name, [])
        elif name and line.strip():
            found[name].append(line)
    return found


# the kernels exist only in x86-64 builds of the runtime (csrc/gemm.c compiles them for x86 alone)
@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="the product kernels are x86-64 code")
def test_no_fused_multiply_add_of_the_product_kernels_reads_the_stack():
    # objdump is binutils', which the C compiler the suite needs comes with: missing is a failure
    assert shutil.which("objdump"), "objdump (binutils) not found beside the C compiler"
    import pycompile._rt as rt
    found = _functions(rt.__file__)
    assert set(found) == set(KERNELS), f"kernels not found in {rt.__file__}: {set(KERNELS) - set(found)}"
    for name, lines in found.items():
        fmas = [ln for ln in lines if re.search(r"\bvfn?m(add|sub)", ln)]
        assert len(fmas) >= 8, f"{name}: {len(fmas)} FMAs (not the kernel?)"
        spilled = [ln.strip() for ln in fmas if STACK_FMA.search(ln)]
        assert not spilled, f"{name}: FMAs on stack slots (an accumulator spilled): {spilled[:4]}"
