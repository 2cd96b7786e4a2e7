"""mindspore.dataset.vision's bounding-box transforms (issue 35): each takes (image, bbox) — bbox a
float32 array of rows [x, y, width, height, ...] in pixels — and returns both, the boxes moved with
the image (MindSpore 2.10's results: tests/oracle/data/vision_data35.json). Also RandomResize
and RandomCropDecodeResize, which share the resize and crop code.
"""
from __future__ import annotations

import numpy as np

from pycompile.dataset.transforms._base import RandomOperation, TensorOperation
from pycompile.dataset.vision import _geometry, _pilwarp
from pycompile.dataset.vision._common import Border, Inter, _pad, _pair, resize_mode, warp_interp
from pycompile.dataset.vision._decode import decode_image
from pycompile.dataset.vision._resize import output_size


def _resize(img, h, w, interpolation):
    """Every OpenCV mode and PILCUBIC; ANTIALIAS: the RuntimeError of MindSpore's C++ ops."""
    return resize_mode(img, h, w, Inter(interpolation))


def _check_boxes(img, bbox, op):
    if img.ndim not in (2, 3):
        raise RuntimeError(f"{op}: the image should be <H, W> or <H, W, C>, but got shape {list(img.shape)}.")
    if bbox.ndim != 2 or bbox.shape[1] < 4:
        raise RuntimeError(f"{op}: bounding boxes should be a 2-D array of rows [x, y, width, height, ...], but got "
                           f"shape {list(bbox.shape)}.")
    if bbox.dtype != np.float32:
        raise RuntimeError(f"{op}: bounding boxes should be float32, but got {bbox.dtype}.")
    h, w = img.shape[:2]
    x, y, bw, bh = (bbox[:, k] for k in range(4))
    if np.any(x < 0) or np.any(y < 0) or np.any(x + bw > w) or np.any(y + bh > h) or np.any(bw <= 0) or np.any(bh <= 0):
        raise RuntimeError(f"{op}: a bounding box lies outside the image of height {h} and width {w} (or is empty).")


def _scale_boxes(bbox, sx, sy):
    out = bbox.copy()
    sx, sy = np.float32(sx), np.float32(sy)
    out[:, 0] *= sx
    out[:, 2] *= sx
    out[:, 1] *= sy
    out[:, 3] *= sy
    return out


def _crop_boxes(bbox, top, left, h, w):
    """Boxes of the crop [top, top + h) x [left, left + w): moved, clipped, the empty ones dropped."""
    x0 = np.maximum(bbox[:, 0], left) - left
    y0 = np.maximum(bbox[:, 1], top) - top
    x1 = np.minimum(bbox[:, 0] + bbox[:, 2], left + w) - left
    y1 = np.minimum(bbox[:, 1] + bbox[:, 3], top + h) - top
    keep = (x1 > x0) & (y1 > y0)
    out = bbox[keep].copy()
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0[keep], y0[keep], (x1 - x0)[keep], (y1 - y0)[keep]
    return out.astype(np.float32)


class RandomHorizontalFlipWithBBox(RandomOperation):
    def __init__(self, prob=0.5):
        self.prob = float(prob)

    def _apply_random(self, rng, img, bbox):
        _check_boxes(img, bbox, "RandomHorizontalFlipWithBBox")
        if rng.random() >= self.prob:
            return img, bbox
        out = bbox.copy()
        out[:, 0] = np.float32(img.shape[1]) - bbox[:, 0] - bbox[:, 2]
        return np.ascontiguousarray(img[:, ::-1]), out


class RandomVerticalFlipWithBBox(RandomOperation):
    def __init__(self, prob=0.5):
        self.prob = float(prob)

    def _apply_random(self, rng, img, bbox):
        _check_boxes(img, bbox, "RandomVerticalFlipWithBBox")
        if rng.random() >= self.prob:
            return img, bbox
        out = bbox.copy()
        out[:, 1] = np.float32(img.shape[0]) - bbox[:, 1] - bbox[:, 3]
        return np.ascontiguousarray(img[::-1]), out


def _resize_with_boxes(img, bbox, size, interpolation):
    h, w = output_size(img.shape, size)
    out = _resize(img, h, w, interpolation)
    return out, _scale_boxes(bbox, np.float32(w) / np.float32(img.shape[1]), np.float32(h) / np.float32(img.shape[0]))


