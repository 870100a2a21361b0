/**
 * Raised when a training step's loss or gradient norm is NaN or infinite: the step is named,
 * nothing of that step is applied, and the last good checkpoint (if any) is left in place so
 * a run can resume from it with a smaller learning rate.
 */
export class TrainingDivergedError extends Error {
  override readonly name = 'TrainingDivergedError';
  constructor(
    readonly step: number,
    readonly what: 'loss' | 'gradient norm',
    readonly value: number,
    readonly lastCheckpoint: string | undefined,
  ) {
    super(
      `training diverged at step ${step}: ${what} is ${value}; nothing of step ${step} was applied; ` +
        (lastCheckpoint
          ? `last good checkpoint: ${lastCheckpoint}`
          : 'no checkpoint was written yet (lower the learning rate or check the data)'),
    );
  }
}
