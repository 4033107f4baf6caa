function message = expect_error(f, pattern)
% expect_error(f, pattern): calls f() and checks that it raises an error
% whose message matches the regular expression pattern; returns the message.
  raised = false;
  try
    f();
  catch err
    raised = true;
    message = err.message;
  end
  if ~raised
    error('expected an error matching "%s", but the call succeeded', pattern);
  end
  if isempty(regexp(message, pattern, 'once'))
    error('expected an error matching "%s", got "%s"', pattern, message);
  end
end
