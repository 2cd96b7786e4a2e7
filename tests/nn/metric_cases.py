"""Metric update sequences, NumPy only: record_metrics.py feeds them to MindSpore 2.10's metrics,
test_metrics.py to pycompile's, and compares with what MindSpore returned.

Each case: (class name, constructor kwargs, [update inputs...], [eval kwargs...]).
"""
import numpy as np

_rng = np.random.default_rng(20261123)

P4x3 = np.array([[0.1, 0.7, 0.2], [0.5, 0.3, 0.2], [0.2, 0.2, 0.6], [0.9, 0.05, 0.05]], np.float32)
Y4 = np.array([1, 0, 1, 2], np.int32)
P2x3 = np.array([[0.3, 0.3, 0.4], [0.05, 0.9, 0.05]], np.float32)
Y2_ONEHOT = np.array([[0, 0, 1], [1, 0, 0]], np.float32)
ML_PRED = np.array([[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 1]], np.int32)
ML_TRUE = np.array([[1, 0, 0], [0, 0, 1], [1, 1, 1], [0, 1, 1]], np.int32)
P3D = _rng.random((2, 4, 3)).astype(np.float32)          # (N, C, L)
Y3D = np.array([[0, 3, 1], [2, 2, 0]], np.int64)           # (N, L)
P6 = _rng.random((5, 6)).astype(np.float64)
Y6 = np.array([0, 5, 2, 2, 4], np.int64)
REG_PRED = np.array([0.1, 0.2, 0.6, 0.9], np.float32)
REG_TRUE = np.array([[0.1], [0.25], [0.4], [1.0]], np.float32)
REG2_PRED = _rng.normal(size=(3, 2)).astype(np.float64)
REG2_TRUE = _rng.normal(size=(3, 2)).astype(np.float64)
CM_PRED = np.array([[0.1, 0.8, 0.1], [0.6, 0.3, 0.1], [0.2, 0.2, 0.6], [0.3, 0.4, 0.3], [0.7, 0.2, 0.1]])
CM_TRUE = np.array([1, 0, 2, 2, 1])
BIN_PRED = np.array([0.2, 0.7, 0.5, 0.4, 0.9], np.float32)
BIN_TRUE = np.array([0, 1, 1, 0, 0], np.int64)

