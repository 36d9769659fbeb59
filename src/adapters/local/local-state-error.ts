/**
 * Local peers cannot use their state in the work directory. The message is one line that names the file or
 * directory and says what to do, so the CLI prints it as it is, without a stack trace.
 */
export class LocalStateError extends Error {
  override name = 'LocalStateError';
}

/** Another live process (or this one) already runs local peers on the work directory. */
export class WorkDirBusyError extends LocalStateError {
  override name = 'WorkDirBusyError';
}
