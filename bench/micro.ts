/**
 * Micro-benchmarks of the explorer's inner operations, on states of the spinlock itself: what one
 * key, one successor list, one table lookup cost — and, for scale, the reference costs DESIGN.md
 * quotes (immer `produce`, an object spread, `Set` adds of numeric and string keys), measured here
 * on the same machine.
 */
import { produce } from 'immer';
import { TupleTable, VectorTable } from '../model/explore/tables.ts';
import { KeyWriter } from '../model/machine/key.ts';
import type { Machine, MachineState } from '../model/machine/machine.ts';
import { spinlockMachine } from './spinlock.ts';

export interface MicroResult {
  readonly name: string;
  /** What one operation is. */
  readonly unit: string;
  readonly nsPerOp: number;
}

/** Runs `body(i)` for `n` iterations after a warm-up; ns per iteration (best of three rounds). */
function time(n: number, body: (i: number) => unknown): number {
  let sink = 0;
  for (let i = 0; i < Math.min(n, 20_000); i++) if (body(i)) sink++;
  let best = Infinity;
  for (let round = 0; round < 3; round++) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) if (body(i)) sink++;
    const ns = Number(process.hrtime.bigint() - t0) / n;
    if (ns < best) best = ns;
  }
  if (sink === -1) console.log(sink);
  return best;
}

/** Up to `n` distinct states of `m`, breadth-first from the initial one. */
function sampleStates(m: Machine, n: number): MachineState[] {
  const seen = new Set<string>();
  const out: MachineState[] = [];
  const queue = [m.initial()];
  for (let i = 0; i < queue.length && out.length < n; i++) {
    const s = queue[i]!;
    const k = m.key(s);
    if (seen.has(k)) continue;
    seen.add(k);
    out.push(s);
    for (const t of m.successors(s)) if (t.next) queue.push(t.next);
  }
  return out;
}

export function runMicro(quick: boolean): MicroResult[] {
  const out: MicroResult[] = [];
  const n = quick ? 50_000 : 300_000;
  for (const W of [8, 32]) {
    const m = spinlockMachine({ mechanism: 'its', warpSize: W, warps: 2 });
    const states = sampleStates(m, quick ? 2_000 : 5_000);
    const at = (i: number) => states[i % states.length]!;
    const kw = new KeyWriter();
    const label = `its, spinlock W=${W} K=2`;
    out.push({
      name: `Machine.key (exact string key), ${label}`,
      unit: 'state',
      nsPerOp: time(n, (i) => m.key(at(i)).length),
    });
    out.push({
      name: `warpKey, exact, into a reused KeyWriter, ${label}`,
      unit: 'warp',
      nsPerOp: time(n, (i) => {
        kw.reset();
        m.warpKey(at(i).warps[i & 1]!, kw, false);
        return kw.length;
      }),
    });
    out.push({
      name: `warpKey, dead values left out (the explorer's), ${label}`,
      unit: 'warp',
      nsPerOp: time(n, (i) => {
        kw.reset();
        m.warpKey(at(i).warps[i & 1]!, kw, true);
        return kw.length;
      }),
    });
    const vt = new VectorTable();
    out.push({
      name: `warpKey + VectorTable.intern (mostly hits), ${label}`,
      unit: 'warp',
      nsPerOp: time(n, (i) => {
        kw.reset();
        m.warpKey(at(i).warps[i & 1]!, kw, true);
        return vt.intern(kw.buf, kw.length);
      }),
    });
    out.push({
      name: `Machine.successors (every step, new state objects), ${label}`,
      unit: 'state',
      nsPerOp: time(quick ? n / 5 : n / 2, (i) => m.successors(at(i)).length),
    });
    out.push({
      name: `Machine.warpSteps (one warp's steps: execute + advance), ${label}`,
      unit: 'warp',
      nsPerOp: time(n, (i) => {
        const s = at(i);
        return m.warpSteps(i & 1, s.warps[i & 1]!, s.memory).steps.length;
      }),
    });
  }
  // The state table at sizes past the caches: inserts, then lookups of present tuples.
  const size = quick ? 1_000_000 : 8_000_000;
  const tt = new TupleTable(3);
  const t = new Int32Array(3);
  const fill = (i: number) => {
    t[0] = i % 7001;
    t[1] = (i / 7001) | 0;
    t[2] = i & 127;
  };
  out.push({
    name: `TupleTable.intern, new tuple (${size / 1e6}M entries, growing)`,
    unit: 'state',
    nsPerOp: (() => {
      const t0 = process.hrtime.bigint();
      for (let i = 0; i < size; i++) {
        fill(i);
        tt.intern(t);
      }
      return Number(process.hrtime.bigint() - t0) / size;
    })(),
  });
  out.push({
    name: `TupleTable.intern, present tuple, random order (${size / 1e6}M entries)`,
    unit: 'lookup',
    nsPerOp: time(size, (i) => {
      fill((Math.imul(i, 0x9e3779b1) >>> 0) % size);
      return tt.intern(t);
    }),
  });
  // DESIGN.md's reference points, re-measured.
  const base = { pcs: [1, 2, 3, 4], mask: 15, depth: 3 };
  out.push({
    name: 'immer produce (one field; autoFreeze on)',
    unit: 'update',
    nsPerOp: time(n / 2, (i) =>
      produce(base, (d) => {
        d.mask = i;
      }),
    ),
  });
  out.push({
    name: 'object spread (one field)',
    unit: 'update',
    nsPerOp: time(n, (i) => ({ ...base, mask: i })),
  });
  const numSet = new Set<number>();
  out.push({
    name: 'Set<number>.add of a 53-bit hash (new entries)',
    unit: 'add',
    nsPerOp: time(n, (i) => numSet.add(i * 2654435761 + 0x1f0000000000)),
  });
  const strSet = new Set<string>();
  const pad = 'x'.repeat(50);
  out.push({
    name: 'Set<string>.add of a 60-character key built by + (new entries)',
    unit: 'add',
    nsPerOp: time(n, (i) => strSet.add(pad + i.toString(36).padStart(10, '0'))),
  });
  return out;
}
