"""Builds the msampler Python package: the C library's sources and the thin CPython layer
(python/msampler/_msampler.c) compiled into one extension module, msampler._msampler.

Sources: every src/*.c (other areas add src/ms_*.c files) and the C files cmake/*.cmake append to
MS_SOURCES for a build without CUDA (the CUDA stub); this is the CPU build. Every file is compiled with -ffp-contract=off -fno-fast-math
(SPEC section 3: the tokens depend on it), plus the per-file flags that cmake/sources-*.cmake gives
with set_source_files_properties(... PROPERTIES COMPILE_OPTIONS|COMPILE_FLAGS ...), so a SIMD file
gets the same -m flags here as in the CMake build.
"""
import glob
import os
import platform
import re
import shlex

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))
BUILD_BASE = os.environ.get("MSAMPLER_PY_BUILD_BASE", "build-py")
os.makedirs(BUILD_BASE, exist_ok=True)  # egg_info's egg_base must exist
X86 = platform.machine().lower() in ("x86_64", "amd64")
BASE_FLAGS = ["-std=c11", "-ffp-contract=off", "-fno-fast-math", "-fvisibility=hidden", "-O2"]


def _rel(path):
    return os.path.relpath(path, ROOT).replace(os.sep, "/")


def _cmake_texts(pattern):
    for path in sorted(glob.glob(os.path.join(ROOT, "cmake", pattern))):
        with open(path, encoding="utf-8") as f:
            # drop comments so that a file named in a comment is not taken for a rule
            yield re.sub(r"#[^\n]*", "", f.read())


def per_file_flags():
    """{source path relative to the root: [flags]} from cmake/sources-*.cmake."""
    flags = {}
    rule = re.compile(r"set_source_files_properties\s*\((.*?)\bPROPERTIES\b(.*?)\)", re.S)
    for text in _cmake_texts("sources-*.cmake"):
        for files, props in rule.findall(text):
            m = re.search(r"\bCOMPILE_(?:OPTIONS|FLAGS)\s+(\"[^\"]*\"|\S+)", props)
            if not m:
                continue
            opts = shlex.split(m.group(1).strip('"').replace(";", " "))
            for f in shlex.split(files):
                f = f.replace("${CMAKE_CURRENT_SOURCE_DIR}", "").replace("${PROJECT_SOURCE_DIR}", "")
                f = f.replace("${CMAKE_CURRENT_LIST_DIR}/..", "").lstrip("/")
                f = f.replace("${CMAKE_SOURCE_DIR}", "").lstrip("/")
                if not f.startswith("src/"):
                    continue
                have = flags.setdefault(f, [])
                for o in opts:
                    # ISA flags (-mavx2, ...) only where CMake would apply them: x86-64
                    if o.startswith("-m") and not X86:
                        continue
                    if o not in have:
                        have.append(o)
    return {f: v for f, v in flags.items() if v}


def _listed_sources(variable):
    """The .c files that cmake/*.cmake appends to `variable` (list(APPEND variable ...))."""
    names = []
    for text in _cmake_texts("*.cmake"):
        for body in re.findall(r"list\s*\(\s*APPEND\s+%s\b(.*?)\)" % variable, text, re.S):
            for f in shlex.split(body):
                f = f.replace("${CMAKE_CURRENT_LIST_DIR}/..", "").replace("${PROJECT_SOURCE_DIR}", "").lstrip("/")
                if f.endswith(".c") and os.path.exists(os.path.join(ROOT, f)):
                    names.append(f)
    return names


def library_sources():
    """src/*.c, plus the C files the CMake build adds from elsewhere for a build without CUDA (such as
    src/cuda/ms_cuda_stub.c, which keeps the public CUDA functions and returns MS_EBACKEND), less
    any C file of the CUDA build's own list."""
    skip = set(_listed_sources("MS_CUDA_SOURCES"))
    found = sorted(_rel(p) for p in glob.glob(os.path.join(ROOT, "src", "*.c")))
    found += [f for f in _listed_sources("MS_SOURCES") if f not in found]
    return [s for s in found if s not in skip]


class BuildExt(build_ext):
    """Compiles each source with its own extra flags (setuptools gives one set per extension)."""

    def build_extension(self, ext):
        extra = per_file_flags()
        if not extra:
            return super().build_extension(ext)
        groups = {}
        for src in ext.sources:
            groups.setdefault(tuple(extra.get(src, [])), []).append(src)
        objects = []
        for flags, srcs in groups.items():
            objects += self.compiler.compile(
                srcs,
                output_dir=self.build_temp,
                macros=ext.define_macros,
                include_dirs=ext.include_dirs,
                debug=self.debug,
                extra_postargs=list(ext.extra_compile_args) + list(flags),
                depends=ext.depends,
            )
        self.compiler.link_shared_object(
            objects,
            self.get_ext_fullpath(ext.name),
            libraries=self.get_libraries(ext),
            library_dirs=ext.library_dirs,
            runtime_library_dirs=ext.runtime_library_dirs,
            extra_postargs=ext.extra_link_args,
            export_symbols=self.get_export_symbols(ext),
            debug=self.debug,
            build_temp=self.build_temp,
            target_lang="c",
        )


ext = Extension(
    "msampler._msampler",
    sources=library_sources() + ["python/msampler/_msampler.c"],
    include_dirs=["include", "src"],
    extra_compile_args=BASE_FLAGS,
    extra_link_args=["-pthread"],
    libraries=["m"],
    depends=sorted(_rel(p) for p in glob.glob(os.path.join(ROOT, "src", "*.h")))
    + ["include/msampler.h"],
)

setup(
    ext_modules=[ext],
    cmdclass={"build_ext": BuildExt},
    # keep setuptools' build tree out of CMake's build/ directory; tests/python points it into its own
    # build directory, so that concurrent CTest runs of several build trees do not share one
    options={"build": {"build_base": BUILD_BASE}, "egg_info": {"egg_base": BUILD_BASE}},
)
