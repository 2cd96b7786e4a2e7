"""Image Primitives of MindSpore 2.10 that were missing (img34), each a decomposition:

* HSVToRGB: MindSpore's CPU formula (the sixth of the turn selects the channels; float16 computed in
  float32);
* AdjustHue / AdjustSaturation: RGB -> (hue, range) or HSV, the hue shifted (wrapped into one turn) or
  the saturation scaled and clipped to [0, 1], -> RGB, computed in float32 as MindSpore's CPU kernels;
* ResizeArea: TensorFlow's area resize (each output pixel the mean of the input area it covers),
  float32; ScaleAndTranslate: TensorFlow's scale_and_translate (a separable resampling with one of
  eight kernels, rows first), float32. Both gather the input along each axis tap by tap with weights
  computed from the shapes (and, for ScaleAndTranslate, the scale and translation values), summing in
  MindSpore's order;
* ExtractGlimpse: windows of `size` cut at each image's offset, out-of-image pixels filled with zeros,
  U(-1, 1) or max(0, N(10, 0.5)) noise;
* ExtractVolumePatches: the (kd, kh, kw) patches of an (N, C, D, H, W) input, VALID or SAME (zero)
  padding, as channels ordered (kd, kh, kw, C).

The sizes that set an output's shape (ResizeArea's, ScaleAndTranslate's, ExtractGlimpse's `size`) and
the values that set ScaleAndTranslate's weights are MindSpore's value-depend inputs: known in PyNative,
a constant or an argument of the compiled call in graph code (image_img33.shape_values). Values
recorded from the wheel in tests/conformance/cases_img34.py.
"""
import functools
import inspect
import math

import numpy as np

from pycompile.common import dtype as mstype
from pycompile.ops import functional as F
from pycompile.ops._table import OpRuntimeError, OpTypeError, OpValueError
from pycompile.ops.entries.image_img33 import shape_values
from pycompile.ops.entry import ENTRIES, FLOAT, Arg, op_entry

_F32 = frozenset({mstype.float32})
_I32 = frozenset({mstype.int32})
_AREA_DTYPES = frozenset({mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32,
                          mstype.int64, mstype.uint8, mstype.uint16})
_SCALE_DTYPES = frozenset({mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32,
                           mstype.int64})
_PATCH_DTYPES = frozenset({mstype.float16, mstype.float32, mstype.float64, mstype.int8, mstype.int16, mstype.int32,
                           mstype.int64, mstype.uint8, mstype.uint16, mstype.uint32, mstype.uint64})


def _const(v, dtype=None):
    from pycompile.common.tensor import Tensor
    return Tensor._wrap(np.array(v, dtype=dtype, order="C"))


def _channels(x):
    """The three channels of the last axis, each keeping the axis (size 1)."""
    return tuple(F.getitem(x, (Ellipsis, slice(i, i + 1))) for i in range(3))


def _by_category(cat, choices, default):
    """choices [(categories, value)]: the value whose categories hold `cat` (a float tensor of whole
    numbers), else `default`."""
    out = default
    for cats, value in choices:
        hit = None
        for k in cats:
            eq = F.equal(cat, float(k))
            hit = eq if hit is None else F.logical_or(hit, eq)
        out = F.select(hit, value, out)
    return out


def _check_bool(what):
    def check(v, op_name):
        if not isinstance(v, bool):
            raise OpTypeError(f"For '{op_name}', the type of '{what}' should be 'bool', but got type "
                              f"'{type(v).__name__}'.")
    return check


def _check_one_of(what, allowed, upper=False):
    def check(v, op_name):
        if not isinstance(v, str):
            raise OpTypeError(f"For '{op_name}', the type of '{what}' should be 'str', but got type "
                              f"'{type(v).__name__}'.")
        if (v.upper() if upper else v) not in allowed:
            raise OpValueError(f"For '{op_name}', the '{what}' must be str and must be in '{list(allowed)}', but got "
                               f"'{v}'.")
    return check


