"""The conformance table: issue 33's coverage of mindspore.dataset.vision names pycompile had without a
recorded case (tools/name_coverage.py). Ids start with ``cov33_v_``. Vision transforms run eagerly on
NumPy images (the dataset pipeline's data, never graph code): graph=False. Random transforms are
compared by shape and dtype (and with their probability at 0 or 1, by value)."""
group("cov33_vision")

C33V = ms.dataset.vision


def _c33_img(h=8, w=10, seed=3):
    return np.random.default_rng(seed).integers(0, 256, size=(h, w, 3)).astype(np.uint8)


def _c33_vcase(name, make, img=None, shape_only=False, cid=None):
    def f():
        t = make()
        out = t(_c33_img() if img is None else img())
        if shape_only:
            outs = out if isinstance(out, tuple) else (out,)
            return tuple((np.asarray(o).shape, str(np.asarray(o).dtype)) for o in outs)
        if isinstance(out, (tuple, list)):
            return tuple(np.asarray(o) for o in out)
        return np.asarray(out)
    add(f"cov33_v_{cid or name}", f"dataset.vision.{name}", f, graph=False,
        reason="a dataset transform runs on NumPy images in the pipeline, not in graph code")


_c33_GRAY = lambda: _c33_img()[:, :, :1]  # noqa: E731
_c33_F32 = lambda: (_c33_img().astype(np.float32) / 255.0)  # noqa: E731
_c33_CHW = lambda: np.transpose(_c33_img(), (2, 0, 1))  # noqa: E731

# deterministic transforms: values compared
_c33_vcase("AdjustBrightness", lambda: C33V.AdjustBrightness(1.5))
_c33_vcase("AdjustContrast", lambda: C33V.AdjustContrast(0.5))
_c33_vcase("AdjustGamma", lambda: C33V.AdjustGamma(0.8, 1.2))
_c33_vcase("AdjustHue", lambda: C33V.AdjustHue(0.2))
_c33_vcase("AdjustSaturation", lambda: C33V.AdjustSaturation(1.7))
_c33_vcase("AdjustSharpness", lambda: C33V.AdjustSharpness(2.0))
_c33_vcase("Affine", lambda: C33V.Affine(15.0, [0.1, -0.2], 1.1, [5.0, 0.0]))
_c33_vcase("AutoContrast", lambda: C33V.AutoContrast(5.0))
_c33_vcase("CenterCrop", lambda: C33V.CenterCrop((4, 6)))
_c33_vcase("ConvertColor", lambda: C33V.ConvertColor(C33V.ConvertMode.COLOR_RGB2GRAY))
_c33_vcase("Crop", lambda: C33V.Crop((1, 2), (4, 5)))
_c33_vcase("Equalize", lambda: C33V.Equalize())
_c33_vcase("Erase", lambda: C33V.Erase(1, 2, 3, 4, (10, 20, 30)))
_c33_PIL = lambda: C33V.ToPIL()(_c33_img())  # noqa: E731
_c33_vcase("FiveCrop", lambda: C33V.FiveCrop(4), img=_c33_PIL)
_c33_vcase("GaussianBlur", lambda: C33V.GaussianBlur(3, 1.0))
_c33_vcase("Grayscale", lambda: C33V.Grayscale(3), img=_c33_PIL)
_c33_vcase("HWC2CHW", lambda: C33V.HWC2CHW())
_c33_vcase("HorizontalFlip", lambda: C33V.HorizontalFlip())
_c33_vcase("HsvToRgb", lambda: C33V.HsvToRgb(), img=lambda: _c33_F32()[None].transpose(0, 3, 1, 2)[0])
_c33_vcase("Invert", lambda: C33V.Invert())
_c33_vcase("LinearTransformation", lambda: C33V.LinearTransformation(np.eye(12, dtype=np.float32) * 2,
                                                              np.zeros(12, np.float32)),
       img=lambda: _c33_F32()[:2, :2].reshape(2, 2, 3))
