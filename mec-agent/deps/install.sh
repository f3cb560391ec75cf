#!/usr/bin/env bash
# mec-agent: assemble the vNF catalog root filesystems into $WISLICE_CACHE/vnf-images (idempotent: a tar whose
# key (recipe + input files) is already there is not rebuilt, so a second run takes well under a second).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
venv=${WISLICE_VENV:-$here/../.venv}
"$venv/bin/python" -m wislice_mec_agent.images build-all