# ---- HSVToRGB --------------------------------------------------------------------------------------------
@op_entry("hsv_to_rgb_primitive", primitive="HSVToRGB", functional=False, args=[Arg("x", dtypes=FLOAT)])
def hsv_to_rgb_primitive(x):
    """x (N, H, W, 3) as (h, s, v) -> (r, g, b): with c = s v, the sixth of the turn floor(6 h) picks
    which channel is v, which m = v - c and which m + c (1 - |6 h mod 2 - 1|); a sixth outside 0..5
    gives (v, m, m). float16 is computed in float32."""
    op = "HSVToRGB"
    if x.ndim != 4:
        raise OpValueError(f"For primitive[{op}], the the dimension of [x] must be equal to 4, but got {x.ndim}.")
    if tuple(x.shape)[-1] != 3:
        raise OpValueError(f"For primitive[{op}], the the last dimension of the shape of [x] must be equal to 3, but "
                           f"got {tuple(x.shape)[-1]}.")
    work = F.cast(x, mstype.float32) if x.dtype == mstype.float16 else x
    h, s, v = _channels(work)
    c = s * v
    m = v - c
    dh = h * 6.0
    cat = F.floor(dh)
    mag = F.abs(dh)
    mag = F.select(mag >= 2.0, mag - 2.0 * F.floor(mag / 2.0), mag)        # fmod(|6h|, 2)
    mid = c * (1.0 - F.abs(mag - 1.0))
    zero = F.zeros_like(c)
    r = _by_category(cat, [((1, 4), mid), ((2, 3), zero)], c)
    g = _by_category(cat, [((1, 2), c), ((0, 3), mid)], zero)
    b = _by_category(cat, [((3, 4), c), ((2, 5), mid)], zero)
    return F.cast(F.concat((r + m, g + m, b + m), -1), x.dtype)


# ---- AdjustHue / AdjustSaturation ---------------------------------------------------------------------
def _check_image(op, image, what):
    if image.ndim < 3:
        raise OpValueError(f"For primitive[{op}], the dimension of {what} must be greater than or equal to 3, but got "
                           f"{image.ndim}.")
    if tuple(image.shape)[-1] != 3:
        raise OpValueError(f"For primitive[{op}], the last dimension of {what} must be equal to 3, but got "
                           f"{tuple(image.shape)[-1]}.")


def _median3(a, b, c):
    return F.maximum(F.minimum(a, b), F.minimum(F.maximum(a, b), c))


@op_entry("adjust_hue_primitive", primitive="AdjustHue", functional=False,
          args=[Arg("image", dtypes=FLOAT), Arg("delta", dtypes=_F32)])
def adjust_hue_primitive(image, delta):
    """Each pixel's hue (in sixths of a turn, from its largest, middle and smallest channel) plus 6 delta,
    wrapped into [0, 6); the channels rebuilt from the new hue and the unchanged largest and smallest
    values. Computed in float32, as MindSpore's CPU kernel, in image's dtype."""
    op = "AdjustHue"
    _check_image(op, image, "image")
    if delta.ndim != 0:
        raise OpValueError(f"For primitive[{op}], the dimension of delta must be equal to 0, but got {delta.ndim}.")
    r, g, b = _channels(F.cast(image, mstype.float32))
    vmax, vmin, vmid = F.maximum(F.maximum(r, g), b), F.minimum(F.minimum(r, g), b), _median3(r, g, b)
    # the sixth of the turn of MindSpore's kernel (ties counted as it counts them)
    zero = F.zeros_like(r)
    cat = F.select(r < g, F.select(b < r, zero + 1.0, F.select(b > g, zero + 3.0, zero + 2.0)),
                   F.select(b < g, zero, F.select(b > r, zero + 4.0, zero + 5.0)))
    spread = vmax - vmin
    flat = F.abs(spread) <= 1e-6
    ratio = (vmid - vmin) / F.select(flat, F.ones_like(spread), spread)
    odd = F.equal(cat - 2.0 * F.floor(cat / 2.0), 1.0)
    h = F.select(flat, zero, cat + F.select(odd, 1.0 - ratio, ratio))
    h = h + delta * 6.0
    h = h - 6.0 * F.floor(h / 6.0)
    h = F.select(h < 0.0, h + 6.0, h)
    h = F.select(h >= 6.0, h - 6.0, h)
    sixth = F.floor(h)
    part = h - sixth
    part = F.select(F.equal(sixth - 2.0 * F.floor(sixth / 2.0), 1.0), 1.0 - part, part)
    mid = vmin + part * (vmax - vmin)
    out_r = _by_category(sixth, [((1, 4), mid), ((2, 3), vmin)], vmax)
    out_g = _by_category(sixth, [((1, 2), vmax), ((0, 3), mid)], vmin)
    out_b = _by_category(sixth, [((3, 4), vmax), ((2, 5), mid)], vmin)
    return F.cast(F.concat((out_r, out_g, out_b), -1), image.dtype)


