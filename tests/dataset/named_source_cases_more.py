"""The later named sources' folders and cases (CLUE, Manifest, IWSLT2016 / 2017, Flowers102, SVHN, SBD,
Omniglot ... Cityscapes: src/pycompile/dataset/named_more.py and named_more2.py), split from
named_source_cases.py for length, with its conventions; named_source_cases.py imports them."""
import json
import os
import struct
import zlib

import numpy as np

from named_source_cases import _image_file, _write, write_mat  # noqa: E402  (defined before it imports this)


def _json_lines(path, records, blank=False):
    _write(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" + ("\n" if blank else "") for r in records))


def build_clue_manifest(root):
    d = os.path.join(root, "clue")
    _json_lines(os.path.join(d, "afqmc", "train.json"), [
        {"sentence1": "蚂蚁借呗等额还款", "sentence2": "借呗可以延期吗", "label": "0"},
        {"sentence1": "花呗 如何 还款", "sentence2": "花呗还款", "label": 1},
        {"sentence1": "x", "sentence2": "y", "label": -2, "extra": "ignored"}], blank=True)
    _json_lines(os.path.join(d, "afqmc", "test.json"), [
        {"id": 0, "sentence1": "s1", "sentence2": "s2"}, {"id": "7", "sentence1": "a", "sentence2": "b"},
        {"id": 4294967298, "sentence1": "big", "sentence2": "id"}])
    _json_lines(os.path.join(d, "afqmc", "dev.json"), [{"sentence1": "d1", "sentence2": "d2", "label": 0.5}])
    _json_lines(os.path.join(d, "afqmc", "missing.json"), [{"sentence1": "only one"}])
    _json_lines(os.path.join(d, "tnews", "train.json"), [
        {"label": "102", "label_desc": "news_entertainment", "sentence": "江疏影", "keywords": "江疏影,美少女"},
        {"label": "110", "label_desc": "news_military", "sentence": "以色列", "keywords": ""}])
    _json_lines(os.path.join(d, "tnews", "test.json"), [{"id": 3, "sentence": "s", "keywords": "k"}])
    _json_lines(os.path.join(d, "iflytek", "train.json"), [
        {"label": "11", "label_des": "薅羊毛", "sentence": "《钢铁英雄》"}, {"label": "5", "label_des": "x", "sentence": "y"}])
    _json_lines(os.path.join(d, "iflytek", "test.json"), [{"id": 9, "sentence": "t"}])
    for k, name in enumerate(("a_train.json", "b_train.json")):
        _json_lines(os.path.join(d, "cmnli", name), [
            {"sentence1": f"file {k} row {j}", "sentence2": f"h{j}", "label": ["neutral", "entailment"][j % 2]}
            for j in range(3 - k)])
    _json_lines(os.path.join(d, "wsc", "train.json"), [
        {"target": {"span2_index": 37, "span1_index": 5, "span1_text": "床", "span2_text": "它"}, "idx": 0,
         "label": "false", "text": "这张床"},
        {"target": {"span2_index": 2, "span1_index": 0, "span1_text": "A", "span2_text": "B"}, "idx": 1,
         "label": "true", "text": "AB"}])
    _json_lines(os.path.join(d, "wsc", "test.json"), [
        {"target": {"span2_index": 1, "span1_index": 0, "span1_text": "P", "span2_text": "Q"}, "idx": 5, "text": "PQ"}])
    _json_lines(os.path.join(d, "csl", "train.json"), [
        {"id": 1, "abst": "摘要", "keyword": ["水声", "模型"], "label": "1"},
        {"id": 2, "abst": "b", "keyword": [], "label": "0"}])
    _json_lines(os.path.join(d, "csl", "dev.json"), [{"id": 3, "abst": "c", "keyword": ["k"], "label": "1"}])
    d = os.path.join(root, "manifest")
    for k in range(5):
        _image_file(os.path.join(d, "images", f"{k}.jpg"), 1100 + k, "jpeg" if k == 2 else "png")
    _write(os.path.join(d, "images", "notes.jpg"), "not an image")
    src = lambda k: os.path.join(d, "images", f"{k}.jpg")       # noqa: E731
    ann = lambda *names: [{"type": "modelarts/image_classification", "name": n} for n in names]     # noqa: E731
    _json_lines(os.path.join(d, "manifest.json"), [
        {"source": src(0), "usage": "train", "annotation": ann("dog")},
        {"source": src(1), "usage": "TRAIN", "annotation": ann("cat", "dog")},
        {"source": src(2), "usage": "eval", "annotation": ann("bird")},
        {"source": src(3), "usage": "train", "annotation": ann("ant")},
        {"source": src(4), "usage": "train", "annotation": []},
        {"source": os.path.join(d, "images", "notes.jpg"), "usage": "train", "annotation": ann("ant")},
        {"source": src(4), "usage": "inference", "annotation": ann("dog", "dog")},
        {"source": src(2), "usage": "train", "annotation": ann("bird")}])
    _json_lines(os.path.join(d, "no_usage.json"), [{"source": src(0), "usage": "train", "annotation": ann("a")},
                                                   {"source": src(1), "annotation": ann("b")}])
    _json_lines(os.path.join(d, "missing_image.json"), [{"source": src(9), "usage": "train", "annotation": ann("a")}])


MORE_CASES = {
    "clue_afqmc_train": ("CLUEDataset", "clue/afqmc/train.json", {}),
    "clue_afqmc_test": ("CLUEDataset", "clue/afqmc/test.json", {"usage": "test"}),
    "clue_afqmc_eval": ("CLUEDataset", "clue/afqmc/dev.json", {"task": "AFQMC", "usage": "eval"}),
    "clue_afqmc_missing_key": ("CLUEDataset", "clue/afqmc/missing.json", {}),
    "clue_tnews_train": ("CLUEDataset", "clue/tnews/train.json", {"task": "TNEWS"}),
    "clue_tnews_test": ("CLUEDataset", "clue/tnews/test.json", {"task": "TNEWS", "usage": "test"}),
    "clue_iflytek_train": ("CLUEDataset", "clue/iflytek/train.json", {"task": "IFLYTEK"}),
    "clue_iflytek_test": ("CLUEDataset", "clue/iflytek/test.json", {"task": "IFLYTEK", "usage": "test"}),
    "clue_cmnli_glob": ("CLUEDataset", "clue/cmnli/*.json", {"task": "CMNLI"}),
    "clue_cmnli_one_worker": ("CLUEDataset", "clue/cmnli/*.json", {"task": "CMNLI", "num_parallel_workers": 1}),
    "clue_cmnli_shard_0_of_2": ("CLUEDataset", "clue/cmnli/*.json", {"task": "CMNLI", "num_shards": 2,
                                                                      "shard_id": 0}),
    "clue_cmnli_num_samples": ("CLUEDataset", "clue/cmnli/*.json", {"task": "CMNLI", "num_samples": 2}),
    "clue_wsc_train": ("CLUEDataset", "clue/wsc/train.json", {"task": "WSC"}),
    "clue_wsc_test": ("CLUEDataset", "clue/wsc/test.json", {"task": "WSC", "usage": "test"}),
    "clue_csl_train": ("CLUEDataset", "clue/csl/train.json", {"task": "CSL"}),
    "clue_csl_eval": ("CLUEDataset", "clue/csl/dev.json", {"task": "CSL", "usage": "eval"}),
    "clue_bad_task": ("CLUEDataset", "clue/csl/dev.json", {"task": "OCNLI"}),
    "clue_bad_usage": ("CLUEDataset", "clue/csl/dev.json", {"usage": "dev"}),
    "clue_no_match": ("CLUEDataset", "clue/nothing*.json", {}),
    "manifest_train": ("ManifestDataset", "manifest/manifest.json", {}),
    "manifest_eval_decode": ("ManifestDataset", "manifest/manifest.json", {"usage": "eval", "decode": True}),
    "manifest_inference": ("ManifestDataset", "manifest/manifest.json", {"usage": "inference"}),
    "manifest_class_indexing": ("ManifestDataset", "manifest/manifest.json",
                                {"class_indexing": {"dog": 5, "cat": 2, "ant": 7, "bird": 1}}),
    "manifest_shard_1_of_2": ("ManifestDataset", "manifest/manifest.json", {"num_shards": 2, "shard_id": 1}),
    "manifest_num_samples": ("ManifestDataset", "manifest/manifest.json", {"num_samples": 2}),
    "manifest_bad_usage": ("ManifestDataset", "manifest/manifest.json", {"usage": "test"}),
    "manifest_usage_type": ("ManifestDataset", "manifest/manifest.json", {"usage": 3}),
    "manifest_no_usage_key": ("ManifestDataset", "manifest/no_usage.json", {}),
    "manifest_missing_image": ("ManifestDataset", "manifest/missing_image.json", {}),
    "manifest_missing_file": ("ManifestDataset", "manifest/nothing.json", {}),
}


# -- IWSLT 2016 / 2017: train.tags.<pair>.<lang> (TED metadata lines among the text) and xml sets -------------
def _iwslt_xml(path, lang, texts):
    segs = "".join(f'<seg id="{k + 1}"> {t} </seg>\n' for k, t in enumerate(texts))
    _write(path, f'<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n<srcset setid="iwslt" srclang="{lang}">\n'
                 f'<doc docid="1" genre="lectures">\n<url>http://www.ted.com/talks/x</url>\n<talkid>1</talkid>\n'
                 f'{segs}</doc>\n</srcset>\n</mteval>\n')


def _iwslt_train(path, lang, texts):
    _write(path, f"<url>http://www.ted.com/talks/a</url>\n<keywords>talks, {lang}</keywords>\n <talkid>1</talkid>\n"
                 + "".join(f"  {t} \n" for t in texts[:2]) + "<title>t</title>\n<reviewer></reviewer>\n"
                 + "".join(f"{t}\n" for t in texts[2:]))


def build_iwslt(root):
    words = {"de": ["Hallo Welt", "Danke <b> sehr", "\tTab\t", "Vier & fünf"],
             "en": ["Hello world", "Thanks <b> a lot", "\tTab\t", "Four & five"],
             "fr": ["Bonjour", "Merci", "Tab", "Quatre"]}
    for src, tgt in (("de", "en"), ("en", "fr")):
        d = os.path.join(root, "iwslt2016", "texts", src, tgt, f"{src}-{tgt}")
        for lang in (src, tgt):
            _iwslt_train(os.path.join(d, f"train.tags.{src}-{tgt}.{lang}"), lang, words[lang])
            for k, name in enumerate(("dev2010", "tst2013", "tst2014")):
                _iwslt_xml(os.path.join(d, f"IWSLT16.TED.{name}.{src}-{tgt}.{lang}.xml"), lang,
                           [f"{name} {lang} {j}" for j in range(k + 1)] + (["&lt;seg&gt; &amp; more"] if k else []))
    d = os.path.join(root, "iwslt2016_empty_line", "texts", "de", "en", "de-en")
    _write(os.path.join(d, "train.tags.de-en.de"), "Hallo\n\nWelt\n")
    _write(os.path.join(d, "train.tags.de-en.en"), "Hello\n\nWorld\n")
    d = os.path.join(root, "iwslt2017", "texts", "DeEnItNlRo", "DeEnItNlRo", "DeEnItNlRo-DeEnItNlRo")
    words["it"], words["nl"] = ["Ciao", "Grazie", "x", "Quattro"], ["Hallo", "Dank", "y", "Vier"]
    for src, tgt in (("de", "en"), ("it", "nl")):
        for lang in (src, tgt):
            _iwslt_train(os.path.join(d, f"train.tags.{src}-{tgt}.{lang}"), lang, words[lang][:3 if src == "it" else 4])
            for k, name in enumerate(("dev2010", "tst2010")):
                _iwslt_xml(os.path.join(d, f"IWSLT17.TED.{name}.{src}-{tgt}.{lang}.xml"), lang,
                           [f"{name} {src}-{tgt} {lang} {j}" for j in range(k + 2)])


IWSLT_CASES = {
    "iwslt2016_all": ("IWSLT2016Dataset", "iwslt2016", {}),
    "iwslt2016_all_one_worker": ("IWSLT2016Dataset", "iwslt2016", {"num_parallel_workers": 1}),
    "iwslt2016_train": ("IWSLT2016Dataset", "iwslt2016", {"usage": "train"}),
    "iwslt2016_valid_dev2010": ("IWSLT2016Dataset", "iwslt2016", {"usage": "valid", "valid_set": "dev2010"}),
    "iwslt2016_test": ("IWSLT2016Dataset", "iwslt2016", {"usage": "test"}),
    "iwslt2016_en_fr_tuple": ("IWSLT2016Dataset", "iwslt2016", {"language_pair": ("en", "fr"), "test_set": "tst2013"}),
    "iwslt2016_shard_1_of_2": ("IWSLT2016Dataset", "iwslt2016", {"num_shards": 2, "shard_id": 1}),
    "iwslt2016_missing_set": ("IWSLT2016Dataset", "iwslt2016", {"usage": "valid", "valid_set": "tst2011"}),
    "iwslt2016_empty_line": ("IWSLT2016Dataset", "iwslt2016_empty_line", {"usage": "train"}),
    "iwslt2016_bad_pair": ("IWSLT2016Dataset", "iwslt2016", {"language_pair": ["en", "it"]}),
    "iwslt2016_bad_pair_tuple": ("IWSLT2016Dataset", "iwslt2016", {"language_pair": ("de", "it")}),
    "iwslt2016_pair_length": ("IWSLT2016Dataset", "iwslt2016", {"language_pair": ["de", "en", "fr"]}),
    "iwslt2016_pair_type": ("IWSLT2016Dataset", "iwslt2016", {"language_pair": "de-en"}),
    "iwslt2016_bad_usage": ("IWSLT2016Dataset", "iwslt2016", {"usage": "dev"}),
    "iwslt2016_bad_valid_set": ("IWSLT2016Dataset", "iwslt2016", {"valid_set": "tst2015"}),
    "iwslt2016_bad_test_set": ("IWSLT2016Dataset", "iwslt2016", {"test_set": "dev2011"}),
    "iwslt2017_all": ("IWSLT2017Dataset", "iwslt2017", {}),
    "iwslt2017_it_nl": ("IWSLT2017Dataset", "iwslt2017", {"language_pair": ["it", "nl"], "num_parallel_workers": 1}),
    "iwslt2017_valid": ("IWSLT2017Dataset", "iwslt2017", {"usage": "valid"}),
    "iwslt2017_test_num_samples": ("IWSLT2017Dataset", "iwslt2017", {"usage": "test", "num_samples": 1}),
    "iwslt2017_bad_pair": ("IWSLT2017Dataset", "iwslt2017", {"language_pair": ["en", "fr"]}),
    "iwslt2017_bad_usage": ("IWSLT2017Dataset", "iwslt2017", {"usage": "eval"}),
    "IWSLT2016Dataset_missing_dir": ("IWSLT2016Dataset", "no_such_dir", {}),
    "IWSLT2017Dataset_missing_dir": ("IWSLT2017Dataset", "no_such_dir", {}),
}
MORE_CASES.update(IWSLT_CASES)


# -- Flowers102 (jpg/ + imagelabels.mat, setid.mat) and SVHN (<usage>_32x32.mat) -----------------------------
def build_flowers_svhn(root):
    d = os.path.join(root, "flowers102")
    for n in range(1, 7):
        _image_file(os.path.join(d, "jpg", f"image_{n:05d}.jpg"), 1200 + n, "jpeg" if n == 4 else "png")
        _image_file(os.path.join(d, "segmim", f"segmim_{n:05d}.jpg"), 1300 + n)
    write_mat(os.path.join(d, "imagelabels.mat"), {"labels": (np.array([[77.0, 77, 3, 102, 1, 50]]), "u1")})
    write_mat(os.path.join(d, "setid.mat"), {"trnid": (np.array([[3.0, 1]]), "u2"), "valid": (np.array([[6.0]]), "u2"),
                                             "tstid": (np.array([[5.0, 2, 4]]), "u2")}, compress=True)
    os.makedirs(os.path.join(root, "flowers102_no_segmim", "jpg"))
    for name in ("imagelabels.mat", "setid.mat"):
        with open(os.path.join(d, name), "rb") as f:
            _write(os.path.join(root, "flowers102_no_segmim", name), f.read(), "wb")
    rng = np.random.default_rng(31)
    d = os.path.join(root, "svhn")
    for part, labels, compress in (("train", [1, 10, 5], False), ("test", [10, 2], True),
                                   ("extra", [9, 3, 7, 10], False)):
        images = rng.integers(0, 256, (32, 32, 3, len(labels)), dtype=np.uint8)
        write_mat(os.path.join(d, f"{part}_32x32.mat"),
                  {"X": (images, "u1"), "y": (np.array(labels, np.float64).reshape(-1, 1), "u1")}, compress)
    os.makedirs(os.path.join(root, "svhn_train_only"))
    with open(os.path.join(d, "train_32x32.mat"), "rb") as f:
        _write(os.path.join(root, "svhn_train_only", "train_32x32.mat"), f.read(), "wb")


FLOWERS_SVHN_CASES = {
    "flowers102_all": ("Flowers102Dataset", "flowers102", {}),
    "flowers102_train_decode": ("Flowers102Dataset", "flowers102", {"usage": "train", "decode": True}),
    "flowers102_valid": ("Flowers102Dataset", "flowers102", {"usage": "valid"}),
    "flowers102_test_segmentation": ("Flowers102Dataset", "flowers102", {"usage": "test", "task": "Segmentation"}),
    "flowers102_shard_0_of_2": ("Flowers102Dataset", "flowers102", {"num_shards": 2, "shard_id": 0}),
    "flowers102_bad_usage": ("Flowers102Dataset", "flowers102", {"usage": "val"}),
    "flowers102_bad_task": ("Flowers102Dataset", "flowers102", {"task": "Detection"}),
    "flowers102_no_segmim": ("Flowers102Dataset", "flowers102_no_segmim", {"task": "Segmentation"}),
    "flowers102_no_mat": ("Flowers102Dataset", "svhn_train_only", {}),
    "svhn_all": ("SVHNDataset", "svhn", {}),
    "svhn_train": ("SVHNDataset", "svhn", {"usage": "train"}),
    "svhn_test": ("SVHNDataset", "svhn", {"usage": "test"}),
    "svhn_extra_num_samples": ("SVHNDataset", "svhn", {"usage": "extra", "num_samples": 3}),
    "svhn_shard_1_of_3": ("SVHNDataset", "svhn", {"num_shards": 3, "shard_id": 1}),
    "svhn_bad_usage": ("SVHNDataset", "svhn", {"usage": "valid"}),
    "svhn_missing_file": ("SVHNDataset", "svhn_train_only", {"usage": "all"}),
}
FLOWERS_SVHN_CASES.update({f"{cls}_missing_dir": (cls, "no_such_dir", {})
                           for cls in ("Flowers102Dataset", "SVHNDataset")})
MORE_CASES.update(FLOWERS_SVHN_CASES)


# -- SBD: img/<name>.jpg, cls/<name>.mat (struct GTcls: Boundaries, a 20 x 1 cell of sparse logical
# matrices, Segmentation, CategoriesPresent) and train / val / train_noval listings ----------------------
def _mat_element(kind, payload):
    return struct.pack("<II", kind, len(payload)) + payload + b"\0" * (-len(payload) % 8)


def _mat_matrix(value, name=""):
    """A miMATRIX element: a dict is a 1 x 1 struct, a list an n x 1 cell array, ("sparse", array)
    a sparse logical matrix, (array, stored dtype) a numeric matrix (its class from its dtype)."""
    head = lambda cls, dims, flags=0, nz=0: (_mat_element(6, struct.pack("<II", cls | flags << 8, nz))   # noqa: E731
                                             + _mat_element(5, struct.pack(f"<{len(dims)}i", *dims))
                                             + _mat_element(1, name.encode()))
    if isinstance(value, dict):
        width = 32
        names = b"".join(k.encode().ljust(width, b"\0") for k in value)
        body = head(2, (1, 1)) + _mat_element(5, struct.pack("<i", width)) + _mat_element(1, names)
        body += b"".join(_mat_matrix(v) for v in value.values())
    elif isinstance(value, list):
        body = head(1, (len(value), 1)) + b"".join(_mat_matrix(v) for v in value)
    elif isinstance(value[0], str):
        dense = np.asarray(value[1], bool)
        cols, rows = np.nonzero(dense.T)                       # column-major order
        starts = np.searchsorted(cols, np.arange(dense.shape[1] + 1))
        body = (head(5, dense.shape, 2, max(len(rows), 1)) + _mat_element(5, rows.astype("<i4").tobytes())
                + _mat_element(5, starts.astype("<i4").tobytes()) + _mat_element(2, np.ones(len(rows), "u1").tobytes()))
    else:
        a, stored = np.asarray(value[0]), value[1]
        codes = {"i1": 1, "u1": 2, "i2": 3, "u2": 4, "i4": 5, "u4": 6, "f4": 7, "f8": 9}
        body = head({"f8": 6, "u1": 9, "i4": 12}[a.dtype.str[1:]], a.shape) + \
            _mat_element(codes[stored], a.astype("<" + stored).tobytes(order="F"))
    return _mat_element(14, body)


def build_sbd(root):
    import zlib
    d = os.path.join(root, "sbd")
    rng = np.random.default_rng(41)
    names = ["2008_000002", "2008_000003", "2008_000007", "2008_000009"]
    for k, n in enumerate(names):
        _image_file(os.path.join(d, "img", n + ".jpg"), 1400 + k, "jpeg" if k == 2 else "png")
        h, w = 3 + k % 2, 4
        boundaries = [("sparse", rng.random((h, w)) < (0.3 if c % 7 == k else 0.0)) for c in range(20)]
        gt = {"Boundaries": boundaries, "Segmentation": (rng.integers(0, 21, (h, w)).astype(np.float64), "u1"),
              "CategoriesPresent": (np.array([[k + 1.0]]), "u1")}
        matrix = _mat_matrix(gt, "GTcls")
        if k % 2:
            matrix = struct.pack("<II", 15, len(zlib.compress(matrix))) + zlib.compress(matrix)
        header = b"MATLAB 5.0 MAT-file, written by named_source_cases.py".ljust(116) + b"\0" * 8 + b"\x00\x01IM"
        _write(os.path.join(d, "cls", n + ".mat"), header + matrix, "wb")
    _write(os.path.join(d, "train.txt"), "2008_000003\n2008_000002\n")
    _write(os.path.join(d, "val.txt"), "2008_000009\n2008_000007\n")
    _write(os.path.join(d, "train_noval.txt"), "2008_000002\n")


SBD_CASES = {
    "sbd_boundaries_all": ("SBDataset", "sbd", {}),
    "sbd_boundaries_train_decode": ("SBDataset", "sbd", {"usage": "train", "decode": True}),
    "sbd_segmentation_val": ("SBDataset", "sbd", {"task": "Segmentation", "usage": "val"}),
    "sbd_segmentation_train_noval": ("SBDataset", "sbd", {"task": "Segmentation", "usage": "train_noval"}),
    "sbd_shard_1_of_2": ("SBDataset", "sbd", {"task": "Segmentation", "num_shards": 2, "shard_id": 1}),
    "sbd_bad_usage": ("SBDataset", "sbd", {"usage": "test"}),
    "sbd_bad_task": ("SBDataset", "sbd", {"task": "Detection"}),
    "sbd_no_listing": ("SBDataset", "svhn", {"usage": "train"}),
    "SBDataset_missing_dir": ("SBDataset", "no_such_dir", {}),
}
MORE_CASES.update(SBD_CASES)


# -- Omniglot, SBU, SUN397, RenderedSST2: image folders with listings ----------------------------------------
def build_image_sets(root):
    d = os.path.join(root, "omniglot")
    for k, rel in enumerate(["images_background/Latin/character02/0690_01.png",
                             "images_background/Latin/character01/0689_02.png",
                             "images_background/Latin/character01/0689_01.png",
                             "images_background/Greek/character01/0394_01.png",
                             "images_evaluation/Tibetan/character05/1200_01.png",
                             "images_evaluation/Atlantean/character01/0001_01.png"]):
        _image_file(os.path.join(d, rel), 1500 + k, "jpeg" if k == 1 else "png")
    _write(os.path.join(d, "images_background", "Latin", "readme.txt"), "not a class\n")
    d = os.path.join(root, "sbu")
    urls = ["http://static.flickr.com/2723/4385058960_b0f291553e.jpg",
            "http://static.flickr.com/3326/3596303505_3ce4c20529.jpg", "", "http://static.flickr.com/1/missing_1.jpg",
            "http://static.flickr.com/2522/4182181099_c3c23ab1cc.jpg"]
    captions = ["A wooden chair in the living room  ", "Tree, in the field", "", "no image", "sunset over a lake"]
    _write(os.path.join(d, "SBU_captioned_photo_dataset_urls.txt"), "\n".join(urls) + "\n")
    _write(os.path.join(d, "SBU_captioned_photo_dataset_captions.txt"), "\n".join(captions) + "\n")
    for k, url in enumerate(urls):
        if url and "missing" not in url:
            _image_file(os.path.join(d, "sbu_images", url[23:].replace("/", "_")), 1600 + k,
                        "jpeg" if k == 4 else "png")
    d = os.path.join(root, "sbu_mismatch")
    _write(os.path.join(d, "SBU_captioned_photo_dataset_urls.txt"), urls[0] + "\n\n")
    _write(os.path.join(d, "SBU_captioned_photo_dataset_captions.txt"), "a\nb\n")
    os.makedirs(os.path.join(d, "sbu_images"))
    d = os.path.join(root, "sun397")
    _write(os.path.join(d, "ClassName.txt"), "/b/badlands\n/a/apartment_building/outdoor\n/a/abbey\n")
    for k, rel in enumerate(["a/abbey/sun_bbb.jpg", "a/abbey/sun_aaa.jpg", "a/apartment_building/outdoor/sun_ccc.jpg",
                             "b/badlands/sun_ddd.jpg", "b/badlands/other.jpg", "b/badlands/sun_eee.png"]):
        _image_file(os.path.join(d, rel), 1700 + k, "jpeg" if k == 3 else "png")
    d = os.path.join(root, "sun397_missing_class")
    _write(os.path.join(d, "ClassName.txt"), "/a/abbey\n/z/zoo\n")
    _image_file(os.path.join(d, "a", "abbey", "sun_x.jpg"), 1750)
    os.makedirs(os.path.join(root, "sun397_empty_meta"))
    _write(os.path.join(root, "sun397_empty_meta", "ClassName.txt"), "")
    d = os.path.join(root, "rendered_sst2")
    for k, rel in enumerate(["train/negative/0002.png", "train/negative/0001.png", "train/positive/0001.png",
                             "valid/positive/0001.png", "test/negative/0001.png", "test/positive/0003.png",
                             "test/positive/0001.jpg"]):
        _image_file(os.path.join(d, rel), 1800 + k, "jpeg" if k == 4 else "png")


IMAGE_SET_CASES = {
    "omniglot_background": ("OmniglotDataset", "omniglot", {}),
    "omniglot_evaluation_decode": ("OmniglotDataset", "omniglot", {"background": False, "decode": True}),
    "omniglot_shard_0_of_2": ("OmniglotDataset", "omniglot", {"num_shards": 2, "shard_id": 0}),
    "omniglot_bad_background": ("OmniglotDataset", "omniglot", {"background": "yes"}),
    "sbu": ("SBUDataset", "sbu", {}),
    "sbu_decode_num_samples": ("SBUDataset", "sbu", {"decode": True, "num_samples": 2}),
    "sbu_mismatch": ("SBUDataset", "sbu_mismatch", {}),
    "sbu_no_files": ("SBUDataset", "omniglot", {}),
    "sun397": ("SUN397Dataset", "sun397", {}),
    "sun397_decode_shard": ("SUN397Dataset", "sun397", {"decode": True, "num_shards": 2, "shard_id": 1}),
    "sun397_missing_class": ("SUN397Dataset", "sun397_missing_class", {}),
    "sun397_empty_meta": ("SUN397Dataset", "sun397_empty_meta", {}),
    "sun397_no_meta": ("SUN397Dataset", "sbu", {}),
    "rendered_sst2_all": ("RenderedSST2Dataset", "rendered_sst2", {}),
    "rendered_sst2_train": ("RenderedSST2Dataset", "rendered_sst2", {"usage": "train"}),
    "rendered_sst2_val_decode": ("RenderedSST2Dataset", "rendered_sst2", {"usage": "val", "decode": True}),
    "rendered_sst2_test": ("RenderedSST2Dataset", "rendered_sst2", {"usage": "test"}),
    "rendered_sst2_bad_usage": ("RenderedSST2Dataset", "rendered_sst2", {"usage": "valid"}),
    "rendered_sst2_no_data": ("RenderedSST2Dataset", "sbu", {}),
}
IMAGE_SET_CASES.update({f"{cls}_missing_dir": (cls, "no_such_dir", {})
                        for cls in ("OmniglotDataset", "SBUDataset", "SUN397Dataset", "RenderedSST2Dataset")})
MORE_CASES.update(IMAGE_SET_CASES)


# -- Places365 (category / file lists) and PhotoTour (1024 x 1024 BMP grids of 64 x 64 patches) --------------
def _bmp(path, pixels):
    """An uncompressed BMP: `pixels` H x W (8-bit gray, with a gray palette) or H x W x 3 (24-bit RGB)."""
    h, w = pixels.shape[:2]
    if pixels.ndim == 2:
        palette = b"".join(bytes([v, v, v, 0]) for v in range(256))
        rows, bits = pixels[::-1], 8
    else:
        palette, rows, bits = b"", pixels[::-1, :, ::-1].reshape(h, w * 3), 24
    data = np.ascontiguousarray(rows).tobytes()
    offset = 14 + 40 + len(palette)
    head = struct.pack("<2sIHHI", b"BM", offset + len(data), 0, 0, offset)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, bits, 0, len(data), 2835, 2835, 256 if bits == 8 else 0, 0)
    _write(path, head + info + palette + data, "wb")


