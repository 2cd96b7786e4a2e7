"""Vision cases for the names issue 35 added last (NumPy only), for
tests/oracle/record_vision_data35.py (MindSpore's venv) and tests/dataset/test_vision_data35.py.
Random transforms appear where their result does not depend on the draw (prob 0 or 1, a fixed
factor, the whole image); a case's inputs are a tuple of fixture names (several for the *WithBBox
ops). Results that are PIL images or tuples of them are compared as NumPy arrays."""
import numpy as np

import folder_cases as fc


def inputs():
    rng = np.random.default_rng(3535)
    u8 = rng.integers(0, 256, (12, 10, 3), dtype=np.uint8)
    u8[3:7, 2:5] = (250, 10, 40)
    f32 = rng.random((12, 10, 3), dtype=np.float32)
    return {"u8": u8, "gray": rng.integers(0, 256, (12, 10), dtype=np.uint8), "f32": f32,
            "f32_chw": np.ascontiguousarray(f32.transpose(2, 0, 1)), "u8_small": rng.integers(0, 256, (2, 2, 3), np.uint8),
            "hsv": np.stack([rng.random((4, 5)), rng.random((4, 5)), rng.random((4, 5))], -1).astype(np.float32),
            "bbox": np.array([[1, 2, 3, 4], [0, 0, 10, 12]], np.float32), "bbox1": np.array([[2, 3, 4, 5]], np.float32),
            "jpeg": np.frombuffer(fc.JPEG_6x5, np.uint8).copy(),
            "png": np.frombuffer(fc.png_bytes(fc.pixels(5, 4, 9)), np.uint8).copy(),
            "batch_u8": rng.integers(0, 256, (4, 6, 5, 3), np.uint8),
            "labels_onehot": np.eye(3, dtype=np.float32)[[0, 2, 1, 1]]}


