import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Event } from '../lanes/execute.ts';
import type { Advance, Issue, OptionSpec, Policy } from './mechanism.ts';

/**
 * The foreign-instruction policy shared by the pre-Volta multi-path mechanisms of this family —
 * `mp-ipdom` (seed 004), `dual-path` and `lcp` (seed 002 §3.10–3.11) — exactly as `simt-stack`
 * applies it (SEMANTICS §2): BSSY/BSYNC/BREAK/BMOV/YIELD are no-ops by default (or `unsupported`),
 * WARPSYNC is checked (every named live lane must be active), Fermi stack operations are rejected.
 */
export type ForeignPolicy = 'nop' | 'reject';
export type WarpsyncPolicy = 'check' | 'nop' | 'reject';

export interface PreVoltaPolicy {
  readonly foreign: ForeignPolicy;
  readonly warpsync: WarpsyncPolicy;
}

export function preVoltaPolicy(op: Op, p: PreVoltaPolicy): Policy {
  if (op.kind === 'warpsync') return p.warpsync;
  if (BARRIER_KINDS.has(op.kind) || op.kind === 'yield') return p.foreign;
  if (op.kind === 'stack-op') return 'reject';
  return 'native';
}

/**
 * SEMANTICS §2 `check`: these mechanisms cannot make lanes wait at a WARPSYNC, so every named live
 * lane must be in the issue. Null when the WARPSYNC is fine (or the event is no WARPSYNC).
 */
export function warpsyncStop(
  ev: Event,
  issue: Issue,
  exited: number,
  full: number,
  who: string,
): Advance<never> | null {
  if (ev.kind !== 'warpsync') return null;
  if (ev.named === null)
    return {
      kind: 'stop',
      verdict: 'undefined-behavior',
      message: `WARPSYNC at ${issue.pc}: active lanes name different masks`,
    };
  const missing = (ev.named & ~exited & ~issue.mask & full) >>> 0;
  return missing === 0
    ? null
    : {
        kind: 'stop',
        verdict: 'violation',
        property: 'warpsync-check',
        message: `WARPSYNC names lanes 0x${missing.toString(16)} that are live but not active here: ${who} cannot wait for them`,
      };
}

/** The `foreign` and `warpsync` options, as `simt-stack` spells them. */
export const PRE_VOLTA_OPTIONS: readonly OptionSpec[] = [
  {
    name: 'foreign',
    values: ['nop', 'reject'],
    default: 'nop',
    doc: 'BSSY/BSYNC/BREAK/BMOV/YIELD, which a pre-Volta mechanism has no meaning for: no-op, or verdict unsupported',
  },
  {
    name: 'warpsync',
    values: ['check', 'nop', 'reject'],
    default: 'check',
    doc: 'WARPSYNC: a violation unless every named live lane is active (check), a no-op, or unsupported',
  },
];

/** Reads the two options from a resolved option map. */
export const preVoltaOptions = (o: Readonly<Record<string, string>>): PreVoltaPolicy => ({
  foreign: (o['foreign'] ?? 'nop') as ForeignPolicy,
  warpsync: (o['warpsync'] ?? 'check') as WarpsyncPolicy,
});
