"""mindspore.dataset.vision's automatic augmentation policies and batch mixes (issue 35):
AutoAugment (the ImageNet / CIFAR-10 / SVHN policies of Cubuk et al.), RandAugment, TrivialAugmentWide,
UniformAugment, RandomSelectSubpolicy; MixUp, MixUpBatch, CutMixBatch.

The policies are the published ones (as MindSpore and torchvision list them); each operation is the
vision op of the same name (Affine for shears / translations / rotations about the centre,
AdjustBrightness / AdjustContrast / AdjustSaturation, the sharpness blend, Posterize, Solarize,
AutoContrast, Equalize, Invert). Draws come from the pipeline's seeded generator, so a pipeline
repeats for a seed; they are not MindSpore's stream (its values are compared by distribution).
"""
from __future__ import annotations

import math
from enum import Enum

import numpy as np

from pycompile.dataset.transforms._base import RandomOperation
from pycompile.dataset.vision import _color, _geometry
from pycompile.dataset.vision._common import Inter
from pycompile.dataset.vision._extra import _sharpen
from pycompile.dataset.vision._more import AutoContrast, Equalize, _posterize, _solarize


class AutoAugmentPolicy(str, Enum):
    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


class ImageBatchFormat(str, Enum):
    NHWC = "nhwc"
    NCHW = "nchw"


def _affine(img, degrees=0.0, translate=(0, 0), shear=(0.0, 0.0), interpolation=Inter.NEAREST, fill=0):
    h, w = img.shape[:2]
    m = _geometry.affine_matrix(h, w, degrees, (translate[0] / w, translate[1] / h), 1.0, shear)
    kind = {Inter.LINEAR: "linear", Inter.BICUBIC: "cubic", Inter.AREA: "linear"}.get(Inter(interpolation), "nearest")
    return _geometry.warp_affine(img, m, h, w, kind, fill)


def apply_op(img, name, magnitude, interpolation=Inter.NEAREST, fill=0):
    """One named augmentation at `magnitude` (already signed)."""
    if name == "ShearX":
        return _affine(img, shear=(math.degrees(math.atan(magnitude)), 0.0), interpolation=interpolation, fill=fill)
    if name == "ShearY":
        return _affine(img, shear=(0.0, math.degrees(math.atan(magnitude))), interpolation=interpolation, fill=fill)
    if name == "TranslateX":
        return _affine(img, translate=(int(magnitude), 0), interpolation=interpolation, fill=fill)
    if name == "TranslateY":
        return _affine(img, translate=(0, int(magnitude)), interpolation=interpolation, fill=fill)
    if name == "Rotate":
        return _affine(img, degrees=magnitude, interpolation=interpolation, fill=fill)
    if name == "Brightness":
        return _color.adjust_brightness(img, 1.0 + magnitude)
    if name == "Color":
        return _color.adjust_saturation(img, 1.0 + magnitude)
    if name == "Contrast":
        return _color.adjust_contrast(img, 1.0 + magnitude)
    if name == "Sharpness":
        return _sharpen(img, 1.0 + magnitude)
    if name == "Posterize":
        return _posterize(img, int(magnitude))
    if name == "Solarize":
        return _solarize(img, float(magnitude), 255.0)
    if name == "AutoContrast":
        return AutoContrast()._apply(img)
    if name == "Equalize":
        return Equalize()._apply(img)
    if name == "Invert":
        return 255 - img
    if name == "Identity":
        return img
    raise ValueError(f"unknown augmentation {name!r}")


def _space(num_bins, h, w):
    """name -> (magnitudes over the bins, signed) — RandAugment's and AutoAugment's table."""
    lin = lambda hi: np.linspace(0.0, hi, num_bins)  # noqa: E731
    return {"Identity": (np.zeros(num_bins), False), "ShearX": (lin(0.3), True), "ShearY": (lin(0.3), True),
            "TranslateX": (lin(150.0 / 331.0 * w), True), "TranslateY": (lin(150.0 / 331.0 * h), True),
            "Rotate": (lin(30.0), True), "Brightness": (lin(0.9), True), "Color": (lin(0.9), True),
            "Contrast": (lin(0.9), True), "Sharpness": (lin(0.9), True),
            "Posterize": (8 - (np.arange(num_bins) / ((num_bins - 1) / 4)).round().astype(int), False),
            "Solarize": (np.linspace(255.0, 0.0, num_bins), False), "AutoContrast": (np.zeros(num_bins), False),
            "Equalize": (np.zeros(num_bins), False)}


