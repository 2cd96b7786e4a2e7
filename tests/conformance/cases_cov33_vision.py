"""The conformance table: issue 33's coverage of mindspore.dataset.vision names pycompile had without a
recorded case (tools/name_coverage.py). Ids start with ``cov33_v_``. Vision transforms run eagerly on
NumPy images (the dataset pipeline's data, never graph code): graph=False. Random transforms are
compared by shape and dtype (and with their probability at 0 or 1, by value)."""
group("cov33_vision")

V = ms.dataset.vision


def _img(h=8, w=10, seed=3):
    return np.random.default_rng(seed).integers(0, 256, size=(h, w, 3)).astype(np.uint8)


def _vcase(name, make, img=None, shape_only=False, cid=None):
    def f():
        t = make()
        out = t(_img() if img is None else img())
        if shape_only:
            outs = out if isinstance(out, tuple) else (out,)
            return tuple((np.asarray(o).shape, str(np.asarray(o).dtype)) for o in outs)
        if isinstance(out, (tuple, list)):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)
    add(f"cov33_v_{cid or name}", f"dataset.vision.{name}", f, graph=False,
        reason="a dataset transform runs on NumPy images in the pipeline, not in graph code")


_GRAY = lambda: _img()[:, :, :1]  # noqa: E731
_F32 = lambda: (_img().astype(np.float32) / 255.0)  # noqa: E731
_CHW = lambda: np.transpose(_img(), (2, 0, 1))  # noqa: E731

# deterministic transforms: values compared
_vcase("AdjustBrightness", lambda: V.AdjustBrightness(1.5))
_vcase("AdjustContrast", lambda: V.AdjustContrast(0.5))
_vcase("AdjustGamma", lambda: V.AdjustGamma(0.8, 1.2))
_vcase("AdjustHue", lambda: V.AdjustHue(0.2))
_vcase("AdjustSaturation", lambda: V.AdjustSaturation(1.7))
_vcase("AdjustSharpness", lambda: V.AdjustSharpness(2.0))
_vcase("Affine", lambda: V.Affine(15.0, [0.1, -0.2], 1.1, [5.0, 0.0]))
_vcase("AutoContrast", lambda: V.AutoContrast(5.0))
_vcase("CenterCrop", lambda: V.CenterCrop((4, 6)))
_vcase("ConvertColor", lambda: V.ConvertColor(V.ConvertMode.COLOR_RGB2GRAY))
_vcase("Crop", lambda: V.Crop((1, 2), (4, 5)))
_vcase("Equalize", lambda: V.Equalize())
_vcase("Erase", lambda: V.Erase(1, 2, 3, 4, (10, 20, 30)))
_PIL = lambda: V.ToPIL()(_img())  # noqa: E731
_vcase("FiveCrop", lambda: V.FiveCrop(4), img=_PIL)
_vcase("GaussianBlur", lambda: V.GaussianBlur(3, 1.0))
_vcase("Grayscale", lambda: V.Grayscale(3), img=_PIL)
_vcase("HWC2CHW", lambda: V.HWC2CHW())
_vcase("HorizontalFlip", lambda: V.HorizontalFlip())
_vcase("HsvToRgb", lambda: V.HsvToRgb(), img=lambda: _F32()[None].transpose(0, 3, 1, 2)[0])
_vcase("Invert", lambda: V.Invert())
_vcase("LinearTransformation", lambda: V.LinearTransformation(np.eye(12, dtype=np.float32) * 2,
                                                              np.zeros(12, np.float32)),
       img=lambda: _F32()[:2, :2].reshape(2, 2, 3))
_vcase("Normalize", lambda: V.Normalize([120.0, 110.0, 100.0], [60.0, 50.0, 40.0]))
_vcase("NormalizePad", lambda: V.NormalizePad([120.0, 110.0, 100.0], [60.0, 50.0, 40.0]))
_vcase("Pad", lambda: V.Pad([1, 2, 3, 1], fill_value=7))
_vcase("PadToSize", lambda: V.PadToSize((10, 12), fill_value=5))
_vcase("Perspective", lambda: V.Perspective([[0, 0], [9, 0], [9, 7], [0, 7]], [[1, 0], [8, 1], [9, 7], [0, 6]]))
_vcase("Posterize", lambda: V.Posterize(3))
_vcase("Rescale", lambda: V.Rescale(1.0 / 255.0, -0.5))
_vcase("Resize", lambda: V.Resize((5, 7)))
_vcase("ResizedCrop", lambda: V.ResizedCrop(1, 2, 5, 6, (4, 4)))
_vcase("RgbToHsv", lambda: V.RgbToHsv(), img=lambda: _F32().transpose(2, 0, 1))
_vcase("Rotate", lambda: V.Rotate(90))
_vcase("SlicePatches", lambda: V.SlicePatches(2, 2))
_vcase("Solarize", lambda: V.Solarize(128.0))
_vcase("TenCrop", lambda: V.TenCrop(4), img=_PIL)
_vcase("ToTensor", lambda: V.ToTensor())
_vcase("ToType", lambda: V.ToType(np.float32))
_vcase("VerticalFlip", lambda: V.VerticalFlip())