_c33_vcase("Normalize", lambda: C33V.Normalize([120.0, 110.0, 100.0], [60.0, 50.0, 40.0]))
_c33_vcase("NormalizePad", lambda: C33V.NormalizePad([120.0, 110.0, 100.0], [60.0, 50.0, 40.0]))
_c33_vcase("Pad", lambda: C33V.Pad([1, 2, 3, 1], fill_value=7))
_c33_vcase("PadToSize", lambda: C33V.PadToSize((10, 12), fill_value=5))
_c33_vcase("Perspective", lambda: C33V.Perspective([[0, 0], [9, 0], [9, 7], [0, 7]], [[1, 0], [8, 1], [9, 7], [0, 6]]))
_c33_vcase("Posterize", lambda: C33V.Posterize(3))
_c33_vcase("Rescale", lambda: C33V.Rescale(1.0 / 255.0, -0.5))
_c33_vcase("Resize", lambda: C33V.Resize((5, 7)))
_c33_vcase("ResizedCrop", lambda: C33V.ResizedCrop(1, 2, 5, 6, (4, 4)))
_c33_vcase("RgbToHsv", lambda: C33V.RgbToHsv(), img=lambda: _c33_F32().transpose(2, 0, 1))
_c33_vcase("Rotate", lambda: C33V.Rotate(90))
_c33_vcase("SlicePatches", lambda: C33V.SlicePatches(2, 2))
_c33_vcase("Solarize", lambda: C33V.Solarize(128.0))
_c33_vcase("TenCrop", lambda: C33V.TenCrop(4), img=_c33_PIL)
_c33_vcase("ToTensor", lambda: C33V.ToTensor())
_c33_vcase("ToType", lambda: C33V.ToType(np.float32))
_c33_vcase("VerticalFlip", lambda: C33V.VerticalFlip())

# random transforms: shape and dtype
for _name, _make in [
    ("AutoAugment", lambda: C33V.AutoAugment()), ("RandAugment", lambda: C33V.RandAugment()),
    ("RandomAdjustSharpness", lambda: C33V.RandomAdjustSharpness(2.0, 0.5)),
    ("RandomAffine", lambda: C33V.RandomAffine(15)), ("RandomAutoContrast", lambda: C33V.RandomAutoContrast()),
    ("RandomColor", lambda: C33V.RandomColor()), ("RandomColorAdjust", lambda: C33V.RandomColorAdjust(0.4, 0.4, 0.4, 0.1)),
    ("RandomCrop", lambda: C33V.RandomCrop(4)), ("RandomEqualize", lambda: C33V.RandomEqualize()),
    ("RandomErasing", lambda: C33V.RandomErasing(), ), ("RandomGrayscale", lambda: C33V.RandomGrayscale()),
    ("RandomHorizontalFlip", lambda: C33V.RandomHorizontalFlip()), ("RandomInvert", lambda: C33V.RandomInvert()),
    ("RandomLighting", lambda: C33V.RandomLighting()), ("RandomPerspective", lambda: C33V.RandomPerspective()),
    ("RandomPosterize", lambda: C33V.RandomPosterize()), ("RandomResize", lambda: C33V.RandomResize((5, 6))),
    ("RandomResizedCrop", lambda: C33V.RandomResizedCrop(4)), ("RandomRotation", lambda: C33V.RandomRotation(30)),
    ("RandomSharpness", lambda: C33V.RandomSharpness()), ("RandomSolarize", lambda: C33V.RandomSolarize()),
    ("RandomVerticalFlip", lambda: C33V.RandomVerticalFlip()), ("TrivialAugmentWide", lambda: C33V.TrivialAugmentWide()),
    ("UniformAugment", lambda: C33V.UniformAugment([C33V.Invert(), C33V.HorizontalFlip()], 2)),
    ("RandomSelectSubpolicy", lambda: C33V.RandomSelectSubpolicy([[(C33V.Invert(), 0.5), (C33V.Equalize(), 0.5)]])),
    ("CutOut", lambda: C33V.CutOut(3, 2)),
]:
    _c33_vcase(_name, _make, img=_c33_CHW if _name in ("CutOut", "RandomErasing") else
           _c33_PIL if _name in ("RandomGrayscale", "RandomPerspective") else None, shape_only=True)


