#!/usr/bin/env bash
# make deps: prebuild the AP VM image (Debian kernel + initramfs) into $WISLICE_CACHE/ap-vm. Idempotent: returns in
# well under a second when the image for the current package versions and sources is already built.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
py=${WISLICE_VENV:-$here/../../.venv}/bin/python
[ -x "$py" ] || py=python3
exec "$py" "$here/build_image.py" --deps
