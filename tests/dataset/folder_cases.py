"""Image-folder, CSV and text-file fixtures written once (stdlib / NumPy only: PNGs are encoded
here, the one JPEG is a 700-byte file kept below as base64) for
tests/oracle/record_folder_sources.py (MindSpore's venv) and tests/dataset/test_folder_sources.py."""
import base64
import os
import struct
import zlib

import numpy as np

# a 6 x 5 RGB JPEG (quality 90) written once by Pillow
JPEG_6x5 = base64.b64decode(
    "/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDAAMCAgMCAgMDAwMEAwMEBQgFBQQEBQoHBwYIDAoMDAsKCwsNDhIQDQ4RDgsLEBYQERMUFRUV"
    "DA8XGBYUGBIUFRT/2wBDAQMEBAUEBQkFBQkUDQsNFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQUFBQU"
    "FBT/wAARCAAGAAUDASIAAhEBAxEB/8QAHwAAAQUBAQEBAQEAAAAAAAAAAAECAwQFBgcICQoL/8QAtRAAAgEDAwIEAwUFBAQAAAF9AQID"
    "AAQRBRIhMUEGE1FhByJxFDKBkaEII0KxwRVS0fAkM2JyggkKFhcYGRolJicoKSo0NTY3ODk6Q0RFRkdISUpTVFVWV1hZWmNkZWZnaGlq"
    "c3R1dnd4eXqDhIWGh4iJipKTlJWWl5iZmqKjpKWmp6ipqrKztLW2t7i5usLDxMXGx8jJytLT1NXW19jZ2uHi4+Tl5ufo6erx8vP09fb3"
    "+Pn6/8QAHwEAAwEBAQEBAQEBAQAAAAAAAAECAwQFBgcICQoL/8QAtREAAgECBAQDBAcFBAQAAQJ3AAECAxEEBSExBhJBUQdhcRMiMoEI"
    "FEKRobHBCSMzUvAVYnLRChYkNOEl8RcYGRomJygpKjU2Nzg5OkNERUZHSElKU1RVVldYWVpjZGVmZ2hpanN0dXZ3eHl6goOEhYaHiImK"
    "kpOUlZaXmJmaoqOkpaanqKmqsrO0tba3uLm6wsPExcbHyMnK0tPU1dbX2Nna4uPk5ebn6Onq8vP09fb3+Pn6/9oADAMBAAIRAxEAPwCr"
    "rfgrXvGE9rf+KNcS6uJ7O3u4HECXKmOaJZclJVxG+XIO0kYCKMKiKpRRXBhsfiZ0k+e2+2i3fRWS+45cJhqc6MZO+t9m0t+yaR//2Q==")


def png_bytes(pixels: np.ndarray) -> bytes:
    """A PNG of uint8 pixels: (h, w) gray, (h, w, 3) RGB or (h, w, 4) RGBA."""
    h, w = pixels.shape[:2]
    color = 0 if pixels.ndim == 2 else {3: 2, 4: 6}[pixels.shape[2]]
    raw = b"".join(b"\0" + pixels[y].tobytes() for y in range(h))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, color, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def pixels(h, w, seed, channels=3):
    shape = (h, w) if channels == 1 else (h, w, channels)
    return np.random.default_rng(seed).integers(0, 256, shape, dtype=np.uint8)


# class folder -> files: (name, kind, seed); kind png / gray / rgba / jpeg / text
IMAGE_TREE = {
    "cat": [("b.png", "png", 1), ("a.png", "png", 2), ("C.PNG", "png", 3), ("d.jpg", "jpeg", 0),
            ("notes.txt", "text", 0)],
    "dog": [("x.png", "gray", 4), ("y.JPEG", "jpeg", 0), ("w.png", "rgba", 5)],
    "bird": [("z.png", "png", 6)],
    "empty": [],
}


def build_image_folder(root):
    for cls, files in IMAGE_TREE.items():
        os.makedirs(os.path.join(root, cls), exist_ok=True)
        for name, kind, seed in files:
            if kind == "jpeg":
                data = JPEG_6x5
            elif kind == "text":
                data = b"not an image\n"
            else:
                data = png_bytes(pixels(4, 3, seed, {"png": 3, "gray": 1, "rgba": 4}[kind]))
            with open(os.path.join(root, cls, name), "wb") as f:
                f.write(data)
    with open(os.path.join(root, "top_level.png"), "wb") as f:        # not in a class folder: not read
        f.write(png_bytes(pixels(2, 2, 9)))