class ResizeWithBBox(TensorOperation):
    def __init__(self, size, interpolation=Inter.LINEAR):
        self.size = size if isinstance(size, int) else _pair(size, "ResizeWithBBox size")
        self.interpolation = Inter(interpolation)

    def _apply(self, img, bbox):
        _check_boxes(img, bbox, "ResizeWithBBox")
        return _resize_with_boxes(img, bbox, self.size, self.interpolation)


_RANDOM_INTERS = (Inter.LINEAR, Inter.NEAREST, Inter.BICUBIC, Inter.AREA)


class RandomResize(RandomOperation):
    """Resize to `size` with an interpolation drawn from LINEAR, NEAREST, BICUBIC and AREA."""

    def __init__(self, size):
        self.size = size if isinstance(size, int) else _pair(size, "RandomResize size")

    def _apply_random(self, rng, img):
        h, w = output_size(img.shape, self.size)
        return _resize(img, h, w, _RANDOM_INTERS[int(rng.integers(0, len(_RANDOM_INTERS)))])


class RandomResizeWithBBox(RandomOperation):
    def __init__(self, size):
        self.size = size if isinstance(size, int) else _pair(size, "RandomResizeWithBBox size")

    def _apply_random(self, rng, img, bbox):
        _check_boxes(img, bbox, "RandomResizeWithBBox")
        return _resize_with_boxes(img, bbox, self.size, _RANDOM_INTERS[int(rng.integers(0, len(_RANDOM_INTERS)))])


class RandomCropWithBBox(RandomOperation):
    """RandomCrop (padding, pad_if_needed, fill_value, padding_mode as there) with the boxes moved
    into the crop, clipped, and the ones left outside dropped."""

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _pair(size, "RandomCropWithBBox size")
        padding = 0 if padding is None else padding
        if isinstance(padding, int):
            padding = (padding,) * 4
        elif len(padding) == 2:
            padding = (padding[0], padding[1], padding[0], padding[1])
        self.padding = tuple(int(p) for p in padding)
        self.pad_if_needed, self.fill_value, self.padding_mode = pad_if_needed, fill_value, padding_mode

    def _apply_random(self, rng, img, bbox):
        _check_boxes(img, bbox, "RandomCropWithBBox")
        left, top, right, bottom = self.padding
        boxes = bbox.copy()
        if any(self.padding):
            img = _pad(img, top, bottom, left, right, self.fill_value, self.padding_mode)
            boxes[:, 0] += left
            boxes[:, 1] += top
        h, w = self.size
        if self.pad_if_needed:
            ph, pw = max(h - img.shape[0], 0), max(w - img.shape[1], 0)
            if ph or pw:
                img = _pad(img, ph, ph, pw, pw, self.fill_value, self.padding_mode)
                boxes[:, 0] += pw
                boxes[:, 1] += ph
        if img.shape[0] < h or img.shape[1] < w:
            raise ValueError(f"RandomCropWithBBox: crop size {self.size} is larger than the (padded) image "
                             f"{img.shape[:2]}; set pad_if_needed=True or a padding.")
        top = int(rng.integers(0, img.shape[0] - h + 1))
        left = int(rng.integers(0, img.shape[1] - w + 1))
        return np.ascontiguousarray(img[top:top + h, left:left + w]), _crop_boxes(boxes, top, left, h, w)