def build_places_phototour(root):
    d = os.path.join(root, "places365")
    _write(os.path.join(d, "categories_places365.txt"), "/a/airfield 0\n/a/airplane_cabin 1\n/b/bakery 2\n")
    _write(os.path.join(d, "places365_train_standard.txt"),
           "/b/bakery/00000002.jpg 2\n/a/airfield/00000001.jpg 0\n/a/airplane_cabin/00000009.jpg 1\n")
    _write(os.path.join(d, "places365_train_challenge.txt"), "/a/airfield/00000007.jpg 0\n")
    _write(os.path.join(d, "places365_val.txt"), "Places365_val_00000002.jpg 2\nPlaces365_val_00000001.jpg 1\n")
    for k, rel in enumerate(["data_256_standard/b/bakery/00000002.jpg", "data_256_standard/a/airfield/00000001.jpg",
                             "data_256_standard/a/airplane_cabin/00000009.jpg",
                             "data_large_standard/b/bakery/00000002.jpg", "data_large_standard/a/airfield/00000001.jpg",
                             "data_large_standard/a/airplane_cabin/00000009.jpg",
                             "data_256_challenge/a/airfield/00000007.jpg", "val_256/Places365_val_00000001.jpg",
                             "val_256/Places365_val_00000002.jpg"]):
        _image_file(os.path.join(d, rel), 1900 + k, "jpeg" if k == 1 else "png")
    d = os.path.join(root, "phototour", "notredame")
    rng = np.random.default_rng(51)
    _bmp(os.path.join(d, "patches0000.bmp"), rng.integers(0, 256, (1024, 1024), dtype=np.uint8))
    _bmp(os.path.join(d, "patches0001.bmp"), rng.integers(0, 256, (1024, 1024, 3), dtype=np.uint8))
    _write(os.path.join(d, "info.txt"), "0 0\n0 1\n5 0\n7 3\n7 1\n")
    _write(os.path.join(d, "m50_100000_100000_0.txt"),
           "0 0 0 1 0 0 0\n2 5 0 300 7 0 0\n3 7 0 4 7 0 0\n")
    _write(os.path.join(d, "readme.txt"), "not a bmp\n")