def cases(vision):
    """name -> (build: () -> transform or list of transforms applied in turn, input names)."""
    Inter = vision.Inter
    pil = vision.ToPIL
    return {
        "rgb_to_hsv_f32": (lambda: vision.RgbToHsv(is_hwc=True), ("f32",)),
        "rgb_to_hsv_chw": (lambda: vision.RgbToHsv(), ("f32_chw",)),
        "hsv_to_rgb": (lambda: vision.HsvToRgb(is_hwc=True), ("hsv",)),
        "hsv_to_rgb_chw": (lambda: vision.HsvToRgb(), ("f32_chw",)),
        "rgb_to_hsv_u8": (lambda: vision.RgbToHsv(is_hwc=True), ("u8",)),
        "rgb_to_hsv_bad_channels": (lambda: vision.RgbToHsv(), ("u8",)),
        "adjust_sharpness_0": (lambda: vision.AdjustSharpness(0.0), ("u8",)),
        "adjust_sharpness_2": (lambda: vision.AdjustSharpness(2.0), ("u8",)),
        "adjust_sharpness_gray": (lambda: vision.AdjustSharpness(0.5), ("gray",)),
        "random_adjust_sharpness_always": (lambda: vision.RandomAdjustSharpness(1.7, prob=1.0), ("u8",)),
        "random_adjust_sharpness_never": (lambda: vision.RandomAdjustSharpness(1.7, prob=0.0), ("u8",)),
        "random_sharpness_fixed": (lambda: vision.RandomSharpness(degrees=(1.5, 1.5)), ("u8",)),
        "random_color_fixed": (lambda: vision.RandomColor(degrees=(0.3, 0.3)), ("u8",)),
        "random_auto_contrast_always": (lambda: vision.RandomAutoContrast(cutoff=5.0, prob=1.0), ("u8",)),
        "random_equalize_always": (lambda: vision.RandomEqualize(prob=1.0), ("u8",)),
        "random_grayscale_always": (lambda: [pil(), vision.RandomGrayscale(prob=1.0)], ("u8",)),
        "random_grayscale_never": (lambda: [pil(), vision.RandomGrayscale(prob=0.0)], ("u8",)),
        "random_lighting_0": (lambda: vision.RandomLighting(alpha=0.0), ("u8",)),
        "five_crop": (lambda: [pil(), vision.FiveCrop(4)], ("u8",)),
        "five_crop_rect": (lambda: [pil(), vision.FiveCrop((5, 3))], ("u8",)),
        "ten_crop": (lambda: [pil(), vision.TenCrop(4)], ("u8",)),
        "ten_crop_vertical": (lambda: [pil(), vision.TenCrop((3, 5), use_vertical_flip=True)], ("u8",)),
        "normalize_pad": (lambda: vision.NormalizePad(mean=(121.0, 115.0, 100.0), std=(70.0, 68.0, 71.0)), ("u8",)),
        "normalize_pad_f16": (lambda: vision.NormalizePad(mean=(0.5, 0.5, 0.5), std=(0.2, 0.2, 0.2), dtype="float16"),
                              ("f32",)),
        "linear_transformation": (lambda: vision.LinearTransformation(np.eye(12, dtype=np.float32)[::-1] * 2,
                                                                      np.arange(12, dtype=np.float32) / 10),
                                  ("u8_small",)),
        "slice_patches": (lambda: vision.SlicePatches(2, 3), ("u8",)),
        "slice_patches_pad": (lambda: vision.SlicePatches(5, 3, slice_mode=vision.SliceMode.PAD, fill_value=7),
                              ("u8",)),
        "slice_patches_drop": (lambda: vision.SlicePatches(5, 3, slice_mode=vision.SliceMode.DROP), ("u8",)),
        "cutout_whole": (lambda: vision.CutOut(length=30, num_patches=1), ("u8",)),
        "cutout_fits": (lambda: vision.CutOut(length=10, num_patches=2, is_hwc=True), ("u8",)),
        "random_erasing_never": (lambda: vision.RandomErasing(prob=0.0), ("f32_chw",)),
        "gaussian_blur_u8": (lambda: vision.GaussianBlur(3, 1.0), ("u8",)),
        "gaussian_blur_f32": (lambda: vision.GaussianBlur((5, 3), (1.5, 0.8)), ("f32",)),
        "gaussian_blur_default_sigma": (lambda: vision.GaussianBlur(5), ("gray",)),
        "perspective_identity": (lambda: vision.Perspective([[0, 0], [9, 0], [9, 11], [0, 11]],
                                                            [[0, 0], [9, 0], [9, 11], [0, 11]]), ("u8",)),
        "perspective": (lambda: vision.Perspective([[0, 0], [9, 0], [9, 11], [0, 11]],
                                                   [[1, 2], [8, 0], [9, 10], [0, 11]], Inter.BILINEAR), ("u8",)),
        "perspective_nearest": (lambda: vision.Perspective([[0, 0], [9, 0], [9, 11], [0, 11]],
                                                           [[1, 2], [8, 0], [9, 10], [0, 11]], Inter.NEAREST), ("u8",)),
        "random_crop_decode_resize_whole": (lambda: vision.RandomCropDecodeResize((3, 4), scale=(1.0, 1.0),
                                                                                  ratio=(5 / 6, 5 / 6)), ("jpeg",)),
        "resize_with_bbox": (lambda: vision.ResizeWithBBox((6, 5)), ("u8", "bbox")),
        "resize_with_bbox_int": (lambda: vision.ResizeWithBBox(8), ("u8", "bbox1")),
        "hflip_with_bbox_always": (lambda: vision.RandomHorizontalFlipWithBBox(1.0), ("u8", "bbox")),
        "vflip_with_bbox_always": (lambda: vision.RandomVerticalFlipWithBBox(1.0), ("u8", "bbox")),
        "random_crop_with_bbox_whole": (lambda: vision.RandomCropWithBBox((12, 10)), ("u8", "bbox")),
        "rrc_with_bbox_whole": (lambda: vision.RandomResizedCropWithBBox((6, 5), scale=(1.0, 1.0),
                                                                          ratio=(10 / 12, 10 / 12)), ("u8", "bbox")),
        "bounding_box_augment_flip": (lambda: vision.BoundingBoxAugment(vision.HorizontalFlip(), ratio=1.0),
                                      ("u8", "bbox1")),
        "mixup_batch_onehot_alpha_tiny": (lambda: vision.MixUpBatch(alpha=1e-9), ("batch_u8", "labels_onehot")),
        "get_image_size": (lambda: vision.get_image_size, ("u8",)),
        "get_image_size_gray": (lambda: vision.get_image_size, ("gray",)),
        "get_image_num_channels": (lambda: vision.get_image_num_channels, ("u8",)),
        "get_image_num_channels_gray": (lambda: vision.get_image_num_channels, ("gray",)),
        "decode_png_via_read": (lambda: vision.Decode(), ("png",)),
        "resize_pilcubic_up": (lambda: vision.Resize((20, 15), Inter.PILCUBIC), ("u8",)),
        "resize_pilcubic_width_only": (lambda: vision.Resize((12, 7), Inter.PILCUBIC), ("u8",)),
        "resize_pilcubic_gray": (lambda: vision.Resize((5, 13), Inter.PILCUBIC), ("gray",)),
        "resize_pilcubic_pil_refused": (lambda: [pil(), vision.Resize((7, 8), Inter.PILCUBIC)], ("u8",)),
        "resize_antialias_pil": (lambda: [pil(), vision.Resize((7, 8), Inter.ANTIALIAS)], ("u8",)),
        "resize_antialias_pil_int": (lambda: [pil(), vision.Resize(6, Inter.ANTIALIAS)], ("u8",)),
        "resize_antialias_numpy_refused": (lambda: vision.Resize((7, 8), Inter.ANTIALIAS), ("u8",)),
    }


def apply(built, images):
    out = images
    for op in built if isinstance(built, list) else [built]:
        out = op(*out) if isinstance(out, tuple) else op(out)
    return out


def encode(out) -> list:
    outs = out if isinstance(out, (tuple, list)) else (out,)
    res = []
    for o in outs:
        a = np.asarray(o)
        res.append({"dtype": str(a.dtype), "shape": list(a.shape),
                    "values": a.astype(np.float64).tolist() if a.dtype.kind == "f" else a.tolist()})
    return res