@op_entry("adjust_saturation_primitive", primitive="AdjustSaturation", functional=False,
          args=[Arg("image", dtypes=FLOAT), Arg("scale", dtypes=_F32)])
def adjust_saturation_primitive(image, scale):
    """RGB -> HSV, the saturation times scale clipped to [0, 1], -> RGB; computed in float32 as MindSpore's
    CPU kernel (a channel within 1e-6 of the largest names the hue's sector), in image's dtype."""
    op = "AdjustSaturation"
    _check_image(op, image, "AdjustSaturation input image")
    if scale.ndim != 0:
        raise OpValueError(f"For primitive[{op}], the dimension of AdjustSaturation input scale must be equal to 0, "
                           f"but got {scale.ndim}.")
    r, g, b = _channels(F.cast(image, mstype.float32))
    v = F.maximum(F.maximum(r, g), b)
    spread = v - F.minimum(F.minimum(r, g), b)
    s = F.select(v > 0.0, spread / F.select(v > 0.0, v, F.ones_like(v)), F.zeros_like(v))
    norm = 1.0 / (6.0 * F.select(spread > 0.0, spread, F.ones_like(spread)))
    h = F.select(F.abs(r - v) <= 1e-6, norm * (g - b),
                 F.select(F.abs(g - v) <= 1e-6, norm * (b - r) + np.float32(2.0) / np.float32(6.0),
                          norm * (r - g) + np.float32(4.0) / np.float32(6.0)))
    h = F.select(spread <= 0.0, F.zeros_like(h), h)
    h = F.select(h < 0.0, h + 1.0, h)
    s = F.minimum(F.maximum(s * scale, 0.0), 1.0)
    c = s * v
    m = v - c
    dh = h * 6.0
    sixth = F.floor(dh)
    mag = dh - 2.0 * F.floor(dh / 2.0)
    mid = c * (1.0 - F.abs(mag - 1.0))
    zero = F.zeros_like(c)
    out_r = _by_category(sixth, [((0, 5), c), ((1, 4), mid)], zero)
    out_g = _by_category(sixth, [((1, 2), c), ((0, 3), mid)], zero)
    out_b = _by_category(sixth, [((3, 4), c), ((2, 5), mid)], zero)
    return F.cast(F.concat((out_r + m, out_g + m, out_b + m), -1), image.dtype)


# ---- weighted taps along one axis (ResizeArea, ScaleAndTranslate) ---------------------------------------
def _taps(x, axis, index, weight):
    """sum over k of weight[:, k] * x gathered at index[:, k] along `axis`, added in the order of k (the
    order of MindSpore's kernels; a zero weight past a span adds nothing). index / weight: (out, K)."""
    shape = [1] * x.ndim
    shape[axis] = index.shape[0]
    out = None
    for k in range(index.shape[1]):
        term = F.gather(x, _const(index[:, k].astype(np.int32)), axis) * _const(weight[:, k].reshape(shape))
        out = term if out is None else out + term
    return out


