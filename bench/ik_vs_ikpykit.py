#!/usr/bin/env python3
"""bench/ik_vs_ikpykit.py - our aNNE map against ikpykit's, side by side.

  ik_vs_ikpykit.py [--rows N] [--psi 16,64,256,1024] [--t 100] [--threads 2]
                   [--reps 2] [--rounds 1] [--ikpykit-python PY] [--ours-python PY]
                   [--baseline NAME --baseline-tool PATH --baseline-pythonpath DIR
                    --baseline-libdir DIR] [--fresh] [--tag NAME]

The work timed, the same on both sides: fit_transform of every row, i.e.
build a map of t partitionings of psi sampled rows each (aNNE: the cell of
the nearest sampled row) and map all the rows through it.
  ikpykit: IsoKernel(method="anne", n_estimators=t, max_samples=psi,
      random_state=1).fit_transform(X) on a float64 numpy array, run by
      --ikpykit-python (default /work/venv-ikpykit/bin/python; its own
      virtual environment) with OMP/OPENBLAS/MKL threads = --threads.
  ours (C): bench/ik_mapping, ikmap_build + ikmap_map of every row in one
      process with --threads OpenMP threads (build_s + map_s; reading the
      file is not timed, as ikpykit is not timed loading X); twice: the
      path the cost model picks now (the dense path pruned by lower
      bounds, ikmap/anne_prune.c, where it pays) and the plain dense path
      as it was before pruning ("plain": one float GEMM against all
      centres; with the build's GEMM, which on a CPU OpenBLAS does not know is
      now the built-in AVX-512 kernel, ikmap/gemm.c), and "before": the plain
      path on OpenBLAS as it ran before this work (IKMAP_SGEMM=openblas).
      "plain" and "before" include the build's pruning probe (it is dropped
      after). Cells are identical every way (tests/unit/test_ikmap_anne.c).
  ours (Python): when --ours-python is given and `import liblinear.sklearn`
      works there, IsolationKernel(...).fit_transform(X) on the same array
      (its parameter names are read from its signature).
Data: bench/make_images.py's MNIST-like set (784 pixels in [0, 1], about
half zeros, 300 prototypes plus noise; seed 1), its first --rows rows; the
C side reads them as LIBSVM text and ikpykit gets the very same doubles.
Ours are best of --reps runs; ikpykit best of --reps for psi <= 256 and one
run above (it takes minutes). --rounds R repeats, per psi, ikpykit, our
Python, the baseline's Python, our C map and the baseline's C map R times
in turn (interleaved, so a change of load hits both sides) and keeps each
one's best. --baseline NAME times an earlier build the same way: its
bench/ik_mapping (--baseline-tool) and its Python package (PYTHONPATH
--baseline-pythonpath, libraries from --baseline-libdir, run by
--ours-python), reported as "before (NAME)". Results: bench/results/ik-vs-ikpykit.md and
.json, or ik-vs-ikpykit-NAME.* with --tag NAME (a rerun reuses the .json's
measurements unless --fresh). Timings are
information, never assertions: the machine is shared (its load is stated).
"""
import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ikb_common as C  # noqa: E402
import make_images  # noqa: E402

TOOL = C.REPO / "bench" / "ik_mapping"
OUT_MD = C.REPO / "bench" / "results" / "ik-vs-ikpykit.md"
OUT_JSON = C.REPO / "bench" / "results" / "ik-vs-ikpykit.json"
IMAGES = C.TMP / "images" / "img60k"
FULL_ROWS = 60000