class RandomResizedCropWithBBox(RandomOperation):
    """RandomResizedCrop with the boxes moved into the crop, clipped, and scaled to `size`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self.size = _pair(size, "RandomResizedCropWithBBox size")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = Inter(interpolation)

    def _apply_random(self, rng, img, bbox):
        _check_boxes(img, bbox, "RandomResizedCropWithBBox")
        top, left, h, w = _geometry.crop_box(rng, img.shape[0], img.shape[1], self.scale, self.ratio)
        crop = _resize(img[top:top + h, left:left + w], *self.size, self.interpolation)
        boxes = _crop_boxes(bbox, top, left, h, w)
        return crop, _scale_boxes(boxes, np.float32(self.size[1]) / np.float32(w),
                                  np.float32(self.size[0]) / np.float32(h))


class BoundingBoxAugment(RandomOperation):
    """Apply `transform` to the image inside each box with probability `ratio` (the boxes stay)."""

    def __init__(self, transform, ratio=0.3):
        if not 0.0 <= ratio <= 1.0:
            raise ValueError(f"Input ratio is not within the required interval of [0.0, 1.0], but got {ratio}.")
        self.transform, self.ratio = transform, float(ratio)

    def _apply_random(self, rng, img, bbox):
        _check_boxes(img, bbox, "BoundingBoxAugment")
        out = img.copy()
        for x, y, bw, bh in bbox[:, :4].astype(np.int64):
            if rng.random() < self.ratio:
                patch = np.asarray(self.transform(np.ascontiguousarray(out[y:y + bh, x:x + bw])))
                if patch.shape != out[y:y + bh, x:x + bw].shape:
                    raise RuntimeError("BoundingBoxAugment: the transform must keep the size of the box's image.")
                out[y:y + bh, x:x + bw] = patch
        return out, bbox


class RandomCropDecodeResize(RandomOperation):
    """Decode the image file's bytes, RandomResizedCrop the image (see there) and resize to `size`."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3. / 4., 4. / 3.), interpolation=Inter.BILINEAR,
                 max_attempts=10):
        self.size = _pair(size, "RandomCropDecodeResize size")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.interpolation = Inter(interpolation)

    def _apply_random(self, rng, data):
        if data.dtype != np.uint8 or data.ndim != 1:
            raise RuntimeError(f"RandomCropDecodeResize: the input should be the bytes of an image file, a uint8 "
                               f"1-D array, but got {data.dtype} of shape {list(data.shape)}.")
        img = decode_image(data)
        top, left, h, w = _geometry.crop_box(rng, img.shape[0], img.shape[1], self.scale, self.ratio)
        return _resize(img[top:top + h, left:left + w], *self.size, self.interpolation)


def _points(points, name):
    pts = [tuple(float(v) for v in p) for p in points]
    if len(pts) != 4 or any(len(p) != 2 for p in pts):
        raise TypeError(f"{name} should be a list of four [x, y] points, but got {points}.")
    return pts


class Perspective(TensorOperation):
    """The perspective warp taking `start_points` (top-left, top-right, bottom-right, bottom-left)
    to `end_points`, the image keeping its size; BILINEAR (default), NEAREST, BICUBIC, AREA (= BILINEAR,
    as in cv::warpPerspective) or PILCUBIC (= BILINEAR, as MindSpore maps it), zeros outside."""

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start, self.end = _points(start_points, "start_points"), _points(end_points, "end_points")
        self.interpolation = Inter(interpolation)

    def __call__(self, img):
        if _pilwarp.is_pil(img):        # MindSpore's Python implementation: PIL's PERSPECTIVE transform
            return _pilwarp.perspective(img, self.start, self.end, self.interpolation)
        return super().__call__(img)

    def _apply(self, img):
        m = _geometry.perspective_matrix(self.start, self.end)
        return _geometry.warp_perspective(img, m, warp_interp(self.interpolation, "Perspective", type(img)))


class RandomPerspective(RandomOperation):
    """With probability `prob`, move each corner inward by up to distortion_scale / 2 of the
    image's size (torchvision's draw) and warp the image so."""

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        if not 0.0 <= distortion_scale <= 1.0 or not 0.0 <= prob <= 1.0:
            raise ValueError("RandomPerspective: distortion_scale and prob should be within [0.0, 1.0].")
        self.distortion_scale, self.prob = float(distortion_scale), float(prob)
        self.interpolation = Inter(interpolation)

    def _apply_random(self, rng, img):
        if rng.random() >= self.prob:
            return img
        h, w = img.shape[:2]
        dw, dh = int(self.distortion_scale * w / 2), int(self.distortion_scale * h / 2)
        r = lambda hi: int(rng.integers(0, hi + 1))  # noqa: E731
        start = [(0, 0), (w - 1, 0), (w - 1, h - 1), (0, h - 1)]
        end = [(r(dw), r(dh)), (w - 1 - r(dw), r(dh)), (w - 1 - r(dw), h - 1 - r(dh)), (r(dw), h - 1 - r(dh))]
        m = _geometry.perspective_matrix(start, end)
        kind = {Inter.NEAREST: "nearest", Inter.BICUBIC: "cubic"}.get(self.interpolation, "linear")
        return _geometry.warp_perspective(img, m, kind)
