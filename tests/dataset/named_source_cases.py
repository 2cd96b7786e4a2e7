"""Folders in the documented on-disk layouts of MindSpore 2.10's named text, audio and image
datasets (AG News ... Multi30k, YesNo ... Tedlium, Caltech ... LFW, CLUE ... Cityscapes: named_more.py and
named_more2.py), written small with stdlib /
NumPy only, and the dataset calls made on them, for tests/dataset/record_named_sources.py
(MindSpore's venv) and tests/dataset/test_named_sources.py (pycompile). Each case: (source name,
folder under the root, keyword arguments); shuffle=False is added unless the case sets it."""
import hashlib
import json
import os
import struct
import wave

import numpy as np

import folder_cases as fc


def _write(path, text, mode="w"):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if mode == "wb":
        with open(path, "wb") as f:
            f.write(text)
        return
    with open(path, "w", encoding="utf-8", newline="") as f:
        f.write(text)


# -- CSV text classification sets (all fields quoted, as the archives ship them) ---------------------
def _quoted(rows):
    return "".join(",".join('"' + v.replace('"', '""') + '"' for v in r) + "\n" for r in rows)


CSV_SETS = {  # folder -> fields per row
    "ag_news": 3, "dbpedia": 3, "amazon_review": 3, "sogou_news": 3, "yahoo_answers": 4, "yelp_review": 2,
}


def build_csv_sets(root):
    for folder, n in CSV_SETS.items():
        train = [[str(k % 4 + 1)] + [f"{folder} train {k} field {j}" for j in range(1, n)] for k in range(3)]
        train[1][-1] = 'with "quotes", a comma and a \\n escape'
        test = [[str(k % 2 + 1)] + [f"{folder} test {k} f{j}" for j in range(1, n)] for k in range(2)]
        _write(os.path.join(root, folder, "train.csv"), _quoted(train))
        _write(os.path.join(root, folder, "test.csv"), _quoted(test))
        _write(os.path.join(root, folder, "readme.txt"), "not read\n")
    os.makedirs(os.path.join(root, "empty_dir"), exist_ok=True)


# -- IMDB: <usage>/<pos|neg>/<id>_<rating>.txt ------------------------------------------------------
def build_imdb(root):
    d = os.path.join(root, "imdb")
    reviews = {("train", "pos"): ["great film", "loved it<br />really"], ("train", "neg"): ["dull", "bad\nacting"],
               ("test", "pos"): ["fine"], ("test", "neg"): ["awful", "meh", "no"]}
    for (usage, kind), texts in reviews.items():
        for k, text in enumerate(texts):
            _write(os.path.join(d, usage, kind, f"{k}_{7 if kind == 'pos' else 2}.txt"), text)
    _write(os.path.join(d, "train", "unsup", "0_0.txt"), "unlabelled")
    _write(os.path.join(d, "imdb.vocab"), "the\n")


# -- SST-2: tsv files with a header line ------------------------------------------------------------
def build_sst2(root):
    d = os.path.join(root, "sst2")
    _write(os.path.join(d, "train.tsv"), "sentence\tlabel\nhide new secretions \t0\ncontains no wit , only labored "
                                         "gags \t0\nthat loves its characters \t1\n")
    _write(os.path.join(d, "dev.tsv"), "sentence\tlabel\nit 's a charming journey . \t1\nunflinchingly bleak \t0\n")
    _write(os.path.join(d, "test.tsv"), "index\tsentence\n0\tuneasy mishmash of styles\n1\tthis film 's "
                                        "relationship\n2\tin a way\n")


# -- Penn Treebank / WikiText / EnWik9: lines of text ------------------------------------------------
def build_line_sets(root):
    d = os.path.join(root, "ptb")
    _write(os.path.join(d, "ptb.train.txt"), " aer banknote berlitz \n pierre <unk> N years old \n\n mr. <unk> is\n")
    _write(os.path.join(d, "ptb.test.txt"), " no it was n't black monday \n but while the new york\n")
    _write(os.path.join(d, "ptb.valid.txt"), " consumers may want to move \n")
    d = os.path.join(root, "wikitext")
    _write(os.path.join(d, "wiki.train.tokens"), " \n = Valkyria Chronicles III = \n \n Senjō no Valkyria 3 \n\n"
                                                 " The game began development \n")
    _write(os.path.join(d, "wiki.test.tokens"), " \n = Robert Boulter = \n \n")
    _write(os.path.join(d, "wiki.valid.tokens"), " = Homarus gammarus = \n last")
    d = os.path.join(root, "enwik9")
    _write(os.path.join(d, "enwik9"), "<mediawiki xmlns=\"x\">\n  <siteinfo>\n\n    <sitename>Wikipedia</sitename>\n"
                                      "  </siteinfo>\n</mediawiki>\n")


