"""The conformance table: affine_grid / AffineGrid and grid_sample / GridSampler2D / GridSampler3D
(src/pycompile/ops/entries/sampling.py), every mode and padding with grids reaching past the
borders. Part of the table loaded after cases.py."""
group("sampling")

_THETA2 = np.array([[[0.8, 0.5, 0.1], [-0.5, 0.8, -0.2]], [[1.2, 0.0, 0.3], [0.1, 0.9, 0.0]]], np.float32)
_THETA3 = np.array([[[0.8, 0.2, 0.0, 0.1], [-0.3, 0.9, 0.1, 0.0], [0.0, 0.1, 1.1, -0.2]]], np.float32)


@case("ops.affine_grid", "ops.AffineGrid", inputs=[_THETA2, _THETA3])
def sampling_affine_grid(t2, t3):
    return (ops.affine_grid(t2, (2, 3, 3, 4)), ops.affine_grid(t2, (2, 1, 2, 5), True),
            ops.AffineGrid(align_corners=True)(t3, (1, 2, 2, 3, 2)), ops.affine_grid(t3, (1, 1, 3, 2, 2)))


@case("ops.affine_grid", inputs=[_THETA2], error=True)
def sampling_affine_grid_bad_size(t2):
    return ops.affine_grid(t2, (2, 3, 3))


@case("ops.grid_sample", inputs=[rnd(2, 3, 4, 5), rnd(2, 3, 4, 2, lo=-1.4, hi=1.4)])
def sampling_grid_sample_2d(x, g):
    gs = ops.grid_sample
    return (gs(x, g, "bilinear", "zeros", False), gs(x, g, "bilinear", "zeros", True),
            gs(x, g, "bilinear", "border", False), gs(x, g, "bilinear", "border", True),
            gs(x, g, "bilinear", "reflection", False), gs(x, g, "bilinear", "reflection", True),
            gs(x, g, "nearest", "zeros", False), gs(x, g, "nearest", "zeros", True),
            gs(x, g, "nearest", "border", False), gs(x, g, "nearest", "border", True),
            gs(x, g, "nearest", "reflection", False), gs(x, g, "nearest", "reflection", True))


@case("ops.GridSampler2D", inputs=[rnd(1, 2, 3, 3), rnd(1, 2, 5, 2, lo=-1.2, hi=1.2)])
def sampling_grid_sampler_2d_prim(x, g):
    return (ops.GridSampler2D()(x, g), ops.GridSampler2D("nearest", "border", True)(x, g),
            ops.GridSampler2D("bilinear", "reflection", False)(x, g))


@case("ops.grid_sample", "ops.GridSampler3D", inputs=[rnd(1, 2, 3, 4, 3), rnd(1, 2, 3, 2, 3, lo=-1.3, hi=1.3)])
def sampling_grid_sample_3d(x, g):
    return (ops.grid_sample(x, g), ops.grid_sample(x, g, "nearest", "border", True),
            ops.GridSampler3D("bilinear", "reflection", True)(x, g), ops.grid_sample(x, g, padding_mode="border"))


@case("ops.grid_sample", inputs=[rnd(1, 1, 3, 3), rnd(1, 2, 2, 2)], error=True)
def sampling_grid_sample_bad_mode(x, g):
    return ops.grid_sample(x, g, "bicubic")
