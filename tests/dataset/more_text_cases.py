"""Cases for the text ops of src/pycompile/dataset/text/_more.py: name -> (constructor as a lambda
of the framework's `text` module, input). Shared by record_more_text.py (MindSpore 2.10) and
test_more_text.py."""
import numpy as np

W = np.array(["Hello", "World", "Ünï"])
VOCAB = ["[UNK]", "un", "##aff", "##able", "hello", "world", "##ed", "want", "!", "##s", "café"]


def _vocab(text):
    return text.Vocab.from_list(VOCAB)


CASES = {
    "addtoken_begin": (lambda t: t.AddToken("[CLS]", True), W),
    "addtoken_end": (lambda t: t.AddToken("[SEP]", False), W),
    "truncate": (lambda t: t.Truncate(2), W),
    "truncate_int": (lambda t: t.Truncate(2), np.array([1, 2, 3], np.int32)),
    "truncate_2d": (lambda t: t.Truncate(1), np.array([[1, 2], [3, 4]], np.int64)),
    "truncate_longer": (lambda t: t.Truncate(5), W),
    "casefold": (lambda t: t.CaseFold(), "Hello WORLD ß Σ"),
    "casefold_array": (lambda t: t.CaseFold(), W),
    "normalize_nfkc": (lambda t: t.NormalizeUTF8(), "ﬁ①Å"),
    "normalize_nfd": (lambda t: t.NormalizeUTF8(t.NormalizeForm.NFD), "Åé"),
    "normalize_nfc": (lambda t: t.NormalizeUTF8(t.NormalizeForm.NFC), "A\u030a"),
    "normalize_none": (lambda t: t.NormalizeUTF8(t.NormalizeForm.NONE), "ﬁ"),
    "regex_replace": (lambda t: t.RegexReplace("\\s+", "_"), "a  b   c"),
    "regex_replace_once": (lambda t: t.RegexReplace("\\s+", "_", False), "a  b   c"),
    "regex_replace_class": (lambda t: t.RegexReplace("[0-9]+", "#"), "a1b22"),
    "regex_replace_all_digits": (lambda t: t.RegexReplace("[0-9]+", "#"), "333"),
    "regex_tokenizer": (lambda t: t.RegexTokenizer("\\s+"), "Welcome  to China!"),
    "regex_tokenizer_keep": (lambda t: t.RegexTokenizer("\\s+|!", "\\s+|!"), "Welcome  to China!"),
    "regex_tokenizer_offsets": (lambda t: t.RegexTokenizer("\\s+", with_offsets=True), "Wé to  x"),
    "regex_tokenizer_leading": (lambda t: t.RegexTokenizer(","), ",a,,b,"),
    "basic": (lambda t: t.BasicTokenizer(), "Hello, World! 你好世界  don't"),
    "basic_lower": (lambda t: t.BasicTokenizer(lower_case=True), "HÉLLO, Wörld! Straße"),
    "basic_whitespace": (lambda t: t.BasicTokenizer(keep_whitespace=True), "a b,c"),
    "basic_unused": (lambda t: t.BasicTokenizer(), "[CLS] hi [unused1] [MASK][SEP]x"),
    "basic_unused_off": (lambda t: t.BasicTokenizer(preserve_unused_token=False), "[CLS] hi"),
    "basic_offsets": (lambda t: t.BasicTokenizer(with_offsets=True), "Hé, yo 你"),
    "basic_control": (lambda t: t.BasicTokenizer(), "a\u0000b\tc\u200bd"),
    "basic_nfkc": (lambda t: t.BasicTokenizer(normalization_form=t.NormalizeForm.NFKC), "ﬁne ①"),
    "wordpiece": (lambda t: t.WordpieceTokenizer(_vocab(t)), np.array(["unaffable", "hello", "wanted", "xyz"])),
    "wordpiece_offsets": (lambda t: t.WordpieceTokenizer(_vocab(t), with_offsets=True),
                          np.array(["unaffable", "café", "wants"])),
    "wordpiece_unknown_empty": (lambda t: t.WordpieceTokenizer(_vocab(t), unknown_token=""), np.array(["xyz", "hello"])),
    "wordpiece_max_bytes": (lambda t: t.WordpieceTokenizer(_vocab(t), max_bytes_per_token=4),
                            np.array(["hello", "want"])),
    "bert": (lambda t: t.BertTokenizer(_vocab(t), lower_case=True), "Hello World unaffable!"),
    "bert_offsets": (lambda t: t.BertTokenizer(_vocab(t), lower_case=True, with_offsets=True), "Café wanted, hello"),
    "bert_cased": (lambda t: t.BertTokenizer(_vocab(t)), "Hello hello"),
}
