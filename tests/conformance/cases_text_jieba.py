"""The conformance table: mindspore.dataset.text.JiebaTokenizer (cppjieba's segmentation) on a small
hand-made dictionary and HMM model in cppjieba's formats, which each case writes to a temporary
directory: the three modes on sentences mixing Chinese, ASCII words, digits, punctuation, spaces
and characters neither file knows; offsets and dtypes; add_word / add_dict; the pipeline; and
MindSpore's errors (argument checks, file checks at the first call, input checks). Ids start with
``jieba_``. All run on the host (the pipeline, not graph code).

Errors are returned as (class name, first line, the "[ERROR] ..." line when there is one), so the
pipeline's own words are compared too."""
group("text_jieba")

_jb_PIPE = dict(graph=False, reason="the dataset pipeline runs on the host")
JBTX = ms.dataset.text

# cppjieba's dictionary format: `word freq tag`
_JB_DICT = """我们 500 r
我 800 r
来到 300 v
北京 600 ns
清华大学 200 nt
清华 150 nt
大学 400 n
华大 5 j
今天 400 t
天气 300 n
天天 40 d
很 700 d
好 900 a
不错 200 a
中国 800 ns
人民 500 n
中国人民 100 nt
银行 300 n
人民银行 50 nt
研究 400 v
研究生 150 n
生命 250 n
命 30 n
起源 100 n
的 5000 uj
是 3000 v
一个 600 m
一 900 m
个 700 q
他 700 r
说 600 v
学习 300 v
机器 200 n
机器学习 80 n
深度 150 n
自然 200 n
语言 300 n
处理 250 v
自然语言 50 n
和 1500 c
在 2000 p
上海 400 ns
工作 500 vn
小明 20 nr
硕士 80 n
毕业 150 v
于 900 p
中国科学院 30 nt
科学院 40 n
计算 200 v
计算所 10 n
后 600 f
日本 300 ns
京都 50 ns
深造 30 v
确实 120 ad
实在 90 ad
在理 8 v
GPU 30 eng
AI 40 eng
iPhone 20 eng
"""

# cppjieba's HMM format: start, 4 transition rows, emissions of B, E, M, S ('#' lines are comments)
_JB_HMM = """#prob_start
-0.26268660809250016 -3.14e+100 -3.14e+100 -1.4652633398537678
#prob_trans
-3.14e+100 -0.510825623765990 -0.916290731874155 -3.14e+100
-0.5897149736854513 -3.14e+100 -3.14e+100 -0.8085250474669937
-3.14e+100 -0.33344856811948514 -1.2603623820268226 -3.14e+100
-0.7211965654669841 -3.14e+100 -3.14e+100 -0.6658631448798212
#prob_emit
小:-6.1,明:-9.2,硕:-10.0,杭:-9.5,研:-7.4,阿:-8.0,里:-9.9,巴:-8.3,琦:-11.0,韦:-10.1,深:-7.9,度:-9.8,宝:-8.8
#E
小:-9.0,明:-6.6,硕:-11.5,杭:-10.3,研:-10.0,阿:-11.0,里:-7.0,巴:-7.7,琦:-8.2,韦:-9.5,深:-10.2,度:-7.3,宝:-7.9
#M
小:-9.5,明:-8.1,硕:-12.0,杭:-11.0,研:-9.0,阿:-10.5,里:-8.0,巴:-7.9,琦:-9.1,韦:-9.9,深:-9.5,度:-8.8,宝:-8.4
#S
小:-8.0,明:-9.7,硕:-9.9,杭:-9.1,研:-9.3,阿:-8.4,里:-8.9,巴:-9.6,琦:-10.5,韦:-9.2,深:-9.0,度:-10.4,宝:-9.3
"""

_JB_SENTENCES = [
    "我们来到北京清华大学", "今天天气很好 ,hello world", "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
    "GPU和AI是iPhone3.14abc12 x9", "阿里巴巴在杭州", "琦韦宝宝。", "中国人民银行研究生命起源", "自然语言处理和机器学习",
    "他说的确实在理", "深度学习GPU 2024年", "。。，，", "a.b..3..4x", "ＡＢＣ全角１２３", "  a\tb\nc\r\n", "宝琦杭研深度小明",
]