def _table(rows):
    """[(indices, weights)] per output -> (index, weight) arrays (out, K), padded with index 0 weight 0."""
    k = max(1, max(len(i) for i, _ in rows))
    index = np.zeros((len(rows), k), np.int64)
    weight = np.zeros((len(rows), k), np.float32)
    for o, (i, w) in enumerate(rows):
        index[o, :len(i)] = i
        weight[o, :len(w)] = w
    return index, weight


# ---- ResizeArea ----------------------------------------------------------------------------------------
def _area_scale(n_in, n_out, align_corners):
    f = np.float32
    return f(n_in - 1) / f(n_out - 1) if align_corners and n_out > 1 else f(n_in) / f(n_out)


def _area_rows(n_in, n_out, scale):
    """TensorFlow's area weights of the rows: each output row covers [y scale, (y + 1) scale)."""
    f = np.float32
    rows = []
    for y in range(n_out):
        y0, y1 = f(y) * scale, f(y + 1) * scale
        idx, w = [], []
        for i in range(int(math.floor(y0)), int(math.ceil(y1))):
            if f(i) < y0:
                w.append(scale if f(i + 1) > y1 else f(i + 1) - y0)
            else:
                w.append(y1 - f(i) if f(i + 1) > y1 else f(1.0))
            idx.append(min(n_in - 1, max(0, i)))
        rows.append((idx, w))
    return _table(rows)


def _area_cols(n_in, n_out, scale):
    """The columns' weights, as MindSpore's kernel caches them: the first column's share, the middle
    columns whole, the last column's share."""
    f = np.float32
    rows = []
    for x in range(n_out):
        x0, x1 = f(x) * scale, f(x + 1) * scale
        start, end = int(math.floor(x0)), int(math.ceil(x1))
        idx, w = [start], [scale if f(start + 1) > x1 else f(start + 1) - x0]
        if start + 1 != end:
            idx += list(range(start + 1, end - 1))
            w += [f(1.0)] * (end - 2 - start)
            idx.append(end - 1)
            w.append(x1 - f(end - 1) if f(end) > x1 else f(1.0))
        rows.append(([min(n_in - 1, max(0, i)) for i in idx], w))
    return _table(rows)


@op_entry("resize_area_primitive", primitive="ResizeArea", functional=False,
          args=[Arg("images", dtypes=_AREA_DTYPES), Arg("size", dtypes=_I32),
                Arg("align_corners", "value", default=False, init=True, check=_check_bool("align_corners"))])
def resize_area_primitive(images, size, align_corners=False):
    """images (N, H, W, C) resized to size (new_h, new_w): each output pixel the mean of the input area
    it covers (partly covered pixels by their share), float32."""
    op = "ResizeArea"
    if images.ndim != 4:
        raise OpValueError(f"For primitive[{op}], the images dimension must be equal to 4, but got {images.ndim}.")
    if size.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the size dimension must be equal to 1, but got {size.ndim}.")
    if tuple(size.shape)[0] != 2:
        raise OpValueError(f"For primitive[{op}], the input1 num must be equal to 2, but got {tuple(size.shape)[0]}.")
    new_h, new_w = (int(v) for v in shape_values(size, "size", op).reshape(-1))
    if new_h <= 0 or new_w <= 0:
        raise OpValueError(f"For '{op}', 'size' should only contain positive number.")
    _, h, w, _ = tuple(images.shape)
    hs, ws = _area_scale(h, new_h, align_corners), _area_scale(w, new_w, align_corners)
    x = F.cast(images, mstype.float32)
    out = _taps(x, 2, *_area_cols(w, new_w, ws))
    out = _taps(out, 1, *_area_rows(h, new_h, hs))
    return out * np.float32(1.0 / float(hs * ws))