def _wide_space(num_bins):
    lin = lambda hi: np.linspace(0.0, hi, num_bins)  # noqa: E731
    return {"Identity": (np.zeros(num_bins), False), "ShearX": (lin(0.99), True), "ShearY": (lin(0.99), True),
            "TranslateX": (lin(32.0), True), "TranslateY": (lin(32.0), True), "Rotate": (lin(135.0), True),
            "Brightness": (lin(0.99), True), "Color": (lin(0.99), True), "Contrast": (lin(0.99), True),
            "Sharpness": (lin(0.99), True),
            "Posterize": (8 - (np.arange(num_bins) / ((num_bins - 1) / 6)).round().astype(int), False),
            "Solarize": (np.linspace(255.0, 0.0, num_bins), False), "AutoContrast": (np.zeros(num_bins), False),
            "Equalize": (np.zeros(num_bins), False)}


# (op, probability, magnitude bin of 10) pairs per sub-policy
_POLICIES = {
    AutoAugmentPolicy.IMAGENET: [
        (("Posterize", 0.4, 8), ("Rotate", 0.6, 9)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None)), (("Posterize", 0.6, 7), ("Posterize", 0.6, 6)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Equalize", 0.4, None), ("Rotate", 0.8, 8)),
        (("Solarize", 0.6, 3), ("Equalize", 0.6, None)), (("Posterize", 0.8, 5), ("Equalize", 1.0, None)),
        (("Rotate", 0.2, 3), ("Solarize", 0.6, 8)), (("Equalize", 0.6, None), ("Posterize", 0.4, 6)),
        (("Rotate", 0.8, 8), ("Color", 0.4, 0)), (("Rotate", 0.4, 9), ("Equalize", 0.6, None)),
        (("Equalize", 0.0, None), ("Equalize", 0.8, None)), (("Invert", 0.6, None), ("Equalize", 1.0, None)),
        (("Color", 0.6, 4), ("Contrast", 1.0, 8)), (("Rotate", 0.8, 8), ("Color", 1.0, 2)),
        (("Color", 0.8, 8), ("Solarize", 0.8, 7)), (("Sharpness", 0.4, 7), ("Invert", 0.6, None)),
        (("ShearX", 0.6, 5), ("Equalize", 1.0, None)), (("Color", 0.4, 0), ("Equalize", 0.6, None)),
        (("Equalize", 0.4, None), ("Solarize", 0.2, 4)), (("Solarize", 0.6, 5), ("AutoContrast", 0.6, None)),
        (("Invert", 0.6, None), ("Equalize", 1.0, None)), (("Color", 0.6, 4), ("Contrast", 1.0, 8)),
        (("Equalize", 0.8, None), ("Equalize", 0.6, None))],
    AutoAugmentPolicy.CIFAR10: [
        (("Invert", 0.1, None), ("Contrast", 0.2, 6)), (("Rotate", 0.7, 2), ("TranslateX", 0.3, 9)),
        (("Sharpness", 0.8, 1), ("Sharpness", 0.9, 3)), (("ShearY", 0.5, 8), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.5, None), ("Equalize", 0.9, None)), (("ShearY", 0.2, 7), ("Posterize", 0.3, 7)),
        (("Color", 0.4, 3), ("Brightness", 0.6, 7)), (("Sharpness", 0.3, 9), ("Brightness", 0.7, 9)),
        (("Equalize", 0.6, None), ("Equalize", 0.5, None)), (("Contrast", 0.6, 7), ("Sharpness", 0.6, 5)),
        (("Color", 0.7, 7), ("TranslateX", 0.5, 8)), (("Equalize", 0.3, None), ("AutoContrast", 0.4, None)),
        (("TranslateY", 0.4, 3), ("Sharpness", 0.2, 6)), (("Brightness", 0.9, 6), ("Color", 0.2, 8)),
        (("Solarize", 0.5, 2), ("Invert", 0.0, None)), (("Equalize", 0.2, None), ("AutoContrast", 0.6, None)),
        (("Equalize", 0.2, None), ("Equalize", 0.6, None)), (("Color", 0.9, 9), ("Equalize", 0.6, None)),
        (("AutoContrast", 0.8, None), ("Solarize", 0.2, 8)), (("Brightness", 0.1, 3), ("Color", 0.7, 0)),
        (("Solarize", 0.4, 5), ("AutoContrast", 0.9, None)), (("TranslateY", 0.9, 9), ("TranslateY", 0.7, 9)),
        (("AutoContrast", 0.9, None), ("Solarize", 0.8, 3)), (("Equalize", 0.8, None), ("Invert", 0.1, None)),
        (("TranslateY", 0.7, 9), ("AutoContrast", 0.9, None))],
    AutoAugmentPolicy.SVHN: [
        (("ShearX", 0.9, 4), ("Invert", 0.2, None)), (("ShearY", 0.9, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.6, None), ("Solarize", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Equalize", 0.6, None), ("Rotate", 0.9, 3)), (("ShearX", 0.9, 4), ("AutoContrast", 0.8, None)),
        (("ShearY", 0.9, 8), ("Invert", 0.4, None)), (("ShearY", 0.9, 5), ("Solarize", 0.2, 6)),
        (("Invert", 0.9, None), ("AutoContrast", 0.8, None)), (("Equalize", 0.6, None), ("Rotate", 0.9, 3)),
        (("ShearX", 0.9, 4), ("Solarize", 0.3, 3)), (("ShearY", 0.8, 8), ("Invert", 0.7, None)),
        (("Equalize", 0.9, None), ("TranslateY", 0.6, 6)), (("Invert", 0.9, None), ("Equalize", 0.6, None)),
        (("Contrast", 0.3, 3), ("Rotate", 0.8, 4)), (("Invert", 0.8, None), ("TranslateY", 0.0, 2)),
        (("ShearY", 0.7, 6), ("Solarize", 0.4, 8)), (("Invert", 0.6, None), ("Rotate", 0.8, 4)),
        (("ShearY", 0.3, 7), ("TranslateX", 0.9, 3)), (("ShearX", 0.1, 6), ("Invert", 0.6, None)),
        (("Solarize", 0.7, 2), ("TranslateY", 0.6, 7)), (("ShearY", 0.8, 4), ("Invert", 0.8, None)),
        (("ShearX", 0.7, 9), ("TranslateY", 0.8, 3)), (("ShearY", 0.8, 5), ("AutoContrast", 0.7, None)),
        (("ShearX", 0.7, 2), ("Invert", 0.1, None))],
}


def _check_rgb(img, op):
    if img.ndim != 3 or img.shape[2] != 3 or img.dtype != np.uint8:
        raise RuntimeError(f"{op}: the image should be an RGB uint8 image of shape <H, W, 3>, but got "
                           f"{img.dtype} of shape {list(img.shape)}.")


class AutoAugment(RandomOperation):
    """One sub-policy of `policy`, drawn at random; each of its two ops runs with its probability,
    at its magnitude (a signed one with a random sign)."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST, fill_value=0):
        self.policy = AutoAugmentPolicy(policy)
        self.interpolation, self.fill_value = Inter(interpolation), fill_value

    def _apply_random(self, rng, img):
        _check_rgb(img, "AutoAugment")
        subs = _POLICIES[self.policy]
        space = {**_space(10, *img.shape[:2]), "Invert": (np.zeros(10), False)}
        for name, prob, bin_ in subs[int(rng.integers(0, len(subs)))]:
            if rng.random() < prob:
                mags, signed = space[name]
                mag = float(mags[bin_]) if bin_ is not None else 0.0
                if signed and rng.random() < 0.5:
                    mag = -mag
                img = apply_op(img, name, mag, self.interpolation, self.fill_value)
        return img


class RandAugment(RandomOperation):
    """`num_ops` ops drawn uniformly, each at bin `magnitude` of `num_magnitude_bins` (random sign)."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        if not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"Input magnitude is not within the required interval of [0, {num_magnitude_bins}), "
                             f"but got {magnitude}.")
        self.num_ops, self.magnitude, self.num_bins = int(num_ops), int(magnitude), int(num_magnitude_bins)
        self.interpolation, self.fill_value = Inter(interpolation), fill_value

    def _apply_random(self, rng, img):
        _check_rgb(img, "RandAugment")
        space = _space(self.num_bins, *img.shape[:2])
        names = list(space)
        for _ in range(self.num_ops):
            name = names[int(rng.integers(0, len(names)))]
            mags, signed = space[name]
            mag = float(mags[self.magnitude])
            if signed and rng.random() < 0.5:
                mag = -mag
            img = apply_op(img, name, mag, self.interpolation, self.fill_value)
        return img