def _jb_files(fn, dict_text=None, hmm_text=None):
    """fn(hmm_path, mp_path, folder) with the two model files written to a temporary folder."""
    import os
    import tempfile
    with tempfile.TemporaryDirectory() as d:
        hmm, mp = os.path.join(d, "hmm_model.utf8"), os.path.join(d, "jieba.dict.utf8")
        with open(hmm, "w", encoding="utf-8") as f:
            f.write(_JB_HMM if hmm_text is None else hmm_text)
        with open(mp, "w", encoding="utf-8") as f:
            f.write(_JB_DICT if dict_text is None else dict_text)
        return fn(hmm, mp, d)


def _jb_plain(out):
    """A tokenizer's output: the tokens as Python str with their NumPy dtype; offsets as they are."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    res = []
    for o in outs:
        a = np.asarray(o)
        res.append((a.tolist(), a.dtype.str) if a.dtype.kind in "US" else a)
    return tuple(res)


def _jb_error(fn, hide=None):
    """The exception: class name, first line, and MindSpore's "[ERROR]" line when there is one; the
    temporary folder `hide` written <dir>."""
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the error is the outcome
        message = str(e).replace(hide, "<dir>") if hide else str(e)
        lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
        said = [ln for ln in lines if ln.startswith("[ERROR]")]
        said = said[0] if said else ""
        return type(e).__name__, lines[0] if lines else "", said
    return "no error"


def _jb_modes(name, sentences, with_offsets=False, words=(), modes=("MP", "HMM", "MIX"), dict_text=None,
              hmm_text=None):
    def run():
        def go(hmm, mp, _):
            out = []
            for mode in modes:
                tok = JBTX.JiebaTokenizer(hmm, mp, mode=getattr(JBTX.JiebaMode, mode), with_offsets=with_offsets)
                for w in words:
                    tok.add_word(*w)
                out.append([_jb_plain(tok(s)) for s in sentences])
            return out
        return _jb_files(go, dict_text, hmm_text)
    add(f"jieba_{name}", ("dataset.text.JiebaTokenizer", "dataset.text.JiebaMode"), run, **_jb_PIPE)


# ---- the three modes -------------------------------------------------------------------------------------
_jb_modes("mp", _JB_SENTENCES, modes=("MP",))
_jb_modes("hmm", _JB_SENTENCES, modes=("HMM",))
_jb_modes("mix", _JB_SENTENCES, modes=("MIX",))
_jb_modes("offsets", _JB_SENTENCES[:8] + ["", " ", "，"], with_offsets=True)
_jb_modes("empty_and_blank", ["", " ", "\t\t", "，。"], with_offsets=True)


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_default_mode_and_inputs():
    """MIX by default; a Python str, a 0-d NumPy str array and np.str_ give the same."""
    def go(hmm, mp, _):
        tok = JBTX.JiebaTokenizer(hmm, mp)
        s = "小明硕士毕业于中国科学院计算所"
        return _jb_plain(tok(s)), _jb_plain(tok(np.array(s))), _jb_plain(tok(np.str_(s)))
    return _jb_files(go)


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_attributes():
    def go(hmm, mp, _):
        tok = JBTX.JiebaTokenizer(hmm, mp, mode=JBTX.JiebaMode.HMM, with_offsets=True)
        tok.add_word("北京大学")
        tok.add_word("大学生", 7)
        tok.add_dict({"机器人": 3, "人工智能": None})
        return (int(tok.mode), tok.mode == JBTX.JiebaMode.HMM, tok.with_offsets, tok.hmm_path == hmm,
                tok.mp_path == mp, [list(w) for w in tok.words])
    return _jb_files(go)


# ---- user words ------------------------------------------------------------------------------------------
_JB_USER_SENTENCES = ["北京大学生命起源", "京清华大学", "小明硕士在北京大学研究AIGPU", "今天天气很好", "生命起源研究"]
_jb_modes("add_word_default_freq", _JB_USER_SENTENCES, words=[("北京大学",), ("小明硕",), ("生命起源",)])
_jb_modes("add_word_freq", _JB_USER_SENTENCES, words=[("京清", 3), ("大学生", 2000), ("天气很", 40),
                                                      ("AIGPU", 7), ("北京大学", 1)])
# a freq of 0 is the default weight; a word of the dictionary gets the user's weight; the later add wins
_jb_modes("add_word_override", _JB_USER_SENTENCES, words=[("生命起源", 0), ("大学", 1), ("北京", 2), ("北京", 9000)])
# single-character user words are cut again by the HMM in MIX; a word with a space never matches
_jb_modes("add_word_single_char", ["小明硕士学研究", "北京 大学"], words=[("学", 5000), ("硕", 90000),
                                                                      ("北京 大学", 100000)])
# freqs past a C int wrap around (2**31 - 1 is the largest, 2**31 and above count negative)
_jb_modes("add_word_big_freq", ["北京清华", "京清华"], words=[("京清", 2 ** 31 - 1)], modes=("MP",))
_jb_modes("add_word_wrapped_freq", ["北京清华"], words=[("京清", 2 ** 31), ("华", 2 ** 32 - 1)], modes=("MP", "MIX"))


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_add_dict_from_dict():
    def go(hmm, mp, _):
        out = []
        for mode in (JBTX.JiebaMode.MP, JBTX.JiebaMode.MIX):
            tok = JBTX.JiebaTokenizer(hmm, mp, mode=mode)
            tok.add_dict({"北京大学": 50, "小明硕": None, "生命起源": 0, "杭研": 20})
            out.append([_jb_plain(tok(s)) for s in ("北京大学生命起源", "小明硕士在杭研工作")])
        return out
    return _jb_files(go)


_JB_USER_FILE = ("北京大学 50\n小明硕\n  杭研   20  \n坏行 x y\n星*号 3\n\n生命起源 0\n清华大学生123\n阿里巴巴\t9\n"
                 "云计算 5 n\n")


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_add_dict_from_file():
    """`word [freq]` lines; lines of another form (a tag after the freq too) are skipped; `word123` is the
    word with freq 123."""
    def go(hmm, mp, d):
        import os
        path = os.path.join(d, "user.dict.utf8")
        with open(path, "w", encoding="utf-8") as f:
            f.write(_JB_USER_FILE)
        tok = JBTX.JiebaTokenizer(hmm, mp, mode=JBTX.JiebaMode.MP)
        tok.add_dict(path)
        return ([list(w) for w in tok.words],
                [_jb_plain(tok(s)) for s in ("北京大学生命起源", "小明硕士在杭研工作", "清华大学生", "阿里巴巴")])
    return _jb_files(go)


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_add_word_after_call():
    """A word added after a call is used by the next call."""
    def go(hmm, mp, _):
        tok = JBTX.JiebaTokenizer(hmm, mp, mode=JBTX.JiebaMode.MP)
        first = _jb_plain(tok("北京大学生"))
        tok.add_word("北京大学", 10)
        return first, _jb_plain(tok("北京大学生"))
    return _jb_files(go)


# ---- the pipeline ----------------------------------------------------------------------------------------
def _jb_rows(data):
    return [tuple(_jb_plain(c)[0] for c in row) for row in data.create_tuple_iterator(output_numpy=True, num_epochs=1)]


@case("dataset.text.JiebaTokenizer", "dataset.NumpySlicesDataset", **_jb_PIPE)
def jieba_pipeline():
    def go(hmm, mp, _):
        ds = ms.dataset
        data = ds.NumpySlicesDataset(["我们来到北京清华大学", "hello 世界", "", "GPU和AI"], column_names=["text"],
                                     shuffle=False)
        tok = JBTX.JiebaTokenizer(hmm, mp, mode=JBTX.JiebaMode.MP)
        tok.add_word("世界", 10)
        plain = _jb_rows(data.map(tok, input_columns=["text"]))
        data2 = ds.NumpySlicesDataset(["我们来到北京清华大学", "小明硕士毕业于中国科学院", ""], column_names=["text"],
                                      shuffle=False)
        offs = data2.map(JBTX.JiebaTokenizer(hmm, mp, with_offsets=True), input_columns=["text"],
                         output_columns=["token", "offsets_start", "offsets_limit"])
        return plain, offs.get_col_names(), _jb_rows(offs)
    return _jb_files(go)


@case("dataset.text.JiebaTokenizer", "dataset.NumpySlicesDataset", **_jb_PIPE)
def jieba_pipeline_workers():
    def go(hmm, mp, _):
        data = ms.dataset.NumpySlicesDataset(_JB_SENTENCES, column_names=["text"], shuffle=False)
        tok = JBTX.JiebaTokenizer(hmm, mp, mode=JBTX.JiebaMode.MIX)
        tok.add_word("小明硕", 30)
        return _jb_rows(data.map(tok, input_columns=["text"], num_parallel_workers=2))
    return _jb_files(go)


@case("dataset.text.JiebaTokenizer", "dataset.NumpySlicesDataset", **_jb_PIPE)
def jieba_pipeline_bad_input():
    def go(hmm, mp, _):
        data = ms.dataset.NumpySlicesDataset({"text": [["a", "b"]]}, shuffle=False)
        return _jb_error(lambda: _jb_rows(data.map(JBTX.JiebaTokenizer(hmm, mp), input_columns=["text"])))
    return _jb_files(go)


# ---- errors ----------------------------------------------------------------------------------------------
@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_init_errors():
    def go(hmm, mp, d):
        import os
        T, M = JBTX.JiebaTokenizer, JBTX.JiebaMode
        missing = os.path.join(d, "missing.utf8")
        return [_jb_error(f, hide=d) for f in (
            lambda: T(), lambda: T(hmm), lambda: T(hmm, mp, M.MP, False, 3), lambda: T(hmm, mp, foo=3),
            lambda: T(None, mp), lambda: T(hmm, None), lambda: T(1, mp), lambda: T(hmm, 2), lambda: T(1, None),
            lambda: T(None, 1), lambda: T(hmm, mp, mode=1), lambda: T(hmm, mp, mode="MIX"),
            lambda: T(hmm, mp, mode=None), lambda: T(hmm, mp, with_offsets=1), lambda: T(hmm, mp, with_offsets=None),
            lambda: T(hmm, mp, with_offsets=None, mode=None), lambda: T(missing, mp, mode=None),
            lambda: T(hmm, missing), lambda: T(missing, missing + "2"))]
    return _jb_files(go)


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_add_errors():
    def go(hmm, mp, d):
        import os
        tok = JBTX.JiebaTokenizer(hmm, mp)
        missing = os.path.join(d, "missing_user.utf8")
        return [_jb_error(f, hide=d) for f in (
            lambda: tok.add_word(), lambda: tok.add_word(None), lambda: tok.add_word("a", -1),
            lambda: tok.add_word("a", 1.5), lambda: tok.add_word("a", "3"), lambda: tok.add_word("a", 2 ** 32),
            lambda: tok.add_word("a", True), lambda: tok.add_word("a", None, 3), lambda: tok.add_dict(),
            lambda: tok.add_dict(5), lambda: tok.add_dict(None), lambda: tok.add_dict(missing),
            lambda: tok.add_dict({"a": -1}), lambda: tok.add_dict({"a": "x"}), lambda: tok.add_dict({"a": 2.0}))]
    return _jb_files(go)


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_word_not_str():
    """A word that is not a str passes add_word and fails at the call (MindSpore's C++ binding)."""
    def go(hmm, mp, _):
        tok = JBTX.JiebaTokenizer(hmm, mp)
        tok.add_word(5)
        tok.add_dict({6: 1})
        return _jb_error(lambda: tok("我们"))
    return _jb_files(go)


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_input_errors():
    def go(hmm, mp, _):
        tok = JBTX.JiebaTokenizer(hmm, mp, with_offsets=True)
        return [_jb_error(f) for f in (
            lambda: tok(np.array("我们来到".encode())), lambda: tok(np.array(["我们", "来到"])), lambda: tok(np.array(3)),
            lambda: tok(3), lambda: tok(b"abc"), lambda: tok("a", "b"), lambda: tok(), lambda: tok(["我们"]))]
    return _jb_files(go)


def _jb_file_error(name, dict_text=None, hmm_text=None, mode="MIX"):
    """The error of the first call with a malformed model file (MindSpore checks them then)."""
    def run():
        def go(hmm, mp, _):
            tok = JBTX.JiebaTokenizer(hmm, mp, mode=getattr(JBTX.JiebaMode, mode))
            return _jb_error(lambda: tok("小明硕士"))
        return _jb_files(go, dict_text, hmm_text)
    add(f"jieba_file_{name}", "dataset.text.JiebaTokenizer", run, **_jb_PIPE)


_JB_HL = _JB_HMM.splitlines()
_JB_START, _JB_TRANS, _JB_EMITS = _JB_HL[1], _JB_HL[3:7], _JB_HL[8:15:2]


def _jb_hmm(start=None, trans=None, emits=None, before=""):
    return before + "\n".join([_JB_START if start is None else start] + (_JB_TRANS if trans is None else trans)
                              + (_JB_EMITS if emits is None else emits)) + "\n"


_jb_file_error("dict_two_columns", dict_text=_JB_DICT + "坏行 5\n")
_jb_file_error("dict_blank_line", dict_text=_JB_DICT.replace("北京 600 ns\n", "北京 600 ns\n\n"))
_jb_file_error("dict_trailing_blank", dict_text=_JB_DICT + "\n")
_jb_file_error("dict_double_space", dict_text=_JB_DICT.replace("我们 500", "我们  500"))
_jb_file_error("dict_four_columns", dict_text=_JB_DICT + "四列 3 n x\n")
_jb_file_error("dict_empty", dict_text="")
_jb_file_error("hmm_empty", hmm_text="")
_jb_file_error("hmm_start_three", hmm_text=_jb_hmm(start="-0.26 -3.14e+100 -1.46"))
_jb_file_error("hmm_start_five", hmm_text=_jb_hmm(start=_JB_START + " -1.0"))
_jb_file_error("hmm_start_tabs", hmm_text=_jb_hmm(start=_JB_START.replace(" ", "\t")))
_jb_file_error("hmm_trans_five", hmm_text=_jb_hmm(trans=[_JB_TRANS[0] + " -1.0"] + _JB_TRANS[1:]))
_jb_file_error("hmm_trans_missing", hmm_text=_jb_hmm(trans=_JB_TRANS[:3]))
_jb_file_error("hmm_no_emission", hmm_text=_jb_hmm(emits=[]))
_jb_file_error("both_bad", dict_text="bad\n", hmm_text="x\n")


# files MindSpore accepts: CRLF lines, blank, indented and comment lines, a trailing comma, extra lines
# after the model, numbers atof reads as 0, a repeated dictionary word (the later line wins)
_JB_OK = ["小明硕士阿里巴巴在杭州", "我们来到北京清华大学", "宝琦杭研深度"]
_jb_modes("file_crlf", _JB_OK, modes=("MP", "HMM", "MIX"), dict_text=_JB_DICT.replace("\n", "\r\n"),
          hmm_text=_JB_HMM.replace("\n", "\r\n"))
_jb_modes("file_hmm_layout", _JB_OK, modes=("HMM", "MIX"),
          hmm_text=_jb_hmm(before="\n   \n  # note\n", emits=[e + "," for e in _JB_EMITS]) + "extra line\n")
_jb_modes("file_hmm_atof", _JB_OK, modes=("HMM", "MIX"),
          hmm_text=_jb_hmm(start=_JB_START.replace("-1.4652633398537678", "abc"),
                           emits=[_JB_EMITS[0].replace("-6.1", "-6.1xyz")] + _JB_EMITS[1:]))
_jb_modes("file_dict_repeated", _JB_OK, modes=("MP", "MIX"), dict_text=_JB_DICT + "清华大学 1 nt\n阿里巴巴 30 nt\n")


@case("dataset.text.JiebaTokenizer", **_jb_PIPE)
def jieba_file_paths_at_call():
    """Paths MindSpore's constructor lets through and its first call refuses: '' (the current
    folder exists), a folder, a file removed after the constructor."""
    def go(hmm, mp, d):
        import os
        T = JBTX.JiebaTokenizer
        out = [_jb_error(f, hide=d) for f in (lambda: T("", mp)("我们"), lambda: T(hmm, "")("我们"),
                                              lambda: T(hmm, d)("我们"), lambda: T(d, mp)("我们"))]
        tok = T(hmm, mp)
        os.remove(mp)
        return out, _jb_error(lambda: tok("我们"), hide=d)
    return _jb_files(go)
