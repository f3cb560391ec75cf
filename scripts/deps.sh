#!/usr/bin/env bash
# make deps: install what this machine lacks, idempotently. A second run checks and returns in seconds.
# Declarations live beside each component: <dir>/deps/apt.txt, <dir>/deps/requirements.txt, <dir>/deps/install.sh
# (docs/component-contract.md). The root's own needs are in deps/ at the top.
set -euo pipefail
root=${WISLICE_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
venv=${WISLICE_VENV:-$root/.venv}
cache=${WISLICE_CACHE:-$HOME/.cache/wislice}
export WISLICE_ROOT=$root WISLICE_VENV=$venv WISLICE_CACHE=$cache
mkdir -p "$cache"
cd "$root"

say() { printf '[deps] %s\n' "$*"; }

# --- Debian packages -------------------------------------------------------------------------------------------
# Declarations may sit one level deeper too (testbed/ap-vm/deps/).
dep_files() { find . -maxdepth 4 \( -name .venv -o -name .git -o -name node_modules \) -prune -o -path "*/deps/$1" -print | sort; }
mapfile -t wanted < <(cat $(dep_files apt.txt) 2>/dev/null | sed 's/#.*//' | tr -s ' \t' '\n' | sed '/^$/d' | sort -u)
missing=()
for p in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [ "$status" = installed ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${#missing[@]} Debian packages: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  # Daemons we install (dockerd, postgresql) must not start as services: tests start private instances.
  policy=/usr/sbin/policy-rc.d
  had_policy=0; [ -e $policy ] && had_policy=1
  if [ $had_policy = 0 ]; then printf '#!/bin/sh\nexit 101\n' > $policy; chmod +x $policy; fi
  trap '[ $had_policy = 0 ] && rm -f /usr/sbin/policy-rc.d' EXIT
  lists=$(find /var/lib/apt/lists -maxdepth 1 -name '*_Packages*' -mmin -720 2>/dev/null | head -n1)
  if [ -z "$lists" ]; then say "apt-get update"; apt-get update -q; fi
  apt-get install -y -q --no-install-recommends "${missing[@]}" | grep -E '^(Get|Setting up|E:)' || true
  for p in "${missing[@]}"; do
    dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null | grep -qx installed || { say "FAILED to install $p"; exit 1; }
  done
else
  say "Debian packages: all ${#wanted[@]} present"
fi

# --- Python: one virtual environment for every Python package of the project ------------------------------------
py_packages=()
for d in testbed spec agent-proto ap-agent mec-agent orchestrator-api; do
  [ -f "$d/pyproject.toml" ] && py_packages+=("$d")
done
mapfile -t req_files < <(dep_files requirements.txt)
stamp_inputs=$(cat "${req_files[@]}" $(for d in "${py_packages[@]}"; do echo "$d/pyproject.toml"; done) | sha256sum | cut -d' ' -f1)
stamp=$venv/.wislice-deps
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$stamp_inputs" ] && [ -x "$venv/bin/python" ]; then
  say "Python venv: up to date ($venv)"
else
  [ -x "$venv/bin/python" ] || { say "creating venv $venv"; python3 -m venv "$venv"; }
  say "pip install: ${req_files[*]}"
  reqs=(); for f in "${req_files[@]}"; do reqs+=(-r "$f"); done
  "$venv/bin/pip" install -q --disable-pip-version-check "${reqs[@]}"
  for d in "${py_packages[@]}"; do
    say "pip install -e $d"
    "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --no-build-isolation -e "$d"
  done
  echo "$stamp_inputs" > "$stamp"
fi

# --- Component installers (Karaf + Java 11 runtime, AP VM kernel, Maven prefetch, vNF images ...) ---------------
for script in $(dep_files install.sh); do
  say "running $script"
  bash "$script"
done
say "done"
