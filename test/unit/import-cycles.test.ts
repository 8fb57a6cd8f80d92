import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { cycles, importGraph } from '../helpers/import-graph.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

describe('value imports', () => {
  it('form no cycle in server/, contract/ or sdk/ (a module in a ring may be read before it is initialised)', () => {
    expect(cycles(importGraph(root, ['server', 'contract', 'sdk']))).toEqual([]);
  });

  it('the check sees a ring when there is one', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual([['a.ts', 'b.ts', 'c.ts']]);
  });
});
