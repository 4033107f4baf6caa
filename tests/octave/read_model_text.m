function m = read_model_text(file)
% m = read_model_text(file): a LIBLINEAR model file read as text, by this
% test code alone (no mex function): a struct with the fields of the
% model struct (Parameters, nr_class, nr_feature, bias, Label, w, rho;
% a -s 30 model's eta line is Parameters(2)).
  solvers = {'L2R_LR', 0; 'L2R_L2LOSS_SVC_DUAL', 1; 'L2R_L2LOSS_SVC', 2; ...
             'L2R_L1LOSS_SVC_DUAL', 3; 'MCSVM_CS', 4; 'L1R_L2LOSS_SVC', 5; 'L1R_LR', 6; ...
             'L2R_LR_DUAL', 7; 'L2R_L2LOSS_SVR', 11; 'L2R_L2LOSS_SVR_DUAL', 12; ...
             'L2R_L1LOSS_SVR_DUAL', 13; 'ONECLASS_SVM', 21; 'ONLINE_OGD_HINGE', 30};
  lines = strsplit(fileread(file), "\n");
  m = struct('Parameters', [], 'nr_class', [], 'nr_feature', [], 'bias', [], ...
             'Label', zeros(0, 0), 'w', [], 'rho', 0);
  i = 1;
  while i <= numel(lines)
    words = strsplit(strtrim(lines{i}), ' ');
    i = i + 1;
    switch words{1}
      case 'solver_type'
        m.Parameters = solvers{strcmp(solvers(:, 1), words{2}), 2};
      case 'nr_class'
        m.nr_class = str2double(words{2});
      case 'label'
        m.Label = str2double(words(2:end))';
      case 'nr_feature'
        m.nr_feature = str2double(words{2});
      case 'bias'
        m.bias = str2double(words{2});
      case 'rho'
        m.rho = str2double(words{2});
      case 'eta'
        % a -s 30 model's eta (ours): the struct's Parameters is [30; eta]
        m.Parameters = [m.Parameters; str2double(words{2})];
      case 'w'
        break;
    end
  end
  if m.nr_class == 2 && m.Parameters ~= 4
    nr_w = 1;
  else
    nr_w = m.nr_class;
  end
  n = m.nr_feature + (m.bias >= 0);
  m.w = zeros(nr_w, n);
  for j = 1:n
    m.w(:, j) = str2double(strsplit(strtrim(lines{i + j - 1}), ' '))';
  end
end
