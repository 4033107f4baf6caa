"""Builds liblinear-ik's C libraries with the project's Makefile and installs
them inside the `liblinear` package, where liblinear/liblinear.py loads them.

Where the C sources come from: an sdist carries them in _csrc/ (staged there
when the sdist is made); a build from the repository takes them from the
folder above python/. Either way they are copied into a scratch folder and
built there with `make lib NVCC=` (CPU only; OpenBLAS when pkg-config finds
it, the built-in SGEMM otherwise), so the source tree is never written to.
"""
import os
import shutil
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py
from setuptools.command.sdist import sdist
from setuptools.dist import Distribution

HERE = os.path.dirname(os.path.abspath(__file__))
STAGED = os.path.join(HERE, "_csrc")
# Folders of the C tree the libraries are built from; the ones a given
# checkout lacks (the layout moves programs to tools/) are skipped.
SOURCE_DIRS = ["liblinear", "common", "ikmap", "ik", "cuda", "tools"]
# Build outputs that a source folder may hold in a working tree, never copied.
OUTPUT_SUFFIXES = (".o", ".a", ".so", ".pyc")
OUTPUT_NAMES = ("flavour", "blas-flavour")
# The libraries the package loads; the second exists once the kernel's C API is built.
LIBRARIES = ["liblinear/liblinear.so.6", "ik/libliblinear-ik.so.1"]


def source_root():
    """_csrc/ in an unpacked sdist (it has PKG-INFO), else the repository above python/."""
    if os.path.isfile(os.path.join(HERE, "PKG-INFO")) and os.path.isfile(os.path.join(STAGED, "Makefile")):
        return STAGED
    parent = os.path.dirname(HERE)
    if os.path.isfile(os.path.join(parent, "Makefile")) and os.path.isdir(os.path.join(parent, "liblinear")):
        return parent
    sys.exit("liblinear-ik: the C sources are neither in %s (sdist) nor in %s (repository)" % (STAGED, parent))


def copy_sources(root, dest):
    """Copies the Makefile and the C sources (no build outputs) from root to dest."""
    os.makedirs(dest, exist_ok=True)
    shutil.copy2(os.path.join(root, "Makefile"), os.path.join(dest, "Makefile"))
    for folder in SOURCE_DIRS:
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            continue
        for dirpath, dirnames, filenames in os.walk(top):
            # only the sources, not the tests or benchmarks that live below them
            dirnames[:] = [d for d in dirnames if d not in ("bench", "__pycache__")]
            rel = os.path.relpath(dirpath, root)
            for name in filenames:
                path = os.path.join(dirpath, name)
                if not is_source(path):
                    continue
                os.makedirs(os.path.join(dest, rel), exist_ok=True)
                shutil.copy2(path, os.path.join(dest, rel, name))


def is_source(path):
    """Everything in a source folder but build outputs (objects, libraries, programs)."""
    name = os.path.basename(path)
    if name.endswith(OUTPUT_SUFFIXES) or ".so." in name or name in OUTPUT_NAMES or not os.path.isfile(path):
        return False
    with open(path, "rb") as handle:
        return handle.read(4) != b"\x7fELF"


class BuildWithLibraries(build_py):
    def run(self):
        super().run()
        scratch = os.path.join(os.path.abspath(self.build_lib), "..", "liblinear-ik-c")
        scratch = os.path.normpath(scratch)
        shutil.rmtree(scratch, ignore_errors=True)
        copy_sources(source_root(), scratch)
        make = [os.environ.get("MAKE", "make"), "-j%d" % max(1, min(4, os.cpu_count() or 1)), "lib", "NVCC="]
        if os.environ.get("CC"):
            make.append("CC=" + os.environ["CC"])
        print("liblinear-ik: building the C libraries: %s (in %s)" % (" ".join(make), scratch))
        subprocess.check_call(make, cwd=scratch)
        package_dir = os.path.join(self.build_lib, "liblinear")
        for rel in LIBRARIES:
            path = os.path.join(scratch, rel)
            if not os.path.isfile(path):
                sys.exit("liblinear-ik: make did not produce %s" % rel)
            shutil.copy2(path, os.path.join(package_dir, os.path.basename(rel)))
        shutil.rmtree(scratch, ignore_errors=True)


class SdistWithSources(sdist):
    """Stages the C sources into _csrc/ so that the sdist builds on its own."""

    def run(self):
        root = source_root()
        if root == STAGED:  # an sdist made from an sdist carries the same sources
            super().run()
            return
        shutil.rmtree(STAGED, ignore_errors=True)
        copy_sources(root, STAGED)
        try:
            super().run()
        finally:
            # staged only for the archive: an in-tree build takes the repository's own sources
            shutil.rmtree(STAGED, ignore_errors=True)


class BinaryDistribution(Distribution):
    """The wheel holds shared libraries: it is platform-specific."""

    def has_ext_modules(self):
        return True


setup(cmdclass={"build_py": BuildWithLibraries, "sdist": SdistWithSources}, distclass=BinaryDistribution)