# ---- ScaleAndTranslate ----------------------------------------------------------------------------------
_PI = np.float32(3.14159265359)


def _lanczos(radius):
    r = np.float32(radius)

    def k(v):
        if v > r:
            return np.float32(0.0)
        if v <= 1e-3:
            return np.float32(1.0)
        return r * np.sin(_PI * v) * np.sin(_PI * v / r) / (_PI * _PI * v * v)
    return k, r


def _gaussian(v):
    radius, sigma = np.float32(1.5), np.float32(1.5) / np.float32(3.0)
    if v >= radius:
        return np.float32(0.0)
    return np.exp(-v * v / (np.float32(2.0) * sigma * sigma))


def _box(v):
    if v < np.float32(0.5):
        return np.float32(1.0)
    return np.float32(0.5) if abs(v - np.float32(0.5)) <= np.finfo(np.float32).eps else np.float32(0.0)


def _triangle(v):
    return np.float32(1.0) - v if v < np.float32(1.0) else np.float32(0.0)


def _keys_cubic(v):
    f = np.float32
    if v >= f(2.0):
        return f(0.0)
    if v >= f(1.0):
        return ((f(-0.5) * v + f(2.5)) * v - f(4.0)) * v + f(2.0)
    return (f(1.5) * v - f(2.5)) * v * v + f(1.0)


def _mitchell_cubic(v):
    f = np.float32
    if v >= f(2.0):
        return f(0.0)
    if v >= f(1.0):
        return ((f(-7.0) / f(18.0) * v + f(2.0)) * v - f(10.0) / f(3.0)) * v + f(16.0) / f(9.0)
    return ((f(7.0) / f(6.0) * v - f(2.0)) * v) * v + f(8.0) / f(9.0)


_SAMPLING = {"lanczos1": _lanczos(1.0), "lanczos3": _lanczos(3.0), "lanczos5": _lanczos(5.0),
             "gaussian": (_gaussian, np.float32(1.5)), "box": (_box, np.float32(1.0)),
             "triangle": (_triangle, np.float32(1.0)), "keyscubic": (_keys_cubic, np.float32(2.0)),
             "mitchellcubic": (_mitchell_cubic, np.float32(2.0))}


def _spans(kernel_type, n_out, n_in, scale, translate, antialias):
    """TensorFlow's spans of one axis: for each output, the inputs its kernel covers and their weights
    (normalized to sum 1); an output sampling outside the input gets none."""
    f = np.float32
    kernel, radius = _SAMPLING[kernel_type]
    if abs(scale) <= f(1e-5):
        raise OpRuntimeError("For ScaleAndTranslate, divisor scale cannot be 0.")
    inv_scale = f(1.0) / scale
    inv_translate = -inv_scale * translate
    kernel_scale = max(inv_scale, f(1.0)) if antialias else f(1.0)
    one_over = f(1.0) / kernel_scale
    reach = radius * kernel_scale
    span_size = min(2 * int(math.ceil(reach)) + 1, n_in)
    rows = []
    for x in range(n_out):
        sample = (f(x) + f(0.5)) * inv_scale + inv_translate
        if sample < 0 or sample > f(n_in):
            rows.append(([], []))
            continue
        start = min(max(int(math.ceil(sample - reach - f(0.5))), 0), n_in - 1)
        end = min(max(int(math.floor(sample + reach - f(0.5))) + 1, 0), n_in)
        if end - start > span_size:
            raise OpRuntimeError(f"For ScaleAndTranslate, span size cannot be larger than {span_size}, but got "
                                 f"{end - start}.")
        weights = [kernel(abs((f(src) + f(0.5) - sample) * one_over)) for src in range(start, end)]
        total = f(0.0)
        for w in weights:
            total = total + w
        if abs(total) >= f(1000.0) * np.finfo(np.float32).tiny:
            inv = f(1.0) / total
            weights = [w * inv for w in weights]
        else:
            weights = [f(0.0)] * len(weights)
        rows.append((list(range(start, end)), weights))
    return _table(rows)


