function test_programs_agree(ctx)
% Upstream's matlab/README examples and every solver on heart_scale: the
% mex train gives the model the train program writes (every field, every
% weight bit for bit), the mex predict the labels, accuracy and
% probabilities the predict program gives; -v and -C print and return what
% the program prints; 'col' gives the same as rows.
  [y, X] = libsvmread(ctx.heart);
  dir = fullfile(ctx.tmp, 'agree');
  mkdir(dir);
  file = fullfile(dir, 'heart.model');
  out = fullfile(dir, 'out');
  solvers = [0 1 2 3 4 5 6 7 11 12 13 21];
  for s = solvers
    for bias = [-1 1]
      if s == 21 && bias >= 0
        continue;  % one-class SVM refuses a bias (test_refusals)
      end
      options = sprintf('-s %d -B %d -q', s, bias);
      model = train(y, X, options);
      run_program('"%s" %s "%s" "%s"', ctx.train, options, ctx.heart, file);
      expected = read_model_text(file);
      assert(isequal(fieldnames(model), {'Parameters'; 'nr_class'; 'nr_feature'; 'bias'; ...
        'Label'; 'w'; 'rho'}), 'model fields or their order');
      for f = fieldnames(expected)'
        assert(isequal(model.(f{1}), expected.(f{1})), ...
          'options "%s": field %s differs from the train program''s model', options, f{1});
      end
      % predict: labels, the printed line, the accuracy vector
      printed = run_program('"%s" "%s" "%s" "%s"', ctx.predict, ctx.heart, file, out);
      [label, accuracy, dec] = predict(y, X, model);
      text = evalc('predict(y, X, model);');
      assert(isequal(label, load(out)), 'options "%s": predicted labels', options);
      assert(strcmp(strtrim(text), strtrim(printed)), ...
        'options "%s": printed "%s", the program "%s"', options, text, printed);
      assert(isequal(size(accuracy), [3 1]) && size(dec, 1) == numel(y));
      if any(s == [11 12 13])
        assert(strcmp(sprintf('Mean squared error = %g (regression)', accuracy(2)), ...
          strtrim(strtok(printed, "\n"))), 'MSE of -s %d', s);
      else
        assert(abs(accuracy(1) - 100 * mean(label == y)) < 1e-12, 'accuracy of -s %d', s);
      end
      % decision values: the label is the class of the largest (or its sign)
      if ~any(s == [11 12 13 21]) && size(dec, 2) > 1
        [~, best] = max(dec, [], 2);
        assert(isequal(label, model.Label(best)), 'decision values of -s %d', s);
      end
    end
  end

  % -b 1: the probabilities the program writes (%g), in Label's order
  for s = [0 6 7]
    model = train(y, X, sprintf('-s %d -q', s));
    run_program('"%s" -s %d -q "%s" "%s"', ctx.train, s, ctx.heart, file);
    run_program('"%s" -b 1 "%s" "%s" "%s"', ctx.predict, ctx.heart, file, out);
    [label, ~, prob] = predict(y, X, model, '-b 1');
    lines = strsplit(strtrim(fileread(out)), "\n");
    assert(strcmp(lines{1}, ['labels' sprintf(' %d', model.Label)]), '-b 1 header');
    for i = 1:numel(y)
      assert(strcmp(lines{i + 1}, [sprintf('%g', label(i)) sprintf(' %g', prob(i, :))]), ...
        '-s %d -b 1: row %d', s, i);
    end
    assert(max(abs(sum(prob, 2) - 1)) < 1e-12);
  end
  % -b 1 on a model without probabilities: upstream's message, decision values
  model = train(y, X, '-s 1 -q');
  text = evalc('[label, ~, dec] = predict(y, X, model, ''-b 1'');');
  assert(~isempty(strfind(text, 'probability output is only supported for logistic regression')));
  assert(size(dec, 2) == 1);

  % -v: the number printed and returned is the program's
  for options = {'-v 5', '-s 0 -v 3', '-s 11 -v 5', '-s 4 -v 4'}
    printed = run_program('"%s" %s -q "%s"', ctx.train, options{1}, ctx.heart);
    text = evalc('cv = train(y, X, [options{1} '' -q'']);');
    assert(strcmp(strtrim(text), strtrim(printed)), '%s: printed "%s", the program "%s"', ...
      options{1}, text, printed);
    assert(isscalar(cv));
    if strcmp(options{1}, '-s 11 -v 5')
      assert(~isempty(strfind(printed, sprintf('Mean squared error = %g', cv))));
    else
      assert(~isempty(strfind(printed, sprintf('Accuracy = %g%%', cv))));
    end
  end

  % -C: upstream's README example, and -s 11 (C and p)
  printed = run_program('"%s" -C -s 0 -q "%s"', ctx.train, ctx.heart);
  text = evalc('best = train(y, X, ''-C -s 0 -q'');');
  assert(strcmp(strtrim(text), strtrim(printed)), '-C -s 0: "%s" vs "%s"', text, printed);
  assert(isequal(size(best), [3 1]) && best(2) == -1);
  assert(~isempty(strfind(printed, sprintf('Best C = %g  CV accuracy = %g%%', best(1), 100 * best(3)))));
  % README: "use the best parameter to train": the program's model for the same -c
  options = sprintf('-c %f -s 0 -q', best(1));
  model = train(y, X, options);
  run_program('"%s" %s "%s" "%s"', ctx.train, options, ctx.heart, file);
  assert(isequal(model, read_model_text(file)), 'the model of the best C');
  printed = run_program('"%s" -C -s 11 -q "%s"', ctx.train, ctx.heart);
  text = evalc('best = train(y, X, ''-C -s 11 -q'');');
  assert(strcmp(strtrim(text), strtrim(printed)), '-C -s 11: "%s" vs "%s"', text, printed);
  assert(~isempty(strfind(printed, sprintf('Best C = %g Best p = %g  CV MSE = %g', best(1), best(2), best(3)))));
  text = evalc('best = train(y, X, ''-C -q'');');
  assert(~isempty(strfind(text, 'Solver not specified. Using -s 2')));

  % 'col': instances as columns
  model = train(y, X, '-s 2 -B 1 -q');
  assert(isequal(train(y, X', '-s 2 -B 1 -q', 'col'), model), 'col training');
  [label, accuracy] = predict(y, X, model);
  [label2, accuracy2] = predict(y, X', model, '-q', 'col');
  assert(isequal(label, label2) && isequal(accuracy, accuracy2), 'col prediction');

  % features beyond the model's are ignored, as upstream (a wider X predicts the same)
  wide = [X sparse(numel(y), 5, 1)];
  assert(isequal(predict(y, wide, model, '-q'), label), 'extra columns');
end
