"""sync_wait_for_dataset: MindSpore 2.10's wait, before an OBSMindDataset epoch, until every rank has
uploaded its "download done" marker to OBS (Huawei Cloud object storage).

pycompile has no OBS client or OBSMindDataset; the function takes MindSpore's `obs_runtime`
duck-typed (`.config.SYNC_OBS_PATH` "s3://bucket/key", `.config.RETRY_DELTA_TIME` seconds, and
`.get_obs_client()` with `listObjects(bucket, prefix=...)` answering `.status`, `.body.contents[i].key`,
`.errorCode`, `.errorMessage`), so a runtime object built for MindSpore works unchanged. It polls
`<key>/<BATCH_JOB_ID or "unknown">/<epoch>/` until at least `rank_size` ``.txt`` markers are there,
sleeping RETRY_DELTA_TIME after every poll (the last too, as MindSpore does).
"""
from __future__ import annotations

import logging
import os
import time
import traceback

from pycompile.common import knobs

log = logging.getLogger("pycompile.dataset")   # the dataset layer sits below pycompile.log


def _bucket_and_key(obs_path: str):
    """'s3://bucket/a/b' -> ('bucket', 'a/b')."""
    start = obs_path.find("//")
    end = obs_path.find("/", start + 2)
    if end == -1:
        return obs_path[start + 2:], ""
    return obs_path[start + 2:end], obs_path[end + 1:]


def sync_wait_for_dataset(rank_id, rank_size, current_epoch, obs_runtime):
    """Wait until the dataset files required by all `rank_size` devices are downloaded (see the
    module's text)."""
    config = obs_runtime.config
    bucket, key = _bucket_and_key(config.SYNC_OBS_PATH)
    client = obs_runtime.get_obs_client()
    ready_dir = os.path.join(key, knobs.get("BATCH_JOB_ID"), str(current_epoch) + "/")
    ready = 0
    while True:
        try:
            resp = client.listObjects(bucket, prefix=ready_dir)
            if resp.status < 300:
                ready = sum(1 for content in resp.body.contents if content.key.endswith(".txt"))
                done = ready >= rank_size
            else:
                done = False
                log.warning(f"[sync_wait_for_dataset] OBS SDK errorCode:{resp.errorCode}, "
                            f"errMsg: {resp.errorMessage}.")
        except Exception:  # noqa: BLE001 - MindSpore logs a failed poll and polls again
            done = False
            log.error(traceback.format_exc())
        time.sleep(config.RETRY_DELTA_TIME)
        if done:
            break
        log.info(f"[sync_wait_for_dataset] Waiting for sync dir:{ready_dir} and current_rank:{rank_id}, "
                 f"total_rank:{rank_size}, ready_rank:{ready} in epoch:{current_epoch}.")
    log.info(f"[sync_wait_for_dataset] Succeed to sync dir:{ready_dir} and begin epoch:{current_epoch}.")
