#!/usr/bin/env python3
"""bench/blas_fallback.py - the built-in SGEMM (ikmap/sgemm.c) against OpenBLAS.

Two measurements, side by side, as ratios built-in / OpenBLAS:
  tiles: bench/sgemm_shapes (one process, both GEMMs): one aNNE tile,
      256 rows x 512 columns x (d + 2), d = 16, 54, 128, 256, 784, on one
      thread, best of many calls;
  maps: bench/ik_mapping (ikmap_build + ikmap_map on the dense path,
      t = 100, psi = 256, best of 2 in-process repetitions) built twice:
      this tree (OpenBLAS) and a copy built with BLAS=builtin, on a
      covtype subset (20000 x 54) and a synthetic image-like set
      (4000 x 784: each pixel nonzero with probability 0.2, uniform in
      (0, 1], seed 1), with 1 and 2 threads.
OpenBLAS picks its kernel at run time from the CPU model; when it does not
know the model it falls back to an old generic kernel, so the OpenBLAS
side is also measured with OPENBLAS_CORETYPE set to the kernel that fits
the CPU's vector unit (SkylakeX with AVX-512, Haswell with AVX2), the
fairest comparison. Every figure is the median over RUNS rounds, the
variants interleaved within a round so that load changes hit them alike.
Needs the programs of a BLAS=openblas build (make bench-blas builds them),
sh, make, tar and git; Python 3 standard library only.
Writes bench/results/blas-fallback.md. Timings are information, never
assertions; the machine and its load are stated with them.
"""
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("LIBLINEAR_IK_DATA", REPO / ".." / "shared" / "data"))
OUT_MD = REPO / "bench" / "results" / "blas-fallback.md"
RUNS = int(os.environ.get("BLAS_BENCH_RUNS", "5"))
T, PSI = 100, 256


def run(cmd, env=None, cwd=None):
	full = dict(os.environ)
	# OpenBLAS as OpenBLAS, also where it only offers Prescott (ikmap/gemm.c would
	# otherwise call the built-in kernel there); the built-in build ignores it.
	full["IKMAP_SGEMM"] = "openblas"
	full.update(env or {})
	r = subprocess.run(cmd, env=full, cwd=cwd, capture_output=True, text=True)
	if r.returncode != 0:
		sys.exit("blas_fallback: %s failed:\n%s%s" % (" ".join(map(str, cmd)), r.stdout, r.stderr))
	return r.stdout


def fields(line):
	return dict(kv.split("=", 1) for kv in line.split())


def cpu_flags():
	try:
		for line in open("/proc/cpuinfo"):
			if line.startswith("flags"):
				return set(line.split(":", 1)[1].split())
	except OSError:
		pass
	return set()


def cpu_model():
	info = {}
	try:
		for line in open("/proc/cpuinfo"):
			key, _, value = line.partition(":")
			info.setdefault(key.strip(), value.strip())
	except OSError:
		pass
	name = info.get("model name") or platform.processor() or "unknown CPU"
	flags = cpu_flags()
	unit = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "SSE2"
	return "%s (family %s, model %s; %s)" % (name, info.get("cpu family", "?"),
		info.get("model", "?"), unit)


def builtin_copy(work):
	"""This tree (tracked and new files) copied and built with BLAS=builtin."""
	src = work / "builtin"
	src.mkdir()
	files = run(["git", "ls-files", "-z", "-c", "-o", "--exclude-standard"], cwd=REPO)
	listing = work / "files"
	listing.write_text(files)
	subprocess.run("tar --null -T %s -cf - | tar -xf - -C %s" % (listing, src), shell=True,
		cwd=REPO, check=True)
	out = run(["make", "-C", str(src), "-j2", "BLAS=builtin", "NVCC=", "bench/ik_mapping"])
	line = [l for l in out.splitlines() if l.startswith("BLAS:")]
	if not line or "built-in" not in line[0]:
		sys.exit("blas_fallback: the copy did not build with the built-in SGEMM")
	return src / "bench" / "ik_mapping"