def _vector2(op, t, what):
    if t.ndim != 1:
        raise OpValueError(f"For primitive[{op}], the {what}'s rank' must be equal to 1, but got {t.ndim}.")
    if tuple(t.shape)[0] != 2:
        raise OpValueError(f"For primitive[{op}], the {what}'s elements' must be equal to 2, but got "
                           f"{tuple(t.shape)[0]}.")
    return shape_values(t, what, op).reshape(-1)


@op_entry("scale_and_translate_primitive", primitive="ScaleAndTranslate", functional=False,
          args=[Arg("images", dtypes=_SCALE_DTYPES), Arg("size", dtypes=_I32), Arg("scale", dtypes=_F32),
                Arg("translation", dtypes=_F32),
                Arg("kernel_type", "value", default="lanczos3", init=True,
                    check=_check_one_of("kernel_type", tuple(_SAMPLING))),
                Arg("antialias", "value", default=True, init=True, check=_check_bool("antialias"))])
def scale_and_translate_primitive(images, size, scale, translation, kernel_type="lanczos3", antialias=True):
    """images (N, H, W, C) sampled at ((y + 0.5) / scale - translation / scale) per axis with the kernel
    (widened by 1 / scale when shrinking with antialias), rows then columns; float32 (N, size[0], size[1], C)."""
    op = "ScaleAndTranslate"
    if images.ndim != 4:
        raise OpValueError(f"For primitive[{op}], the images's rank' must be equal to 4, but got {images.ndim}.")
    new_h, new_w = (int(v) for v in _vector2(op, size, "size"))
    sc = _vector2(op, scale, "scale").astype(np.float32)
    tr = _vector2(op, translation, "translation").astype(np.float32)
    if new_h <= 0 or new_w <= 0:
        raise OpValueError(f"For primitive[{op}], the attribute[size] should be a vector with all positive item. but "
                           f"got [{new_h}, {new_w}, ].")
    if not (sc > 0).all():
        raise OpValueError(f"For primitive[{op}], the attribute[scale] should be a vector with all positive item. but "
                           f"got [{sc[0]:g}, {sc[1]:g}, ].")
    _, h, w, _ = tuple(images.shape)
    x = F.cast(images, mstype.float32)
    out = _taps(x, 1, *_spans(kernel_type, new_h, h, sc[0], tr[0], antialias))
    return _taps(out, 2, *_spans(kernel_type, new_w, w, sc[1], tr[1], antialias))


# ---- ExtractGlimpse -------------------------------------------------------------------------------------
@op_entry("extract_glimpse_primitive", primitive="ExtractGlimpse", functional=False,
          args=[Arg("x", dtypes=_F32), Arg("size", dtypes=_I32), Arg("offsets", dtypes=_F32),
                Arg("centered", "value", default=True, init=True, check=_check_bool("centered")),
                Arg("normalized", "value", default=True, init=True, check=_check_bool("normalized")),
                Arg("uniform_noise", "value", default=True, init=True, check=_check_bool("uniform_noise")),
                Arg("noise", "value", default="uniform", init=True,
                    check=_check_one_of("noise", ("uniform", "gaussian", "zero")))])
