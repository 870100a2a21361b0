/**
 * Thrown by a backend that has no answer for a task yet (batch import before the output file
 * holds its line): the run records nothing for the seed, which stays pending for a rerun.
 */
export class TaskPending extends Error {
  override readonly name = 'TaskPending';
}
