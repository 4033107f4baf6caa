#!/bin/sh
# octave_memory.sh - peak memory of the mex train on a 100,000 x 1,000
# sparse X (issue 20: X is not copied more than once), against the train
# program on the same data. From the repository root, after `make octave`:
#   sh bench/octave_memory.sh [density] [options...]   (default 0.05, -s 1)
# Prints one line per measurement; bench/results/octave-memory.md holds
# the numbers of a run. Needs octave-cli, /usr/bin/time and a few hundred
# MB in $TMPDIR.
set -eu
density=${1:-0.05}
[ $# -gt 0 ] && shift
options=${*:--s 1}
work=$(mktemp -d "${TMPDIR:-/tmp}/octave_memory.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$(pwd)
export OCTAVE_HISTFILE=/dev/null	# see the octave-check rule in the Makefile

# The data: X = sprand (fixed seed), labels from a random hyperplane;
# saved for Octave (binary) and as LIBSVM text for the program.
octave-cli --no-gui --norc --quiet --eval "
  addpath('$root/matlab');
  rand('state', 1); randn('state', 1);
  X = sprand(100000, 1000, $density);
  y = sign(X * randn(1000, 1) + 0.1 * randn(100000, 1));
  y(y == 0) = 1;
  save('-binary', '$work/data.bin', 'X', 'y');
  libsvmwrite('$work/data.txt', y, X);
  printf('data: %d x %d, %d nonzeros, %.1f MB as Octave stores it (16 bytes a nonzero + 8 a column)\n', ...
    rows(X), columns(X), nnz(X), (16 * nnz(X) + 8 * (columns(X) + 1)) / 2^20);
"

# The mex train in a process that holds X: its peak resident memory is
# reset (/proc/self/clear_refs) after X is loaded, so the peak during
# train() is what training adds.
octave-cli --no-gui --norc --quiet --eval "
  addpath('$root/matlab');
  load('$work/data.bin');
  function kb = status_kb(field)
    text = fileread('/proc/self/status');
    kb = str2double(regexp(text, [field ':\s*(\d+)'], 'tokens', 'once'){1});
  end
  base = status_kb('VmRSS');
  fid = fopen('/proc/self/clear_refs', 'w'); fprintf(fid, '5'); fclose(fid);
  t0 = tic; model = train(y, X, '$options -q'); seconds = toc(t0);
  peak = status_kb('VmHWM');
  printf('mex train $options: resident before %.1f MB (Octave with X and y), peak during train %.1f MB: +%.1f MB, %.1f s\n', ...
    base / 1024, peak / 1024, (peak - base) / 1024, seconds);
"

# The program on the same data (it reads the text file itself).
/usr/bin/time -f '%M %e' -o "$work/time" "$root/train" $options -q "$work/data.txt" "$work/model" >/dev/null
read -r kb seconds < "$work/time"
echo "train program $options: peak resident $(echo "$kb" | awk '{printf "%.1f", $1 / 1024}') MB, ${seconds} s"