class TrivialAugmentWide(RandomOperation):
    """One op drawn uniformly, at a magnitude drawn uniformly from its bins (random sign)."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        if num_magnitude_bins < 2:
            raise ValueError(f"Input num_magnitude_bins is not within the required interval of [2, 2147483647], "
                             f"but got {num_magnitude_bins}.")
        self.num_bins = int(num_magnitude_bins)
        self.interpolation, self.fill_value = Inter(interpolation), fill_value

    def _apply_random(self, rng, img):
        _check_rgb(img, "TrivialAugmentWide")
        space = _wide_space(self.num_bins)
        names = list(space)
        name = names[int(rng.integers(0, len(names)))]
        mags, signed = space[name]
        mag = float(mags[int(rng.integers(0, self.num_bins))])
        if signed and rng.random() < 0.5:
            mag = -mag
        return apply_op(img, name, mag, self.interpolation, self.fill_value)


def _call(op, rng, img):
    if isinstance(op, RandomOperation):
        return op._apply_random(rng, img)
    return np.asarray(op(img))


class UniformAugment(RandomOperation):
    """`num_ops` of `transforms`, drawn without repetition, applied in the drawn order."""

    def __init__(self, transforms, num_ops=2):
        if not isinstance(transforms, (list, tuple)) or not transforms:
            raise TypeError("transforms should be a non-empty list of transforms.")
        if not 1 <= num_ops <= len(transforms):
            raise ValueError(f"num_ops should be within [1, {len(transforms)}], but got {num_ops}.")
        self.transforms, self.num_ops = list(transforms), int(num_ops)

    def _apply_random(self, rng, img):
        for k in rng.permutation(len(self.transforms))[:self.num_ops]:
            img = _call(self.transforms[int(k)], rng, img)
        return img


class RandomSelectSubpolicy(RandomOperation):
    """`policy`: a list of sub-policies, each a list of (transform, probability); one sub-policy is
    drawn and its transforms run, each with its probability."""

    def __init__(self, policy):
        if not isinstance(policy, list) or not policy or not all(isinstance(s, list) and s for s in policy):
            raise TypeError("policy should be a non-empty list of non-empty lists of (transform, prob) tuples.")
        for sub in policy:
            for op, prob in sub:
                if not 0.0 <= prob <= 1.0:
                    raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
        self.policy = policy

    def _apply_random(self, rng, img):
        for op, prob in self.policy[int(rng.integers(0, len(self.policy)))]:
            if rng.random() < prob:
                img = _call(op, rng, img)
        return img


# -- batch mixes ---------------------------------------------------------------------------------------
def _beta(rng, alpha):
    x1, x2 = rng.gamma(alpha), rng.gamma(alpha)
    if x1 + x2 == 0:
        raise RuntimeError("Exception thrown from dataset pipeline. Refer to 'Dataset Pipeline Error Message'.\n\n"
                           "[ERROR] addition of variable(x1 and x2) of Gamma should not be 0.")
    return x1 / (x1 + x2)


def _check_batch(images, labels, op):
    if images.ndim != 4:
        raise RuntimeError(f"{op}: images should be a batch <N, H, W, C> or <N, C, H, W>, but got shape "
                           f"{list(images.shape)}.")
    if labels.ndim not in (2, 3) or labels.shape[0] != images.shape[0]:
        raise RuntimeError(f"{op}: labels should be one-hot <N, num_classes> (or <N, L, num_classes>) for the "
                           f"{images.shape[0]} images, but got shape {list(labels.shape)}.")


class MixUpBatch(RandomOperation):
    """images * lam + images[perm] * (1 - lam), the one-hot labels alike; lam ~ Beta(alpha, alpha),
    perm a random permutation of the batch. Images keep their dtype, labels become float32."""

    def __init__(self, alpha=1.0):
        if alpha <= 0:
            raise ValueError(f"Input alpha is not within the required interval of (0, 16777216), but got {alpha}.")
        self.alpha = float(alpha)

    def _apply_random(self, rng, images, labels):
        _check_batch(images, labels, "MixUpBatch")
        lam = _beta(rng, self.alpha)
        perm = rng.permutation(images.shape[0])
        mixed = images.astype(np.float32) * np.float32(lam) + images[perm].astype(np.float32) * np.float32(1 - lam)
        out_labels = labels.astype(np.float32) * np.float32(lam) + labels[perm].astype(np.float32) * np.float32(1 - lam)
        if images.dtype.kind in "iu":
            mixed = np.clip(np.rint(mixed), np.iinfo(images.dtype).min, np.iinfo(images.dtype).max)
        return mixed.astype(images.dtype), out_labels


class CutMixBatch(RandomOperation):
    """With probability `prob` per image, paste a box of another image of the batch (area 1 - lam,
    lam ~ Beta(alpha, alpha)) and mix the one-hot labels by the pasted area."""

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        self.format = ImageBatchFormat(image_batch_format)
        if alpha <= 0:
            raise ValueError(f"Input alpha is not within the required interval of (0, 16777216), but got {alpha}.")
        if not 0.0 <= prob <= 1.0:
            raise ValueError(f"Input prob is not within the required interval of [0.0, 1.0], but got {prob}.")
        self.alpha, self.prob = float(alpha), float(prob)

    def _apply_random(self, rng, images, labels):
        _check_batch(images, labels, "CutMixBatch")
        nhwc = self.format == ImageBatchFormat.NHWC
        imgs = images.copy() if nhwc else images.transpose(0, 2, 3, 1).copy()
        out_labels = labels.astype(np.float32).copy()
        n, h, w = imgs.shape[:3]
        source = imgs.copy()
        for i in range(n):
            if rng.random() >= self.prob:
                continue
            lam = _beta(rng, self.alpha)
            j = int(rng.integers(0, n))
            cut = math.sqrt(1.0 - lam)
            ch, cw = int(h * cut), int(w * cut)
            cy, cx = int(rng.integers(0, h)), int(rng.integers(0, w))
            y0, y1 = max(cy - ch // 2, 0), min(cy + ch // 2, h)
            x0, x1 = max(cx - cw // 2, 0), min(cx + cw // 2, w)
            imgs[i, y0:y1, x0:x1] = source[j, y0:y1, x0:x1]
            area = (y1 - y0) * (x1 - x0) / (h * w)
            out_labels[i] = labels[i].astype(np.float32) * np.float32(1 - area) + \
                labels[j].astype(np.float32) * np.float32(area)
        return (imgs if nhwc else np.ascontiguousarray(imgs.transpose(0, 3, 1, 2))), out_labels


class MixUp(RandomOperation):
    """MixUp of a batch with itself in a random order (is_single=True), or with the previous batch."""

    def __init__(self, batch_size, alpha, is_single=True):
        if batch_size <= 0 or alpha <= 0:
            raise ValueError("MixUp: batch_size and alpha should be positive.")
        self.batch_size, self.alpha, self.is_single = int(batch_size), float(alpha), bool(is_single)
        self._previous = None

    def _apply_random(self, rng, images, labels):
        lam = float(rng.beta(self.alpha, self.alpha))
        if self.is_single or self._previous is None:
            perm = rng.permutation(len(images))
            other_i, other_l = images[perm], labels[perm]
        else:
            other_i, other_l = self._previous
        if not self.is_single:
            self._previous = (images, labels)
        mixed = lam * images.astype(np.float64) + (1 - lam) * other_i.astype(np.float64)
        mixed_l = lam * labels.astype(np.float64) + (1 - lam) * np.asarray(other_l, np.float64)
        return mixed.astype(np.float32), mixed_l.astype(np.float32)