PLACES_PHOTOTOUR_CASES = {
    "places365_default": ("Places365Dataset", "places365", {}),
    "places365_large": ("Places365Dataset", "places365", {"small": False}),
    "places365_challenge_decode": ("Places365Dataset", "places365", {"usage": "train-challenge", "decode": True}),
    "places365_val": ("Places365Dataset", "places365", {"usage": "val"}),
    "places365_shard_1_of_2": ("Places365Dataset", "places365", {"num_shards": 2, "shard_id": 1}),
    "places365_bad_usage": ("Places365Dataset", "places365", {"usage": "train"}),
    "places365_bad_small": ("Places365Dataset", "places365", {"small": 1}),
    "places365_no_lists": ("Places365Dataset", "sbu", {}),
    "phototour_train": ("PhotoTourDataset", "phototour", {"name": "notredame", "num_samples": 3}),
    "phototour_train_shard": ("PhotoTourDataset", "phototour", {"name": "notredame", "usage": "train",
                                                                 "num_shards": 3, "shard_id": 2}),
    "phototour_test": ("PhotoTourDataset", "phototour", {"name": "notredame", "usage": "test"}),
    "phototour_bad_name": ("PhotoTourDataset", "phototour", {"name": "paris"}),
    "phototour_bad_usage": ("PhotoTourDataset", "phototour", {"name": "notredame", "usage": "all"}),
    "phototour_missing_name_dir": ("PhotoTourDataset", "phototour", {"name": "liberty"}),
    "Places365Dataset_missing_dir": ("Places365Dataset", "no_such_dir", {}),
    "PhotoTourDataset_missing_dir": ("PhotoTourDataset", "no_such_dir", {"name": "notredame"}),
}
MORE_CASES.update(PLACES_PHOTOTOUR_CASES)


