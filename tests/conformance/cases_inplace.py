"""The conformance table: in-place Tensor methods (src/pycompile/ops/entries/inplace.py).

MindSpore 2.10's CPU wheel returns the right values from these, but in PyNative it returns a new
tensor and leaves `self` unchanged (and has no CPU kernel for fill_ / zero_ / clamp_ /
masked_fill_ / log_ / sigmoid_ / tanh_ / floor_ / sign_ / the random fills). The cases below record
the returned values, which its PyNative and graph modes agree on; that `self` itself changes is
tested against NumPy in tests/ops/test_inplace_methods.py. Part of the table loaded after cases.py."""
group("inplace")


@case("Tensor.add_", inputs=[rnd(2, 3), rnd(3)])
def ip_add(x, y):
    return x.add_(y)


@case("Tensor.add_", inputs=[rnd(2, 3)])
def ip_add_alpha(x):
    return x.add_(2.0, alpha=3)


@case("Tensor.add_", inputs=[ints(2, 3)])
def ip_add_int(x):
    return x.add_(2)


@case("Tensor.sub_", inputs=[rnd(2, 3), rnd(2, 3)])
def ip_sub(x, y):
    return x.sub_(y, alpha=2)


@case("Tensor.mul_", inputs=[rnd(2, 3), rnd(1, 3)])
def ip_mul(x, y):
    return x.mul_(y)


@case("Tensor.div_", inputs=[rnd(2, 3), rnd(2, 3, lo=0.5, hi=2)])
def ip_div(x, y):
    return x.div_(y)


@case("Tensor.div_", inputs=[rnd(2, 3, lo=-5, hi=5)], graph=False,
      reason="the wheel has no CPU kernel for InplaceDivMods in graph mode")
def ip_div_floor(x):
    return x.div_(2.0, rounding_mode="floor")


@case("Tensor.floor_divide_", inputs=[rnd(2, 3, lo=-5, hi=5)])
def ip_floor_divide(x):
    return x.floor_divide_(2.0)


@case("Tensor.remainder_", inputs=[rnd(2, 3, lo=-5, hi=5)])
def ip_remainder(x):
    return x.remainder_(2.0)


@case("Tensor.exp_", inputs=[rnd(2, 3)], graph=False,
      reason="the wheel has no CPU kernel for InplaceExp in graph mode")
def ip_exp(x):
    return x.exp_()


@case("Tensor.copy_", inputs=[rnd(2, 3), rnd(2, 3)])
def ip_copy(x, y):
    return x.copy_(y)
