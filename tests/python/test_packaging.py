"""The package builds from source: `pip wheel ./python` and an sdist (with
the C sources staged into it) that pip builds and installs on its own,
away from the repository. No prebuilt binary is involved: each build runs
`make lib` on a copy of the sources."""
import fnmatch
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

from conftest import REPO

PYTHON_DIR = REPO / "python"


def expected_libraries():
    """liblinear.so.6, and libliblinear-ik.so.1 once the installed package has it (the kernel's C API)."""
    import liblinear.liblinear as core
    names = ["liblinear/liblinear.so.6"]
    if core._kernel_library is not None:
        names.append("liblinear/libliblinear-ik.so.1")
    return names


def run(command, **kw):
    result = subprocess.run([str(c) for c in command], capture_output=True, text=True, timeout=900, **kw)
    assert result.returncode == 0, "%s failed:\n%s\n%s" % (command, result.stdout[-3000:], result.stderr[-3000:])
    return result


def smoke(python, env=None):
    """Trains and predicts with the package that python imports; returns where it was imported from."""
    code = ("import liblinear.liblinear as L, liblinear.liblinearutil as U\n"
            "m = U.train([1, -1, 1, -1], [{1: 1}, {1: -1}, {1: 2}, {1: -2}], '-s 0 -q')\n"
            "r = U.predict([1, -1], [{1: 3}, {1: -3}], m, '-q')\n"
            "assert r[0] == [1.0, -1.0], r\n"
            "print(L.__file__)\n")
    return run([python, "-c", code], cwd="/", env=env).stdout.strip()


def test_wheel_from_the_source_tree(tmp_path):
    run([sys.executable, "-m", "pip", "wheel", "-q", "--no-build-isolation", "--no-deps", "-w", tmp_path, PYTHON_DIR])
    wheels = list(tmp_path.glob("liblinear_ik-*.whl"))
    assert len(wheels) == 1, wheels
    # platform-specific: it holds shared libraries
    assert "linux" in wheels[0].name and "py3-none-any" not in wheels[0].name
    names = zipfile.ZipFile(wheels[0]).namelist()
    for library in expected_libraries():
        assert library in names, names
    for module in ("liblinear/__init__.py", "liblinear/liblinear.py", "liblinear/liblinearutil.py",
                   "liblinear/commonutil.py", "liblinear/_ik.py"):
        assert module in names


def _source_files(paths):
    """The files of paths that are sources: git's tracked files in a clone; in a tree without
    .git (e.g. `git archive`, as CI's bare-machine step makes) every file there that the
    repository's .gitignore does not ignore (its patterns are plain: *, a leading / anchors,
    a leading ! re-includes)."""
    inside = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--is-inside-work-tree"],
                            capture_output=True, text=True)
    if inside.returncode == 0 and inside.stdout.strip() == "true":
        return subprocess.run(["git", "-C", str(REPO), "ls-files", *paths], capture_output=True,
                              text=True, check=True).stdout.split()
    rules = []
    for line in (REPO / ".gitignore").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            rules.append((line.startswith("!"), line.lstrip("!").rstrip("/")))

    def ignored(rel):
        verdict = False
        for negate, pattern in rules:
            if pattern.startswith("/"):
                hit = fnmatch.fnmatchcase(rel, pattern[1:]) or rel.startswith(pattern[1:] + "/")
            else:
                hit = any(fnmatch.fnmatchcase(part, pattern) for part in rel.split("/"))
            if hit:
                verdict = not negate
        return verdict

    found = []
    for path in paths:
        top = REPO / path
        walk = [(str(top.parent), [], [top.name])] if top.is_file() else os.walk(top)
        for folder, _, files in walk:
            for name in files:
                rel = os.path.relpath(os.path.join(folder, name), REPO)
                if not ignored(rel):
                    found.append(rel)
    return found


def test_sdist_carries_the_sources_and_builds_alone(tmp_path):
    run([sys.executable, "-m", "build", "--sdist", "--no-isolation", "--outdir", tmp_path / "dist", PYTHON_DIR])
    sdists = list((tmp_path / "dist").glob("liblinear_ik-*.tar.gz")) + list((tmp_path / "dist").glob("liblinear-ik-*.tar.gz"))
    assert len(sdists) == 1, list((tmp_path / "dist").iterdir())
    with tarfile.open(sdists[0]) as archive:
        names = archive.getnames()
    top = names[0].split("/")[0]
    for needed in ("_csrc/Makefile", "_csrc/liblinear/linear.h", "_csrc/liblinear/linear.c", "_csrc/ikmap/ikmap.h",
                   "setup.py", "pyproject.toml", "liblinear/liblinear.py"):
        assert "%s/%s" % (top, needed) in names, needed
    # every tracked file of the C source folders is in it (a committed liblinear/liblinear.map
    # was left out when only *.c/*.h/*.cu/*.in were copied, and the sdist did not build)
    tracked = _source_files(["Makefile", "liblinear", "common", "ikmap", "ik", "cuda", "tools"])
    assert tracked
    missing = [f for f in tracked if "%s/_csrc/%s" % (top, f) not in names and "/bench/" not in "/" + f]
    assert not missing, missing
    # the staged copy is for the archive only: an in-tree build must not pick up stale sources later
    assert not (PYTHON_DIR / "_csrc").exists()
    # no binaries in an sdist
    assert not [n for n in names if n.endswith((".o", ".a", ".so")) or ".so." in n], names
    # unpacked far from the repository, it builds and installs into a fresh environment
    with tarfile.open(sdists[0]) as archive:
        archive.extractall(tmp_path / "unpacked")
    target = tmp_path / "installed"
    run([sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index",
         "--target", target, tmp_path / "unpacked" / top])
    env = dict(os.environ, PYTHONPATH=str(target))
    where = smoke(sys.executable, env)
    assert where.startswith(str(target)), where
    installed = Path(where).parent
    for library in expected_libraries():
        assert (installed / Path(library).name).is_file()
