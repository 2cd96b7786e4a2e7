"""The cache directory: entries and content-addressed payloads, written atomically, verified
before use, collected when no entry names them."""
from __future__ import annotations

import json
import os
import stat
import time

from pycompile.backend.cache.common import (GC_GRACE_SECONDS, MAGIC, MAX_ENTRIES_PER_KEY, SUBDIR, _sha,
                                            _warn)

def _atomic_write(path: str, data: bytes) -> None:
    """Write to a temp file in the same directory, fsync, and rename over `path`."""
    import tempfile
    d = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=d)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


class CorruptEntry(Exception):
    pass


_STORES: dict = {}


def open_store(path: str):
    """The cache directory <path>/pycompile-v1, created private; None (with a warning) if unusable."""
    path = os.path.abspath(os.path.expanduser(path))
    if path in _STORES:
        return _STORES[path]
    store = None
    try:
        store = Store(path)
    except OSError as e:
        _warn(f"cannot use the cache directory {path}: {e}; compiling without the cache")
    except _Refused as e:
        _warn(f"{e}; compiling without the cache")
    _STORES[path] = store
    return store


class _Refused(Exception):
    pass


class Store:
    def __init__(self, root: str):
        uid = os.getuid() if hasattr(os, "getuid") else None
        os.makedirs(root, mode=0o700, exist_ok=True)
        st = os.stat(root)
        if uid is not None and st.st_uid != uid and st.st_mode & 0o022 and not st.st_mode & stat.S_ISVTX:
            raise _Refused(f"the cache directory {root} belongs to another user (uid {st.st_uid}) and others "
                           f"can write to it")
        self.dir = os.path.join(root, SUBDIR)
        try:
            os.mkdir(self.dir, 0o700)
        except FileExistsError:
            pass
        st = os.lstat(self.dir)
        if not stat.S_ISDIR(st.st_mode):
            raise _Refused(f"{self.dir} is not a directory")
        if uid is not None and st.st_uid != uid:
            raise _Refused(f"the cache directory {self.dir} belongs to another user (uid {st.st_uid})")
        if st.st_mode & 0o077:
            os.chmod(self.dir, 0o700)
            _warn(f"the cache directory {self.dir} was accessible to other users "
                  f"(mode {stat.S_IMODE(st.st_mode):o}); its mode is now 700")
        self.blobs = os.path.join(self.dir, "blobs")
        os.makedirs(self.blobs, mode=0o700, exist_ok=True)

    # -- blobs ---------------------------------------------------------------------------------------
    def put_blob(self, data: bytes, ext: str) -> dict:
        sha = _sha(data)
        path = os.path.join(self.blobs, sha + ext)
        try:
            ok = os.path.getsize(path) == len(data)
        except OSError:
            ok = False
        if not ok:
            _atomic_write(path, data)
        else:
            try:
                os.utime(path)           # in use again: a collection running now keeps it
            except OSError:
                pass
        return {"sha": sha, "size": len(data), "ext": ext}

    def blob_path(self, ref: dict) -> str:
        sha, ext = ref["sha"], ref["ext"]
        if not (isinstance(sha, str) and len(sha) == 64 and all(c in "0123456789abcdef" for c in sha)) \
                or ext not in (".so", ".npy", ".json"):
            raise CorruptEntry(f"bad blob reference {ref!r}")
        return os.path.join(self.blobs, sha + ext)

    def check_size(self, ref: dict) -> None:
        path = self.blob_path(ref)
        try:
            size = os.path.getsize(path)
        except OSError:
            raise CorruptEntry(f"payload {os.path.basename(path)} is missing") from None
        if size != ref["size"]:
            raise CorruptEntry(f"payload {os.path.basename(path)} has {size} bytes, expected {ref['size']} "
                               f"(truncated?)")

    def read_blob(self, ref: dict) -> bytes:
        path = self.blob_path(ref)
        try:
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            raise CorruptEntry(f"payload {os.path.basename(path)} is missing") from None
        if len(data) != ref["size"]:
            raise CorruptEntry(f"payload {os.path.basename(path)} has {len(data)} bytes, "
                               f"expected {ref['size']} (truncated?)")
        if _sha(data) != ref["sha"]:
            raise CorruptEntry(f"payload {os.path.basename(path)} does not match its hash")
        return data

    # -- entries -------------------------------------------------------------------------------------
    def key_dir(self, key) -> str:
        return os.path.join(self.dir, key.fn_dir, key.digest)

    def entries(self, key_dir: str) -> list:
        try:
            names = [e for e in os.scandir(key_dir) if e.name.endswith(".entry") and not e.name.startswith(".")]
        except OSError:
            return []
        out = []
        for e in names:
            try:
                out.append((e.stat().st_mtime_ns, e.path))
            except OSError:
                pass
        return [p for _, p in sorted(out, reverse=True)]

    @staticmethod
    def read_entry(path: str) -> dict:
        with open(path, "rb") as f:
            raw = f.read()
        head, sep, body = raw.partition(b"\n")
        parts = head.split(b" ")
        if not sep or len(parts) != 3 or parts[0] != MAGIC:
            raise CorruptEntry("its header is damaged")
        try:
            size = int(parts[2])
        except ValueError:
            raise CorruptEntry("its header is damaged") from None
        if len(body) != size:
            raise CorruptEntry(f"it has {len(body)} bytes of metadata, expected {size} (truncated?)")
        if _sha(body) != parts[1].decode("ascii", "replace"):
            raise CorruptEntry("its metadata does not match its hash")
        try:
            meta = json.loads(body)
        except ValueError:
            raise CorruptEntry("its metadata is not valid JSON") from None
        if not isinstance(meta, dict):
            raise CorruptEntry("its metadata is not an object")
        return meta

    def write_entry(self, key, meta: dict) -> str:
        d = self.key_dir(key)
        os.makedirs(d, mode=0o700, exist_ok=True)
        body = json.dumps(meta, sort_keys=True, separators=(",", ":")).encode()
        entry_id = _sha(json.dumps(meta["deps"], sort_keys=True).encode() + meta["refs_digest"].encode())[:32]
        path = os.path.join(d, entry_id + ".entry")
        _atomic_write(path, MAGIC + b" " + _sha(body).encode() + b" " + str(len(body)).encode() + b"\n" + body)
        evicted = self.entries(d)[MAX_ENTRIES_PER_KEY:]
        for old in evicted:
            _unlink(old)
        if evicted:
            self.collect(GC_GRACE_SECONDS)
        return path

    # -- collecting payloads -------------------------------------------------------------------------
    def collect(self, grace: float = 0.0) -> int:
        """Delete the payloads no entry names, if older than `grace` seconds (a process that has
        written its payloads but not yet its entry keeps them); returns how many. Runs when
        entries are evicted; `pycompile.backend.cache.collect(path)` runs it by hand."""
        named, unreadable = set(), False
        for root, dirs, files in os.walk(self.dir):
            dirs[:] = [d for d in dirs if os.path.join(root, d) != self.blobs]
            for f in files:
                if not f.endswith(".entry") or f.startswith("."):
                    continue
                try:
                    named.update(_blob_names(self.read_entry(os.path.join(root, f))))
                except CorruptEntry:
                    continue             # rebuilt when next used; its payloads go with it
                except OSError:
                    unreadable = True
        if unreadable:
            return 0                     # an entry we could not read may name any payload
        now, removed = time.time(), 0
        for e in os.scandir(self.blobs):
            if e.name in named or e.name.startswith("."):
                continue
            try:
                if now - e.stat().st_mtime >= grace:
                    os.unlink(e.path)
                    removed += 1
            except OSError:
                pass
        return removed


def _blob_names(meta) -> set:
    """File names of the payloads an entry's metadata refers to (dicts with sha / size / ext)."""
    out, stack = set(), [meta]
    while stack:
        v = stack.pop()
        if isinstance(v, dict):
            if isinstance(v.get("sha"), str) and v.get("ext") in (".so", ".npy", ".json"):
                out.add(v["sha"] + v["ext"])
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return out


def collect(path: str | None = None) -> int:
    """Delete the payloads of the compile cache at `path` (default: the configured one) that no
    entry names any more; returns how many files were removed."""
    if path is None:
        from pycompile.common import context
        path = context.compile_cache_settings()[1]
    store = open_store(path)
    return store.collect() if store is not None else 0
