/**
 * Runtime helpers of the paper profile's section (`config.paper`). The section's schema is
 * @dv/core's `PaperSection` (the `paper` slice of the run config), its values and their
 * provenance are @dv/core's `runOverlays.paper`.
 */
import type { PaperSection } from '@dv/core';

/** The revision of dataset `name` configured in `paper.datasets` (undefined: the registry's pin). */
export function configuredRevision(paper: PaperSection, name: string): string | undefined {
  return paper.datasets.find((d) => d.name === name)?.revision;
}
