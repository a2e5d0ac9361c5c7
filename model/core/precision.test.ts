/**
 * Precision of the scoreboards (issue 6, SEMANTICS §4): every stall is justified by a pending
 * write, by an earlier instruction of the same warp, to a register the stalled instruction reads
 * or writes — for an overlapping lane under the lane-mask scoreboard (seed 004). The dependences
 * are computed here independently of `model/isa/operands.ts` and of the scoreboard: from the
 * printed instruction text (destinations are the leading operands of instructions that write,
 * sources every register, predicate and barrier named elsewhere, the guard included). The
 * per-warp scoreboard's stalls without an overlapping lane are exactly its false stalls.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { printInstruction } from '../isa/printProgram.ts';
import { machineOf } from '../testing/run.ts';
import { divergentKernel } from '../../properties/arbitraries/kernels.ts';
import { createCore } from './core.ts';
import { simulate } from './simulate.ts';

/** Opcodes whose leading operands are destinations, and how many. */
const DESTS: Record<string, number> = { ISETP: 2, PSETP: 2, VOTE: 2, BMOV: 1 };
const NO_DEST =
  /^(ST|STS|STG|BRA|BRX|JMX|EXIT|RET|CALL|BSYNC|BREAK|WARPSYNC|YIELD|NOP|BPT|RED|MEMBAR)$/;

/** Registers (R0…R254), predicates (P0…P6) and barriers (B0…B15) named in an operand text. */
const names = (text: string): string[] =>
  [...text.matchAll(/\b(R\d+|P[0-6]|B\d+)\b/g)].map((m) => m[1]!);

function deps(text: string): { reads: Set<string>; writes: Set<string> } {
  const m = /^(@!?P[0-6T]\s+)?([A-Z0-9]+)(\.\S+)?\s*(.*?)\s*;?\s*$/.exec(
    text.replace(/\/\*[0-9a-f]+\*\//, '').trim(),
  );
  if (!m) throw new Error(`cannot read ${text}`);
  const [, guard, opcode, mods, rest] = m;
  // Split at top-level commas (not inside brackets).
  const ops: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of rest ?? '') {
    if (ch === '[') depth++;
    if (ch === ']') depth--;
    if (ch === ',' && depth === 0) {
      ops.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) ops.push(cur.trim());
  const isBmovToBarrier = opcode === 'BMOV' && /^B\d+$/.test(ops[0] ?? '');
  const n = NO_DEST.test(opcode!) ? 0 : (DESTS[opcode!] ?? 1);
  const writes = new Set(ops.slice(0, n).flatMap((o) => (o.startsWith('[') ? [] : names(o))));
  const reads = new Set([...(guard ? names(guard) : []), ...ops.slice(n).flatMap(names)]);
  // Read-modify-write forms of barrier instructions and BSSY's write of its barrier.
  if (opcode === 'BSSY') writes.add(ops[0]!);
  if (opcode === 'BREAK') for (const b of names(ops.join(','))) (writes.add(b), reads.add(b));
  if (isBmovToBarrier) writes.add(ops[0]!);
  if (mods?.includes('CLEAR')) for (const b of names(ops[1] ?? '')) writes.add(b);
  for (const w of [...writes]) if (w === 'PT' || w === 'RZ') writes.delete(w);
  return { reads, writes };
}

describe('scoreboard precision over generated kernels', () => {
  it('every stall has a pending write by the same warp to a register it names (overlapping lanes for mask); warp-only stalls are the false stalls', () => {
    fc.assert(
      fc.property(
        divergentKernel({ forwardOnly: true, maxSteps: 10 }),
        fc.constantFrom('simt-stack', 'hanoi', 'its', 'mp-ipdom', 'dual-path', 'opcode-convergent'),
        // `dual` (seed 002 §4.6): justified like `warp` (not lane-precise inside a side).
        fc.constantFrom('warp', 'mask', 'dual'),
        fc.integer({ min: 1, max: 12 }),
        ({ text }, mech, scoreboard, alu) => {
          const m = machineOf(text, mech);
          const ins = m.program.instructions.map((i) =>
            deps(printInstruction(i, (pc) => `L${pc}`)),
          );
          const r = simulate(
            createCore(m, {
              scheduler: 'lrr',
              scoreboard: scoreboard as 'warp' | 'mask' | 'dual',
              latencies: { alu, sfu: 2 * alu, shared: 3 * alu, global: 10 * alu },
              issueWidth: 1,
            }),
            { maxCycles: 20_000, timeoutMs: 5_000, record: true },
          );
          let falseStalls = 0;
          for (const st of r.stalls) {
            let anyFree = false;
            for (const c of st.candidates) {
              // Each half of a merged candidate (opcode-convergent) is checked on its own lanes.
              const halves = [{ pc: c.pc, mask: c.mask }, ...(c.merged ? [c.merged] : [])];
              let justified = false;
              let overlapping = false;
              for (const h of halves) {
                const named = new Set([...ins[h.pc]!.reads, ...ins[h.pc]!.writes]);
                for (const i of r.issues) {
                  if (i.warp !== st.warp || i.cycle >= st.cycle || i.cycle + i.latency <= st.cycle)
                    continue;
                  for (const w of [{ pc: i.pc, mask: i.mask }, ...(i.merged ? [i.merged] : [])])
                    if ([...ins[w.pc]!.writes].some((x) => named.has(x))) {
                      justified = true;
                      if ((w.mask & h.mask) !== 0) overlapping = true;
                    }
                }
              }
              expect(justified, `stall at cycle ${st.cycle}, pc ${c.pc}`).toBe(true);
              if (scoreboard === 'mask') expect(overlapping).toBe(true);
              else if (!overlapping) anyFree = true;
            }
            if (anyFree) falseStalls++;
          }
          expect(falseStalls).toBe(r.counters.falseStalls);
          // Soundness, for every scoreboard: nothing issues while an earlier instruction of its
          // warp has a pending write, for a shared lane, to a register it names.
          for (const x of r.issues)
            for (const h of [{ pc: x.pc, mask: x.mask }, ...(x.merged ? [x.merged] : [])]) {
              const named = new Set([...ins[h.pc]!.reads, ...ins[h.pc]!.writes]);
              for (const i of r.issues) {
                if (i.warp !== x.warp || i.cycle >= x.cycle || i.cycle + i.latency <= x.cycle)
                  continue;
                for (const w of [{ pc: i.pc, mask: i.mask }, ...(i.merged ? [i.merged] : [])])
                  if ((w.mask & h.mask) !== 0)
                    expect(
                      [...ins[w.pc]!.writes].some((y) => named.has(y)),
                      `issue at cycle ${x.cycle}, pc ${h.pc} over a pending write of pc ${w.pc}`,
                    ).toBe(false);
              }
            }
          expect(r.stalls.length).toBe(r.counters.stalls);
        },
      ),
      { seed: 20261122, numRuns: 120 },
    );
  });
});
