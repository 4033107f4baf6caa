function test_kernel_models(ctx)
% -k models: the mex train gives the model the train program gives (the
% files savemodel writes are the program's, byte for byte; loadmodel of
% the program's pair is the same struct), predictions equal the predict
% program's both ways, -k with -v and -C prints and returns the program's
% numbers, and a -k model survives save/load of a .mat file.
  [y, X] = libsvmread(ctx.heart);
  here = fullfile(ctx.tmp, 'kernel');
  mkdir(here);
  mkdir(fullfile(here, 'program'));
  mkdir(fullfile(here, 'octave'));
  program_model = fullfile(here, 'program', 'heart.model');
  octave_model = fullfile(here, 'octave', 'heart.model');
  out = fullfile(here, 'out');
  out2 = fullfile(here, 'out2');
  cases = {'-k anne -g 16', '-k iforest -g 16 -t 50 -r 7', '-k anne -g 32 -S 0 -B 1 -s 0', ...
           '-k 1 -s 11 -g 8', '-k anne -s 4 -g 8', '-k iforest -s 21 -g 16'};
  for c = 1:numel(cases)
    options = [cases{c} ' -q'];
    model = train(y, X, options);
    assert(isfield(model, 'ik') && strcmp(fieldnames(model){end}, 'ik'), '%s: ik is the last field', options);
    assert(numel(fieldnames(model)) == 8);
    assert(model.nr_feature == model.ik.t * model.ik.psi, '%s: nr_feature', options);
    assert(isa(model.ik.bytes, 'uint8') && isa(model.ik.seed, 'uint64'));
    run_program('"%s" %s "%s" "%s"', ctx.train, options, ctx.heart, program_model);
    % the pair savemodel writes is the program's, byte for byte
    savemodel(model, octave_model);
    assert(isequal(fileread(octave_model), fileread(program_model)), '%s: MODEL differs', options);
    assert(isequal(read_bytes([octave_model '.ik']), read_bytes([program_model '.ik'])), ...
      '%s: MODEL.ik differs', options);
    assert(isequal(read_bytes([program_model '.ik']), model.ik.bytes), '%s: ik.bytes', options);
    % ... and loadmodel of the program's pair is the struct train gave
    assert(isequal(loadmodel(program_model), model), '%s: loadmodel', options);
    % predictions: the mex function on the struct, the program on each pair
    printed = run_program('"%s" "%s" "%s" "%s"', ctx.predict, ctx.heart, program_model, out);
    run_program('"%s" "%s" "%s" "%s"', ctx.predict, ctx.heart, octave_model, out2);
    assert(isequal(fileread(out), fileread(out2)), '%s: predict on the saved pair', options);
    text = evalc('[label, accuracy, dec] = predict(y, X, model);');
    assert(isequal(label, load(out)), '%s: predicted labels differ from the program''s', options);
    assert(strcmp(strtrim(text), strtrim(printed)), '%s: printed "%s", program "%s"', options, text, printed);
    % a wider X (features the map was not built on) predicts the same
    assert(isequal(predict(y, [X sparse(numel(y), 3, 2)], model, '-q -m 1 -d cpu'), label));
    % 'col'
    assert(isequal(predict(y, X', model, '-q', 'col'), label), '%s: col', options);
  end

  % every solver with -k: the program's pair, byte for byte, and its predictions
  for s = [0 1 2 3 4 5 6 7 11 12 13 21]
    options = sprintf('-k anne -g 16 -t 30 -s %d -q', s);
    model = train(y, X, options);
    run_program('"%s" %s "%s" "%s"', ctx.train, options, ctx.heart, program_model);
    savemodel(model, octave_model);
    assert(isequal(fileread(octave_model), fileread(program_model)), '%s: MODEL differs', options);
    run_program('"%s" "%s" "%s" "%s"', ctx.predict, ctx.heart, program_model, out);
    assert(isequal(predict(y, X, model, '-q'), load(out)), '%s: predicted labels', options);
  end

  % -b 1 on a -k logistic model: the program's probabilities
  model = train(y, X, '-k anne -g 16 -s 0 -q');
  run_program('"%s" -k anne -g 16 -s 0 -q "%s" "%s"', ctx.train, ctx.heart, program_model);
  run_program('"%s" -b 1 "%s" "%s" "%s"', ctx.predict, ctx.heart, program_model, out);
  [label, ~, prob] = predict(y, X, model, '-b 1 -q');
  lines = strsplit(strtrim(fileread(out)), "\n");
  for i = 1:numel(y)
    assert(strcmp(lines{i + 1}, [sprintf('%g', label(i)) sprintf(' %g', prob(i, :))]), '-k -b 1: row %d', i);
  end

  % -k with -v and -C: the program's lines and numbers
  for options = {'-k anne -g 16 -v 5', '-k iforest -g 8 -s 11 -v 3', '-C -k anne -s 0', ...
                 '-C -k anne -s 2 -g 16', '-C -k iforest -s 11 -g 8'}
    % -C -k: the program's staged search (lik_search); the mex prints the program's lines
    % but its last one ("best model: train ...", which names files); the seconds of the psi
    % lines vary from run to run
    printed = run_program('"%s" %s -q "%s"', ctx.train, options{1}, ctx.heart);
    text = evalc('result = train(y, X, [options{1} '' -q'']);');
    if strncmp(options{1}, '-C', 2)
      lines = strsplit(strtrim(printed), "\n");
      assert(strncmp(lines{end}, 'best model: ', 12), '%s: the program''s last line', options{1});
      printed = strjoin(lines(1:end - 1), "\n");
      printed = regexprep(printed, ', [0-9.]+ s\)', ', S s)');
      text = regexprep(text, ', [0-9.]+ s\)', ', S s)');
    end
    assert(strcmp(strtrim(text), strtrim(printed)), '%s: printed "%s", the program "%s"', ...
      options{1}, text, printed);
    if strncmp(options{1}, '-C', 2)
      assert(isequal(size(result), [4 1]), '-C -k returns [C; p; score; psi]');
      assert(~isempty(strfind(printed, sprintf('Best psi = %d  Best C = %g', result(4), result(1)))));
      % the second output: the search's table, one row per psi line and the plain baseline last
      evalc('[again, table] = train(y, X, [options{1} '' -q'']);');
      assert(isequal(again, result), '%s: the same search twice', options{1});
      assert(size(table, 2) == 6 && table(end, 1) == 0 && sum(table(:, 1) == 0) == 1, ...
        '%s: [psi rows C p score seconds], the plain baseline last', options{1});
      assert(size(table, 1) - 1 == numel(regexp(printed, '^psi = ', 'lineanchors')), '%s: a row per psi line', ...
        options{1});
      chosen = table(:, 1) == result(4) & table(:, 2) == numel(y) & table(:, 3) == result(1) ...
        & table(:, 5) == result(3);
      assert(any(chosen), '%s: the best row is in the table', options{1});
    else
      assert(isscalar(result));
    end
  end

  % -C -k auto: the program's candidate lines and summary (its "best model:" line aside), the
  % choice's [C; p; score; psi], and the table [kernel t psi S w C score se rows stage seconds
  % columns ops], a row per candidate line; -k auto without -C is refused
  printed = run_program('"%s" -C -k auto -t 30 -s 2 -q "%s"', ctx.train, ctx.heart);
  [result, table] = train(y, X, '-C -k auto -t 30 -s 2 -q');
  text = evalc('train(y, X, ''-C -k auto -t 30 -s 2 -q'');');
  lines = strsplit(strtrim(printed), "\n");
  assert(strncmp(lines{end}, 'best model: ', 12), '-C -k auto: the program''s last line');
  printed = regexprep(strjoin(lines(1:end - 1), "\n"), ', [0-9.]+ s\)', ', S s)');
  text = regexprep(text, ', [0-9.]+ s\)', ', S s)');
  assert(strcmp(strtrim(text), strtrim(printed)), '-C -k auto: printed "%s", the program "%s"', text, printed);
  assert(isequal(size(result), [4 1]) && result(2) == -1);
  assert(size(table, 2) == 13 && size(table, 1) == numel(regexp(printed, '^kernel = ', 'lineanchors')));
  assert(isequal(table(1:5, 1)', [0 1 2 3 4]), '-C -k auto: plain linear, then every kernel');
  assert(all(table(table(:, 1) > 0, 2) == 30) && all(table(1:5, 5) == 0), '-C -k auto: t fixed, w 0 in stage 1');
  assert(isequal(unique(table(:, 5))', [0 0.3 1]), '-C -k auto: stage 2 tries w = 0.3 and 1');
  % -a fixes every kernel candidate's w (plain linear has none)
  [~, fixed] = train(y, X, '-C -k auto -t 30 -s 2 -a 0.3 -q');
  assert(all(fixed(fixed(:, 1) > 0, 5) == 0.3) && all(fixed(fixed(:, 1) == 0, 5) == 0), '-C -k auto -a 0.3: w fixed');
  assert(any(table(:, 3) == result(4) & table(:, 6) == result(1) & table(:, 7) == result(3)));
  expect_error(@() train(y, X, '-k auto -q'), '-k auto needs -C');

  % .mat round trips (MATLAB's binary format, and Octave's own)
  model = train(y, X, '-k anne -g 16 -B 1 -q');
  [label, accuracy, dec] = predict(y, X, model, '-q');
  for format = {'-v7', '-v6', '-binary', '-text'}
    mat = fullfile(here, 'model.mat');
    save(format{1}, mat, 'model');
    saved = model;
    clear model;
    load(mat, 'model');
    assert(isequal(model, saved), '%s: the struct after load', format{1});
    assert(isa(model.ik.bytes, 'uint8') && isa(model.ik.seed, 'uint64'), '%s: types', format{1});
    [label2, accuracy2, dec2] = predict(y, X, model, '-q');
    assert(isequal(label2, label) && isequal(accuracy2, accuracy) && isequal(dec2, dec), ...
      '%s: predictions after load', format{1});
  end

  % the plain part of a -k model is upstream's seven fields: a plain model has no ik
  plain = train(y, X, '-q');
  assert(~isfield(plain, 'ik'));
  savemodel(plain, octave_model);
  assert(~exist([octave_model '.ik'], 'file'), 'a plain savemodel removes a stale MODEL.ik');
  assert(isequal(loadmodel(octave_model), plain));
end

function b = read_bytes(file)
  fid = fopen(file, 'r');
  b = fread(fid, Inf, 'uint8=>uint8');
  fclose(fid);
end
