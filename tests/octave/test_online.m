function test_online(ctx)
% The online solver -s 30 (issue 23) through the mex functions: train's
% option string takes it with and without -k (eta -c, default 0.5, as the
% train program), the model is the program's (every weight bit for bit;
% the -k pair byte for byte), predict gives the predict program's labels
% and line, -v prints and returns the program's number, and -C is refused.
  [y, X] = libsvmread(ctx.heart);
  here = fullfile(ctx.tmp, 'online');
  mkdir(here);
  mkdir(fullfile(here, 'program'));
  mkdir(fullfile(here, 'octave'));
  program_model = fullfile(here, 'program', 'heart.model');
  octave_model = fullfile(here, 'octave', 'heart.model');
  out = fullfile(here, 'out');
  cases = {'-s 30', '-s 30 -B 1', '-s 30 -c 0.25 -w1 2', '-s 30 -k anne -g 16 -t 30', ...
           '-s 30 -k iforest -g 16 -t 30 -r 3'};
  for c = 1:numel(cases)
    options = [cases{c} ' -q'];
    model = train(y, X, options);
    run_program('"%s" %s "%s" "%s"', ctx.train, options, ctx.heart, program_model);
    % the solver, and the eta (-c) it was trained with, which its file keeps
    eta = 0.5;
    if ~isempty(strfind(options, '-c 0.25'))
      eta = 0.25;
    end
    assert(isequal(model.Parameters, [30; eta]), '%s: Parameters', options);
    if isempty(strfind(options, '-k'))
      expected = read_model_text(program_model);
      for f = fieldnames(expected)'
        assert(isequal(model.(f{1}), expected.(f{1})), ...
          '%s: field %s differs from the train program''s model', options, f{1});
      end
    else
      savemodel(model, octave_model);
      assert(isequal(fileread(octave_model), fileread(program_model)), '%s: MODEL differs', options);
      assert(isequal(bytes_of([octave_model '.ik']), bytes_of([program_model '.ik'])), ...
        '%s: MODEL.ik differs', options);
      assert(isequal(loadmodel(program_model), model), '%s: loadmodel', options);
    end
    % the model learnt something: not all weights zero, better than the larger class
    assert(any(model.w(:) ~= 0), '%s: all weights zero', options);
    printed = run_program('"%s" "%s" "%s" "%s"', ctx.predict, ctx.heart, program_model, out);
    text = evalc('[label, accuracy] = predict(y, X, model);');
    assert(isequal(label, load(out)), '%s: predicted labels differ from the program''s', options);
    assert(strcmp(strtrim(text), strtrim(printed)), '%s: printed "%s", program "%s"', options, text, printed);
    assert(accuracy(1) > 100 * max(mean(y == 1), mean(y == -1)), '%s: accuracy %g', options, accuracy(1));
  end
  % the default eta is 0.5: -c 0.5 gives the same model
  assert(isequal(train(y, X, '-s 30 -q'), train(y, X, '-s 30 -c 0.5 -q')), 'default eta');
  assert(~isequal(train(y, X, '-s 30 -q').w, train(y, X, '-s 30 -c 1 -q').w), '-c changes eta');

  % -v: the number printed and returned is the program's
  for options = {'-s 30 -v 5', '-s 30 -k anne -g 16 -t 30 -v 4'}
    printed = run_program('"%s" %s -q "%s"', ctx.train, options{1}, ctx.heart);
    text = evalc('cv = train(y, X, [options{1} '' -q'']);');
    assert(strcmp(strtrim(text), strtrim(printed)), '%s: printed "%s", the program "%s"', ...
      options{1}, text, printed);
    assert(~isempty(strfind(printed, sprintf('Accuracy = %g%%', cv))), '%s: returned %g', options{1}, cv);
  end
  expect_error(@() train(y, X, '-s 30 -C -q'), 'only available for -s 0, -s 2 and -s 11');
end

function b = bytes_of(file)
  f = fopen(file, 'rb');
  assert(f >= 0, 'cannot open %s', file);
  b = fread(f, Inf, '*uint8');
  fclose(f);
end
