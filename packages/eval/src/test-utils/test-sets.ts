/**
 * Tiny InstructedSets for tests (FollowIR form with candidates, InfoSearch form with three
 * modes, MAIR form with og only), generated deterministically. Not part of the public API.
 */
import type { InstructedSet } from '@dv/core';

const m = (entries: Array<[string, number]>) => new Map(entries);

/** "bass": d1 is the fish (relevant under og, not under changed), d2 the instrument. */
export function tinyFollowIrSet(name = 'mini-followir'): InstructedSet {
  return {
    name,
    corpus: [
      { docid: 'd1', title: 'bass', text: 'bass is a freshwater fish caught in lakes' },
      { docid: 'd2', title: 'bass', text: 'bass guitar is a string instrument' },
      { docid: 'd3', title: 'trout', text: 'trout is a freshwater fish' },
      { docid: 'd4', title: 'viola', text: 'viola is a string instrument' },
    ],
    queries: [
      {
        id: 'q1',
        query: 'bass',
        instructions: { og: 'Any sense: fish or instrument.', changed: 'Only the instrument, not the fish.' },
      },
      {
        id: 'q2',
        query: 'freshwater fish',
        instructions: { og: 'Any fish.', changed: 'Only trout.' },
      },
    ],
    qrels: {
      og: new Map([
        [
          'q1',
          m([
            ['d1', 1],
            ['d2', 1],
          ]),
        ],
        [
          'q2',
          m([
            ['d1', 1],
            ['d3', 1],
          ]),
        ],
      ]),
      changed: new Map([
        [
          'q1',
          m([
            ['d1', 0],
            ['d2', 1],
          ]),
        ],
        [
          'q2',
          m([
            ['d1', 0],
            ['d3', 1],
          ]),
        ],
      ]),
    },
    candidates: new Map([
      ['q1', ['d1', 'd2', 'd3', 'd4']],
      ['q2', ['d1', 'd2', 'd3', 'd4']],
    ]),
    origin: 'test',
  };
}

export function tinyInfoSearchSet(): InstructedSet {
  const f = tinyFollowIrSet('InfoSearch-Tiny');
  return {
    ...f,
    candidates: undefined,
    queries: f.queries.map((q) => ({
      ...q,
      instructions: { og: null, changed: q.instructions.changed, reversed: 'Not that.' },
    })),
    qrels: { ...f.qrels, reversed: f.qrels.og },
  };
}

export function tinyMairSet(): InstructedSet {
  const f = tinyFollowIrSet('MAIR-Tiny');
  return {
    ...f,
    candidates: undefined,
    queries: f.queries.map((q) => ({ ...q, instructions: { og: q.instructions.og } })),
    qrels: { og: f.qrels.og },
  };
}