# Run inside ikpykit's environment (or ours): loads the rows, times fit_transform.
CHILD = r"""
import inspect, json, sys, time
import numpy as np
sys.path.insert(0, {bench!r})
import make_images
rows, t, psi, threads, reps, which = {rows}, {t}, {psi}, {threads}, {reps}, {which!r}
X = make_images.values()[np.load({npy!r}, mmap_mode="r")[:rows]]
info = {{}}
if which == "ikpykit":
    import ikpykit
    from ikpykit.kernel import IsoKernel
    make = lambda: IsoKernel(method="anne", n_estimators=t, max_samples=psi, random_state=1)
    info["version"] = getattr(ikpykit, "__version__", "?")
else:
    from liblinear.sklearn import IsolationKernel
    names = set(inspect.signature(IsolationKernel).parameters)
    kw = {{}}
    for want, value in (("t", t), ("psi", psi), ("method", "anne"), ("random_state", 1),
            ("threads", threads), ("n_jobs", threads)):
        alias = {{"t": ("t", "n_estimators"), "psi": ("psi", "max_samples"),
            "method": ("method", "kernel", "type"), "random_state": ("random_state", "seed"),
            "threads": ("threads", "n_threads"), "n_jobs": ("n_jobs",)}}[want]
        for name in alias:
            if name in names and name not in kw:
                kw[name] = value
                break
    make = lambda: IsolationKernel(**kw)
    info["params"] = {{k: str(v) for k, v in kw.items()}}
try:
    from threadpoolctl import threadpool_info
    info["blas"] = ["%s %s (%s)" % (p.get("internal_api"), p.get("version"), p.get("architecture"))
        for p in threadpool_info() if p.get("user_api") == "blas"]
except ImportError:
    pass
best = cpu = None
for _ in range(reps):
    t0, c0 = time.perf_counter(), time.process_time()
    Z = make().fit_transform(X)
    s, c = time.perf_counter() - t0, time.process_time() - c0
    best = s if best is None else min(best, s)
    cpu = c if cpu is None else min(cpu, c)
info["seconds"] = best
info["cpu_seconds"] = cpu
info["shape"] = list(Z.shape)
info["nnz_per_row"] = float(Z.getnnz() / Z.shape[0]) if hasattr(Z, "getnnz") else None
print("RESULT " + json.dumps(info))
"""


def data(rows):
	u8, _ = make_images.make(IMAGES, FULL_ROWS)
	subset = Path("%s.first%d.libsvm" % (IMAGES, rows))
	if not subset.exists():
		with open("%s.libsvm" % IMAGES) as src, open(subset, "w") as dst:
			for i, line in enumerate(src):
				if i >= rows:
					break
				dst.write(line)
	return u8, str(subset)


def child(python, which, rows, t, psi, threads, reps, extra_env=None):
	code = CHILD.format(bench=str(C.REPO / "bench"), rows=rows, t=t, psi=psi, threads=threads,
		reps=reps, which=which, npy="%s.u8.npy" % IMAGES)
	env = dict(os.environ)
	env.update(extra_env or {})
	for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
		env[var] = str(threads)
	p = subprocess.run([python, "-c", code], capture_output=True, text=True, env=env)
	for line in p.stdout.splitlines():
		if line.startswith("RESULT "):
			return json.loads(line[7:])
	return {"error": (p.stderr.strip().splitlines() or ["no output"])[-1]}


def ours(path, t, psi, threads, route, reps, env=None, tool=TOOL):
	full = dict(os.environ)
	full.update(env or {})
	out = subprocess.run([str(tool), path, "anne", str(t), str(psi), str(threads), route, str(reps),
		"nosgemm"], capture_output=True, text=True, check=True, env=full).stdout
	kv = dict(f.split("=", 1) for f in out.split())
	res = {"build_s": float(kv["build_s"]), "map_s": float(kv["map_s"]), "path": kv["path"],
		"cpu_seconds": float(kv["build_cpu_s"]) + float(kv["map_cpu_s"]),
		"pruned": kv.get("pruned") == "1", "vnni": kv.get("vnni") == "1",
		"blas": kv["blas"].replace("_", " ")}
	if "full_fraction" in kv:
		res["full_fraction"] = float(kv["full_fraction"])
	res["seconds"] = res["build_s"] + res["map_s"]
	return res


def ours_python_ok(python):
	if not python:
		return False
	p = subprocess.run([python, "-c", "import liblinear.sklearn"], capture_output=True)
	return p.returncode == 0


