function test_exact_kernels(ctx)
% -k minmax and -k acos (issue 27) through the mex functions: the option
% rules and the negative-value refusal (naming the matrix row and the
% feature, found here independently) now; once ikmap builds these maps,
% the pair savemodel writes is the train program's byte for byte and the
% predictions equal the predict program's. Until then ikmap_build answers
% "unknown partitioning method" and only the first part runs.
  [y, X] = libsvmread(ctx.heart);
  here = fullfile(ctx.tmp, 'exact');
  mkdir(here);

  % the option rules
  expect_error(@() train(y, X, '-k minmax -g 100 -q'), 'power of two from 16 to 65536');
  expect_error(@() train(y, X, '-k 3 -g 8 -q'), 'power of two from 16 to 65536');
  expect_error(@() train(y, X, '-k acos -g 2 -q'), '-g cannot be used with -k acos');
  expect_error(@() train(y, X, '-k anne -S 5 -q'), '-S needs 0');
  expect_error(@() train(y, X, '-k acos -S 4 -q'), 'is negative: -S 4 \(log1p\)');
  expect_error(@() train(y, X, '-k acos -t 65537 -q'), 'at most 65536 samples');
  expect_error(@() train(y, X, '-k 5 -q'), '3 \(minmax\) or 4 \(acos\)');

  % a negative value: its row (in row order) and its feature
  [i, j] = find(X < 0);
  first = min(i);
  feature = min(j(i == first));
  expect_error(@() train(y, X, '-k minmax -q'), ...
    sprintf('row %d: feature %d is negative', first, feature));
  expect_error(@() train(y, X, '-k minmax -v 3 -q'), ...
    sprintf('row %d: feature %d is negative', first, feature));

  % with real maps (after the ikmap samplers are merged)
  A = abs(X);
  try
    train(y, A, '-k minmax -t 2 -g 16 -q');
  catch err
    if ~isempty(strfind(err.message, 'unknown partitioning method'))
      return;  % this build's ikmap has no minmax/acos maps yet
    end
    rethrow(err);
  end
  data = fullfile(here, 'heart_abs');
  libsvmwrite(data, y, A);
  % the same name in two folders: MODEL's trailer line names its .ik file
  mkdir(fullfile(here, 'program'));
  mkdir(fullfile(here, 'octave'));
  program_model = fullfile(here, 'program', 'm.model');
  octave_model = fullfile(here, 'octave', 'm.model');
  out = fullfile(here, 'out');
  cases = {{'-k minmax -t 30', A, data}, {'-k 3 -g 32 -S 2 -t 20', X, ctx.heart}, ...
           {'-k acos -t 40', X, ctx.heart}, {'-k 4 -S 2 -t 25 -s 0', X, ctx.heart}};
  for c = 1:numel(cases)
    options = [cases{c}{1} ' -q'];
    Xc = cases{c}{2};
    file = cases{c}{3};
    model = train(y, Xc, options);
    assert(model.nr_feature == model.ik.t * model.ik.psi, '%s: nr_feature', options);
    if ~isempty(strfind(options, 'minmax')) || ~isempty(strfind(options, '-k 3'))
      assert(strcmp(model.ik.kernel, 'minmax'), '%s: kernel', options);
    else
      assert(strcmp(model.ik.kernel, 'acos') && model.ik.psi == 2, '%s: kernel', options);
    end
    assert(model.ik.scale == 2 * ~isempty(strfind(options, '-S 2')), '%s: scale', options);
    run_program('"%s" %s "%s" "%s"', ctx.train, options, file, program_model);
    savemodel(model, octave_model);
    assert(isequal(fileread(octave_model), fileread(program_model)), '%s: MODEL differs', options);
    assert(isequal(read_bytes([octave_model '.ik']), read_bytes([program_model '.ik'])), ...
      '%s: MODEL.ik differs', options);
    assert(isequal(read_bytes([program_model '.ik']), model.ik.bytes), '%s: ik.bytes', options);
    run_program('"%s" "%s" "%s" "%s"', ctx.predict, file, program_model, out);
    assert(isequal(predict(y, Xc, model, '-q'), load(out)), '%s: predicted labels', options);
  end
end

function b = read_bytes(path)
  f = fopen(path, 'rb');
  b = fread(f, Inf, '*uint8');
  fclose(f);
end