# -- UDPOS / CoNLL-2000: a token per line, sentences separated by blank lines -----------------------
def build_tagged(root):
    d = os.path.join(root, "udpos")
    _write(os.path.join(d, "en-ud-tag.v2.train.txt"), "Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\nZaman\tPROPN\tNNP\n\n"
                                                      "The\tDET\tDT\nend\tNOUN\tNN\n\n")
    _write(os.path.join(d, "en-ud-tag.v2.test.txt"), "What\tPRON\tWP\nif\tSCONJ\tIN\n\n")
    _write(os.path.join(d, "en-ud-tag.v2.dev.txt"), "From\tADP\tIN\nthe\tDET\tDT\nAP\tPROPN\tNNP\n\nHi\tINTJ\tUH\n")
    d = os.path.join(root, "conll2000")
    _write(os.path.join(d, "train.txt"), "Confidence NN B-NP\nin IN B-PP\nthe DT B-NP\npound NN I-NP\n\n"
                                         "Chancellor NNP O\n\n")
    _write(os.path.join(d, "test.txt"), "Rockwell NNP B-NP\nInternational NNP I-NP\n\nIt PRP B-NP\n")


# -- SQuAD: train-v1.1.json / dev-v1.1.json (v2.0 names too) -----------------------------------------
def _squad(title, paragraphs):
    return {"version": "1.1", "data": [{"title": title, "paragraphs": paragraphs}]}


def build_squad(root):
    d = os.path.join(root, "squad")
    os.makedirs(d)
    train = _squad("Notre_Dame", [
        {"context": "Architecturally, the school has a Catholic character.", "qas": [
            {"id": "a1", "question": "What character?", "answers": [{"text": "Catholic", "answer_start": 34}]},
            {"id": "a2", "question": "Which school?", "answers": [{"text": "the school", "answer_start": 17},
                                                                  {"text": "school", "answer_start": 21}]}]},
        {"context": "Second paragraph.", "qas": [
            {"id": "a3", "question": "Unanswerable?", "answers": [], "is_impossible": True}]}])
    dev = _squad("Normans", [{"context": "The Normans were in France.", "qas": [
        {"id": "d1", "question": "Where?", "answers": [{"text": "France", "answer_start": 20},
                                                       {"text": "in France", "answer_start": 17},
                                                       {"text": "France", "answer_start": 20}]}]}])
    for name, content in (("train-v1.1.json", train), ("dev-v1.1.json", dev)):
        with open(os.path.join(d, name), "w") as f:
            json.dump(content, f)


# -- Multi30k: training/train.{en,de}, validation/val.*, mmt16_task1_test/test.* -----------------------
def build_multi30k(root):
    d = os.path.join(root, "multi30k")
    pairs = {"training/train": (["Two young guys.", "Several men.", "A child"], ["Zwei junge Männer.",
                                                                                 "Mehrere Männer.", "Ein Kind"]),
             "validation/val": (["A group of men."], ["Eine Gruppe."]),
             "mmt16_task1_test/test": (["A man in an orange hat.", "A Boston Terrier."],
                                       ["Ein Mann mit Hut.", "Ein Boston Terrier."])}
    for stem, (en, de) in pairs.items():
        _write(os.path.join(d, stem + ".en"), "\n".join(en) + "\n")
        _write(os.path.join(d, stem + ".de"), "\n".join(de) + "\n")


def build_text(root):
    build_csv_sets(root)
    build_imdb(root)
    build_sst2(root)
    build_line_sets(root)
    build_tagged(root)
    build_squad(root)
    build_multi30k(root)