# -- DIV2K (HR / LR png pairs) and Flickr (an annotation file of '<image>#<k>\t<caption>' lines) --------------
def build_div2k_flickr(root):
    d = os.path.join(root, "div2k")
    for k, (hr, lrs) in enumerate((("DIV2K_train_HR", ["DIV2K_train_LR_bicubic/X2", "DIV2K_train_LR_unknown/X3",
                                                        "DIV2K_train_LR_x8", "DIV2K_train_LR_mild"]),
                                   ("DIV2K_valid_HR", ["DIV2K_valid_LR_bicubic/X2"]))):
        for i in ((2, 1) if k == 0 else (801,)):
            _image_file(os.path.join(d, hr, f"{i:04d}.png"), 2000 + 10 * k + i)
            for j, lr in enumerate(lrs):
                scale = 8 if lr.endswith("x8") else 4 if lr.endswith("mild") else int(lr[-1])
                _image_file(os.path.join(d, lr, f"{i:04d}x{scale}{'m' if 'mild' in lr else ''}.png"),
                            2100 + 10 * k + i + j)
    _write(os.path.join(d, "DIV2K_train_HR", "notes.txt"), "not an image\n")
    d = os.path.join(root, "flickr")
    for k, name in enumerate(["1000268201_693b08cb0e.jpg", "1001773457_577c3a7d70.jpg", "101654506_8eb26cfb60.jpg"]):
        _image_file(os.path.join(d, "images", name), 2200 + k, "jpeg" if k == 1 else "png")
    _write(os.path.join(d, "images", "notimage.jpg"), "text")
    _write(os.path.join(d, "Flickr8k.token.txt"),
           "1001773457_577c3a7d70.jpg#0\tA black dog and a spotted dog are fighting\n"
           "1000268201_693b08cb0e.jpg#0\tA child in a pink dress .\n"
           "1000268201_693b08cb0e.jpg#1\tA girl going into a wooden building .\n"
           "notimage.jpg#0\tskipped\n\n"
           "1001773457_577c3a7d70.jpg#1\tTwo dogs\n")
    _write(os.path.join(d, "missing.token.txt"), "nothere.jpg#0\tcaption\n")