CASES = {
    "accuracy_classification": ("Accuracy", {}, [(P4x3, Y4), (P2x3, Y2_ONEHOT)], [{}]),
    "accuracy_multilabel": ("Accuracy", {"eval_type": "multilabel"}, [(ML_PRED, ML_TRUE)], [{}]),
    "accuracy_3d": ("Accuracy", {}, [(P3D, Y3D)], [{}]),
    "loss": ("Loss", {}, [(np.array(0.5, np.float32),), (np.array([1.0, 2.0, 4.0]),), (np.array(3.0),)], [{}]),
    "top1": ("Top1CategoricalAccuracy", {}, [(P6, Y6), (P4x3, Y4)], [{}]),
    "top5": ("Top5CategoricalAccuracy", {}, [(P6, Y6)], [{}]),
    "topk2_onehot": ("TopKCategoricalAccuracy", {"k": 2}, [(P2x3, Y2_ONEHOT), (P4x3, Y4)], [{}]),
    "mae": ("MAE", {}, [(REG_PRED, REG_TRUE), (REG2_PRED[:, 0], REG2_TRUE[:, 0])], [{}]),
    "mae_2d": ("MAE", {}, [(REG2_PRED, REG2_TRUE)], [{}]),
    "mse": ("MSE", {}, [(REG_PRED, REG_TRUE), (REG2_PRED[:, 1], REG2_TRUE[:, 1])], [{}]),
    "precision": ("Precision", {}, [(P4x3, Y4), (P2x3, Y2_ONEHOT)], [{}, {"average": True}]),
    "precision_multilabel": ("Precision", {"eval_type": "multilabel"}, [(ML_PRED, ML_TRUE), (ML_PRED[:2], ML_TRUE[:2])],
                             [{}, {"average": True}]),
    "recall": ("Recall", {}, [(P4x3, Y4), (P2x3, Y2_ONEHOT)], [{}, {"average": True}]),
    "recall_multilabel": ("Recall", {"eval_type": "multilabel"}, [(ML_PRED, ML_TRUE)], [{}, {"average": True}]),
    "f1": ("F1", {}, [(P4x3, Y4), (P2x3, Y2_ONEHOT)], [{}, {"average": True}]),
    "fbeta_half": ("Fbeta", {"beta": 0.5}, [(P4x3, Y4), (CM_PRED, CM_TRUE)], [{}, {"average": True}]),
    "fbeta_missing_class": ("Fbeta", {"beta": 2}, [(P2x3, np.array([1, 1]))], [{}, {"average": True}]),
    "confusion": ("ConfusionMatrix", {"num_classes": 3}, [(CM_PRED, CM_TRUE), (P4x3, Y4)], [{}]),
    "confusion_target": ("ConfusionMatrix", {"num_classes": 3, "normalize": "target"}, [(CM_PRED, CM_TRUE)], [{}]),
    "confusion_prediction": ("ConfusionMatrix", {"num_classes": 3, "normalize": "prediction"},
                             [(CM_PRED[:3], CM_TRUE[:3])], [{}]),
    "confusion_all": ("ConfusionMatrix", {"num_classes": 3, "normalize": "all"}, [(CM_PRED, CM_TRUE)], [{}]),
    "confusion_binary": ("ConfusionMatrix", {"num_classes": 2, "threshold": 0.5}, [(BIN_PRED, BIN_TRUE)], [{}]),
    "perplexity": ("Perplexity", {}, [(P4x3, Y4), (P6, Y6)], [{}]),
    "perplexity_ignore": ("Perplexity", {"ignore_label": 2}, [(P4x3, Y4)], [{}]),
    "dice": ("Dice", {}, [(ML_PRED.astype(np.float64), ML_TRUE.astype(np.float64)),
                          (P4x3.astype(np.float64), P4x3[::-1].astype(np.float64))], [{}]),
    "dice_smooth": ("Dice", {"smooth": 0.5}, [(REG2_PRED, REG2_TRUE)], [{}]),
    "cosine": ("CosineSimilarity", {}, [(P6,)], [{}]),
    "cosine_dot_mean": ("CosineSimilarity", {"similarity": "dot", "reduction": "mean"}, [(P4x3,)], [{}]),
    "cosine_sum_diag": ("CosineSimilarity", {"reduction": "sum", "zero_diagonal": False}, [(REG2_PRED,)], [{}]),
    "roc_binary": ("ROC", {"pos_label": 1}, [(BIN_PRED, BIN_TRUE)], [{}]),
    "roc_binary_ties": ("ROC", {}, [(np.array([0.1, 0.4, 0.4, 0.8, 0.8, 0.3]), np.array([0, 1, 0, 1, 1, 0]))], [{}]),
    "roc_multiclass": ("ROC", {"class_num": 4}, [(np.array([[0.28, 0.55, 0.15, 0.05], [0.10, 0.20, 0.05, 0.05],
                                                            [0.20, 0.05, 0.15, 0.05], [0.05, 0.05, 0.05, 0.75]]),
                                                  np.array([0, 1, 2, 3]))], [{}]),
    "bleu": ("BleuScore", {}, [([["the", "cat", "sat", "on", "the", "mat"]],
                                [[["the", "cat", "is", "on", "the", "mat"], ["there", "is", "a", "cat", "on", "the", "mat"]]])],
             [{}]),
    "bleu_2gram_smooth": ("BleuScore", {"n_gram": 2, "smooth": True},
                          [([["a", "b", "c"], ["d", "e"]], [[["a", "b", "d", "c"]], [["d", "e", "f"], ["d"]]])], [{}]),
    "bleu_no_match": ("BleuScore", {"n_gram": 3}, [([["x", "y", "z"]], [[["x", "q", "z"]]])], [{}]),
}

