/** `cfgDot` / `cfgPicture` on seed 000 Fig. 1 (the if/else of §II), edges derived by hand. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadProgram } from '../scenario/loadProgram.ts';
import { formatterFor } from '../machine/machine.ts';
import { cfgDot } from './dot.ts';
import { cfgPicture } from './picture.ts';

const root = join(new URL('.', import.meta.url).pathname, '..', '..');
const fig1 = () => {
  const file = join(root, 'scenarios', 'seed000-fig1-if-else.sass');
  const l = loadProgram(readFileSync(file, 'utf8'), file);
  if (!l.ok) throw new Error('fig1 does not load');
  return { cfg: l.value.cfg, fmt: formatterFor(l.value.program, 4) };
};

describe('cfgPicture', () => {
  it('Fig. 1: A branches to TAKEN and falls to NOT_TAKEN; both meet at IPDOM, the IPDOM of line 2', () => {
    const { cfg, fmt } = fig1();
    const [f] = cfgPicture(cfg, fmt.pc);
    const title = new Map(f!.blocks.map((b) => [b.key, b.title]));
    const edges = f!.edges.map((e) => `${title.get(e.from)} -${e.kind}-> ${title.get(e.to)}`);
    expect(edges.sort()).toEqual(
      [
        'A -taken-> TAKEN',
        'A -fall-> NOT_TAKEN',
        // BRA IPDOM jumps over TAKEN: a taken edge, not the next block.
        'NOT_TAKEN -taken-> IPDOM',
        'TAKEN -fall-> IPDOM',
        'IPDOM -fall-> exit',
      ].sort(),
    );
    // Only the divergent branch at 0x0020 (line 2) has a reconvergence point: IPDOM (line 9).
    const reconv = f!.blocks.flatMap((b) => b.lines.filter((l) => l.reconverges.length));
    expect(reconv.map((l) => [l.pcText, l.reconverges])).toEqual([['IPDOM', ['0x0020']]]);
    expect(f!.ipdoms.map((d) => [title.get(d.from), title.get(d.to)])).toEqual([['A', 'IPDOM']]);
  });

  it('a spin loop in one block is a back edge to itself', () => {
    const file = join(root, 'scenarios', 'spinlock.sass');
    const l = loadProgram(readFileSync(file, 'utf8'), file);
    if (!l.ok) throw new Error('spinlock does not load');
    const [f] = cfgPicture(l.value.cfg, formatterFor(l.value.program, 4).pc);
    const back = f!.edges.filter((e) => e.kind === 'back');
    expect(back.length).toBeGreaterThan(0);
    expect(back.every((e) => e.from === e.to)).toBe(true);
  });
});

describe('cfgDot', () => {
  it('is a digraph whose edges join declared nodes, with valid ids', () => {
    const { cfg, fmt } = fig1();
    const dot = cfgDot(cfg, fmt.pc);
    expect(dot.startsWith('digraph cfg {')).toBe(true);
    const nodes = new Set([...dot.matchAll(/^\s+(\w+) \[label=/gm)].map((m) => m[1]));
    const edges = [...dot.matchAll(/^\s+(\S+) -> (\S+?)[ ;]/gm)].map((m) => [m[1], m[2]]);
    expect(nodes.size).toBe(5); // four blocks and the virtual exit
    for (const [a, b] of edges) {
      expect(nodes.has(a)).toBe(true);
      expect(nodes.has(b)).toBe(true);
    }
    expect(dot).toMatch(/b0 -> b3 \[style=dashed[^\]]*label="ipdom 0x0020"\]/);
    expect(dot).toContain('◆ IPDOM of 0x0020');
    // Braces balance: one graph, one cluster.
    expect(dot.split('{').length).toBe(dot.split('}').length);
  });
});