def cov33_v_random_crop_decode_resize():
    jpeg = C33V.encode_jpeg(_c33_img(16, 16), 90)
    out = C33V.RandomCropDecodeResize(6)(jpeg.asnumpy() if hasattr(jpeg, "asnumpy") else jpeg)
    return np.asarray(out).shape, str(np.asarray(out).dtype)


add("cov33_v_RandomCropDecodeResize", ("dataset.vision.RandomCropDecodeResize", "dataset.vision.encode_jpeg"),
    cov33_v_random_crop_decode_resize, graph=False, reason="a dataset transform on encoded bytes")


@case("dataset.vision.encode_png", "dataset.vision.Decode", "dataset.vision.get_image_num_channels",
      "dataset.vision.get_image_size", graph=False, reason="image codecs on the host")
def cov33_v_codecs():
    img = _c33_img()
    png = C33V.encode_png(img)
    png = png.asnumpy() if hasattr(png, "asnumpy") else np.asarray(png)
    return C33V.Decode()(png), C33V.get_image_num_channels(img), C33V.get_image_size(img)


def _c33_enum_case(name):
    def f():
        return tuple(sorted(m.name for m in getattr(C33V, name)))
    add(f"cov33_v_enum_{name}", f"dataset.vision.{name}", f, graph=False, reason="an enumeration")


for _name in ("Border", "Inter", "ImageBatchFormat", "ConvertMode", "SliceMode", "AutoAugmentPolicy", "ImageReadMode"):
    _c33_enum_case(_name)


@case("dataset.vision.MixUpBatch", "dataset.vision.CutMixBatch", graph=False, reason="random batch transforms")
def cov33_v_batch_mix():
    imgs = np.stack([_c33_img(seed=s) for s in range(4)])
    labels = np.eye(4, dtype=np.float32)
    a, b = C33V.MixUpBatch(1.0)(imgs, labels)
    c, d = C33V.CutMixBatch(C33V.ImageBatchFormat.NHWC)(imgs, labels)
    return a.shape, str(a.dtype), b.shape, c.shape, d.shape


@case("dataset.vision.BoundingBoxAugment", "dataset.vision.RandomHorizontalFlipWithBBox",
      "dataset.vision.RandomVerticalFlipWithBBox", "dataset.vision.ResizeWithBBox", "dataset.vision.RandomResizeWithBBox",
      "dataset.vision.RandomCropWithBBox", "dataset.vision.RandomResizedCropWithBBox", graph=False,
      reason="dataset transforms of (image, boxes)")
def cov33_v_bbox():
    img, box = _c33_img(), np.array([[1, 1, 4, 3], [2, 0, 5, 6]], np.float32)
    out = [C33V.ResizeWithBBox(6)(img, box.copy()), C33V.RandomHorizontalFlipWithBBox(1.0)(img, box.copy()),
           C33V.RandomVerticalFlipWithBBox(1.0)(img, box.copy())]
    shapes = [C33V.BoundingBoxAugment(C33V.RandomHorizontalFlip(1.0), 1.0)(img, box), C33V.RandomResizeWithBBox(6)(img, box),
              C33V.RandomCropWithBBox(6)(img, box), C33V.RandomResizedCropWithBBox(5)(img, box)]
    return tuple(out) + tuple((a.shape, str(a.dtype), b.shape[1:]) for a, b in shapes)     # random crops drop boxes


@case("dataset.vision.ToNumpy", "dataset.vision.ToPIL", graph=False, reason="host-side conversions")
def cov33_v_topil_tonumpy():
    img = _c33_img()
    return np.asarray(C33V.ToNumpy()(C33V.ToPIL()(img)))
