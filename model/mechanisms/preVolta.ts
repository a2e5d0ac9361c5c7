import type { Op } from '../isa/op.ts';
import { BARRIER_KINDS } from '../isa/op.ts';
import type { Event } from '../lanes/execute.ts';
import type { Advance, Issue, OptionSpec, Policy } from './mechanism.ts';

/**
 * What every pre-Volta mechanism shares (SEMANTICS §2 "foreign-instruction policy"): the
 * `foreign` and `warpsync` options, the `check` of a WARPSYNC (a mechanism that cannot make lanes
 * wait needs every named live lane in the issue), and — for `simt-stack`, `mp-ipdom` (seed 004),
 * `dual-path`, `lcp` (seed 002 §3.10–3.11) and `opcode-convergent` — the policy itself:
 * BSSY/BSYNC/BREAK/BMOV/YIELD are no-ops by default (or `unsupported`), Fermi stack operations
 * are rejected. The token stack and the path lists give stack operations their own policy.
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
): Extract<Advance<never>, { kind: 'stop' }> | null {
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

/** The `foreign` option; `what` names the instructions it covers for this mechanism. */
export const foreignOption = (
  what = 'BSSY/BSYNC/BREAK/BMOV/YIELD, which a pre-Volta mechanism has no meaning for',
): OptionSpec => ({
  name: 'foreign',
  values: ['nop', 'reject'],
  default: 'nop',
  doc: `${what}: no-op, or verdict unsupported (SEMANTICS §2)`,
});

/** The `foreign` and `warpsync` options, as every pre-Volta mechanism spells them. */
export const PRE_VOLTA_OPTIONS: readonly OptionSpec[] = [
  foreignOption(),
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
