/**
 * The Hugging Face datasets the paper profile reads, each pinned to a commit (what moves
 * numbers). Revisions come from the pins in mteb's task metadata (FollowIR) and in
 * EIT-NLP/InfoSearch's task files; `null` means we know no verified commit yet, so the
 * downloader refuses the entry until a revision is given explicitly (never a moving branch).
 */
import type { DatasetSource } from '@dv/core';

export interface HubDatasetEntry {
  repo: string;
  /** A 40-hex commit, or null when not pinned yet. */
  revision: string | null;
  layout: DatasetSource['layout'] | 'promptriever';
  /** Files to fetch (glob patterns over repo paths); all files when absent. */
  include?: readonly string[];
  note: string;
}

export const HUB_DATASETS = Object.freeze({
  'followir-robust04': {
    repo: 'jhu-clsp/robust04-instructions',
    revision: 'a5a1c4fe2bc528ac12e83f8cdf82178da85d2f1d',
    layout: 'followir-v1',
    note: 'pin of mteb Robust04InstructionRetrieval (v1 layout)',
  },
  'followir-news21': {
    repo: 'jhu-clsp/news21-instructions',
    revision: 'e0144086b45fe31ac125e9ac1a83b6a409bb6ca6',
    layout: 'followir-v1',
    note: 'pin of mteb News21InstructionRetrieval (v1 layout)',
  },
  'followir-core17': {
    repo: 'jhu-clsp/core17-instructions',
    revision: 'e39ff896cf3efbbdeeb950e6bd7c79f266995b07',
    layout: 'followir-v1',
    note: 'pin of mteb Core17InstructionRetrieval (v1 layout)',
  },
  'followir-robust04-mteb': {
    repo: 'jhu-clsp/robust04-instructions-mteb',
    revision: '0a3efedfcac0a7f859c46cff3a0fac0f8747b28f',
    layout: 'followir-v2',
    note: 'pin of mteb 2 Robust04InstructionRetrieval (InstructionReranking)',
  },
  'followir-news21-mteb': {
    repo: 'jhu-clsp/news21-instructions-mteb',
    revision: '39db677749b3b783bb277d0e2d4712f5f133f52b',
    layout: 'followir-v2',
    note: 'pin of mteb 2 News21InstructionRetrieval',
  },
  'followir-core17-mteb': {
    repo: 'jhu-clsp/core17-instructions-mteb',
    revision: '7030c7efc3585d9020f243b12862997889243b78',
    layout: 'followir-v2',
    note: 'pin of mteb 2 Core17InstructionRetrieval',
  },
  // What mteb 2 evaluates now (mteb/tasks/instruction_reranking/eng/*_instruction_retrieval.py at
  // embeddings-benchmark/mteb 0ec577c2 and a88ef4c4): mteb's own copies of the data, with the
  // instructions in the queries. For Robust04 the task file read (at 9f1c7a65) still pins
  // jhu-clsp/robust04-instructions-mteb (followir-robust04-mteb above); a mteb/Robust04InstructionRetrieval
  // repo exists, but no mteb task file pinning it was read, so it has no entry (give --repo and
  // --revision to fetch it).
  'followir-core17-mteb2': {
    repo: 'mteb/Core17InstructionRetrieval',
    revision: '67d8733dd0691f08f34ed9dda5941578cba8d91c',
    layout: 'followir-v2',
    note: 'pin of mteb 2 Core17InstructionRetrieval (mteb copy, instructions in the queries)',
  },
  'followir-news21-mteb2': {
    repo: 'mteb/News21InstructionRetrieval',
    revision: 'c6fffeb9cdd95c1ffa81c62c687b48b56352872b',
    layout: 'followir-v2',
    note: 'pin of mteb 2 News21InstructionRetrieval (mteb copy, instructions in the queries)',
  },
  'infosearch-audience': {
    repo: 'jianqunZ/Audience-v1',
    revision: '9bc73db6f3ca419c3fdb4d98e1f0864411756fc8',
    layout: 'infosearch',
    note: 'pin of EIT-NLP/InfoSearch AudienceInstructionRetrieval',
  },
  'infosearch-keyword': {
    repo: 'jianqunZ/Clarity-v1',
    revision: '4c1892c874d09877c00243fac16452f3353039aa',
    layout: 'infosearch',
    note: 'the Keyword dimension is "Clarity" in InfoSearch code; pin of its task file',
  },
  'infosearch-format': {
    repo: 'jianqunZ/Format-v1',
    revision: '63b53c9e117fa16a469026650861db77f25ab823',
    layout: 'infosearch',
    note: 'pin of EIT-NLP/InfoSearch FormatInstructionRetrieval',
  },
  'infosearch-language': {
    repo: 'jianqunZ/Language-v1',
    revision: 'd4915806662132e118e8df242aee059ef5669578',
    layout: 'infosearch',
    note: 'pin of EIT-NLP/InfoSearch LanguageInstructionRetrieval',
  },
  'infosearch-length': {
    repo: 'jianqunZ/Length-v1',
    revision: null,
    layout: 'infosearch',
    note: "InfoSearch's task file gives Language-v1's commit for Length-v1 (a copy-paste); verify before pinning",
  },
  'infosearch-source': {
    repo: 'jianqunZ/Source-v1',
    revision: '67dad8949d168785706d82f93e6794e88c8fcd2e',
    layout: 'infosearch',
    note: 'pin of EIT-NLP/InfoSearch SourceInstructionRetrieval',
  },
  'mair-queries': {
    repo: 'MAIR-Bench/MAIR-Queries',
    revision: null,
    layout: 'mair',
    note: 'files <task>/queries.jsonl; no verified commit known: pass --revision',
  },
  'mair-docs': {
    repo: 'MAIR-Bench/MAIR-Docs',
    revision: null,
    layout: 'mair',
    note: 'files <task>/docs.jsonl; no verified commit known: pass --revision',
  },
  promptriever: {
    repo: 'samaya-ai/msmarco-w-instructions',
    revision: null,
    layout: 'promptriever',
    include: ['**/*.parquet'],
    note: 'Promptriever training data (~980k rows); no verified commit known: pass --revision',
  },
} as const satisfies Record<string, HubDatasetEntry>);

export type HubDatasetName = keyof typeof HUB_DATASETS;