TEXT_CASES = {
    **{f"{folder}_{u or 'default'}": (cls, folder, {"usage": u} if u else {})
       for cls, folder in (("AGNewsDataset", "ag_news"), ("DBpediaDataset", "dbpedia"),
                           ("AmazonReviewDataset", "amazon_review"), ("SogouNewsDataset", "sogou_news"),
                           ("YahooAnswersDataset", "yahoo_answers"), ("YelpReviewDataset", "yelp_review"))
       for u in (None, "train", "test")},
    "ag_news_one_worker": ("AGNewsDataset", "ag_news", {"num_parallel_workers": 1}),
    "ag_news_num_samples": ("AGNewsDataset", "ag_news", {"num_samples": 3}),
    "ag_news_bad_usage": ("AGNewsDataset", "ag_news", {"usage": "valid"}),
    "ag_news_empty_dir": ("AGNewsDataset", "empty_dir", {}),
    "yelp_review_bad_usage": ("YelpReviewDataset", "yelp_review", {"usage": "dev"}),
    "imdb_all": ("IMDBDataset", "imdb", {}),
    "imdb_train": ("IMDBDataset", "imdb", {"usage": "train"}),
    "imdb_test_num_samples": ("IMDBDataset", "imdb", {"usage": "test", "num_samples": 2}),
    "imdb_bad_usage": ("IMDBDataset", "imdb", {"usage": "unsup"}),
    "sst2_default": ("SST2Dataset", "sst2", {}),
    "sst2_dev": ("SST2Dataset", "sst2", {"usage": "dev"}),
    "sst2_test": ("SST2Dataset", "sst2", {"usage": "test"}),
    "sst2_bad_usage": ("SST2Dataset", "sst2", {"usage": "all"}),
    "ptb_all": ("PennTreebankDataset", "ptb", {}),
    "ptb_train": ("PennTreebankDataset", "ptb", {"usage": "train"}),
    "ptb_valid_one_worker": ("PennTreebankDataset", "ptb", {"usage": "valid", "num_parallel_workers": 1}),
    "ptb_shard_1_of_2": ("PennTreebankDataset", "ptb", {"num_shards": 2, "shard_id": 1}),
    "ptb_bad_usage": ("PennTreebankDataset", "ptb", {"usage": "dev"}),
    "wikitext_all": ("WikiTextDataset", "wikitext", {}),
    "wikitext_train": ("WikiTextDataset", "wikitext", {"usage": "train"}),
    "wikitext_num_samples": ("WikiTextDataset", "wikitext", {"num_samples": 4}),
    "wikitext_bad_usage": ("WikiTextDataset", "wikitext", {"usage": "dev"}),
    "enwik9": ("EnWik9Dataset", "enwik9", {}),
    "enwik9_num_samples": ("EnWik9Dataset", "enwik9", {"num_samples": 3}),
    "udpos_all": ("UDPOSDataset", "udpos", {}),
    "udpos_train": ("UDPOSDataset", "udpos", {"usage": "train"}),
    "udpos_valid": ("UDPOSDataset", "udpos", {"usage": "valid"}),
    "udpos_bad_usage": ("UDPOSDataset", "udpos", {"usage": "dev"}),
    "conll2000_all": ("CoNLL2000Dataset", "conll2000", {}),
    "conll2000_train": ("CoNLL2000Dataset", "conll2000", {"usage": "train"}),
    "conll2000_bad_usage": ("CoNLL2000Dataset", "conll2000", {"usage": "valid"}),
    "squad_all": ("SQuADDataset", "squad", {}),
    "squad_train": ("SQuADDataset", "squad", {"usage": "train"}),
    "squad_dev": ("SQuADDataset", "squad", {"usage": "dev"}),
    "squad_bad_usage": ("SQuADDataset", "squad", {"usage": "test"}),
    "multi30k_all": ("Multi30kDataset", "multi30k", {}),
    "multi30k_train_de_en": ("Multi30kDataset", "multi30k", {"usage": "train", "language_pair": ["de", "en"]}),
    "multi30k_test": ("Multi30kDataset", "multi30k", {"usage": "test"}),
    "multi30k_bad_pair": ("Multi30kDataset", "multi30k", {"language_pair": ["en", "fr"]}),
    "multi30k_bad_usage": ("Multi30kDataset", "multi30k", {"usage": "dev"}),
}

TEXT_CASES.update({f"{cls}_missing_dir": (cls, "no_such_dir", {})
                   for cls in sorted({c[0] for c in TEXT_CASES.values()})})

# -- audio: 16-bit PCM WAV files (the 44-byte header MindSpore's reader expects) --------------------------
def write_wav(path, seed, n=6, rate=8000, channels=1):
    samples = np.random.default_rng(seed).integers(-32768, 32768, n * channels).astype("<i2")
    samples[:2] = [32767, -32768]
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with wave.open(path, "wb") as w:
        w.setnchannels(channels)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(samples.tobytes())


