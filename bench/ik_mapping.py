#!/usr/bin/env python3
"""bench/ik_mapping.py - speed of the Isolation Kernel map (t = 100, psi = 256).

  dense aNNE: bench/ik_mapping (C, one process) times ikmap_map of every
      row on the dense path and one OpenBLAS SGEMM of the same shape
      (rows x d x t*psi), with 1 and 2 threads (-m 1, -m 2);
  ikpykit: IsoKernel(method, n_estimators=t, max_samples=psi).fit +
      transform (in 2000-row batches) on the same rows, against our
      build + map (2 threads; numpy's OpenBLAS may use both cores too);
  sparse: rows/s of our map (auto path) on a synthetic url-like set.
Data: covtype subset (20000 x 54), usps train+test (9298 x 256), a
synthetic MNIST-like 10000 x 784 (each value nonzero with probability
0.2, uniform in (0, 1], seed 1) and a url-like 20000 rows x 1M dims,
100 nonzeros of value 1 per row at indices 1 + floor(1e6 u^3) (u uniform,
seed 1, duplicates merged), so low indices are frequent as in url.
Writes bench/results/ik-mapping.md (measurements in ik-mapping.json,
reused by a rerun unless --fresh is given). Timings are information, never
assertions; state the machine's load with them.
"""
import json
import random
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ikb_common as C  # noqa: E402

T, PSI, REPS = 100, 256, 3
TOOL = C.REPO / "bench" / "ik_mapping"
OUT_MD = C.REPO / "bench" / "results" / "ik-mapping.md"
OUT_JSON = C.REPO / "bench" / "results" / "ik-mapping.json"


def build_tool():
	subprocess.run(["make", "-C", str(C.REPO), "bench/ik_mapping"], check=True, capture_output=True)


def dense_sets():
	d = C.TMP / "map"
	sets = {}
	folder, name, _ = C.SPLITS["covtype"]
	sets["covtype 20000x54"] = C.write(C.read_lines(folder, name), d / "covtype")
	sets["usps 9298x256"] = C.write(C.read_lines("usps", "usps.train") + C.read_lines("usps", "usps.test"), d / "usps")
	path = d / "mnistlike"
	if not path.exists():
		rng = np.random.default_rng(1)
		with open(path, "w") as f:
			for _ in range(10000):
				x = rng.random(784)
				keep = np.nonzero(rng.random(784) < 0.2)[0]
				f.write("0 " + " ".join("%d:%.6g" % (j + 1, 1.0 - x[j]) for j in keep) + "\n")
	sets["synthetic 10000x784"] = str(path)
	return sets


def urllike():
	path = C.TMP / "map" / "urllike"
	if not path.exists():
		rnd = random.Random(1)
		with open(path, "w") as f:
			for _ in range(20000):
				idx = sorted({1 + int(1e6 * rnd.random() ** 3) for _ in range(100)})
				f.write("1 " + " ".join("%d:1" % j for j in idx) + "\n")
	return str(path)


def tool(path, method, threads, route):
	out = C.run([str(TOOL), path, method, str(T), str(PSI), str(threads), route, str(REPS)])
	r = dict(kv.split("=") for kv in out.split())
	return {k: (v if k == "path" else float(v)) for k, v in r.items()}


def ikpykit_time(path, method):
	from ikpykit.kernel import IsoKernel
	from sklearn.datasets import load_svmlight_file
	X = load_svmlight_file(path)[0].toarray()
	t0 = time.time()
	ik = IsoKernel(method=method, n_estimators=T, max_samples=PSI, random_state=1).fit(X)
	for i in range(0, X.shape[0], 2000):
		ik.transform(X[i:i + 2000])
	return time.time() - t0


def main():
	build_tool()
	fresh = "--fresh" in sys.argv[1:]
	res = {} if fresh or not OUT_JSON.exists() else json.loads(OUT_JSON.read_text())
	res.setdefault("load_start", C.load_average())

	def once(key, fn):
		"""Measures key unless the saved results have it (--fresh: measure all again)."""
		if key not in res:
			res[key] = fn()
			res[key.split("/")[0] + "/load"] = C.load_average()
			OUT_JSON.write_text(json.dumps(res, indent=1))
			print(key, res[key], flush=True)

	def ikpykit_or_why(path, method):
		try:
			return ikpykit_time(path, method)
		except Exception as e:
			return "failed: %s: %s" % (type(e).__name__, e)

	for label, path in dense_sets().items():
		for threads in (1, 2):
			once("%s/dense/%d" % (label, threads), lambda: tool(path, "anne", threads, "dense"))
		once("%s/auto/2" % label, lambda: tool(path, "anne", 2, "auto"))
		once("%s/iforest/2" % label, lambda: tool(path, "iforest", 2, "auto"))
		once("%s/iforest/1" % label, lambda: tool(path, "iforest", 1, "auto"))
		for method in ("anne", "iforest"):
			once("%s/ikpykit/%s" % (label, method), lambda: ikpykit_or_why(path, method))
	url = urllike()
	for threads in (1, 2):
		once("url/anne/%d" % threads, lambda: tool(url, "anne", threads, "auto"))
		once("url/iforest/%d" % threads, lambda: tool(url, "iforest", threads, "auto"))
	res["load_end"] = C.load_average()
	OUT_JSON.write_text(json.dumps(res, indent=1))
	report(res)


