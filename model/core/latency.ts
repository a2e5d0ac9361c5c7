import type { Op } from '../isa/op.ts';

/**
 * Latency classes of the issue core (SEMANTICS §4; seed 002 §2.4): a result is written back
 * `latency` cycles after its instruction issues, and the scoreboard holds its destinations until
 * then. The defaults are a **decision** in the range GPGPU-Sim configures for Fermi–Volta parts
 * (ALU a few cycles, SFU tens, shared memory a few tens, global memory hundreds); every value is an
 * option (`--latency global=400,alu=6`).
 */
export type LatencyClass = 'alu' | 'sfu' | 'shared' | 'global';

export type Latencies = Readonly<Record<LatencyClass, number>>;

export const LATENCY_CLASSES: readonly LatencyClass[] = ['alu', 'sfu', 'shared', 'global'];

export const DEFAULT_LATENCIES: Latencies = { alu: 4, sfu: 20, shared: 30, global: 200 };

/** Opcodes of the special-function unit among opaque instructions. */
const SFU = new Set(['MUFU', 'RRO', 'I2F', 'F2I', 'FRND', 'POPC', 'FLO', 'BREV']);

/**
 * The class of an instruction: shared-memory loads, stores and atomics (`LDS`, `STS`, `ATOMS`)
 * → shared; every other memory access → global; SFU opcodes → sfu; the rest → alu (control
 * instructions and barrier-register writes included: seed 000 §IX-A scoreboards B registers like
 * general registers).
 */
export function latencyClassOf(op: Op, opcode: string): LatencyClass {
  switch (op.kind) {
    case 'load':
    case 'store':
    case 'atomic':
      return /^(LDS|STS|ATOMS)/.test(opcode) ? 'shared' : 'global';
    case 'opaque':
      if (SFU.has(opcode)) return 'sfu';
      return /^(LD|ST|ATOM|RED)/.test(opcode)
        ? /^(LDS|STS|ATOMS)/.test(opcode)
          ? 'shared'
          : 'global'
        : 'alu';
    default:
      return 'alu';
  }
}

/**
 * Parses `global=400,alu=6` (also `mem=` for global) over the defaults; errors name the bad part
 * and the allowed keys.
 */
export function parseLatencies(
  text: string,
): { ok: true; value: Latencies } | { ok: false; error: string } {
  const out: Record<LatencyClass, number> = { ...DEFAULT_LATENCIES };
  if (text.trim() === '') return { ok: true, value: out };
  for (const part of text.split(',')) {
    const m = /^\s*([a-z]+)\s*=\s*(\d+)\s*$/.exec(part);
    const key = m?.[1] === 'mem' ? 'global' : (m?.[1] as LatencyClass | undefined);
    if (!m || !key || !LATENCY_CLASSES.includes(key))
      return {
        ok: false,
        error: `--latency '${part}': expected CLASS=CYCLES with CLASS one of ${LATENCY_CLASSES.join(', ')} (or mem = global)`,
      };
    const v = Number(m[2]);
    if (v < 1 || v > 100_000)
      return { ok: false, error: `--latency '${part}': cycles must be between 1 and 100000` };
    out[key] = v;
  }
  return { ok: true, value: out };
}
