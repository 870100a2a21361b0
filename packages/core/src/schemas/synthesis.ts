/**
 * Synthesis request and record: one LLM (or offline reverser) call that writes a complementary
 * instruction I' under which the chosen instruction negative D- becomes relevant and D+ does not.
 *
 * `key` is the content hash of everything that determines the answer (seed, negative, template,
 * model, sampling settings), so a resumed or sharded run never asks twice.
 */
import { z } from 'zod';

export const TokenUsage = z.object({
  promptTokens: z.number().int().nonnegative().default(0),
  completionTokens: z.number().int().nonnegative().default(0),
  totalTokens: z.number().int().nonnegative().default(0),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const ChatMessage = z.object({
  role: z.enum(['system', 'user', 'assistant']),
  content: z.string(),
});
export type ChatMessage = z.infer<typeof ChatMessage>;

export const SynthesisRequest = z.object({
  key: z.string().min(1),
  seedId: z.string().min(1),
  /** docid of the instruction negative that should become relevant. */
  negativeDocid: z.string().min(1),
  templateId: z.string().min(1),
  templateVersion: z.string().min(1),
  promptHash: z.string().min(1),
  messages: z.array(ChatMessage).min(1),
  model: z.string().min(1),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().positive().optional(),
});
export type SynthesisRequest = z.infer<typeof SynthesisRequest>;

export const SynthesisStatus = z.enum([
  /** I' written, passed guardrails (and verification when enabled). */
  'accepted',
  /** The model answered `None`: judged too hard to reverse. */
  'none',
  /** I' written but a guardrail or the verifier rejected it; `reason` names which. */
  'rejected',
  /** No usable answer (transport error, unparsable output after retries). */
  'failed',
]);
export type SynthesisStatus = z.infer<typeof SynthesisStatus>;

export const Verification = z.object({
  judge: z.string().min(1),
  score: z.number(),
  threshold: z.number(),
  passed: z.boolean(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type Verification = z.infer<typeof Verification>;

export const SynthesisRecord = z
  .object({
    key: z.string().min(1),
    seedId: z.string().min(1),
    negativeDocid: z.string().min(1),
    status: SynthesisStatus,
    newInstruction: z.string().nullable(),
    reason: z.string().nullable().default(null),
    backend: z.string().min(1),
    model: z.string().min(1),
    templateId: z.string().min(1),
    templateVersion: z.string().min(1),
    promptHash: z.string().min(1),
    raw: z.string().optional(),
    lever: z.string().optional(),
    usage: TokenUsage.default({ promptTokens: 0, completionTokens: 0, totalTokens: 0 }),
    verification: Verification.optional(),
    /**
     * The key this record was decided under (parse, guardrails, verdict: @dv/synth
     * run/decision-key.ts); absent on records that were not decided or predate it.
     */
    decisionKey: z.string().optional(),
    attempts: z.number().int().positive().default(1),
    createdAt: z.string(),
  })
  .refine((r) => r.status !== 'accepted' || (r.newInstruction !== null && r.newInstruction.trim() !== ''), {
    message: 'an accepted record must carry a non-empty newInstruction',
    path: ['newInstruction'],
  })
  .refine((r) => r.status === 'accepted' || r.reason !== null, {
    message: 'a record that is not accepted must say why (reason)',
    path: ['reason'],
  });
export type SynthesisRecord = z.infer<typeof SynthesisRecord>;