def report(res):
	L = ["# Isolation Kernel mapping speed (t = %d, psi = %d)" % (T, PSI), ""]
	L.append("- Machine: %s. 1-minute load average %.2f at start, %.2f at the end (other helpers' jobs "
		"share the 2 cores, so -m 2 rarely has two free cores; each ratio below compares two timings "
		"taken back to back in one process, which the load affects alike)." % (
			C.machine_line(), res["load_start"], res["load_end"]))
	L.append("- `bench/ik_mapping.py` (`make bench-ik`) driving `bench/ik_mapping.c`; best of %d repetitions. "
		"map = ikmap_map of every row (the build, ikmap_build, is listed apart); SGEMM = one cblas_sgemm "
		"rows x d x t*psi with OpenBLAS at the same thread count." % REPS)
	L.append("")
	L.append("## Dense aNNE map against one SGEMM of the same shape (target map/SGEMM <= 1.33)")
	L.append("")
	L.append("| data | threads | build (s) | map (s) | SGEMM (s) | map / SGEMM | map rows/s |")
	L.append("|---|---|---|---|---|---|---|")
	labels = [k.split("/")[0] for k in res if k.endswith("/dense/1")]
	for label in labels:
		for threads in (1, 2):
			r = res["%s/dense/%d" % (label, threads)]
			L.append("| %s | %d | %.3f | %.3f | %.3f | **%.2f** | %.0f |" % (label, threads, r["build_s"], r["map_s"],
				r["sgemm_s"], r["map_s"] / r["sgemm_s"], r["rows"] / r["map_s"]))
	L.append("")
	L.append("## -m 1 against -m 2 (map time, s; speedup = time at 1 / time at 2)")
	L.append("")
	L.append("| data | aNNE dense -m 1 | -m 2 | speedup | iForest -m 1 | -m 2 | speedup |")
	L.append("|---|---|---|---|---|---|---|")
	for label in labels + ["url"]:
		if label == "url":
			a1, a2 = res["url/anne/1"]["map_s"], res["url/anne/2"]["map_s"]
		else:
			a1, a2 = res["%s/dense/1" % label]["map_s"], res["%s/dense/2" % label]["map_s"]
		f1, f2 = res["%s/iforest/1" % label]["map_s"], res["%s/iforest/2" % label]["map_s"]
		L.append("| %s | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |" % (
			"url-like (aNNE sparse path)" if label == "url" else label, a1, a2, a1 / a2, f1, f2, f1 / f2))
	L.append("")
	L.append("## Ours against ikpykit 0.4.0 IsoKernel (fit + transform of every row)")
	L.append("")
	L.append("| data | method | ours build+map, -m 2 (s) | ikpykit (s) | speedup |")
	L.append("|---|---|---|---|---|")
	for label in labels:
		for method, key in (("anne", "auto/2"), ("iforest", "iforest/2")):
			r = res["%s/%s" % (label, key)]
			ours = r["build_s"] + r["map_s"]
			ik = res["%s/ikpykit/%s" % (label, method)]
			if isinstance(ik, str):
				L.append("| %s | %s | %.3f | %s | |" % (label, method, ours, ik))
			else:
				L.append("| %s | %s (%s path) | %.3f | %.2f | **%.2fx** |" % (label, method, r["path"], ours, ik, ik / ours)
					if method == "anne" else "| %s | %s | %.3f | %.2f | **%.2fx** |" % (label, method, ours, ik, ik / ours))
	L.append("")
	L.append("ikpykit's iForest is not the same partitioning: it grows each tree only to depth ceil(log2 psi) "
		"(sklearn's random trees with max_depth), so its leaves hold several points, while ours grows every "
		"tree until each sampled point is isolated (the Isolation Kernel papers' definition); a deeper tree "
		"costs more to build and to descend. On the synthetic 784-dim set (20%% nonzeros) the cost model "
		"picks the sparse aNNE path, which is slower here than the dense one (see the first table).")
	L.append("")
	L.append("## Sparse map: synthetic url-like, 20000 rows, 1M dims, ~100 nonzeros a row")
	L.append("")
	L.append("| method | threads | path | build (s) | map (s) | rows/s |")
	L.append("|---|---|---|---|---|---|")
	for method in ("anne", "iforest"):
		for threads in (1, 2):
			r = res["url/%s/%d" % (method, threads)]
			L.append("| %s | %d | %s | %.3f | %.3f | %.0f |" % (method, threads, r["path"] if method == "anne" else "tree",
				r["build_s"], r["map_s"], r["rows"] / r["map_s"]))
	L.append("")
	L.append("ikpykit is not run on the url-like set: it takes dense arrays only (sklearn check_array), and "
		"20000 x 1M doubles is 160 GB.")
	L.append("")
	OUT_MD.write_text("\n".join(L) + "\n")
	print("wrote", OUT_MD)


if __name__ == "__main__":
	main()