# (class, constructor kwargs) whose eval() is called with no update.
EMPTY = {
    "Accuracy": {}, "Loss": {}, "Top1CategoricalAccuracy": {}, "Top5CategoricalAccuracy": {},
    "TopKCategoricalAccuracy": {"k": 3}, "MAE": {}, "MSE": {}, "Precision": {}, "Recall": {}, "F1": {},
    "Fbeta": {"beta": 1.5}, "ConfusionMatrix": {"num_classes": 2}, "Perplexity": {}, "Dice": {},
    "CosineSimilarity": {}, "ROC": {}, "BleuScore": {},
}

# Wrong uses: (class, kwargs, update inputs or None for a constructor error, how to call).
ERRORS = {
    "accuracy_one_input": ("Accuracy", {}, [(P4x3,)]),
    "accuracy_class_mismatch": ("Accuracy", {}, [(P4x3, Y4), (P6, Y6)]),
    "accuracy_shape": ("Accuracy", {}, [(P4x3, Y6)]),
    "accuracy_multilabel_values": ("Accuracy", {"eval_type": "multilabel"}, [(ML_PRED * 2, ML_TRUE)]),
    "accuracy_bad_type": ("Accuracy", {"eval_type": "regression"}, None),
    "bad_input_type": ("MAE", {}, [((0.1, 0.2), REG_PRED[:2])]),
    "loss_2d": ("Loss", {}, [(np.ones((2, 2)),)]),
    "topk_zero": ("TopKCategoricalAccuracy", {"k": 0}, None),
    "topk_str": ("TopKCategoricalAccuracy", {"k": "2"}, None),
    "fbeta_zero": ("Fbeta", {"beta": 0}, None),
    "precision_label_out_of_range": ("Precision", {}, [(P2x3, np.array([0, 3]))]),
    "confusion_bad_normalize": ("ConfusionMatrix", {"num_classes": 2, "normalize": "rows"}, None),
    "confusion_ndim": ("ConfusionMatrix", {"num_classes": 2}, [(np.ones((2, 2, 2)), np.ones(2))]),
    "confusion_int_threshold": ("ConfusionMatrix", {"num_classes": 2, "threshold": 1}, None),
    "confusion_float_classes": ("ConfusionMatrix", {"num_classes": 2.0}, None),
    "perplexity_shape": ("Perplexity", {}, [(P4x3, Y6)]),
    "dice_shape": ("Dice", {}, [(P4x3, P6)]),
    "dice_int_smooth": ("Dice", {"smooth": 1}, None),
    "cosine_bad_similarity": ("CosineSimilarity", {"similarity": "l2"}, None),
    "roc_class_num": ("ROC", {"class_num": 3}, [(P4x3[:, :2], Y4)]),
    "roc_no_negative": ("ROC", {}, [(BIN_PRED, np.ones(5, np.int64))]),
    "roc_pos_label_multiclass": ("ROC", {"class_num": 3, "pos_label": 1}, [(P4x3, Y4)]),
    "bleu_n_gram": ("BleuScore", {"n_gram": 5}, None),
    "bleu_lengths": ("BleuScore", {}, [([["a"]], [])]),
}

# auc(x, y, reorder) calls: (x, y, reorder)
AUC = {
    "increasing": (np.array([0.0, 0.1, 0.4, 1.0]), np.array([0.0, 0.5, 0.8, 1.0]), False),
    "decreasing": (np.array([1.0, 0.5, 0.0]), np.array([[1.0], [0.75], [0.0]]), False),
    "reorder": (np.array([0.3, 0.0, 1.0, 0.6]), np.array([0.5, 0.0, 1.0, 0.7]), True),
    "not_monotonic": (np.array([0.0, 1.0, 0.5]), np.array([0.0, 1.0, 0.5]), False),
    "one_point": (np.array([0.5]), np.array([0.5]), False),
    "lengths": (np.array([0.0, 1.0]), np.array([0.0, 1.0, 2.0]), False),
    "list_input": ([0.0, 1.0], np.array([0.0, 1.0]), False),
}
