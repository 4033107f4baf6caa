#!/bin/sh
# bench/gpu_session.sh - everything one lent GPU call runs, in one script
# (bench/results/README-gpu.md, "The whole GPU check"): the device unit
# tests, compute-sanitizer on them, tests/gpu_check.sh (-d gpu against
# -d cpu, byte for byte, on every dataset), the mapping benchmark and an
# end-to-end `train -k anne` on an MNIST-like 70000 x 784 set, -d cpu
# against -d gpu, in the same call.
#
# Usage (repository root of a checkout carried with build/gpu and the built
# programs; $OUT, where the device tool collects files, defaults to ./out):
#   sh bench/gpu_session.sh
# Each step has its own time limit so that a slow step cannot starve the
# ones after it; every log goes under $OUT and the summary is printed last.
# End to end on a 70000 x 784 image-like set (bench/make_images.py).
e2e() {
	python3 bench/make_images.py /tmp/img --rows 70000 || return 1
	for device in cpu gpu cpu gpu; do
		mkdir -p /tmp/e2e_$device
		s=$(date +%s.%N)
		(cd /tmp/e2e_$device && "$OLDPWD/train" -q -k anne -d $device /tmp/img.libsvm m) || return 1
		e=$(date +%s.%N)
		echo "train -k anne -d $device (t 100, psi 256, -s 1, $(nproc) threads): $(awk "BEGIN { print $e - $s }") s"
	done
	cmp /tmp/e2e_cpu/m /tmp/e2e_gpu/m && cmp /tmp/e2e_cpu/m.ik /tmp/e2e_gpu/m.ik && echo "SAME model and .ik"
}
if [ "$1" = e2e ]; then e2e; exit $?; fi

out=${OUT:-./out}
mkdir -p "$out"
export LD_LIBRARY_PATH="$PWD/build/gpu/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# cuBLAS: the mapper opens it from the toolkit's lib64; where the toolkit is
# elsewhere, Python's nvidia-cublas wheel has it.
if ! test -f /usr/local/cuda/lib64/libcublas.so.13; then
	extra=$(python3 -c "import nvidia.cublas, os; print(os.path.dirname(nvidia.cublas.__file__) + '/lib')" 2>/dev/null)
	test -n "$extra" && LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$extra"
fi
step() { # step NAME SECONDS COMMAND...: run, log to $out/NAME.txt, time it
	name=$1; limit=$2; shift 2
	start=$(date +%s.%N)
	timeout "$limit" "$@" >"$out/$name.txt" 2>&1
	rc=$?
	end=$(date +%s.%N)
	printf '%-16s rc=%-3s %6.1f s\n' "$name" "$rc" "$(awk "BEGIN { print $end - $start }")" | tee -a "$out/summary.txt"
	return $rc
}
: >"$out/summary.txt"
{ nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv; nproc; } >"$out/device.txt" 2>&1

step test_ikmap_gpu 45 ./tests/unit/test_ikmap_gpu
step test_anne_gpu 60 ./tests/unit/test_anne_gpu
step gpu_check 120 sh tests/gpu_check.sh build/gpu/data

step e2e 90 sh "$0" e2e
step gpu_map 120 ./bench/gpu_map
# The sanitizers last: they may be slow or refused, and nothing waits on them.
export CK_FORK=no
for tool in memcheck racecheck synccheck; do
	step "sanitize_$tool" 40 compute-sanitizer --tool $tool --error-exitcode 9 ./tests/unit/test_anne_gpu
done

cat "$out/device.txt"
for f in test_ikmap_gpu test_anne_gpu; do echo "== $f"; grep -E 'SKIPPED|Checks:|device:|Failure|Error' "$out/$f.txt" | tail -12; done
echo "== gpu_check"; tail -30 "$out/gpu_check.txt"
echo "== e2e"; tail -6 "$out/e2e.txt"
echo "== gpu_map"; cat "$out/gpu_map.txt" | tail -20
for tool in memcheck racecheck synccheck; do echo "== $tool"; grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|not supported|Error' "$out/sanitize_$tool.txt" | tail -3; done
echo "== summary"; cat "$out/summary.txt"
