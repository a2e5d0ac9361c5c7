/**
 * `node --import tsx bench/maximalReconvergence.ts [programs] [seed]`: how often each registered
 * mechanism's first-choice run gives the maximal-reconvergence logs of law P9 (issue 11), on the
 * same generated ballot programs (W = 4, 8, 32): the rows of docs/mechanisms.md, "IPDOM or
 * maximal reconvergence". Hanoi, token-stack and gcn run their compile target's output (turing,
 * fermi, gcn); the others the plain listing. One run per program: for mechanisms with choices
 * (its, mp-ipdom, …) it is one schedule, not all (P9 on its searches them all).
 */
import fc from 'fast-check';
import { parseSass } from '../model/isa/parseSass.ts';
import { loweredOf, printCompiled, targetOf } from '../model/compile/index.ts';
import { MECHANISMS } from '../model/mechanisms/registry.ts';
import { lawOptions } from '../properties/laws/campaign.ts';
import { machineOfText } from '../properties/laws/compileHelpers.ts';
import { run } from '../properties/laws/machine.ts';
import { ballotLogs } from '../properties/reconvergence/ballotLog.ts';
import { ballotKernel, type BallotKernelAst } from '../properties/reconvergence/source.ts';

const N = Number(process.argv[2] ?? 300);
const SEED = Number(process.argv[3] ?? 1);
const TARGET: Readonly<Record<string, string>> = {
  hanoi: 'turing',
  'token-stack': 'fermi',
  gcn: 'gcn',
};

function lowered(text: string, target: string | undefined): string | null {
  if (target === undefined) return text;
  const p = parseSass(text, { file: 'p9.sass' });
  if (!p.ok) return null;
  const c = targetOf(target)!.compile(p.value.program, {});
  if (!c.ok) return null;
  return printCompiled(loweredOf(c.value).program, p.value.directives) + '\n';
}

const kernels = fc.sample(ballotKernel([4, 8, 32]), { seed: SEED, numRuns: N });
console.log(`${N} ballot programs (seed ${SEED}), first-choice run per mechanism\n`);
console.log('| mechanism | code | programs | maximal | differs | no end / rejected |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const f of MECHANISMS) {
  let same = 0;
  let differ = 0;
  let other = 0;
  for (const k of kernels) {
    const want = (k.ast as BallotKernelAst).expected;
    const text = lowered(k.text, TARGET[f.id]);
    if (text === null) {
      other++;
      continue;
    }
    try {
      const r = run(machineOfText(text, f.id, lawOptions(f.id), false), 20_000);
      if (r.end !== 'terminated') other++;
      else if (JSON.stringify(ballotLogs(r.final.memory, k.warpSize)) === JSON.stringify(want))
        same++;
      else differ++;
    } catch {
      other++;
    }
  }
  const pct = (x: number) => `${x} (${((100 * x) / N).toFixed(1)} %)`;
  console.log(
    `| \`${f.id}\` | ${TARGET[f.id] ? `compiled (${TARGET[f.id]})` : 'plain'} | ${N} | ${pct(same)} | ${pct(differ)} | ${other} |`,
  );
}
