import { describe, expect, it } from 'vitest';
import { defaultJobs } from './jobs.js';

describe('defaultJobs', () => {
  it('is 2 for the mini profile on 2 cores or more, 1 on one core and for the paper profile', () => {
    expect(defaultJobs('mini', 2)).toBe(2);
    expect(defaultJobs('mini', 16)).toBe(2);
    expect(defaultJobs('mini', 1)).toBe(1);
    expect(defaultJobs('paper', 2)).toBe(1);
    expect(defaultJobs('paper', 64)).toBe(1);
  });
});
