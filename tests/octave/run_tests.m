% run_tests.m - runs every tests/octave/test_*.m in octave-cli (make
% octave-check): from the repository root, with the mex files of matlab/
% built and the programs (train, predict, tools/ikmap) beside them.
% Each test is a function test_NAME(ctx) that raises an error when a
% check fails. Prints PASS/FAIL per test and exits 1 when any failed.
% Environment: LIBLINEAR_IK_DATA (the datasets; default ../shared/data),
% LIBLINEAR_IK_BIN (where the programs are; default the repository root),
% OCTAVE_TESTS (a regular expression: run only the tests it matches).
1;

function ctx = test_context()
  ctx.root = pwd;
  ctx.data = getenv('LIBLINEAR_IK_DATA');
  if isempty(ctx.data)
    ctx.data = fullfile(ctx.root, '..', 'shared', 'data');
  end
  bin = getenv('LIBLINEAR_IK_BIN');
  if isempty(bin)
    bin = ctx.root;
  end
  ctx.train = fullfile(bin, 'train');
  ctx.predict = fullfile(bin, 'predict');
  ctx.ikmap = fullfile(bin, 'tools', 'ikmap');
  if ~exist(ctx.ikmap, 'file')
    ctx.ikmap = fullfile(bin, 'ikmap', 'ikmap');  % before the programs moved to tools/
  end
  ctx.tmp = tempname();
  mkdir(ctx.tmp);
  % heart_scale (the data of upstream's matlab/README examples)
  ctx.heart = fullfile(ctx.tmp, 'heart_scale');
  status = system(sprintf('xz -dc "%s" > "%s"', fullfile(ctx.data, 'heart', 'heart.all.xz'), ctx.heart));
  if status ~= 0
    error('cannot decompress heart.all.xz from %s (set LIBLINEAR_IK_DATA)', ctx.data);
  end
end

addpath(fullfile(pwd, 'matlab'));
addpath(fullfile(pwd, 'tests', 'octave'));
ctx = test_context();
only = getenv('OCTAVE_TESTS');
files = dir(fullfile(pwd, 'tests', 'octave', 'test_*.m'));
failed = {};
started = tic;
for i = 1:numel(files)
  name = files(i).name(1:end-2);
  if ~isempty(only) && isempty(regexp(name, only, 'once'))
    continue;
  end
  t0 = tic;
  try
    % the tests' own printing (training progress) is not the report
    evalc(sprintf('%s(ctx);', name));
    printf('PASS %s (%.1f s)\n', name, toc(t0));
  catch err
    failed{end+1} = name;
    printf('FAIL %s: %s\n', name, err.message);
    for s = 1:numel(err.stack)
      printf('    at %s line %d\n', err.stack(s).name, err.stack(s).line);
    end
  end
end
confirm_recursive_rmdir(false);
rmdir(ctx.tmp, 's');
printf('octave-check: %d tests, %d failed, %.1f s\n', numel(files), numel(failed), toc(started));
exit(~isempty(failed));