# random transforms: shape and dtype
for _name, _make in [
    ("AutoAugment", lambda: V.AutoAugment()), ("RandAugment", lambda: V.RandAugment()),
    ("RandomAdjustSharpness", lambda: V.RandomAdjustSharpness(2.0, 0.5)),
    ("RandomAffine", lambda: V.RandomAffine(15)), ("RandomAutoContrast", lambda: V.RandomAutoContrast()),
    ("RandomColor", lambda: V.RandomColor()), ("RandomColorAdjust", lambda: V.RandomColorAdjust(0.4, 0.4, 0.4, 0.1)),
    ("RandomCrop", lambda: V.RandomCrop(4)), ("RandomEqualize", lambda: V.RandomEqualize()),
    ("RandomErasing", lambda: V.RandomErasing(), ), ("RandomGrayscale", lambda: V.RandomGrayscale()),
    ("RandomHorizontalFlip", lambda: V.RandomHorizontalFlip()), ("RandomInvert", lambda: V.RandomInvert()),
    ("RandomLighting", lambda: V.RandomLighting()), ("RandomPerspective", lambda: V.RandomPerspective()),
    ("RandomPosterize", lambda: V.RandomPosterize()), ("RandomResize", lambda: V.RandomResize((5, 6))),
    ("RandomResizedCrop", lambda: V.RandomResizedCrop(4)), ("RandomRotation", lambda: V.RandomRotation(30)),
    ("RandomSharpness", lambda: V.RandomSharpness()), ("RandomSolarize", lambda: V.RandomSolarize()),
    ("RandomVerticalFlip", lambda: V.RandomVerticalFlip()), ("TrivialAugmentWide", lambda: V.TrivialAugmentWide()),
    ("UniformAugment", lambda: V.UniformAugment([V.Invert(), V.HorizontalFlip()], 2)),
    ("RandomSelectSubpolicy", lambda: V.RandomSelectSubpolicy([[(V.Invert(), 0.5), (V.Equalize(), 0.5)]])),
    ("CutOut", lambda: V.CutOut(3, 2)),
]:
    _vcase(_name, _make, img=_CHW if _name in ("CutOut", "RandomErasing") else
           _PIL if _name in ("RandomGrayscale", "RandomPerspective") else None, shape_only=True)


def cov33_v_random_crop_decode_resize():
    jpeg = V.encode_jpeg(_img(16, 16), 90)
    out = V.RandomCropDecodeResize(6)(jpeg.asnumpy() if hasattr(jpeg, "asnumpy") else jpeg)
    return np.asarray(out).shape, str(np.asarray(out).dtype)


add("cov33_v_RandomCropDecodeResize", ("dataset.vision.RandomCropDecodeResize", "dataset.vision.encode_jpeg"),
    cov33_v_random_crop_decode_resize, graph=False, reason="a dataset transform on encoded bytes")


@case("dataset.vision.encode_png", "dataset.vision.Decode", "dataset.vision.get_image_num_channels",
      "dataset.vision.get_image_size", graph=False, reason="image codecs on the host")
def cov33_v_codecs():
    img = _img()
    png = V.encode_png(img)
    png = png.asnumpy() if hasattr(png, "asnumpy") else np.asarray(png)
    return V.Decode()(png), V.get_image_num_channels(img), V.get_image_size(img)


def _enum_case(name):
    def f():
        return tuple(sorted(m.name for m in getattr(V, name)))
    add(f"cov33_v_enum_{name}", f"dataset.vision.{name}", f, graph=False, reason="an enumeration")


for _name in ("Border", "Inter", "ImageBatchFormat", "ConvertMode", "SliceMode", "AutoAugmentPolicy", "ImageReadMode"):
    _enum_case(_name)


@case("dataset.vision.MixUpBatch", "dataset.vision.CutMixBatch", graph=False, reason="random batch transforms")
def cov33_v_batch_mix():
    imgs = np.stack([_img(seed=s) for s in range(4)])
    labels = np.eye(4, dtype=np.float32)
    a, b = V.MixUpBatch(1.0)(imgs, labels)
    c, d = V.CutMixBatch(V.ImageBatchFormat.NHWC)(imgs, labels)
    return a.shape, str(a.dtype), b.shape, c.shape, d.shape


@case("dataset.vision.BoundingBoxAugment", "dataset.vision.RandomHorizontalFlipWithBBox",
      "dataset.vision.RandomVerticalFlipWithBBox", "dataset.vision.ResizeWithBBox", "dataset.vision.RandomResizeWithBBox",
      "dataset.vision.RandomCropWithBBox", "dataset.vision.RandomResizedCropWithBBox", graph=False,
      reason="dataset transforms of (image, boxes)")
def cov33_v_bbox():
    img, box = _img(), np.array([[1, 1, 4, 3], [2, 0, 5, 6]], np.float32)
    out = [V.ResizeWithBBox(6)(img, box.copy()), V.RandomHorizontalFlipWithBBox(1.0)(img, box.copy()),
           V.RandomVerticalFlipWithBBox(1.0)(img, box.copy())]
    shapes = [V.BoundingBoxAugment(V.RandomHorizontalFlip(1.0), 1.0)(img, box), V.RandomResizeWithBBox(6)(img, box),
              V.RandomCropWithBBox(6)(img, box), V.RandomResizedCropWithBBox(5)(img, box)]
    return tuple(out) + tuple((a.shape, str(a.dtype), b.shape[1:]) for a, b in shapes)     # random crops drop boxes


@case("dataset.vision.ToNumpy", "dataset.vision.ToPIL", graph=False, reason="host-side conversions")
def cov33_v_topil_tonumpy():
    img = _img()
    return np.asarray(V.ToNumpy()(V.ToPIL()(img)))
