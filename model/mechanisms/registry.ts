import { hanoiFactory } from './hanoi.ts';
import { itsFactory } from './its.ts';
import type { MechanismFactory } from './mechanism.ts';
import { simtStackFactory } from './simtStack.ts';
import { tokenStackFactory } from './tokenStack.ts';
import { mpIpdomFactory } from './mpIpdom.ts';
import { dualPathFactory } from './dualPath.ts';
import { lcpFactory } from './lcp.ts';
import { dfsMinPcFactory } from './dfsMinPc.ts';
import { gcnFactory } from './gcn.ts';
import { bfsFactory } from './bfs.ts';
import { sortedFactory } from './sorted.ts';
import { opcodeConvergentFactory } from './opcodeConvergent.ts';
import { tbcFactory } from './tbc.ts';
import { dwfFactory } from './dwf.ts';
import { lwmFactory } from './lwm.ts';
import { dwsFactory } from './dws.ts';
import { hybridFactory } from './hybrid.ts';

/** Every registered mechanism, in the order the CLI lists them. */
export const MECHANISMS: readonly MechanismFactory[] = [
  itsFactory,
  simtStackFactory,
  hanoiFactory,
  mpIpdomFactory,
  dualPathFactory,
  lcpFactory,
  dfsMinPcFactory,
  gcnFactory,
  bfsFactory,
  sortedFactory,
  tokenStackFactory,
  opcodeConvergentFactory,
  // Block-level mechanisms (blockMechanism.ts): one state for the block's threads (up to 8 × 32).
  tbcFactory,
  dwfFactory,
  lwmFactory,
  dwsFactory,
  hybridFactory,
];

export function findMechanism(id: string): MechanismFactory | undefined {
  return MECHANISMS.find((m) => m.id === id);
}

/**
 * Checks a mechanism's options against its specs; returns the full option map (defaults filled
 * in) or the problems, each naming the allowed values.
 */
export function resolveOptions(
  f: MechanismFactory,
  given: Readonly<Record<string, string>>,
): { ok: true; options: Record<string, string> } | { ok: false; problems: string[] } {
  const problems: string[] = [];
  const options: Record<string, string> = {};
  for (const spec of f.options) options[spec.name] = spec.default;
  for (const [k, v] of Object.entries(given)) {
    const spec = f.options.find((s) => s.name === k);
    if (!spec) {
      problems.push(
        `${f.id} has no option '${k}' (options: ${f.options.map((s) => s.name).join(', ') || 'none'})`,
      );
      continue;
    }
    if (!spec.values.includes(v)) {
      problems.push(`${f.id} option ${k}=${v}: expected one of ${spec.values.join(', ')}`);
      continue;
    }
    options[k] = v;
  }
  return problems.length ? { ok: false, problems } : { ok: true, options };
}
