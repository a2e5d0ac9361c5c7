/**
 * A CFG as a picture-to-be: per function, its basic blocks with their instructions as printed,
 * the edges, and the reconvergence points (the IPDOM of every branch, seed 002 §2.3; SEMANTICS
 * §3.2), as plain data. `warpcheck parse --dot` (`dot.ts`) and the HTML replay view draw it.
 */
import { printInstruction } from '../isa/printProgram.ts';
import type { Program } from '../isa/program.ts';
import { ipdomTable } from './ipdom.ts';
import { VIRTUAL_EXIT, type ProgramCfg } from './programCfg.ts';

/** One instruction line of a block. */
export interface PictureLine {
  readonly pc: number;
  /** The PC as the replay views print it: the label at this PC, else the hex offset. */
  readonly pcText: string;
  readonly text: string;
  /** PCs (as text) of the branches whose IPDOM — reconvergence point — this instruction is. */
  readonly reconverges: readonly string[];
}

/** A node: a basic block, or the function's virtual exit (`id` `VIRTUAL_EXIT`, no lines). */
export interface PictureBlock {
  readonly key: string;
  readonly id: number;
  /** Labels at the block's first PC, else `B<id>`; `exit` for the virtual exit. */
  readonly title: string;
  readonly lines: readonly PictureLine[];
  readonly reachable: boolean;
}

export interface PictureEdge {
  readonly from: string;
  readonly to: string;
  /** `taken` (a branch target), `fall` (the next block), `back` (to a block at or before it). */
  readonly kind: 'taken' | 'fall' | 'back';
}

/** A dashed hint from a branch's block to its IPDOM block: where its lanes reconverge. */
export interface PictureIpdom {
  readonly from: string;
  readonly to: string;
  readonly branch: string;
}

export interface PictureFunction {
  readonly name: string;
  readonly blocks: readonly PictureBlock[];
  readonly edges: readonly PictureEdge[];
  readonly ipdoms: readonly PictureIpdom[];
}

/** The picture of every function of `cfg`; `pcText` prints PCs (labels where the program has them). */
export function cfgPicture(cfg: ProgramCfg, pcText: (pc: number) => string): PictureFunction[] {
  const program: Program = cfg.program;
  const ipdoms = ipdomTable(cfg);
  // Only branches that can send lanes two ways have a reconvergence point worth drawing (an
  // unconditional BRA's IPDOM is its target).
  const divergent = [...ipdoms].filter(([b]) => cfg.blocks[cfg.blockOf[b]!]!.succs.length > 1);
  const reconv = new Map<number, string[]>();
  for (const [branch, at] of divergent)
    if (at !== VIRTUAL_EXIT) reconv.set(at, [...(reconv.get(at) ?? []), pcText(branch)]);
  const labelsAt = new Map<number, string[]>();
  for (const l of program.labels) labelsAt.set(l.pc, [...(labelsAt.get(l.pc) ?? []), l.name]);
  return cfg.functions.map((f) => {
    const exitKey = `f${f.index}_exit`;
    const key = (b: number) => (b === VIRTUAL_EXIT ? exitKey : `b${b}`);
    const blocks: PictureBlock[] = f.blocks.map((id) => {
      const b = cfg.blocks[id]!;
      const lines: PictureLine[] = [];
      for (let pc = b.start; pc < b.end; pc++)
        lines.push({
          pc,
          pcText: pcText(pc),
          text: printInstruction(program.instructions[pc]!, pcText)
            .replace(/^\s*\/\*[0-9a-f]+\*\/\s*/, '')
            .trim(),
          reconverges: reconv.get(pc) ?? [],
        });
      const names = labelsAt.get(b.start);
      return {
        key: key(id),
        id,
        title: names ? names.join(', ') : `B${id}`,
        lines,
        reachable: b.reachable,
      };
    });
    const edges: PictureEdge[] = [];
    let exitUsed = false;
    for (const id of f.blocks) {
      const b = cfg.blocks[id]!;
      for (const s of b.succs) {
        if (s === VIRTUAL_EXIT) exitUsed = true;
        const to = s === VIRTUAL_EXIT ? null : cfg.blocks[s]!;
        const kind =
          to === null
            ? 'fall'
            : to.start <= b.start
              ? 'back'
              : to.start === b.end
                ? 'fall'
                : 'taken';
        edges.push({ from: key(id), to: key(s), kind });
      }
    }
    if (exitUsed)
      blocks.push({ key: exitKey, id: VIRTUAL_EXIT, title: 'exit', lines: [], reachable: true });
    const ipdomEdges: PictureIpdom[] = [];
    for (const [branch, at] of divergent) {
      if (branch < f.start || branch >= f.end) continue;
      const from = key(cfg.blockOf[branch]!);
      const to = at === VIRTUAL_EXIT ? exitKey : key(cfg.blockOf[at]!);
      if (to === exitKey && !exitUsed) continue;
      ipdomEdges.push({ from, to, branch: pcText(branch) });
    }
    return { name: f.name, blocks, edges, ipdoms: ipdomEdges };
  });
}