def build_audio(root):
    d = os.path.join(root, "yesno")
    for k, name in enumerate(["1_1_0_0_1_1_0_0", "0_0_0_1_0_1_1_0", "1_0_0_0_1_1_1_1"]):
        write_wav(os.path.join(d, name + ".wav"), 100 + k, n=5 + k)
    _write(os.path.join(d, "README"), "not audio\n")
    write_wav(os.path.join(root, "yesno_one", "1_0_1_0_1_0_1_0.wav"), 110, n=4)     # one file: no listing order
    d = os.path.join(root, "speech_commands")
    for k, rel in enumerate(["cat/b433eff_nohash_0.wav", "cat/5a33edf_nohash_1.wav", "dog/b433eff_nohash_2.wav",
                             "dog/0a2b400e_nohash_0.wav", "yes/c1d39ce8_nohash_3.wav",
                             "_background_noise_/white_noise.wav"]):
        write_wav(os.path.join(d, rel), 200 + k, n=4 + k, rate=16000)
    _write(os.path.join(d, "testing_list.txt"), "cat/5a33edf_nohash_1.wav\nyes/c1d39ce8_nohash_3.wav\n")
    _write(os.path.join(d, "validation_list.txt"), "dog/0a2b400e_nohash_0.wav\n")
    d = os.path.join(root, "ljspeech")
    meta = [("LJ001-0002", "in being comparatively modern.", "in being comparatively modern."),
            ("LJ001-0001", "Printing, in the only sense, 1st", "Printing, in the only sense, first"),
            ("LJ002-0010", "Mr. Smith said \"no\"", "Mister Smith said \"no\"")]
    for k, (i, _, _) in enumerate(meta):
        write_wav(os.path.join(d, "wavs", i + ".wav"), 300 + k, n=3 + k, rate=22050)
    _write(os.path.join(d, "metadata.csv"), "".join("|".join(m) + "\n" for m in meta))
    d = os.path.join(root, "gtzan")
    for k, name in enumerate(["blues.00000", "blues.00012", "blues.00029", "disco.00001", "disco.00005",
                              "disco.00000", "rock.00099"]):
        write_wav(os.path.join(d, name.split(".")[0], name + ".wav"), 400 + k, n=4, rate=22050)
    d = os.path.join(root, "cmu_arctic")
    for name, ids in (("aew", ["arctic_a0002", "arctic_a0001"]), ("slt", ["arctic_b0001"])):
        base = os.path.join(d, f"cmu_us_{name}_arctic")
        for k, i in enumerate(ids):
            write_wav(os.path.join(base, "wav", i + ".wav"), 500 + k + len(name), n=3, rate=16000)
        _write(os.path.join(base, "etc", "txt.done.data"),
               "".join(f'( {i} "Transcript of {i}, said {name}." )\n' for i in ids))
    d = os.path.join(root, "libritts")
    for usage, spk, chap, utts in (("dev-clean", "116", "288045", ["000003_000000", "000001_000000"]),
                                   ("dev-clean", "1255", "74899", ["000002_000001"]),
                                   ("train-clean-100", "19", "198", ["000000_000000"])):
        base = os.path.join(d, usage, spk, chap)
        lines = []
        for k, u in enumerate(utts):
            stem = f"{spk}_{chap}_{u}"
            write_wav(os.path.join(base, stem + ".wav"), 600 + k + int(spk), n=4, rate=24000)
            _write(os.path.join(base, stem + ".original.txt"), f"Original text of {stem}.")
            _write(os.path.join(base, stem + ".normalized.txt"), f"normalized text of {stem}")
            lines.append(f"{stem}\tOriginal text of {stem}.\tnormalized text of {stem}\n")
        _write(os.path.join(base, f"{spk}_{chap}.trans.tsv"), "".join(lines))


