import { describe, expect, it } from 'vitest';
import { parseAnswer } from './parse-answer.js';

describe('parseAnswer', () => {
  it('reads the contract form', () => {
    expect(parseAnswer('<answer><new_instruction> Only fish. </new_instruction></answer>')).toEqual({
      kind: 'instruction',
      text: 'Only fish.',
    });
  });
  it('tolerates prose, code fences and think blocks around the answer', () => {
    const raw =
      '<think>maybe <answer>None</answer></think>Sure!\n```xml\n<answer>\n  <new_instruction>I keep bees &amp; want honey.</new_instruction>\n</answer>\n```\nDone.';
    expect(parseAnswer(raw)).toEqual({ kind: 'instruction', text: 'I keep bees & want honey.' });
  });
  it('takes the last complete answer when there are several', () => {
    const raw =
      '<answer><new_instruction>draft</new_instruction></answer> wait, better: <answer><new_instruction>final one</new_instruction></answer> <answer><new_instruction>cut';
    expect(parseAnswer(raw)).toEqual({ kind: 'instruction', text: 'final one' });
  });
  it('recognises None in several spellings', () => {
    for (const raw of [
      '<answer>None</answer>',
      '<answer> none. </answer>',
      'None',
      '<answer><new_instruction>None</new_instruction></answer>',
    ])
      expect(parseAnswer(raw), raw).toEqual({ kind: 'none' });
  });
  it('accepts a bare new_instruction and CDATA', () => {
    expect(parseAnswer('Here: <new_instruction><![CDATA[Only <b> tags]]></new_instruction>')).toEqual({
      kind: 'instruction',
      text: 'Only <b> tags',
    });
  });
  it('reports the query the model wrote back', () => {
    expect(
      parseAnswer('<answer><new_query>bass fish</new_query><new_instruction>x y</new_instruction></answer>'),
    ).toEqual({
      kind: 'instruction',
      text: 'x y',
      query: 'bass fish',
    });
  });
  it('names why an answer is unparsable', () => {
    expect(parseAnswer('')).toEqual({ kind: 'unparsable', reason: 'empty-response' });
    expect(parseAnswer(null)).toEqual({ kind: 'unparsable', reason: 'empty-response' });
    expect(parseAnswer('<answer><new_instruction>Only results about')).toEqual({
      kind: 'unparsable',
      reason: 'unclosed-answer',
    });
    expect(parseAnswer('I think the answer is fish.')).toEqual({
      kind: 'unparsable',
      reason: 'no-answer-block',
    });
    expect(parseAnswer('<answer>fish</answer>')).toEqual({
      kind: 'unparsable',
      reason: 'answer-without-new-instruction',
    });
  });
});
