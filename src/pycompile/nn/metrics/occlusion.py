"""OcclusionSensitivity (mindspore.train): how much a classifier's score for a label drops when a
small cube of the image around each pixel is replaced by a padding value."""
from __future__ import annotations

import numpy as np

from pycompile.common.tensor import Tensor
from pycompile.common.validator import check_value_type
from pycompile.nn.metrics.metric import Metric, rearrange_inputs


def _bounding_box(b_box, shape):
    if b_box is None:
        return None, None
    if len(b_box) != 2 * len(shape):
        raise ValueError(f"For 'OcclusionSensitivity', the bounding box must contain upper and lower for all "
                         f"dimensions (except batch number), and the length of 'b_box' must be twice as long as "
                         f"predicted value's (except batch number), but got 'b_box' length {len(b_box)}, predicted "
                         f"value length (except batch number) {len(shape)}.")
    lo, hi = np.array(b_box[::2]), np.array(b_box[1::2])
    lo[lo < 0] = 0
    hi[hi < 0] = shape[hi < 0] - 1
    if np.any(hi >= shape):
        raise ValueError("For 'OcclusionSensitivity', maximum bounding box must be smaller than image size for all "
                         "values.")
    if np.any(lo > hi):
        raise ValueError("For 'OcclusionSensitivity', minimum bounding box must be smaller than maximum bounding "
                         "box for all values.")
    return lo, hi


class OcclusionSensitivity(Metric):
    """`update(model, image, label)` with an image batch of one; `eval()` is, for every pixel of
    the image (or of `b_box`), the model's score for `label` on the whole image minus its score with
    the pixels within `margin` (index - margin .. index + margin - 1 on each axis) set to `pad_val`.
    Occluded images are run through the model `n_batch` at a time."""

    def __init__(self, pad_val=0.0, margin=2, n_batch=128, b_box=None):
        super().__init__()
        from pycompile.nn.cell import Cell
        self._cell_type = Cell
        self.pad_val = check_value_type("pad_val", pad_val, [float])
        self.margin = check_value_type("margin", margin, [int, list])
        self.n_batch = check_value_type("n_batch", n_batch, [int])
        self.b_box = b_box if b_box is None else check_value_type("b_box", b_box, [list])
        self.clear()

    def clear(self):
        """Clears the internal evaluation result."""
        self._baseline = 0
        self._sensitivity_im = 0
        self._is_update = False

    def _scores(self, model, images, label):
        out = model(Tensor(np.concatenate(images))).asnumpy()
        return out[np.arange(out.shape[0])[:, None], np.full((out.shape[0], 1), label)]

    @rearrange_inputs
    def update(self, *inputs):
        """`model` (a Cell), `y_pred` (the image batch, first axis 1) and `label`."""
        if len(inputs) != 3:
            raise ValueError(f"For 'OcclusionSensitivity.update', it needs 3 inputs (classification model, "
                             f"predicted value, label), but got {len(inputs)}.")
        model = inputs[0]
        y_pred = self._convert_data(inputs[1])
        label = inputs[2] if isinstance(inputs[2], int) else self._convert_data(inputs[2])
        check_value_type("model", model, [self._cell_type])
        if y_pred.shape[0] > 1:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the shape at index 0 of the predicted value "
                               f"(input[1]) must be 1, but got {y_pred.shape[0]}.")
        if not isinstance(label, int) and np.prod(label.shape) != y_pred.shape[0]:
            raise RuntimeError(f"For 'OcclusionSensitivity.update', the number of the label (input[2]) must be same "
                               f"as the batches, but got the label number {np.prod(label.shape)}, and batches "
                               f"{y_pred.shape[0]}.")
        label = int(np.asarray(label).reshape(-1)[0])
        shape = np.array(y_pred.shape[1:])
        lo, hi = _bounding_box(self.b_box, shape)
        self._baseline = model(Tensor(y_pred)).asnumpy()[0, label].item()
        out_shape = shape if lo is None else hi - lo + 1
        total = int(np.prod(out_shape))
        scores, batch = [], []
        for i in range(total):
            idx = np.array(np.unravel_index(i, out_shape))
            if lo is not None:
                idx = idx + lo
            region = tuple(slice(max(0, k - self.margin), min(n, k + self.margin)) for k, n in zip(idx, shape))
            occluded = y_pred.copy()
            occluded[(...,) + region] = self.pad_val
            batch.append(occluded)
            if len(batch) == self.n_batch or i == total - 1:
                scores.append(self._scores(model, batch, label))
                batch = []
        self._sensitivity_im = np.concatenate(scores).reshape(out_shape)
        self._is_update = True

    def eval(self):
        """The sensitivity map (an ndarray of the image's or the box's spatial shape, squeezed)."""
        if not self._is_update:
            raise RuntimeError("Please call the 'update' method before calling 'eval' method.")
        return self._baseline - np.squeeze(self._sensitivity_im)
