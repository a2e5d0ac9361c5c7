/**
 * The replay view's data on seed 000 Fig. 1 (§II): issues, lane positions and expected states,
 * derived by hand from the prose — lanes 0 and 1 take the branch at line 2, 2 and 3 fall through.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadScenario } from '../../index.ts';
import { replayViewData } from './replayModel.ts';
import { replayPage } from './replayPage.ts';

const root = join(new URL('.', import.meta.url).pathname, '..', '..');

const load = (name: string) => {
  const s = loadScenario(join(root, 'scenarios', name));
  if (!s.ok) throw new Error(JSON.stringify(s.error));
  return replayViewData(s.value.machine, s.value.scenario);
};

describe('replayViewData', () => {
  it('Fig. 1: lanes 0,1 go to TAKEN and 2,3 to NOT_TAKEN at the divergence, then meet at IPDOM', () => {
    const d = load('seed000-fig1-if-else.simt-stack.json');
    const pcOf = new Map(d.cfg[0]!.blocks.flatMap((b) => b.lines.map((l) => [l.pc, l.pcText])));
    const at = (step: number) =>
      d.steps[step]!.lanes[0]!.map((pc) => (pc === null ? null : pcOf.get(pc)));
    expect(at(0)).toEqual(['A', 'A', 'A', 'A']);
    expect(at(3)).toEqual(['TAKEN', 'TAKEN', 'NOT_TAKEN', 'NOT_TAKEN']);
    // (3): the taken path ran and waits at its RPC.
    expect(at(4)).toEqual(['IPDOM', 'IPDOM', 'NOT_TAKEN', 'NOT_TAKEN']);
    expect(at(6)).toEqual(['IPDOM', 'IPDOM', 'IPDOM', 'IPDOM']);
    expect(at(8)).toEqual([null, null, null, null]);
    expect(d.steps[3]!.pcText).toBe('0x0020');
    expect(d.steps[4]!.mask).toBe('0011');
    // Every expected state of the scenario is flagged as matched, and only those steps.
    expect(d.steps.filter((s) => s.expected).map((s) => s.step)).toEqual([0, 3, 4, 5, 6, 7, 8]);
    expect(d.steps.every((s) => s.expected === null || s.expected.ok)).toBe(true);
    expect(d.loop).toBeNull();
    expect(d.verdict).toBe('terminates');
  });

  it('the spinlock (Fig. 3): the lasso from step 5 and its verdict', () => {
    const d = load('seed000-fig3-spinlock.simt-stack.json');
    expect(d.loop).toBe(5);
    expect(d.verdict).toBe('deadlock (livelock)');
    expect(d.ok).toBe(true);
  });

  it('the page embeds no external resource and no raw </script> from program text', () => {
    const html = replayPage(load('seed000-fig1-if-else.simt-stack.json'));
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html.match(/<\/script>/g)!.length).toBe(2); // the data and the script
  });
});
