"""The chain file of data-plane backpressure (NFVnice) for DPDK vNF chains: vnfs/dpdk-vnf/README.md, "Chain file".

One file per chain (tenant_id, chain_id), CHAIN_LINES x LINE bytes of zeros at first, under <state_dir>/chains;
the vNF at chain_position p owns line p: its rx ring's over-high-watermark flag, which the chain head (position 0)
reads on every rx burst and drops at entry while a downstream flag is set. The agent hard-links the file into
each DPDK vNF's config dir (/run/vnf/chain inside) with its position in /run/vnf/chain-pos: a link, not a bind
mount of its own, because a warm-pool container is created before anyone knows its chain, and a link in the
directory it already has mounted is the same inode (one shared mapping). The file is sized for the most vNFs a
chain file holds, so a chain that grows needs no new file; a vNF past that position takes no part."""

from __future__ import annotations

import json
import logging
import os
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
CHAIN_LINES = 16  # dpdk-vnf's VNF_CHAIN_MAX: run.sh passes --chain-len 16
LINE = 64  # one cache line per vNF
CHAIN_FILE = "chain"  # in a vNF's config dir: the link
CHAIN_POS_FILE = "chain-pos"  # in a vNF's config dir: its position, one decimal line


def chain_path(state_dir: Path, chain: tuple[int, int | None]) -> Path:
    tenant_id, chain_id = chain
    return Path(state_dir) / "chains" / f"{tenant_id}-{'none' if chain_id is None else chain_id}"


def attach(state_dir: Path, chain: tuple[int, int | None], position: int, cdir: Path) -> bool:
    """Makes the chain's file if it is missing and links it into cdir with the position; clears the position's line
    (a vNF that was there before may have left its flag set). False when the vNF takes no part (position too high,
    or a config dir on another file system than the state dir: no link)."""
    if not 0 <= position < CHAIN_LINES:
        return False
    path = chain_path(state_dir, chain)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if os.fstat(fd).st_size < CHAIN_LINES * LINE:
            os.ftruncate(fd, CHAIN_LINES * LINE)
        os.pwrite(fd, bytes(LINE), position * LINE)
    finally:
        os.close(fd)
    link = Path(cdir) / CHAIN_FILE
    link.unlink(missing_ok=True)
    try:
        os.link(path, link)
    except OSError as exc:
        log.warning("chain file %s: no link into %s (%s): the vNF runs without data-plane backpressure", path,
                    cdir, exc)
        return False
    (Path(cdir) / CHAIN_POS_FILE).write_text(f"{position}\n")
    return True


def detach(state_dir: Path, chain: tuple[int, int | None], position: int, others: int) -> None:
    """A vNF of the chain is gone: its line is cleared (its last flag must not hold the head), and the file goes
    with the chain's last vNF (`others`: the chain's vNFs that remain)."""
    path = chain_path(state_dir, chain)
    if others <= 0:
        path.unlink(missing_ok=True)
        return
    if not 0 <= position < CHAIN_LINES:
        return
    try:
        fd = os.open(path, os.O_RDWR)
    except FileNotFoundError:
        return
    try:
        os.pwrite(fd, bytes(LINE), position * LINE)
    finally:
        os.close(fd)


def over_flags(path: Path) -> list[bool]:
    """Each line's `over` (u32 at offset 0, little-endian): what the head sees."""
    data = Path(path).read_bytes()
    return [int.from_bytes(data[i:i + 4], "little") != 0 for i in range(0, len(data) - LINE + 1, LINE)]


def data_plane(members: list[Any]) -> bool:
    """Whether a chain (its running vNFs by position) does its backpressure in the data plane: all DPDK vNFs, the
    head at position 0 (the one dpdk-vnf drops at) and linked to the chain file (chainfile.py)."""
    head = members[0]
    return (all(r.vnf_class == "dpdk" for r in members) and head.spec.chain_position == 0
            and bool(head.config_dir) and (Path(head.config_dir) / CHAIN_FILE).exists())


def read_head_stats(cdir: Path) -> dict[str, Any]:
    """A data-plane chain head's stats.json (dpdk-vnf): backpressure and backpressure_dropped; {} without it."""
    try:
        st = json.loads((cdir / "stats.json").read_text())
    except (OSError, ValueError):
        return {}
    return st if isinstance(st, dict) else {}
