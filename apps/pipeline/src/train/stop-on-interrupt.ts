/**
 * A training command's Ctrl-C: the first SIGINT asks the loop to stop after the current step
 * (it writes a checkpoint, exit 130); a second one ends the process at once (checkpoints are
 * written atomically). The caller removes `onSigint` when the run ends.
 */
export function stopOnInterrupt(stderr: NodeJS.WritableStream): {
  controller: AbortController;
  onSigint: () => void;
} {
  const controller = new AbortController();
  const onSigint = () => {
    stderr.write('\nstopping after this step (checkpoint first); interrupt again to quit at once\n');
    controller.abort(new Error('interrupted'));
  };
  process.once('SIGINT', onSigint);
  return { controller, onSigint };
}