AUDIO_CASES = {
    "yesno": ("YesNoDataset", "yesno", {}),
    "yesno_single": ("YesNoDataset", "yesno_one", {"num_samples": 1}),
    "speech_commands_all": ("SpeechCommandsDataset", "speech_commands", {}),
    "speech_commands_train": ("SpeechCommandsDataset", "speech_commands", {"usage": "train"}),
    "speech_commands_test": ("SpeechCommandsDataset", "speech_commands", {"usage": "test"}),
    "speech_commands_valid": ("SpeechCommandsDataset", "speech_commands", {"usage": "valid"}),
    "speech_commands_bad_usage": ("SpeechCommandsDataset", "speech_commands", {"usage": "dev"}),
    "ljspeech": ("LJSpeechDataset", "ljspeech", {}),
    "gtzan_all": ("GTZANDataset", "gtzan", {}),
    "gtzan_train": ("GTZANDataset", "gtzan", {"usage": "train"}),
    "gtzan_valid": ("GTZANDataset", "gtzan", {"usage": "valid"}),
    "gtzan_test": ("GTZANDataset", "gtzan", {"usage": "test"}),
    "gtzan_bad_usage": ("GTZANDataset", "gtzan", {"usage": "dev"}),
    "cmu_arctic_default": ("CMUArcticDataset", "cmu_arctic", {}),
    "cmu_arctic_slt": ("CMUArcticDataset", "cmu_arctic", {"name": "slt"}),
    "cmu_arctic_bad_name": ("CMUArcticDataset", "cmu_arctic", {"name": "xyz"}),
    "libritts_all": ("LibriTTSDataset", "libritts", {}),
    "libritts_dev_clean": ("LibriTTSDataset", "libritts", {"usage": "dev-clean"}),
    "libritts_bad_usage": ("LibriTTSDataset", "libritts", {"usage": "dev"}),
}
AUDIO_CASES.update({f"{cls}_missing_dir": (cls, "no_such_dir", {})
                    for cls in sorted({c[0] for c in AUDIO_CASES.values()})})


# -- TED-LIUM: NIST SPHERE audio (1024-byte header) with stm transcripts -----------------------------------
TED_TALKS = {("TEDLIUM_release1", "train"): ["AaronHuey_2010X"], ("TEDLIUM_release1", "test"): ["BillGates_2010",
                                                                                              "AimeeMullins_2009P"],
             ("TEDLIUM_release1", "dev"): ["AlGore_2009"], ("TEDLIUM_release-3", "data"): ["911Mothers_2010W"]}
TED_RATE = 16000


def ted_samples(talk):
    """The talk's 16-bit samples (deterministic from its name)."""
    return np.random.default_rng(sum(talk.encode())).integers(-32768, 32768, 64)


def build_tedlium(root):
    for (release, usage), talks in TED_TALKS.items():
        little = release.endswith("3")             # release 3's files say little-endian, release 1's big
        for talk in talks:
            samples = ted_samples(talk)
            head = (f"NIST_1A\n   1024\nsample_count -i {len(samples)}\nsample_n_bytes -i 2\nchannel_count -i 1\n"
                    f"sample_byte_format -s2 {'01' if little else '10'}\nsample_rate -i {TED_RATE}\n"
                    "sample_coding -s3 pcm\nend_head\n").encode().ljust(1024, b" ")
            _write(os.path.join(root, release, usage, "sph", talk + ".sph"),
                   head + np.asarray(samples, "<i2" if little else ">i2").tobytes(), "wb")
            _write(os.path.join(root, release, usage, "stm", talk + ".stm"),
                   f"{talk} 1 {talk} 0.0 0.001 <o,f0,male> first words of {talk}\n"
                   f"{talk} 1 {talk}_b 0.001 0.0025 <o,f0,female> second part\n")


TEDLIUM_CASES = {
    "tedlium_release1_all": ("TedliumDataset", "TEDLIUM_release1", {"release": "release1"}),
    "tedlium_release1_test": ("TedliumDataset", "TEDLIUM_release1", {"release": "release1", "usage": "test"}),
    "tedlium_release2_dev": ("TedliumDataset", "TEDLIUM_release1", {"release": "release2", "usage": "dev"}),
    "tedlium_release3": ("TedliumDataset", "TEDLIUM_release-3", {"release": "release3"}),
    "tedlium_bad_release": ("TedliumDataset", "TEDLIUM_release1", {"release": "release4"}),
    "tedlium_bad_usage": ("TedliumDataset", "TEDLIUM_release1", {"release": "release1", "usage": "valid"}),
    "tedlium_release3_usage": ("TedliumDataset", "TEDLIUM_release-3", {"release": "release3", "usage": "train"}),
    "tedlium_bad_extension": ("TedliumDataset", "TEDLIUM_release1", {"release": "release1", "extensions": ".wav"}),
    "TedliumDataset_missing_dir": ("TedliumDataset", "no_such_dir", {"release": "release1"}),
}
# MindSpore 2.10 returns Tedlium's waveforms as zeros (see named_audio.TedliumDataset): their shape and
# dtype are compared with it, their values with the samples written (test_named_sources.py)
WAVEFORM_ZEROS = {c for c, v in TEDLIUM_CASES.items() if v[1] != "no_such_dir"}
AUDIO_CASES.update(TEDLIUM_CASES)