DIV2K_FLICKR_CASES = {
    "div2k_train": ("DIV2KDataset", "div2k", {}),
    "div2k_all_decode": ("DIV2KDataset", "div2k", {"usage": "all", "decode": True}),
    "div2k_unknown_x3": ("DIV2KDataset", "div2k", {"downgrade": "unknown", "scale": 3}),
    "div2k_bicubic_x8": ("DIV2KDataset", "div2k", {"scale": 8}),
    "div2k_mild_x4": ("DIV2KDataset", "div2k", {"downgrade": "mild", "scale": 4, "num_samples": 1}),
    "div2k_missing_lr_dir": ("DIV2KDataset", "div2k", {"usage": "valid", "scale": 4}),
    "div2k_bad_usage": ("DIV2KDataset", "div2k", {"usage": "test"}),
    "div2k_bad_downgrade": ("DIV2KDataset", "div2k", {"downgrade": "nearest"}),
    "div2k_bad_scale": ("DIV2KDataset", "div2k", {"scale": 5}),
    "div2k_x8_not_bicubic": ("DIV2KDataset", "div2k", {"downgrade": "unknown", "scale": 8}),
    "div2k_wild_x2": ("DIV2KDataset", "div2k", {"downgrade": "wild", "scale": 2}),
    "DIV2KDataset_missing_dir": ("DIV2KDataset", "no_such_dir", {}),
}
_FLICKR_TOKENS = "<root>/flickr/Flickr8k.token.txt"
DIV2K_FLICKR_CASES.update({
    "flickr": ("FlickrDataset", "flickr/images", {"annotation_file": _FLICKR_TOKENS}),
    "flickr_decode_num_samples": ("FlickrDataset", "flickr/images", {"annotation_file": _FLICKR_TOKENS,
                                                                     "decode": True, "num_samples": 1}),
    "flickr_missing_image": ("FlickrDataset", "flickr/images", {"annotation_file": "<root>/flickr/missing.token.txt"}),
    "flickr_missing_annotation_file": ("FlickrDataset", "flickr/images", {"annotation_file": "<root>/flickr/none.txt"}),
    "FlickrDataset_missing_dir": ("FlickrDataset", "no_such_dir", {"annotation_file": _FLICKR_TOKENS}),
})
MORE_CASES.update(DIV2K_FLICKR_CASES)


