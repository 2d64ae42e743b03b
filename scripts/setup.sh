#!/usr/bin/env bash
# Installs what msampler's build, tests and tools need on a fresh Debian machine (idempotent;
# quick when everything is there already). Used by the README's commands and by CI. Installing
# packages needs root, or sudo (used when it is there).
set -euo pipefail
SUDO=""
[ "$(id -u)" = 0 ] || { command -v sudo >/dev/null && SUDO=sudo; }
need_apt=()
command -v cmake >/dev/null || need_apt+=(cmake)
command -v cc >/dev/null || need_apt+=(gcc)
command -v clang >/dev/null || need_apt+=(clang)
command -v pkg-config >/dev/null || need_apt+=(pkg-config)
[ -f /usr/include/cjson/cJSON.h ] || need_apt+=(libcjson-dev)
# libFuzzer's runtime (fuzz/, issue 7): Debian ships it apart from clang (libclang-rt-14-dev on 12)
if ! command -v clang >/dev/null || \
   [ ! -f "$(clang -print-resource-dir)/lib/linux/libclang_rt.fuzzer-$(uname -m).a" ]; then
  need_apt+=(libclang-rt-dev)
fi
command -v python3 >/dev/null || need_apt+=(python3 python3-pip python3-dev)
# Python.h: the Python package's extension (python/, tests/python) compiles against it
command -v python3 >/dev/null && ! python3 -c "import os, sysconfig; assert os.path.exists(os.path.join(sysconfig.get_paths()['include'], 'Python.h'))" 2>/dev/null && need_apt+=(python3-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
py_need=()
python3 -c "import numpy" 2>/dev/null || py_need+=(numpy)
python3 -c "import pytest" 2>/dev/null || py_need+=(pytest)
# `pip install .` (pyproject.toml: setuptools >= 61 and wheel), which tests/python runs without build isolation
python3 -c "import wheel" 2>/dev/null || py_need+=(wheel)
python3 -c "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 61)" 2>/dev/null || py_need+=("setuptools>=61")
if [ ${#py_need[@]} -gt 0 ]; then
  if ! python3 -m pip install -q --disable-pip-version-check "${py_need[@]}" >/tmp/ms_setup_pip.log 2>&1; then
    # Debian 12's own python3 refuses pip installs (PEP 668, "externally-managed-environment"), and a
    # bare python3 may have no pip: the distribution's packages then (Debian 12: setuptools 66, >= 61)
    apt_py=()
    for p in "${py_need[@]}"; do apt_py+=("python3-${p%%>=*}"); done
    echo "setup: pip could not install ${py_need[*]} ($(tail -1 /tmp/ms_setup_pip.log)); trying apt: ${apt_py[*]}" >&2
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq && $SUDO apt-get install -y -qq "${apt_py[@]}" >/dev/null || true
  fi
fi
# Without these the Python, oracle and msample tests report Skipped instead of running: say so loudly
python3 -c "import numpy, pytest, wheel, setuptools" 2>/dev/null ||
  echo "setup: WARNING: $(command -v python3) still lacks numpy, pytest, wheel or setuptools >= 61;" \
       "the Python package's, the oracle's and msample's tests will be Skipped" >&2