def extract_glimpse_primitive(x, size, offsets, centered=True, normalized=True, uniform_noise=True, noise="uniform"):
    """x (N, H, W, C); each image's window of size (gh, gw) whose centre is offsets[n] = (y, x) (scaled by
    (H, W) if normalized, from the image's centre in halves of it if centered), its first row and
    column truncated toward zero; pixels outside the image are noise: 0 ('zero'), U(-1, 1) ('uniform',
    or any with uniform_noise) or max(0, N(10, 0.5)) ('gaussian')."""
    op = "ExtractGlimpse"
    if x.ndim != 4:
        raise OpRuntimeError(f"For '{op}', the shape of parameter 'x' must be 4, but got {x.ndim}.")
    for t, what, rank in ((size, "size", 1), (offsets, "offsets", 2)):
        if t.ndim != rank:
            raise OpRuntimeError(f"For '{op}', the shape of parameter '{what}' must be {rank}, but got {t.ndim}.")
    n, h, w, c = tuple(x.shape)
    if tuple(offsets.shape)[0] != n:
        raise OpValueError(f"The first dimension of offsets must be consistent with the first dimension of x, but got "
                           f"{tuple(offsets.shape)[0]}.")
    if tuple(offsets.shape)[1] != 2:
        raise OpValueError(f"The second dimension of offsets must be 2, but got {tuple(offsets.shape)[1]}.")
    sizes = shape_values(size, "size", op).reshape(-1)
    if sizes.size < 2:       # (MindSpore reads the first two values of a longer size)
        raise OpRuntimeError(f"The index[1] is out of range, element size is: {sizes.size}")
    gh, gw = int(sizes[0]), int(sizes[1])
    if gh <= 0 or gw <= 0:
        raise OpValueError(f"For '{op}', the value of parameter 'size' must be greater than zero, but got "
                           f"[{gh}, {gw}].")

    def first_index(col, extent, window):
        v = F.reshape(F.getitem(offsets, (slice(None), slice(col, col + 1))), (n, 1))
        if normalized:
            v = v * np.float32(extent)
        if centered:
            v = v / 2.0 + np.float32(extent / 2.0)
        v = v - np.float32(window / 2.0)
        return F.select(v < 0.0, F.neg(F.floor(F.neg(v))), F.floor(v))      # toward zero

    rows = first_index(0, h, gh) + _const(np.arange(gh, dtype=np.float32)[None, :])     # (N, gh)
    cols = first_index(1, w, gw) + _const(np.arange(gw, dtype=np.float32)[None, :])     # (N, gw)
    inside = F.logical_and(F.reshape(F.logical_and(rows >= 0.0, rows < float(h)), (n, gh, 1, 1)),
                           F.reshape(F.logical_and(cols >= 0.0, cols < float(w)), (n, 1, gw, 1)))
    rows = F.cast(F.clamp(rows, 0.0, float(h - 1)), mstype.int32)
    cols = F.cast(F.clamp(cols, 0.0, float(w - 1)), mstype.int32)
    grid = F.concat((_const(np.broadcast_to(np.arange(n, dtype=np.int32).reshape(n, 1, 1, 1), (n, gh, gw, 1))),
                     F.broadcast_to(F.reshape(rows, (n, gh, 1, 1)), (n, gh, gw, 1)),
                     F.broadcast_to(F.reshape(cols, (n, 1, gw, 1)), (n, gh, gw, 1))), -1)
    glimpse = F.gather_nd(x, grid)                                      # (N, gh, gw, C)
    shape = (n, gh, gw, c)
    if uniform_noise or noise == "uniform":
        fill = F.rand(*shape) * 2.0 - 1.0
    elif noise == "gaussian":
        fill = F.maximum(F.randn(*shape) * 0.5 + 10.0, 0.0)
    else:
        fill = F.zeros(shape, mstype.float32)
    return F.select(F.broadcast_to(inside, shape), glimpse, fill)


def _uniform_noise_needs_uniform(cls):
    """MindSpore's constructor refuses uniform_noise=True with a noise other than 'uniform'."""
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if self._init_values["uniform_noise"] and self._init_values["noise"] != "uniform":
            raise OpValueError(f"For 'ExtractGlimpse', the value of 'noise' must be uniform when uniform_noise is "
                               f"True, but got {self._init_values['noise']}.")

    __init__.__signature__ = inspect.signature(init)
    cls.__init__ = __init__