# -- WIDER FACE, KITTI and Cityscapes: detection / segmentation layouts ---------------------------------------
def build_detection(root):
    d = os.path.join(root, "wider_face")
    files = {"train": ["0--Parade/0_Parade_marchingband_1_5.jpg", "1--Handshaking/1_Handshaking_1_9.jpg"],
             "val": ["0--Parade/0_Parade_1_2.jpg", "1--Handshaking/1_Handshaking_1_3.jpg"],
             "test": ["0--Parade/0_Parade_1_7.jpg", "2--Demo/2_Demo_1_1.jpg"]}
    for k, (part, names) in enumerate(files.items()):
        for j, name in enumerate(names):
            _image_file(os.path.join(d, f"WIDER_{part}", "images", name), 2300 + 10 * k + j, "jpeg" if j else "png")
    _write(os.path.join(d, "WIDER_train", "images", "0--Parade", "notes.txt"), "not an image\n")
    _write(os.path.join(d, "wider_face_split", "wider_face_train_bbx_gt.txt"),
           "0--Parade/0_Parade_marchingband_1_5.jpg\n2\n449 330 122 149 0 0 0 0 0 0 \n361 98 263 339 1 1 0 2 0 1 \n"
           "1--Handshaking/1_Handshaking_1_9.jpg\n0\n0 0 0 0 0 0 0 0 0 0 \n")
    _write(os.path.join(d, "wider_face_split", "wider_face_val_bbx_gt.txt"),
           "0--Parade/0_Parade_1_2.jpg\n1\n78 221 7 8 2 0 0 0 0 0 \n")
    d = os.path.join(root, "kitti")
    for k in range(3):
        _image_file(os.path.join(d, "data_object_image_2", "training", "image_2", f"{k:06d}.png"), 2400 + k)
    for k in range(2):
        _image_file(os.path.join(d, "data_object_image_2", "testing", "image_2", f"{k:06d}.png"), 2450 + k)
    labels = ["Pedestrian 0.00 0 -0.20 712.40 143.00 810.73 307.92 1.89 0.48 1.20 1.84 1.47 8.41 0.01\n",
              "Truck 0.00 0 -1.57 599.41 156.40 629.75 189.25 2.85 2.63 12.34 0.47 1.49 69.44 -1.56\n"
              "Car 0.88 3 -0.69 0.00 192.37 402.31 374.00 1.60 1.57 3.23 -2.70 1.74 3.68 -1.29\n",
              ""]
    for k, text in enumerate(labels):
        _write(os.path.join(d, "data_object_label_2", "training", "label_2", f"{k:06d}.txt"), text)
    d = os.path.join(root, "cityscapes")
    for part, quality, cities in (("train", "gtFine", {"aachen": ["aachen_000001_000019", "aachen_000000_000019"],
                                                       "bochum": ["bochum_000000_000313"]}),
                                  ("val", "gtFine", {"frankfurt": ["frankfurt_000000_000294"]}),
                                  ("test", "gtFine", {"berlin": ["berlin_000000_000019"]}),
                                  ("train_extra", "gtCoarse", {"augsburg": ["augsburg_000000_000000"]})):
        for k, (city, stems) in enumerate(cities.items()):
            for j, stem in enumerate(stems):
                seed = 2500 + 10 * k + j + len(part)
                _image_file(os.path.join(d, "leftImg8bit", part, city, f"{stem}_leftImg8bit.png"), seed)
                for q in (quality, "gtCoarse") if part == "train" else (quality,):
                    for t, suffix in enumerate(("instanceIds.png", "labelIds.png", "color.png")):
                        _image_file(os.path.join(d, q, part, city, f"{stem}_{q}_{suffix}"), seed + 100 * (t + 1))
                    with open(os.path.join(d, q, part, city, f"{stem}_{q}_polygons.json"), "w") as f:
                        json.dump({"imgHeight": 3, "imgWidth": 4, "objects": [
                            {"label": "road", "polygon": [[0, 1], [2, 3]]}, {"label": "straße", "deleted": 0}]}, f,
                            ensure_ascii=False, indent=2)
    os.makedirs(os.path.join(d, "leftImg8bit", "val_extra"), exist_ok=True)