def main():
	ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	ap.add_argument("--rows", type=int, default=10000)
	ap.add_argument("--psi", default="16,64,256,1024")
	ap.add_argument("--t", type=int, default=100)
	ap.add_argument("--threads", type=int, default=2)
	ap.add_argument("--reps", type=int, default=2)
	ap.add_argument("--ikpykit-python", default="/work/venv-ikpykit/bin/python")
	ap.add_argument("--ours-python", default=None)
	ap.add_argument("--rounds", type=int, default=1)
	ap.add_argument("--baseline", default="")
	ap.add_argument("--baseline-tool", default="")
	ap.add_argument("--baseline-pythonpath", default="")
	ap.add_argument("--baseline-libdir", default="")
	ap.add_argument("--fresh", action="store_true")
	ap.add_argument("--report-only", action="store_true",
		help="write the table from the .json without measuring")
	ap.add_argument("--tag", default="")
	a = ap.parse_args()
	global OUT_MD, OUT_JSON
	if a.tag:
		OUT_MD = OUT_MD.with_name("ik-vs-ikpykit-%s.md" % a.tag)
		OUT_JSON = OUT_JSON.with_name("ik-vs-ikpykit-%s.json" % a.tag)
	if a.report_only:
		report(json.loads(OUT_JSON.read_text()), [int(v) for v in a.psi.split(",")], a)
		return 0
	subprocess.run(["make", "-C", str(C.REPO), "bench/ik_mapping"], check=True, capture_output=True)
	res = {} if a.fresh or not OUT_JSON.exists() else json.loads(OUT_JSON.read_text())
	# A forced OpenBLAS core (e.g. OPENBLAS_CORETYPE=Haswell on an AVX-512
	# machine) would slow ikpykit's DGEMM and flatter us: both sides run
	# without it, each OpenBLAS choosing its own kernel for the CPU.
	forced = os.environ.pop("OPENBLAS_CORETYPE", None)
	if forced:
		res["dropped_env"] = "OPENBLAS_CORETYPE=%s" % forced
	res.setdefault("load_start", C.load_average())
	res["machine"] = C.machine_line()
	res.update(rows=a.rows, t=a.t, threads=a.threads)
	_, path = data(a.rows)
	with_python = ours_python_ok(a.ours_python)

	def once(key, fn, best=False):
		"""Measures key unless it is there; best: measures again and keeps the faster."""
		if key in res and "error" not in res[key] and not best:
			return
		new = fn()
		new["load_after"] = C.load_average()
		old = res.get(key, {})
		if "seconds" in old and "seconds" in new and old["seconds"] <= new["seconds"]:
			old["rounds"] = old.get("rounds", 1) + 1
		else:
			new["rounds"] = old.get("rounds", 0) + 1
			res[key] = new
		OUT_JSON.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
		print(key, json.dumps(new), flush=True)

	base_env = {"PYTHONPATH": a.baseline_pythonpath, "LIBLINEAR_IK_LIBDIR": a.baseline_libdir}
	if a.baseline:
		res["baseline"] = a.baseline
	for psi in [int(v) for v in a.psi.split(",")]:
		base = "%d/%d/%d" % (a.rows, a.t, psi)
		# plain and before: the float GEMM, as their columns say (no 8-bit path)
		once(base + "/plain", lambda: ours(path, a.t, psi, a.threads, "plain", a.reps,
			{"IKMAP_VNNI": "0"}))
		once(base + "/before", lambda: ours(path, a.t, psi, a.threads, "plain", a.reps,
			{"IKMAP_SGEMM": "openblas", "IKMAP_VNNI": "0"}))
		for _ in range(a.rounds):
			once(base + "/ikpykit", lambda: child(a.ikpykit_python, "ikpykit", a.rows, a.t,
				psi, a.threads, a.reps if psi <= 256 else 1), True)
			if with_python:
				once(base + "/ours-python", lambda: child(a.ours_python, "ours", a.rows, a.t,
					psi, a.threads, a.reps), True)
				if a.baseline and a.baseline_pythonpath:
					once(base + "/base-python", lambda: child(a.ours_python, "ours", a.rows,
						a.t, psi, a.threads, a.reps, base_env), True)
			once(base + "/ours", lambda: ours(path, a.t, psi, a.threads, "auto", a.reps), True)
			if a.baseline and a.baseline_tool:
				once(base + "/base-c", lambda: ours(path, a.t, psi, a.threads, "auto", a.reps,
					tool=a.baseline_tool), True)
	res["load_end"] = C.load_average()
	res["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
	res.setdefault("commands", [])
	res["commands"].append(" ".join(["bench/ik_vs_ikpykit.py"] + sys.argv[1:]))
	OUT_JSON.write_text(json.dumps(res, indent=1, sort_keys=True) + "\n")
	report(res, [int(v) for v in a.psi.split(",")], a)


def fmt(x):
	return "%.2f" % x if x >= 0.1 else "%.3f" % x


def report(res, psis, a):
	rows, t = res["rows"], res["t"]
	# rounds measured so far, over every run that added to the .json
	rounds = max([v.get("rounds", 1) for k, v in res.items()
		if isinstance(v, dict) and k.endswith("/ours-python")] or [a.rounds])
	first = res.get("%d/%d/%d/ikpykit" % (rows, t, psis[0]), {})
	ours0 = res.get("%d/%d/%d/ours" % (rows, t, psis[0]), {})
	L = ["# Our aNNE map against ikpykit's IsoKernel(method=\"anne\"): fit_transform, dense 784-d data", ""]
	L.append("Made by `make bench-ikpykit` (`bench/ik_vs_ikpykit.py`), %s." % res.get("date", "?"))
	L.append("")
	for command in res.get("commands", []):
		L.append("- Command: `%s`." % command)
	L.append("- Machine: %s. 1-minute load average %.2f at start, %.2f at the end: other engineers' "
		"jobs share the two cores, so the timings are noisy (ours: best of %d; ikpykit: best of %d "
		"for psi <= 256, one run above; %s)." % (res["machine"], res["load_start"], res["load_end"],
			a.reps, a.reps, "each the best of %d interleaved rounds" % rounds if rounds > 1
			else "one round"))
	L.append("- Data: `bench/make_images.py` (MNIST-like, 784 pixels in [0, 1], about half zeros, "
		"300 prototypes plus noise, seed 1), its first %d rows%s. t = %d, %d threads on both sides." % (
			rows, " (not all 60000: ikpykit at psi = 1024 takes minutes per run on 2 cores)"
			if rows < FULL_ROWS else "", t, res["threads"]))
	L.append("- ikpykit %s, float64 GEMM from numpy's BLAS: %s." % (first.get("version", "?"),
		", ".join(first.get("blas", ["?"]))))
	before0 = res.get("%d/%d/%d/before" % (rows, t, psis[0]), {})
	L.append("- Ours: `bench/ik_mapping` (C), ikmap_build + ikmap_map of every row; the build's "
		"SGEMM: %s. 'now' is the path the cost model picks (for psi <= 64 on a CPU with "
		"AVX512-VNNI the dense path by 8-bit products with a rigorous bound, `ikmap/anne_vnni.c`; "
		"else the dense path with exact pruning, `ikmap/anne_prune.c`, where it pays); 'plain' is "
		"the dense path without pruning (one float GEMM against all t psi centres, "
		"`IKMAP_VNNI=0`) on that SGEMM; 'before' is the plain path on OpenBLAS "
		"(`IKMAP_SGEMM=openblas`; here %s, where this machine's OpenBLAS 0.3.21 once offered only "
		"its Prescott SSE3 kernel). 'plain' and 'before' include the build's pruning probe (about "
		"0.05-0.15 s, dropped after). The cells are identical in all three." % (
			ours0.get("blas", "?"), before0.get("blas", "?")))
	if "dropped_env" in res:
		L.append("- The environment's %s was removed for both sides (it forced OpenBLAS's AVX2 "
			"kernels on this AVX-512 CPU, which would slow ikpykit's DGEMM)." % res["dropped_env"])
	L.append("")
	head = ("| psi | ikpykit (s) | ours before (s) | ikpykit / before | ours plain (s) | ikpykit / plain "
		"| ours now (s) | **ikpykit / now** | path now | full distances computed |")
	sep = "|---|---|---|---|---|---|---|---|---|---|"
	has_py = any(("%d/%d/%d/ours-python" % (rows, t, p)) in res for p in psis)
	if has_py:
		head += " ours Python IsolationKernel (s) | **ikpykit / Python** |"
		sep += "---|---|"
	name = res.get("baseline", "")
	has_base = bool(name) and any(("%d/%d/%d/base-c" % (rows, t, p)) in res for p in psis)
	if has_base:
		head += " C before (%s) (s) | ikpykit / C before | Python before (%s) (s) | ikpykit / Python before |" % (
			name, name)
		sep += "---|---|---|---|"
	L += [head, sep]
	for psi in psis:
		k = "%d/%d/%d/" % (rows, t, psi)
		ik, pl, now = res.get(k + "ikpykit", {}), res.get(k + "plain", {}), res.get(k + "ours", {})
		before = res.get(k + "before", {})
		if any("seconds" not in r for r in (ik, pl, now, before)):
			L.append("| %d | %s | | | | | | | | |" % (psi, ik.get("error", "missing")))
			continue
		path = now["path"] + (", pruned" if now["pruned"] else "") + (", 8-bit" if now.get("vnni") else "")
		frac = ("%.1f %%" % (100 * now["full_fraction"]) if "full_fraction" in now
			else "none in full (8-bit scores; float ones where those leave a tie open)"
			if now.get("vnni") else "100 %")
		line = "| %d | %s | %s | %.1fx | %s | %.1fx | %s | **%.1fx** | %s | %s |" % (psi,
			fmt(ik["seconds"]), fmt(before["seconds"]), ik["seconds"] / before["seconds"],
			fmt(pl["seconds"]), ik["seconds"] / pl["seconds"], fmt(now["seconds"]),
			ik["seconds"] / now["seconds"], path, frac)
		if has_py:
			py = res.get(k + "ours-python", {})
			if "seconds" in py:
				line += " %s | **%.1fx** |" % (fmt(py["seconds"]), ik["seconds"] / py["seconds"])
			else:
				line += " %s | |" % py.get("error", "not run")
		if has_base:
			for key in ("base-c", "base-python"):
				b = res.get(k + key, {})
				if "seconds" in b:
					line += " %s | %.1fx |" % (fmt(b["seconds"]), ik["seconds"] / b["seconds"])
				else:
					line += " %s | |" % b.get("error", "not run")
		L.append(line)
	cpu_keys = ("ikpykit", "ours-python", "ours", "base-python", "base-c")
	if any("cpu_seconds" in res.get("%d/%d/%d/%s" % (rows, t, p, key), {}) for p in psis
			for key in cpu_keys[1:]):
		L.append("")
		L.append("Process CPU time (all threads; the best run, as above): less disturbed by other "
			"jobs than wall time when the machine is loaded, but a spinning BLAS or OpenMP thread "
			"counts too.")
		L.append("")
		L.append("| psi | ikpykit CPU (s) | ours Python CPU (s) | **ikpykit / Python** | ours C CPU (s) "
			"| ikpykit / C | Python before (%s) CPU (s) | ikpykit / Python before |" % (name or "-"))
		L.append("|---|---|---|---|---|---|---|---|")
		for psi in psis:
			k = "%d/%d/%d/" % (rows, t, psi)
			ik = res.get(k + "ikpykit", {}).get("cpu_seconds")
			cells = []
			for key in ("ours-python", "ours", "base-python"):
				v = res.get(k + key, {}).get("cpu_seconds")
				cells.append("%s | %s" % (fmt(v), "%.1fx" % (ik / v) if ik and v else "")
					if v else " | ")
			L.append("| %d | %s | %s |" % (psi, fmt(ik) if ik else "", " | ".join(cells)))
	L.append("")
	L.append("'full distances computed': the share of (row, centre) pairs whose full %d-dimensional "
		"distance the pruned path still computed; the rest were ruled out by a lower bound from 64 "
		"principal directions and the residual norm (one GEMM of 67 columns instead of 786). "
		"Our times include the build (sampling, scaling, the centre matrix, the principal "
		"directions and the cost model's probe)." % 784)
	OUT_MD.write_text("\n".join(L) + "\n")
	print("\n".join(L))


if __name__ == "__main__":
	sys.exit(main())