# -- image folders and files -------------------------------------------------------------------------------
def _image_file(path, seed, kind="png"):
    data = fc.JPEG_6x5 if kind == "jpeg" else fc.png_bytes(fc.pixels(3, 4, seed))
    _write(path, data, "wb")


def build_images(root):
    d = os.path.join(root, "caltech101", "101_ObjectCategories")
    for k, (cls, n) in enumerate((("accordion", 2), ("Faces", 1), ("BACKGROUND_Google", 1), ("ant", 1))):
        for i in range(1, n + 1):
            _image_file(os.path.join(d, cls, f"image_{i:04d}.jpg"), 700 + 10 * k + i, "jpeg" if cls == "ant" else "png")
    os.makedirs(os.path.join(root, "caltech101", "Annotations"), exist_ok=True)
    d = os.path.join(root, "caltech256")
    for k, (cls, files) in enumerate((("001.ak47", ["001_0001.jpg", "001_0002.jpg"]),
                                      ("003.backpack", ["003_0001.jpg"]), ("257.clutter", ["257_0001.jpg"]))):
        for i, name in enumerate(files):
            _image_file(os.path.join(d, cls, name), 800 + 10 * k + i)
    _write(os.path.join(d, "003.backpack", "notes.txt"), "not an image\n")
    d = os.path.join(root, "food101")
    for k, rel in enumerate(["apple_pie/1005649", "apple_pie/1014775", "baby_back_ribs/1005293", "sushi/99"]):
        _image_file(os.path.join(d, "images", rel + ".jpg"), 900 + k, "jpeg" if rel == "sushi/99" else "png")
    _write(os.path.join(d, "meta", "train.txt"), "apple_pie/1014775\nbaby_back_ribs/1005293\n")
    _write(os.path.join(d, "meta", "test.txt"), "sushi/99\napple_pie/1005649\n")
    _write(os.path.join(d, "meta", "classes.txt"), "apple_pie\nbaby_back_ribs\nsushi\n")
    rng = np.random.default_rng(11)
    d = os.path.join(root, "semeion")
    lines = []
    for digit in (3, 0, 9):
        bits = rng.integers(0, 2, 256)
        onehot = np.eye(10, dtype=int)[digit]
        lines.append(" ".join(f"{b:.4f}" for b in bits) + " " + " ".join(str(v) for v in onehot) + " \n")
    _write(os.path.join(d, "semeion.data"), "".join(lines))
    d = os.path.join(root, "usps")
    for name, n in (("usps", 3), ("usps.t", 2)):
        rows = []
        for _ in range(n):
            vals = np.round(rng.uniform(-1, 1, 256), 6)
            vals[:4] = [-1.0, 1.0, 0.0, -0.999]
            rows.append(f"{rng.integers(1, 11)} " + " ".join(f"{i + 1}:{v:.6f}" for i, v in enumerate(vals)) + " \n")
        _write(os.path.join(d, name), "".join(rows))
    d = os.path.join(root, "stl10")
    for name, n, labels in (("train", 2, [3, 10]), ("test", 1, [1]), ("unlabeled", 2, None)):
        _write(os.path.join(d, f"{name}_X.bin"), rng.integers(0, 256, n * 3 * 96 * 96, dtype=np.uint8).tobytes(),
               "wb")
        if labels:
            _write(os.path.join(d, f"{name}_y.bin"), bytes(labels), "wb")


