function test_online_protocol(ctx)
% The train program's online protocol (-O 1, -b, -I, -P) and continued
% training (-i model_file, or an initial model struct argument) through
% the mex train: the same printed lines and the same model files as the
% programs (the -k pair byte for byte), the protocol's second output, the
% model's eta going on, and the refusals.
  [y, X] = libsvmread(ctx.heart);
  here = fullfile(ctx.tmp, 'protocol');
  mkdir(here);
  mkdir(fullfile(here, 'program'));
  mkdir(fullfile(here, 'octave'));
  program_model = fullfile(here, 'program', 'm');
  octave_model = fullfile(here, 'octave', 'm');
  % the protocol: lines (block lines on stderr in the program) and the model
  cases = {'-O 1 -b 50 -I 70', '-O 1 -b 50 -I 70 -c 0.25 -P 2', '-O 1 -b 40 -B 1', ...
           '-O 1 -b 60 -k iforest -g 16 -t 30', '-O 1 -b 60 -I 100 -k anne -g 16 -t 30 -B 1'};
  for c = 1:numel(cases)
    options = cases{c};
    printed = run_program('"%s" %s "%s" "%s" 2>&1', ctx.train, options, ctx.heart, program_model);
    text = evalc('[model, online] = train(y, X, options);');
    assert(strcmp(strtrim(text), strtrim(printed)), '%s: printed\n%s\nthe program\n%s', options, text, printed);
    savemodel(model, octave_model);
    same_files(octave_model, program_model, options);
    last = strsplit(strtrim(printed), "\n"){end};
    assert(~isempty(strfind(last, sprintf('Online accuracy = %g%% (%d/%d) over %d blocks after an initial %d rows', ...
      online(1), online(2), online(3), online(4), online(5)))), '%s: online = %s', options, mat2str(online));
    % -q: only the overall line
    text = evalc('quiet = train(y, X, [options '' -q'']);');
    assert(strcmp(strtrim(text), last), '%s -q: printed %s', options, text);
    assert(isequal(quiet, model), '%s -q: another model', options);
  end

  % continued training: -i FILE and the struct argument give the program's train -i
  first = fullfile(here, 'first');
  yh = y(1:120); Xh = X(1:120, :);
  y2 = y(121:end); X2 = X(121:end, :);
  part = fullfile(here, 'second_half');
  libsvmwrite(part, y2, X2);
  for start = {'-s 30 -c 0.25', '-s 30 -k iforest -g 16 -t 30', '-s 30 -B 1 -k anne -g 16 -t 30', '-s 2', '-s 0 -B 1'}
    m1 = train(yh, Xh, [start{1} ' -q']);
    savemodel(m1, first);
    for more = {'', ' -P 2', ' -c 0.5'}
      if ~isempty(more{1}) && isempty(strfind(start{1}, '-s 30'))
        continue;
      end
      run_program('"%s" -i "%s"%s -q "%s" "%s"', ctx.train, first, more{1}, part, program_model);
      from_file = train(y2, X2, ['-i ' first more{1} ' -q']);
      from_struct = train(y2, X2, [more{1} ' -q'], m1);
      from_struct_col = train(y2, X2', [more{1} ' -q'], 'col', m1);
      assert(isequal(from_file, from_struct, from_struct_col), '%s%s: -i and the struct differ', start{1}, more{1});
      savemodel(from_file, octave_model);
      same_files(octave_model, program_model, [start{1} ' then -i' more{1}]);
    end
  end
  % the model's eta goes on: -c 0.25 in two halves is -c 0.25 in one pass
  whole = train(y, X, '-s 30 -c 0.25 -q');
  halves = train(y2, X2, '-q', train(yh, Xh, '-s 30 -c 0.25 -q'));
  assert(isequal(whole, halves), 'two halves at the model''s eta');
  % -O from a model goes on with it: no initial block
  savemodel(train(yh, Xh, '-s 30 -k iforest -g 16 -t 30 -q'), first);
  printed = run_program('"%s" -O 1 -b 50 -i "%s" "%s" "%s" 2>&1', ctx.train, first, part, program_model);
  text = evalc('om = train(y2, X2, [''-O 1 -b 50 -i '' first]);');
  assert(strcmp(strtrim(text), strtrim(printed)), '-O -i: printed\n%s\nthe program\n%s', text, printed);
  savemodel(om, octave_model);
  same_files(octave_model, program_model, '-O -i');

  % -s 30 -P n -v k: each fold learns by n passes, as the program's -v prints it
  for options = {'-s 30 -P 3 -v 5', '-s 30 -P 2 -v 4 -c 0.25 -k iforest -g 16 -t 30'}
    printed = run_program('"%s" %s "%s" 2>&1', ctx.train, options{1}, ctx.heart);
    text = evalc('acc = train(y, X, options{1});');
    assert(strcmp(strtrim(text), strtrim(printed)), '%s: printed\n%s\nthe program\n%s', options{1}, text, printed);
    assert(~isempty(strfind(text, sprintf('Cross Validation Accuracy = %g%%', acc))), '%s: returned %g', options{1}, acc);
  end
  % passes matter: the program's -P 1 and -P 3 folds differ on heart
  assert(~strcmp(run_program('"%s" -s 30 -P 1 -v 5 "%s" 2>&1', ctx.train, ctx.heart), ...
                 run_program('"%s" -s 30 -P 3 -v 5 "%s" 2>&1', ctx.train, ctx.heart)), '-P 3 -v 5 is -P 1''s');

  % refusals
  m30 = train(yh, Xh, '-s 30 -q');
  m1k = train(yh, Xh, '-s 1 -q');
  expect_error(@() train(y2, X2, '-s 2 -q', m30), 'not -s 2');
  expect_error(@() train(y2, X2, '-q', m1k), 'cannot be trained further');
  expect_error(@() train(y2, X2, '-k anne -q', m30), 'its map is reused');
  expect_error(@() train(y2, X2, '-B 1 -q', m30), 'does not fit the model''s bias');
  expect_error(@() train(y2, X2, '-O 1 -q', train(yh, Xh, '-s 2 -q')), '-O goes on only from a -s 30 model');
  expect_error(@() train(y2, X2, ['-i ' first ' -q'], m30), '-i and an initial model struct');
  expect_error(@() train(y2, X2, ['-i ' first '.missing -q']), 'missing');
  expect_error(@() train(y, X, '-O 1 -s 2 -q'), 'needs the online solver -s 30');
  expect_error(@() train(y, X, '-O 1 -v 3 -q'), '-v cannot be used with -O');
  expect_error(@() train(y, X, '-O 1 -b 50 -k anne -g 64 -q'), 'psi = 64 exceeds the 50 rows');
  expect_error(@() train(y, X, '-O 2 -q'), '-O');
  expect_error(@() train(y, X, '-P 0 -s 30 -q'), '-P');
  bad = m30;
  bad.Parameters = [30; -1];
  expect_error(@() train(y2, X2, '-q', bad), 'eta of a -s 30 model');
end

function same_files(a, b, what)
  assert(isequal(text_without_trailer(a), text_without_trailer(b)), '%s: MODEL differs from the program''s', what);
  ka = [a '.ik'];
  kb = [b '.ik'];
  assert(exist(ka, 'file') == exist(kb, 'file'), '%s: one .ik only', what);
  if exist(kb, 'file')
    fa = fopen(ka, 'rb'); ba = fread(fa, Inf, '*uint8'); fclose(fa);
    fb = fopen(kb, 'rb'); bb = fread(fb, Inf, '*uint8'); fclose(fb);
    assert(isequal(ba, bb), '%s: MODEL.ik differs from the program''s', what);
  end
end

function t = text_without_trailer(file)
  lines = strsplit(fileread(file), "\n");
  t = lines(cellfun(@isempty, strfind(lines, 'ik_partitioning')));
end
