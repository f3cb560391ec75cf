"""python -m ipk: the feed's packages as .ipk files (see openwrt/README.md, "Package files")."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from .build import BuildError, Options, build_feed

OPENWRT = Path(__file__).resolve().parents[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ipk", description=__doc__)
    ap.add_argument("--out", type=Path, required=True, help="directory for the .ipk files")
    ap.add_argument("--feed", type=Path, default=OPENWRT / "feed", help="the feed (default: %(default)s)")
    ap.add_argument("--src", type=Path, default=OPENWRT.parent, help="the WiSlice tree (default: %(default)s)")
    ap.add_argument("--arch", default="x86_64",
                    help="architecture of the compiled packages (OpenWrt ARCH_PACKAGES; default: %(default)s)")
    ap.add_argument("--python", default="/usr/bin/python3",
                    help="the target's python3 version, to byte-compile with (default: %(default)s)")
    ap.add_argument("--meson-build-dir", type=Path, help="meson build directory holding pof-switch's programs")
    ap.add_argument("--mtime", type=int, default=int(os.environ.get("SOURCE_DATE_EPOCH", "0")),
                    help="file times in the packages (default: $SOURCE_DATE_EPOCH or 0)")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="wislice-ipk-") as work:
        opts = Options(feed=args.feed.resolve(), src=args.src.resolve(), out=args.out.resolve(), work=Path(work),
                       arch=args.arch, python=args.python, mtime=args.mtime,
                       meson_build_dir=args.meson_build_dir.resolve() if args.meson_build_dir else None)
        try:
            built = build_feed(opts)
        except BuildError as e:
            print(f"ipk: {e}", file=sys.stderr)
            return 2
    for path in built:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
