#!/usr/bin/env bash
# Installs what msampler's build, tests and tools need on a fresh Debian machine (idempotent;
# quick when everything is there already). Used by the README's commands and by CI.
set -euo pipefail
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
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
py_need=()
python3 -c "import numpy" 2>/dev/null || py_need+=(numpy)
python3 -c "import pytest" 2>/dev/null || py_need+=(pytest)
# `pip install .` (pyproject.toml: setuptools >= 61 and wheel), which tests/python runs without build isolation
python3 -c "import wheel" 2>/dev/null || py_need+=(wheel)
python3 -c "import setuptools, sys; sys.exit(int(setuptools.__version__.split('.')[0]) < 61)" 2>/dev/null || py_need+=("setuptools>=61")
if [ ${#py_need[@]} -gt 0 ]; then
  python3 -m pip install -q --disable-pip-version-check "${py_need[@]}" 2>&1 | grep -v "Running pip as the 'root' user" || true
fi
