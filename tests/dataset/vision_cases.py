"""Vision transform fixtures defined once (NumPy only) for tests/oracle/record_vision.py (MindSpore's
venv) and tests/dataset/test_vision.py: inputs and, per case, the transform built from a `vision`
module (MindSpore's or pycompile's; PIL images are compared as np.asarray of them). Random transforms appear with degenerate ranges (a fixed
factor, prob 0 or 1, the whole image), where their result does not depend on the random draw."""
import numpy as np


def inputs():
    rng = np.random.default_rng(35)
    u8 = rng.integers(0, 256, (12, 10, 3), dtype=np.uint8)
    u8[3:7, 2:5] = (250, 10, 40)                     # a flat patch: saturation / hue work on it
    return {"u8": u8, "gray": rng.integers(0, 256, (12, 10), dtype=np.uint8),
            "gray1": rng.integers(0, 256, (12, 10, 1), dtype=np.uint8),
            "f32": rng.random((12, 10, 3), dtype=np.float32), "u8_square": rng.integers(0, 256, (9, 9, 3), np.uint8),
            "u8_wide": rng.integers(0, 256, (6, 45, 3), np.uint8)}


# recorded, not implemented by pycompile (it raises NotImplementedError): none left (PILCUBIC: issue 35)
NOT_IMPLEMENTED = set()
# float results within a few ulp of MindSpore's (its pow is not NumPy's; OpenCV's float bicubic sums
# in an order not reproduced)
WITHIN_ULPS = {"gamma_f32": 1, "resize_bicubic_f32": 4}