def write_sets(work):
	sets = {}
	cov = work / "covtype"
	src = DATA / "covtype.binary.subset20k" / "covtype.binary.subset20k.all.xz"
	cov.write_text("".join(run(["xz", "-dc", str(src)]).splitlines(True)[:20000]))
	sets["covtype 20000x54"] = cov
	img = work / "imagelike"
	rng = random.Random(1)
	with open(img, "w") as f:
		for _ in range(4000):
			f.write("0 " + " ".join("%d:%.6g" % (j + 1, 1.0 - rng.random())
				for j in range(784) if rng.random() < 0.2) + "\n")
	sets["image-like 4000x784"] = img
	return sets


def main():
	run(["make", "-C", str(REPO), "bench/sgemm_shapes", "bench/ik_mapping"])
	flavour = (REPO / "ikmap" / "blas-flavour").read_text().split()[0]
	if flavour != "openblas":
		sys.exit("blas_fallback: this build uses %s, not OpenBLAS; nothing to compare with" % flavour)
	flags = cpu_flags()
	fit = "SkylakeX" if "avx512f" in flags else "Haswell" if "avx2" in flags else None
	variants = [("default", {})] + ([("CORETYPE=" + fit, {"OPENBLAS_CORETYPE": fit})] if fit else [])
	tile_variants = [(v, e, []) for v, e in variants]
	if fit == "SkylakeX":
		# What an AVX2-only CPU would see: both sides forced to their AVX2 kernels.
		tile_variants.append(("AVX2", {"OPENBLAS_CORETYPE": "Haswell"}, ["avx2+fma"]))
	if fit:
		# And a CPU with the x86-64 baseline only (SSE2): both sides' oldest kernels.
		tile_variants.append(("SSE2", {"OPENBLAS_CORETYPE": "Prescott"}, ["generic"]))
	load_before = os.getloadavg()
	started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
	with tempfile.TemporaryDirectory(prefix="blas-fallback.") as tmp:
		work = Path(tmp)
		builtin_tool = builtin_copy(work)
		main_tool = REPO / "bench" / "ik_mapping"
		shapes_tool = REPO / "bench" / "sgemm_shapes"
		sets = write_sets(work)
		tiles = {}	# (variant, d) -> {"builtin": [..], "blas": [..]}
		maps = {}	# (set, threads, side) -> [map_s ...]
		names = {}
		for rnd in range(RUNS):
			for vname, env, kernel in tile_variants:
				for line in run([str(shapes_tool), "100"] + kernel, env=env).splitlines():
					f = fields(line)
					names[vname] = f["blas"].replace("_", " ")
					if not kernel:
						names["kernel"] = f["kernel"]
					cell = tiles.setdefault((vname, int(f["d"])), {"builtin": [], "blas": []})
					cell["builtin"].append(float(f["builtin_us"]))
					cell["blas"].append(float(f["blas_us"]))
			for sname, path in sets.items():
				for threads in (1, 2):
					sides = [("builtin", builtin_tool, {})] + [
						("OpenBLAS " + vname, main_tool, env) for vname, env in variants]
					for side, tool, env in sides:
						f = fields(run([str(tool), str(path), "anne", str(T), str(PSI),
							str(threads), "plain", "2"], env=env))
						# Each side must be the build it claims to be.
						if f["blas"].startswith("built-in") != (side == "builtin"):
							sys.exit("blas_fallback: %s ran %s" % (side, f["blas"]))
						names["map " + side] = f["blas"].replace("_", " ")
						maps.setdefault((sname, threads, side), []).append(float(f["map_s"]))
			print("blas_fallback: round %d of %d done" % (rnd + 1, RUNS), flush=True)
	load_after = os.getloadavg()
	med = statistics.median
	lines = []
	w = lines.append
	w("# The built-in SGEMM against OpenBLAS")
	w("")
	w("Made by `make bench-blas` (`bench/blas_fallback.py`), %s. Goal (issue 18): the built-in" % started)
	w("kernel within 2x of OpenBLAS. Ratios are built-in time / OpenBLAS time (below 1: built-in faster).")
	w("")
	w("Machine: %s, %d cores seen by the OS (a 2-core CI-like VM), %s, %s." % (
		cpu_model(), os.cpu_count() or 0, platform.platform(),
		run(["cc", "--version"]).splitlines()[0]))
	w("Built-in kernel on this CPU: `%s` (ikmap/sgemm.c picks it at run time)." % names.get("kernel"))
	w("OpenBLAS: %s; its kernel by default: %s%s." % (
		run(["pkg-config", "--modversion", "openblas"]).strip(), names.get("default"),
		"; with `OPENBLAS_CORETYPE=%s`: %s" % (fit, names.get("CORETYPE=" + fit)) if fit else ""))
	w("")
	w("Load average (1, 5, 15 min) before: %.2f %.2f %.2f, after: %.2f %.2f %.2f. Other engineers"
		% (load_before + load_after))
	w("share the two cores, so single timings are noisy: every figure is the median of %d rounds," % RUNS)
	w("each a best-of-several, with the variants interleaved inside each round. When the other")
	w("engineers keep both cores busy, 2 threads gain little over 1: read the ratios, not the")
	w("thread speedups.")
	w("")
	w("## One aNNE tile: 256 x 512 x (d + 2), one thread")
	w("")
	head = "| d | built-in µs |"
	rule = "|---|---|"
	for vname, _ in variants:
		head += " OpenBLAS %s µs | ratio |" % vname
		rule += "---|---|"
	w(head)
	w(rule)
	for d in (16, 54, 128, 256, 784):
		builtin_all = [x for vname, _ in variants for x in tiles[(vname, d)]["builtin"]]
		row = "| %d | %.1f |" % (d, med(builtin_all))
		for vname, _ in variants:
			b = med(tiles[(vname, d)]["blas"])
			row += " %.1f | %.2f |" % (b, med(builtin_all) / b)
		w(row)
	w("")
	for vname, kernel, core, cpu in (("AVX2", "avx2+fma", "Haswell", "an AVX2-only CPU"),
			("SSE2", "generic", "Prescott", "a CPU with the x86-64 baseline only (SSE2)")):
		if (vname, 16) not in tiles:
			continue
		w("As %s would run it (`sgemm_use_kernel(\"%s\")` against" % (cpu, kernel))
		w("`OPENBLAS_CORETYPE=%s`, %s), same shapes, one thread:" % (core, names.get(vname)))
		w("")
		w("| d | built-in %s µs | OpenBLAS %s µs | ratio |" % (kernel, core))
		w("|---|---|---|---|")
		for d in (16, 54, 128, 256, 784):
			bi, ob = med(tiles[(vname, d)]["builtin"]), med(tiles[(vname, d)]["blas"])
			w("| %d | %.1f | %.1f | %.2f |" % (d, bi, ob, bi / ob))
		w("")
	w("## Whole map: `ikmap_map` of every row, dense path, t = %d, psi = %d" % (T, PSI))
	w("")
	head = "| data | threads | built-in s |"
	rule = "|---|---|---|"
	for vname, _ in variants:
		head += " OpenBLAS %s s | ratio |" % vname
		rule += "---|---|"
	w(head)
	w(rule)
	for sname in sets:
		for threads in (1, 2):
			b = med(maps[(sname, threads, "builtin")])
			row = "| %s | %d | %.3f |" % (sname, threads, b)
			for vname, _ in variants:
				o = med(maps[(sname, threads, "OpenBLAS " + vname)])
				row += " %.3f | %.2f |" % (o, b / o)
			w(row)
	w("")
	w("SGEMM in each column: %s." % "; ".join(
		"%s: %s" % (k[4:], v) for k, v in names.items() if k.startswith("map ")))
	w("")
	w("The map's time includes packing the rows, the segmented argmin and the exact recheck of near")
	w("ties, which do not depend on the BLAS; the cells are identical either way")
	w("(`tests/blas_identity.sh`).")
	OUT_MD.write_text("\n".join(lines) + "\n")
	print("\n".join(lines))


if __name__ == "__main__":
	main()