DETECTION_CASES = {
    "wider_face_all": ("WIDERFaceDataset", "wider_face", {}),
    "wider_face_train_decode": ("WIDERFaceDataset", "wider_face", {"usage": "train", "decode": True}),
    "wider_face_valid": ("WIDERFaceDataset", "wider_face", {"usage": "valid"}),
    "wider_face_test": ("WIDERFaceDataset", "wider_face", {"usage": "test"}),
    "wider_face_bad_usage": ("WIDERFaceDataset", "wider_face", {"usage": "val"}),
    "wider_face_no_folder": ("WIDERFaceDataset", "kitti", {"usage": "train"}),
    "kitti_train": ("KITTIDataset", "kitti", {}),
    "kitti_train_decode_shard": ("KITTIDataset", "kitti", {"decode": True, "num_shards": 2, "shard_id": 0}),
    "kitti_test": ("KITTIDataset", "kitti", {"usage": "test"}),
    "kitti_bad_usage": ("KITTIDataset", "kitti", {"usage": "val"}),
    "kitti_no_folder": ("KITTIDataset", "wider_face", {}),
    "cityscapes_default": ("CityscapesDataset", "cityscapes", {}),
    "cityscapes_semantic_val": ("CityscapesDataset", "cityscapes", {"usage": "val", "task": "semantic"}),
    "cityscapes_color_all_decode": ("CityscapesDataset", "cityscapes", {"usage": "all", "task": "color",
                                                                        "decode": True}),
    "cityscapes_polygon_test": ("CityscapesDataset", "cityscapes", {"usage": "test", "task": "polygon"}),
    "cityscapes_coarse_all": ("CityscapesDataset", "cityscapes", {"usage": "all", "quality_mode": "coarse"}),
    "cityscapes_coarse_train_extra": ("CityscapesDataset", "cityscapes", {"usage": "train_extra",
                                                                          "quality_mode": "coarse"}),
    "cityscapes_no_images": ("CityscapesDataset", "kitti", {}),
    "cityscapes_coarse_missing": ("CityscapesDataset", "cityscapes", {"usage": "val", "quality_mode": "coarse"}),
    "cityscapes_bad_task": ("CityscapesDataset", "cityscapes", {"task": "depth"}),
    "cityscapes_bad_quality": ("CityscapesDataset", "cityscapes", {"quality_mode": "medium"}),
    "cityscapes_bad_usage_fine": ("CityscapesDataset", "cityscapes", {"usage": "train_extra"}),
    "cityscapes_bad_usage_coarse": ("CityscapesDataset", "cityscapes", {"usage": "test", "quality_mode": "coarse"}),
}
DETECTION_CASES.update({f"{cls}_missing_dir": (cls, "no_such_dir", {})
                        for cls in ("WIDERFaceDataset", "KITTIDataset", "CityscapesDataset")})
MORE_CASES.update(DETECTION_CASES)