def write_mat(path, arrays, compress=False):
    """A MATLAB 5 MAT-file of numeric matrices {name: (array, stored dtype)} (class double when the
    array is float64, stored as `stored dtype` as MATLAB compacts integral doubles)."""
    import zlib
    codes = {"i1": 1, "u1": 2, "i2": 3, "u2": 4, "i4": 5, "u4": 6, "f4": 7, "f8": 9}

    def element(kind, payload):
        return struct.pack("<II", kind, len(payload)) + payload + b"\0" * (-len(payload) % 8)

    body = b""
    for name, (array, stored) in arrays.items():
        a = np.asarray(array)
        cls = {"f8": 6, "u1": 9, "i4": 12}[a.dtype.str[1:]]
        sub = (element(6, struct.pack("<II", cls, 0)) + element(5, struct.pack(f"<{a.ndim}i", *a.shape))
               + element(1, name.encode()) + element(codes[stored], a.astype("<" + stored).tobytes(order="F")))
        matrix = element(14, sub)
        body += struct.pack("<II", 15, len(zlib.compress(matrix))) + zlib.compress(matrix) if compress else matrix
    header = b"MATLAB 5.0 MAT-file, written by named_source_cases.py".ljust(116) + b"\0" * 8 + b"\x00\x01IM"
    _write(path, header + body, "wb")


def build_caltech_annotations(root):
    d = os.path.join(root, "caltech101", "Annotations")
    rng = np.random.default_rng(21)
    for k, (folder, number, stored, compress) in enumerate((("Faces_2", 1, "f8", False), ("accordion", 1, "i2", False),
                                                             ("accordion", 2, "f8", True), ("ant", 1, "u1", False))):
        contour = rng.integers(0, 200, (2, 3 + k)).astype(np.float64)
        if stored == "f8":
            contour += 0.25
        write_mat(os.path.join(d, folder, f"annotation_{number:04d}.mat"),
                  {"box_coord": (np.array([[2.0, 30.0, 4.0, 50.0]]), "u1"), "obj_contour": (contour, stored)}, compress)


IMAGE_CASES = {
    "caltech101": ("Caltech101Dataset", "caltech101", {}),
    "caltech101_decode": ("Caltech101Dataset", "caltech101", {"decode": True}),
    "caltech101_bad_target": ("Caltech101Dataset", "caltech101", {"target_type": "label"}),
    "caltech101_annotation": ("Caltech101Dataset", "caltech101", {"target_type": "annotation"}),
    "caltech101_all": ("Caltech101Dataset", "caltech101", {"target_type": "all", "num_samples": 3}),
    "caltech256": ("Caltech256Dataset", "caltech256", {}),
    "caltech256_decode": ("Caltech256Dataset", "caltech256", {"decode": True, "num_samples": 2}),
    "food101_all": ("Food101Dataset", "food101", {}),
    "food101_train": ("Food101Dataset", "food101", {"usage": "train"}),
    "food101_test_decode": ("Food101Dataset", "food101", {"usage": "test", "decode": True}),
    "food101_bad_usage": ("Food101Dataset", "food101", {"usage": "valid"}),
    "semeion": ("SemeionDataset", "semeion", {}),
    "usps_all": ("USPSDataset", "usps", {}),
    "usps_train": ("USPSDataset", "usps", {"usage": "train"}),
    "usps_test": ("USPSDataset", "usps", {"usage": "test"}),
    "usps_bad_usage": ("USPSDataset", "usps", {"usage": "valid"}),
    "stl10_all": ("STL10Dataset", "stl10", {}),
    "stl10_train": ("STL10Dataset", "stl10", {"usage": "train"}),
    "stl10_unlabeled": ("STL10Dataset", "stl10", {"usage": "unlabeled"}),
    "stl10_train_unlabeled": ("STL10Dataset", "stl10", {"usage": "train+unlabeled"}),
    "stl10_bad_usage": ("STL10Dataset", "stl10", {"usage": "valid"}),
}
IMAGE_CASES.update({f"{cls}_missing_dir": (cls, "no_such_dir", {})
                    for cls in sorted({c[0] for c in IMAGE_CASES.values()})})


