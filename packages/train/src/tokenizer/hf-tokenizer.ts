/**
 * A Hugging Face tokenizer (`tokenizer.json`) through the `tokenizers` package (the Rust
 * library's Node binding), with the batch shape the encoders take: ids, attention mask and
 * token type ids as rectangular arrays.
 *
 * Truncation and padding are stated per call (`EncodeOptions`) and replace whatever the file
 * configures, so the same file gives the same ids in training, export and evaluation.
 * Padding: `longest` (default) pads to the longest sequence in the batch, `max-length` to
 * `maxLength`; `padToMultipleOf` rounds the padded length up. Pair inputs `[a, b]` are encoded
 * with the file's post-processor (BERT: `[CLS] a [SEP] b [SEP]`, token types 0/1).
 */
import { readFileSync } from 'node:fs';
import { DataError } from '@dv/core';
import { type Encoding, Tokenizer } from 'tokenizers';

export type TextInput = string | readonly [string, string];

export interface EncodeOptions {
  /** Truncate each encoding to at most this many tokens, special tokens included. */
  maxLength?: number;
  padding?: 'longest' | 'max-length' | 'none';
  padToMultipleOf?: number;
  /** Add the post-processor's special tokens (default true). */
  addSpecialTokens?: boolean;
}

export interface EncodedBatch {
  inputIds: number[][];
  attentionMask: number[][];
  tokenTypeIds: number[][];
  tokens: string[][];
}

export class HfTokenizer {
  readonly padId: number;
  readonly padToken: string;

  private constructor(
    private readonly inner: Tokenizer,
    /** The tokenizer.json text this was loaded from, kept for export. */
    readonly json: string,
  ) {
    const parsed = JSON.parse(json) as { padding?: { pad_id?: number; pad_token?: string } | null };
    const candidates = [parsed.padding?.pad_token, '[PAD]', '<pad>'].filter((t): t is string => !!t);
    const found = candidates.find((t) => inner.tokenToId(t) !== null);
    this.padToken = found ?? '[PAD]';
    this.padId = parsed.padding?.pad_id ?? (found ? inner.tokenToId(found)! : 0);
  }

  static fromJson(json: string): HfTokenizer {
    return new HfTokenizer(Tokenizer.fromString(json), json);
  }

  /**
   * Loads a `tokenizer.json`. Every way the file can be wrong is a `DataError` naming it: missing
   * or unreadable, not JSON, JSON that is not a tokenizer (no `model` section), or a tokenizer
   * the tokenizers library refuses.
   */
  static fromFile(path: string): HfTokenizer {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      throw new DataError(`cannot read the tokenizer (${e.code ?? e.message})`, path);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new DataError(`not JSON, so not a tokenizer.json (${(err as Error).message})`, path);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !('model' in parsed))
      throw new DataError('JSON, but not a Hugging Face tokenizer.json (it has no "model" section)', path);
    try {
      return HfTokenizer.fromJson(text);
    } catch (err) {
      throw new DataError(`the tokenizers library cannot load it: ${(err as Error).message}`, path);
    }
  }

  get vocabSize(): number {
    return this.inner.getVocabSize(true);
  }

  tokenToId(token: string): number | undefined {
    return this.inner.tokenToId(token) ?? undefined;
  }

  idToToken(id: number): string | undefined {
    return this.inner.idToToken(id) ?? undefined;
  }

  async decode(ids: number[], skipSpecialTokens = true): Promise<string> {
    return this.inner.decode(ids, skipSpecialTokens);
  }

  async encode(inputs: readonly TextInput[], options: EncodeOptions = {}): Promise<EncodedBatch> {
    const { maxLength, padding = 'longest', padToMultipleOf, addSpecialTokens = true } = options;
    if (padding === 'max-length' && maxLength === undefined)
      throw new Error("padding 'max-length' needs maxLength");
    if (maxLength !== undefined) this.inner.setTruncation(maxLength);
    else this.inner.disableTruncation();
    if (padding === 'none') this.inner.disablePadding();
    else
      this.inner.setPadding({
        padId: this.padId,
        padToken: this.padToken,
        ...(padding === 'max-length' ? { maxLength } : {}),
        ...(padToMultipleOf ? { padToMultipleOf } : {}),
      });
    let encodings: Encoding[];
    if (inputs.every((x) => typeof x === 'string')) {
      encodings = await this.inner.encodeBatch(inputs as string[], { addSpecialTokens });
    } else {
      // encodeBatch takes single texts only: encode pairs one by one, then pad them together.
      this.inner.disablePadding();
      encodings = await Promise.all(
        inputs.map((x) =>
          typeof x === 'string'
            ? this.inner.encode(x, null, { addSpecialTokens })
            : this.inner.encode(x[0], x[1], { addSpecialTokens }),
        ),
      );
      if (padding !== 'none') {
        let len = padding === 'max-length' ? maxLength! : Math.max(...encodings.map((e) => e.getLength()));
        if (padToMultipleOf) len = Math.ceil(len / padToMultipleOf) * padToMultipleOf;
        for (const e of encodings) e.pad(len, { padId: this.padId, padToken: this.padToken, padTypeId: 0 });
      }
    }
    return {
      inputIds: encodings.map((e) => e.getIds()),
      attentionMask: encodings.map((e) => e.getAttentionMask()),
      tokenTypeIds: encodings.map((e) => e.getTypeIds()),
      tokens: encodings.map((e) => e.getTokens()),
    };
  }
}
