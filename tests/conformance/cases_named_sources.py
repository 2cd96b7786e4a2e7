"""The conformance table: MindSpore 2.10's named dataset sources (text, audio, image folders), one
case each, on the small folders tests/dataset/named_source_cases.py writes in each dataset's
documented layout (that file's cases, and tests/dataset/test_named_sources.py, check every option
and error against the wheel; these cases name each source for the name coverage). Ids start with
``nsrc_``. All run on the host (the pipeline, not graph code)."""
group("named_sources")

_nsrc_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")


def _nsrc_value(a):
    import hashlib
    a = np.asarray(a)
    if a.dtype.kind == "U":
        return a.tolist()
    if a.size > 4096:                   # STL-10's 96x96x3 images: their bytes' digest
        return str(a.dtype), list(a.shape), hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()
    return a


def _nsrc_case(case, source):
    def run():
        import os
        import sys
        import tempfile
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dataset"))
        import named_source_cases as nc
        name, where, kwargs = nc.CASES[case]
        kwargs = {"shuffle": False, **kwargs}
        if name in nc.PARALLEL_READERS:
            kwargs.setdefault("num_parallel_workers", 2)
        with tempfile.TemporaryDirectory() as root:
            nc.build_all(root)
            data = getattr(ms.dataset, name)(os.path.join(root, where), **nc.rooted(kwargs, root))
            rows = [tuple(_nsrc_value(c) for c in r) for r in data.create_tuple_iterator(output_numpy=True,
                                                                                          num_epochs=1)]
            if case in nc.WAVEFORM_ZEROS:       # MindSpore's Tedlium waveforms are zeros: their shape only
                rows = [(str(r[0].dtype), list(r[0].shape)) + r[1:] for r in rows]
            return list(data.get_col_names()), data.get_dataset_size(), rows
    add(f"nsrc_{case}", f"dataset.{source}", run, **_nsrc_PIPE)


_NSRC_CASES = {
    "ag_news_train": "AGNewsDataset", "amazon_review_test": "AmazonReviewDataset", "dbpedia_train": "DBpediaDataset",
    "sogou_news_default": "SogouNewsDataset", "yahoo_answers_test": "YahooAnswersDataset",
    "yelp_review_default": "YelpReviewDataset", "imdb_train": "IMDBDataset", "sst2_test": "SST2Dataset",
    "ptb_all": "PennTreebankDataset", "wikitext_train": "WikiTextDataset", "enwik9": "EnWik9Dataset",
    "udpos_all": "UDPOSDataset", "conll2000_all": "CoNLL2000Dataset", "squad_all": "SQuADDataset",
    "multi30k_train_de_en": "Multi30kDataset", "speech_commands_train": "SpeechCommandsDataset",
    "yesno_single": "YesNoDataset", "ljspeech": "LJSpeechDataset", "gtzan_test": "GTZANDataset",
    "cmu_arctic_default": "CMUArcticDataset", "tedlium_release1_test": "TedliumDataset",
    "libritts_all": "LibriTTSDataset", "caltech101_all": "Caltech101Dataset", "caltech256": "Caltech256Dataset",
    "food101_train": "Food101Dataset", "semeion": "SemeionDataset", "usps_all": "USPSDataset",
    "stl10_train": "STL10Dataset", "lfw_pairs_all": "LFWDataset",
    "clue_cmnli_glob": "CLUEDataset", "clue_wsc_train": "CLUEDataset", "manifest_train": "ManifestDataset",
    "iwslt2016_all": "IWSLT2016Dataset", "iwslt2017_it_nl": "IWSLT2017Dataset", "flowers102_all": "Flowers102Dataset",
    "svhn_all": "SVHNDataset", "sbd_boundaries_all": "SBDataset", "omniglot_background": "OmniglotDataset",
    "phototour_test": "PhotoTourDataset", "places365_default": "Places365Dataset",
    "rendered_sst2_train": "RenderedSST2Dataset", "sbu": "SBUDataset", "sun397": "SUN397Dataset",
    "wider_face_all": "WIDERFaceDataset", "kitti_train": "KITTIDataset", "cityscapes_polygon_test": "CityscapesDataset",
    "div2k_all_decode": "DIV2KDataset", "flickr": "FlickrDataset",
}
for _nsrc_c, _nsrc_s in _NSRC_CASES.items():
    _nsrc_case(_nsrc_c, _nsrc_s)


def _nsrc_class_indexing(case, source):
    """The class indexing a source reports (Flowers102's fixed names, Manifest's numbering)."""
    def run():
        import os
        import sys
        import tempfile
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "dataset"))
        import named_source_cases as nc
        name, where, kwargs = nc.CASES[case]
        with tempfile.TemporaryDirectory() as root:
            nc.build_all(root)
            data = getattr(ms.dataset, name)(os.path.join(root, where), **nc.rooted(kwargs, root))
            return sorted(data.get_class_indexing().items())
    add(f"nsrc_{case}_class_indexing", f"dataset.{source}", run, **_nsrc_PIPE)


for _nsrc_c, _nsrc_s in (("flowers102_all", "Flowers102Dataset"), ("manifest_train", "ManifestDataset"),
                         ("manifest_class_indexing", "ManifestDataset")):
    _nsrc_class_indexing(_nsrc_c, _nsrc_s)