# name -> ImageFolderDataset keyword arguments (shuffle=False added)
IMAGE_FOLDER_CASES = {
    "default": {},
    "png": {"extensions": [".png"]},
    "upper": {"extensions": [".PNG", ".JPEG"]},
    "decode": {"extensions": [".png", ".jpg", ".JPEG", ".PNG"], "decode": True},
    "class_indexing": {"extensions": [".png"], "class_indexing": {"dog": 0, "cat": 7}},
    "class_indexing_missing": {"class_indexing": {"wolf": 0}},
    "decode_text": {"decode": True},
    "num_samples": {"num_samples": 3},
    "shard_1_of_2": {"num_shards": 2, "shard_id": 1},
}

CSV_FILES = {
    "a.csv": "1,2.5,hello,x\n3,4.0,\"wo,rld\",y\n5,6.5,z,\n",
    "b.csv": "7,8.5,b1,q\n",
    "h.csv": "id,score,name\n1,0.5,ann\n2,1.5,bob\n",
    "s.csv": "1;2\n3;4\n",
    "e.csv": "5,,z,\n",
    "blank.csv": "a,b\n1,2\n\n3,4\n\n",
    "spaces.csv": "a,b\n1,2\n \n3,4\n",
}
TEXT_FILES = {
    "t1.txt": "first line\nsecond line\n\nfourth\n",
    "t2.txt": "other\nlast no newline",
    "t3.txt": "x1\nx2\nx3\nx4\nx5\n",
    "crlf.txt": "a\r\nb\r\n",
    "utf8.txt": "h\u00e9llo \u4e16\u754c\n",
}


def build_text_files(root):
    for name, text in {**CSV_FILES, **TEXT_FILES}.items():
        with open(os.path.join(root, name), "w", encoding="utf-8", newline="") as f:
            f.write(text)


ABC = ["a.csv", "b.csv"]
# name -> (CSVDataset files, keyword arguments; shuffle=False unless given)
CSV_CASES = {
    "two_files": (ABC, {"column_names": ["i", "f", "s", "t"]}),
    "defaults": (["a.csv"], {"column_names": ["i", "f", "s", "t"], "column_defaults": [0, 0.0, "", ""]}),
    "header": (["h.csv"], {}),
    "delim": (["s.csv"], {"field_delim": ";", "column_names": ["a", "b"], "column_defaults": [0, 0]}),
    "float_default": (["s.csv"], {"field_delim": ";", "column_names": ["a", "b"], "column_defaults": [0.0, 0]}),
    "bad_value": (["h.csv"], {"column_defaults": [0, 0, ""]}),
    "empty_numeric": (["e.csv"], {"column_names": ["i", "f", "s", "t"], "column_defaults": [0, 0.0, "", ""]}),
    "num_samples": (ABC, {"column_names": ["i", "f", "s", "t"], "num_samples": 2}),
    "shard_0": (ABC, {"column_names": ["i", "f", "s", "t"], "num_shards": 2, "shard_id": 0}),
    "shard_1": (ABC, {"column_names": ["i", "f", "s", "t"], "num_shards": 2, "shard_id": 1}),
    "missing": (["nope.csv"], {}),
    "blank_lines": (["blank.csv"], {}),
    "line_of_spaces": (["spaces.csv"], {}),
}
T123 = ["t1.txt", "t2.txt", "t3.txt"]
TEXT_CASES = {
    "two_files": (["t1.txt", "t2.txt"], {}),
    "three_files": (T123, {}),
    "glob": ("t*.txt", {}),
    **{f"shard_{k}_of_3": (T123, {"num_shards": 3, "shard_id": k}) for k in range(3)},
    **{f"shard_{k}_of_2": (["t1.txt", "t2.txt"], {"num_shards": 2, "shard_id": k}) for k in range(2)},
    "num_samples": (T123, {"num_samples": 4}),
    "crlf": (["crlf.txt"], {}),
    "utf8": (["utf8.txt"], {}),
    "missing": (["nope.txt"], {}),
    "two_workers": (T123, {"num_parallel_workers": 2}),
}


def paths(root, files):
    return os.path.join(root, files) if isinstance(files, str) else [os.path.join(root, f) for f in files]
