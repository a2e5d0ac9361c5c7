/**
 * Issued instructions saved by `opcode-convergent` against `simt-stack` on generated two-path code
 * (seed 002 §5.2, Fig. 46: "on average we saved 21% on the number of executed instructions").
 *
 * Usage: node --import tsx bench/opcodeConvergent.ts [programs=200] [seed=3735928559]
 *
 * Every program runs once on each mechanism with the same schedule (both are deterministic: one
 * candidate per state), one warp of W lanes; an issue counts once whatever its mask (a merged issue
 * is one issue). Also printed: the static share of side instructions that the pass merges (as
 * Fig. 44's "percentage of mergeable instructions"), and the same run with `memory=skip`.
 */
import fc from 'fast-check';
import { opcodeConvergentPlan } from '../model/compile/opcodeConvergent.ts';
import type { Machine } from '../model/machine/machine.ts';
import { renderTwoPath, twoPathKernel } from '../model/mechanisms/opcodeConvergent.kernels.ts';
import { loadProgram, resolveLaunch } from '../model/scenario/loadProgram.ts';
import { machineFor } from '../model/scenario/session.ts';

const programs = Number(process.argv[2] ?? 200);
const seed = Number(process.argv[3] ?? 0xdeadbeef);

function machine(text: string, mechanism: string, options: Record<string, string>): Machine {
  const loaded = loadProgram(text, 'generated.sass');
  if (!loaded.ok) throw new Error(loaded.error.map((e) => e.message).join('\n'));
  const launch = resolveLaunch(loaded.value.header, {});
  if (!launch.ok) throw new Error(launch.error.join('\n'));
  const m = machineFor(loaded.value, launch.value, mechanism, options, 'ascending', false, false);
  if (!m.ok) throw new Error(m.error.join('\n'));
  return m.value;
}

/** Issues until every lane exited (deterministic mechanisms: choice 0 is the only choice). */
function issued(m: Machine): number {
  let s = m.initial();
  let n = 0;
  while (m.status(s) === 'running') {
    const t = m.successors(s)[0]!;
    if (t.stop) throw new Error(`${m.mechanism.id}: ${t.stop.verdict}: ${t.stop.message}`);
    s = t.next!;
    n++;
  }
  return n;
}

const pct = (a: number, b: number) => ((100 * a) / b).toFixed(1);

for (const warpSize of [4, 8]) {
  const sample = fc.sample(twoPathKernel({ exits: false }), { seed, numRuns: programs });
  let simt = 0;
  let oc = 0;
  let skip = 0;
  let sideUnits = 0;
  let merged = 0;
  let best = 0;
  for (const nodes of sample) {
    const text = renderTwoPath(nodes, warpSize);
    const a = issued(machine(text, 'simt-stack', {}));
    const b = issued(machine(text, 'opcode-convergent', {}));
    simt += a;
    oc += b;
    skip += issued(machine(text, 'opcode-convergent', { memory: 'skip' }));
    best = Math.max(best, (a - b) / a);
    const loaded = loadProgram(text, 'generated.sass');
    if (!loaded.ok) throw new Error('unreachable');
    const plan = opcodeConvergentPlan(loaded.value.program, loaded.value.ops);
    for (const r of plan.regions.values()) {
      sideUnits += r.takenLength + r.notTakenLength;
      merged += 2 * r.saved;
    }
  }
  console.log(
    `W=${warpSize}, ${programs} programs (seed ${seed}): simt-stack ${simt} issues, ` +
      `opcode-convergent ${oc} (${pct(simt - oc, simt)} % fewer; best program ${(100 * best).toFixed(1)} %), ` +
      `memory=skip ${skip} (${pct(simt - skip, simt)} % fewer); ` +
      `statically merged: ${pct(merged, sideUnits)} % of the instructions in the merged regions' sides`,
  );
}
