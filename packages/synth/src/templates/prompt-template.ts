/**
 * The shape of a prompt template: an id and a version (both recorded on every synthesis record)
 * and a pure `render` from the seed's texts to chat messages.
 */
import type { ChatMessage } from '@dv/core';

export interface TemplatePassage {
  title?: string;
  text: string;
}

/** What a polarity-reversal prompt is filled with (Appendix A's inputs). */
export interface TemplateInput {
  query: string;
  instruction: string;
  positive: TemplatePassage;
  /** The specified instruction negative D- that should become relevant. */
  target: TemplatePassage;
  /** The remaining instruction negatives (may be empty); they must stay negatives. */
  otherNegatives: TemplatePassage[];
}

export interface PromptTemplate {
  readonly id: string;
  readonly version: string;
  readonly description: string;
  render(input: TemplateInput): ChatMessage[];
}