def cases(vision):
    """name -> (a function building the transform or a list applied in turn, input name): building
    may raise where pycompile lacks an option (the hue shift)."""
    Inter, Border = vision.Inter, vision.Border
    mode = vision.ConvertMode
    return {
        "pad_2_fill_7": (lambda: vision.Pad(2, fill_value=7), "u8"),
        "pad_ltrb": (lambda: vision.Pad([1, 2, 3, 4]), "u8"),
        "pad_lr_tb": (lambda: vision.Pad([3, 1]), "u8"),
        "pad_rgb_fill": (lambda: vision.Pad(1, fill_value=(10, 20, 30)), "u8"),
        "pad_edge": (lambda: vision.Pad(2, padding_mode=Border.EDGE), "u8"),
        "pad_reflect": (lambda: vision.Pad([2, 1, 3, 2], padding_mode=Border.REFLECT), "u8"),
        "pad_symmetric": (lambda: vision.Pad(2, padding_mode=Border.SYMMETRIC), "u8"),
        "pad_gray": (lambda: vision.Pad(1, fill_value=5), "gray"),
        "pad_f32": (lambda: vision.Pad(1, fill_value=3), "f32"),
        "vflip_always": (lambda: vision.RandomVerticalFlip(1.0), "u8"),
        "vflip_never": (lambda: vision.RandomVerticalFlip(0.0), "u8"),
        "vflip": (lambda: vision.VerticalFlip(), "u8"),
        "hflip": (lambda: vision.HorizontalFlip(), "u8"),
        "rrc_whole_linear": (lambda: vision.RandomResizedCrop((6, 5), scale=(1.0, 1.0), ratio=(10 / 12, 10 / 12)), "u8"),
        "rrc_whole_nearest": (lambda: vision.RandomResizedCrop(7, scale=(1.0, 1.0), ratio=(10 / 12, 10 / 12),
                                                       interpolation=Inter.NEAREST), "u8"),
        "rrc_whole_up": (lambda: vision.RandomResizedCrop((16, 15), scale=(1.0, 1.0), ratio=(10 / 12, 10 / 12)), "u8"),
        "rrc_fallback_center": (lambda: vision.RandomResizedCrop((5, 5), scale=(2.0, 2.0), ratio=(1.0, 1.0)), "u8"),
        "rrc_fallback_wide": (lambda: vision.RandomResizedCrop((4, 6), scale=(2.0, 2.0), ratio=(2.0, 2.0)), "u8"),
        "grayscale_1": (lambda: vision.Grayscale(1), "u8"),
        "grayscale_3": (lambda: vision.Grayscale(3), "u8"),
        "to_pil_grayscale_1": (lambda: [vision.ToPIL(), vision.Grayscale(1)], "u8"),
        "to_pil_grayscale_3": (lambda: [vision.ToPIL(), vision.Grayscale(3)], "u8"),
        "to_pil_gray": (lambda: vision.ToPIL(), "gray"),
        "to_pil_gray1": (lambda: vision.ToPIL(), "gray1"),
        "to_pil_rgb": (lambda: vision.ToPIL(), "u8"),
        "rgb2gray": (lambda: vision.ConvertColor(mode.COLOR_RGB2GRAY), "u8"),
        "bgr2gray": (lambda: vision.ConvertColor(mode.COLOR_BGR2GRAY), "u8"),
        "rgb2bgr": (lambda: vision.ConvertColor(mode.COLOR_RGB2BGR), "u8"),
        "rgb2rgba": (lambda: vision.ConvertColor(mode.COLOR_RGB2RGBA), "u8"),
        "gray2rgb": (lambda: vision.ConvertColor(mode.COLOR_GRAY2RGB), "gray"),
        "brightness_1_3": (lambda: vision.RandomColorAdjust(brightness=(1.3, 1.3)), "u8"),
        "brightness_0_4": (lambda: vision.RandomColorAdjust(brightness=(0.4, 0.4)), "u8"),
        "contrast_0_6": (lambda: vision.RandomColorAdjust(contrast=(0.6, 0.6)), "u8"),
        "contrast_1_7": (lambda: vision.RandomColorAdjust(contrast=(1.7, 1.7)), "u8"),
        "saturation_1_5": (lambda: vision.RandomColorAdjust(saturation=(1.5, 1.5)), "u8"),
        "saturation_0_3": (lambda: vision.RandomColorAdjust(saturation=(0.3, 0.3)), "u8"),
        "hue_0_1": (lambda: vision.RandomColorAdjust(hue=(0.1, 0.1)), "u8"),
        "hue_minus_0_25": (lambda: vision.RandomColorAdjust(hue=(-0.25, -0.25)), "u8"),
        "color_adjust_identity": (lambda: vision.RandomColorAdjust(), "u8"),
        "adjust_brightness": (lambda: vision.AdjustBrightness(1.3), "u8"),
        "adjust_contrast": (lambda: vision.AdjustContrast(0.6), "u8"),
        "adjust_saturation": (lambda: vision.AdjustSaturation(1.5), "u8"),
        "adjust_hue": (lambda: vision.AdjustHue(0.1), "u8"),
        "adjust_hue_wide": (lambda: vision.AdjustHue(-0.3), "u8_wide"),     # 32 vectorised pixels a row, 13 not
        "saturation_wide": (lambda: vision.AdjustSaturation(0.7), "u8_wide"),
        "rotate_wide_linear": (lambda: vision.Rotate(17.5, resample=vision.Inter.BILINEAR, expand=True), "u8_wide"),
        "rotate_90_expand": (lambda: vision.RandomRotation((90, 90), expand=True), "u8"),
        "rotate_180": (lambda: vision.RandomRotation((180, 180)), "u8"),
        "rotate_30_nearest": (lambda: vision.RandomRotation((30, 30), resample=Inter.NEAREST), "u8"),
        "rotate_30_linear_fill": (lambda: vision.RandomRotation((30, 30), resample=Inter.BILINEAR, fill_value=9), "u8"),
        "rotate_0": (lambda: vision.RandomRotation((0, 0)), "u8"),
        "rotate_square_90": (lambda: vision.Rotate(90), "u8_square"),
        "crop": (lambda: vision.Crop((2, 3), (5, 4)), "u8"),
        "crop_int": (lambda: vision.Crop((1, 1), 6), "gray"),
        "resized_crop": (lambda: vision.ResizedCrop(1, 2, 8, 6, (5, 7)), "u8"),
        "resized_crop_nearest": (lambda: vision.ResizedCrop(0, 1, 9, 7, 12, vision.Inter.NEAREST), "u8"),
        "invert": (lambda: vision.Invert(), "u8"),
        "random_invert_always": (lambda: vision.RandomInvert(1.0), "u8"),
        "posterize_3": (lambda: vision.Posterize(3), "u8"),
        "random_posterize_2": (lambda: vision.RandomPosterize((2, 2)), "u8"),
        "solarize_100": (lambda: vision.Solarize(100), "u8"),
        "solarize_range": (lambda: vision.Solarize((50, 150)), "u8"),
        "random_solarize_fixed": (lambda: vision.RandomSolarize((120, 120)), "u8"),
        "gamma_0_5": (lambda: vision.AdjustGamma(0.5), "u8"),
        "gamma_2_2_gain": (lambda: vision.AdjustGamma(2.2, gain=0.9), "u8"),
        "gamma_f32": (lambda: vision.AdjustGamma(1.7), "f32"),
        "to_numpy": (lambda: [vision.ToPIL(), vision.ToNumpy()], "u8"),
        "pad_to_size": (lambda: vision.PadToSize((15, 14)), "u8"),
        "pad_to_size_offset": (lambda: vision.PadToSize([16, 13], offset=[1, 2], fill_value=3), "u8"),
        "pad_to_size_edge": (lambda: vision.PadToSize(14, padding_mode=vision.Border.EDGE), "gray"),
        "erase": (lambda: vision.Erase(2, 3, 4, 5, value=9), "u8"),
        "erase_rgb": (lambda: vision.Erase(0, 0, 3, 2, value=(1, 2, 3)), "u8"),
        "equalize": (lambda: vision.Equalize(), "u8"),
        "equalize_gray": (lambda: vision.Equalize(), "gray"),
        "auto_contrast": (lambda: vision.AutoContrast(), "u8"),
        "auto_contrast_cutoff": (lambda: vision.AutoContrast(cutoff=10.0, ignore=[0, 255]), "u8"),
        "affine": (lambda: vision.Affine(degrees=15, translate=[0.2, -0.1], scale=1.1, shear=[5.0, 3.0]), "u8"),
        "affine_linear": (lambda: vision.Affine(degrees=-30, translate=[0, 0], scale=0.9, shear=0.0,
                                                resample=vision.Inter.BILINEAR, fill_value=(5, 6, 7)), "u8"),
        "random_affine_fixed": (lambda: vision.RandomAffine(degrees=(20, 20), translate=(0, 0, 0, 0),
                                                            scale=(1.2, 1.2)), "u8"),
        "resize_bicubic_up": (lambda: vision.Resize((17, 13), vision.Inter.BICUBIC), "u8"),
        "resize_bicubic_down": (lambda: vision.Resize((5, 4), vision.Inter.BICUBIC), "u8"),
        "resize_bicubic_f32": (lambda: vision.Resize((7, 15), vision.Inter.BICUBIC), "f32"),
        "resize_bicubic_wide": (lambda: vision.Resize((9, 70), vision.Inter.BICUBIC), "u8_wide"),
        "resize_bicubic_gray": (lambda: vision.Resize((20, 7), vision.Inter.BICUBIC), "gray"),
        "resize_area_down": (lambda: vision.Resize((6, 5), vision.Inter.AREA), "u8"),
        "resize_area_frac": (lambda: vision.Resize((5, 4), vision.Inter.AREA), "u8"),
        "resize_area_up": (lambda: vision.Resize((17, 13), vision.Inter.AREA), "u8"),
        "resize_area_mixed": (lambda: vision.Resize((5, 23), vision.Inter.AREA), "u8"),
        "resize_area_by_3": (lambda: vision.Resize((3, 3), vision.Inter.AREA), "u8_square"),
        "resize_area_f32": (lambda: vision.Resize((5, 4), vision.Inter.AREA), "f32"),
        "resize_area_wide": (lambda: vision.Resize((4, 17), vision.Inter.AREA), "u8_wide"),
        "resize_pilcubic": (lambda: vision.Resize((7, 8), vision.Inter.PILCUBIC), "u8"),
    }


def apply(built, image):
    for op in built if isinstance(built, list) else [built]:
        image = op(image)
    return image