_uniform_noise_needs_uniform(ENTRIES["extract_glimpse_primitive"].primitive_cls)


# ---- ExtractVolumePatches -------------------------------------------------------------------------------
def _check_3d(what):
    """An int, or 3 or 5 positive ints ((1, 1, d, h, w) for 5: MindSpore's checks)."""
    def check(v, op_name):
        if isinstance(v, bool) or not isinstance(v, (int, list, tuple)):
            raise OpTypeError(f"For '{op_name}', the type of '{what}' should be one of '['int', 'list', 'tuple']', but "
                              f"got type '{type(v).__name__}'.")
        vals = (v,) * 3 if isinstance(v, int) else tuple(v)
        if len(vals) == 5:
            for i in (0, 1):
                if vals[i] != 1:
                    raise OpValueError(f"For '{op_name}', the '{what}[{i}]' must be int and must = 1, but got "
                                       f"'{vals[i]}' with type '{type(vals[i]).__name__}'.")
            vals = vals[2:]
        if len(vals) != 3 or not all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in vals):
            raise OpValueError(f"For '{op_name}', the '{what}' must be an int or a tuple of 3 or 5 positive ints, but "
                               f"got {v}.")
    return check


def _three(v):
    vals = (v,) * 3 if isinstance(v, int) else tuple(v)
    return tuple(int(d) for d in (vals[2:] if len(vals) == 5 else vals))


def _pad_axis(x, axis, before, after):
    if before == 0 and after == 0:
        return x
    parts = []
    for k in (before, after):
        shape = list(x.shape)
        shape[axis] = k
        parts.append(F.zeros(tuple(shape), x.dtype) if k else None)
    return F.concat(tuple(p for p in (parts[0], x, parts[1]) if p is not None), axis)


@op_entry("extract_volume_patches_primitive", primitive="ExtractVolumePatches", functional=False,
          args=[Arg("x", dtypes=_PATCH_DTYPES),
                Arg("kernel_size", "value", init=True, check=_check_3d("kernel_size")),
                Arg("strides", "value", init=True, check=_check_3d("strides")),
                Arg("padding", "value", init=True, check=_check_one_of("padding", ("VALID", "SAME"), upper=True))])
def extract_volume_patches_primitive(x, kernel_size, strides, padding):
    """x (N, C, D, H, W) -> (N, kd kh kw C, D', H', W'): each (kd, kh, kw) patch taken every stride
    (SAME: zero padding, the smaller half before), its values ordered (kd, kh, kw, C) along axis 1."""
    op = "ExtractVolumePatches"
    if x.ndim != 5:
        raise OpValueError(f"For primitive[{op}], the input shape must be equal to 5, but got {x.ndim}.")
    ks, st, same = _three(kernel_size), _three(strides), padding.upper() == "SAME"
    n, c = tuple(x.shape)[:2]
    spatial = tuple(x.shape)[2:]
    outs, xp = [], x
    for axis, (size, k, s) in enumerate(zip(spatial, ks, st), start=2):
        if same:
            out = -(-size // s)
            total = max((out - 1) * s + k - size, 0)
            xp = _pad_axis(xp, axis, total // 2, total - total // 2)
        else:
            if size - k < 0:
                raise OpValueError(f"For primitive[{op}], the padding = VALID, input[{axis}] - kernel_size[{axis}] "
                                   f"must be greater than or equal to 0, but got {size - k}.")
            out = (size - k) // s + 1
        outs.append(out)
    patches = []
    for i in range(ks[0]):
        for j in range(ks[1]):
            for k in range(ks[2]):
                idx = (slice(None), slice(None)) + tuple(
                    slice(o, o + (m - 1) * s + 1, s) for o, m, s in zip((i, j, k), outs, st))
                patches.append(F.getitem(xp, idx))
    return F.reshape(F.stack(patches, 1), (n, len(patches) * c) + tuple(outs))
