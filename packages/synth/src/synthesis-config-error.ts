/**
 * A synthesis config that validates field by field but cannot run as a whole (an llm judge
 * without an endpoint, a threshold no answer can reach, batch-import without output files, an
 * unknown template). `field` is the `SynthesisConfig` / `SynthesisRunConfig` key at fault, so
 * a CLI can name its flag instead (`describe(flagOf)`). Thrown before anything runs.
 */
export class SynthesisConfigError extends Error {
  override readonly name = 'SynthesisConfigError';
  constructor(
    /** The config key at fault (`baseURLs`, `judgeThreshold`, `batchOutputs`, `templateId`). */
    readonly field: string,
    /** What is wrong, after the field's name ("is required for batch-import"). */
    readonly detail: string,
    /** `detail` is a whole sentence that does not start with the field's name. */
    readonly standalone = false,
  ) {
    super(standalone ? detail : `${field} ${detail}`);
  }

  /** The message with the field named as the caller knows it (e.g. its flag). */
  describe(nameOf: (field: string) => string = (f) => f): string {
    return this.standalone ? this.detail : `${nameOf(this.field)} ${this.detail}`;
  }
}