def build_lfw(root):
    d = os.path.join(root, "lfw")
    people = {"Aaron_Eckhart": 1, "Abbas_Kiarostami": 2, "Zico": 2}
    for k, (name, n) in enumerate(people.items()):
        for i in range(1, n + 1):
            for folder in ("lfw", "lfw_funneled"):
                _image_file(os.path.join(d, folder, name, f"{name}_{i:04d}.jpg"), 1000 + 10 * k + i + len(folder))
    _write(os.path.join(d, "lfw-names.txt"), "Aaron_Eckhart\t1\nAbbas_Kiarostami\t2\nZico\t2\n")
    _write(os.path.join(d, "peopleDevTrain.txt"), "2\nAbbas_Kiarostami\t2\nAaron_Eckhart\t1\n")
    _write(os.path.join(d, "peopleDevTest.txt"), "1\nZico\t1\n")
    _write(os.path.join(d, "people.txt"), "2\n1\nZico\t2\n1\nAaron_Eckhart\t1\n")
    _write(os.path.join(d, "pairsDevTrain.txt"), "1\nAbbas_Kiarostami\t1\t2\nAaron_Eckhart\t1\tZico\t2\n")
    _write(os.path.join(d, "pairsDevTest.txt"), "1\nZico\t2\t1\nZico\t1\tAbbas_Kiarostami\t1\n")
    _write(os.path.join(d, "pairs.txt"), "1\t1\nZico\t1\t2\nAbbas_Kiarostami\t2\tZico\t1\n")


LFW_CASES = {
    "lfw_people_all": ("LFWDataset", "lfw", {}),
    "lfw_people_train_original": ("LFWDataset", "lfw", {"usage": "train", "image_set": "original"}),
    "lfw_people_10fold_decode": ("LFWDataset", "lfw", {"usage": "10fold", "decode": True}),
    "lfw_pairs_all": ("LFWDataset", "lfw", {"task": "pairs"}),
    "lfw_pairs_10fold": ("LFWDataset", "lfw", {"task": "pairs", "usage": "10fold"}),
    "lfw_bad_task": ("LFWDataset", "lfw", {"task": "faces"}),
    "lfw_bad_usage": ("LFWDataset", "lfw", {"usage": "valid"}),
    "lfw_bad_image_set": ("LFWDataset", "lfw", {"image_set": "raw"}),
    "LFWDataset_missing_dir": ("LFWDataset", "no_such_dir", {}),
}
IMAGE_CASES.update(LFW_CASES)


# -- CLUE (json lines of a task) and Manifest (ModelArts json lines of image files) ----------------------


# the later sources (CLUE ... Cityscapes) are in named_source_cases_more.py, which reads the helpers above
from named_source_cases_more import (MORE_CASES, _mat_matrix, build_clue_manifest, build_detection,  # noqa: E402,F401
                                     build_div2k_flickr, build_flowers_svhn, build_image_sets, build_iwslt,
                                     build_places_phototour, build_sbd)


CASES = {**TEXT_CASES, **AUDIO_CASES, **IMAGE_CASES, **MORE_CASES}
# MindSpore lists these folders in the file system's order (readdir), pycompile in sorted order: the
# recorded rows are compared as a set
UNORDERED = {"yesno", "gtzan_all"}
PARALLEL_READERS = (({c[0] for c in TEXT_CASES.values()} - {"IMDBDataset"})
                    | {"USPSDataset", "CLUEDataset", "IWSLT2016Dataset", "IWSLT2017Dataset"})


def build_all(root):
    build_text(root)
    build_audio(root)
    build_tedlium(root)
    build_images(root)
    build_caltech_annotations(root)
    build_lfw(root)
    build_clue_manifest(root)
    build_iwslt(root)
    build_flowers_svhn(root)
    build_sbd(root)
    build_image_sets(root)
    build_places_phototour(root)
    build_div2k_flickr(root)
    build_detection(root)


def rooted(kwargs, root):
    """`kwargs` with each "<root>/..." value (a file a source reads besides its folder) under `root`."""
    return {k: os.path.join(root, v[len("<root>/"):]) if isinstance(v, str) and v.startswith("<root>/") else v
            for k, v in kwargs.items()}


def run(ds, root, case):
    """What `ds.<source>` yields for `case`: columns, size and rows (source_io_data35.value), or the
    error's class and first message line (the root written <dir>)."""
    from source_io_data35 import rows_or_error, value as _value

    def value(a):        # an array of more than 4096 values (STL-10's images) is recorded by its digest
        a = np.asarray(a)
        if a.size <= 4096:
            return _value(a)
        return {"dtype": a.dtype.str, "shape": list(a.shape),
                "sha256": hashlib.sha256(np.ascontiguousarray(a).tobytes()).hexdigest()}
    name, where, kwargs = CASES[case]
    kwargs = {"shuffle": False, **rooted(kwargs, root)}
    if name in PARALLEL_READERS:     # their unshuffled order depends on the worker count
        kwargs.setdefault("num_parallel_workers", 2)
    return rows_or_error(lambda: getattr(ds, name)(os.path.join(root, where), **kwargs), root, value)
