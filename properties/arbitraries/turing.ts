/**
 * Small Turing programs laid out as NVIDIA's compiler does (seed 000 §VI; `../shared/sass`):
 * every if/else is a BSSY region whose BSYNC sits right before the BSSY target; lanes that leave a
 * region early BREAK out of it first; nested regions may reuse the outer register after spilling
 * it with BMOV (seed 000 Fig. 5); WARPSYNC names exactly the lanes that can reach it; YIELD and
 * early EXIT appear anywhere. Warp size 4; the prefix sets P0 = lanes 1,3, P1 = lanes 2,3,
 * P2 = lane 0, so which lanes reach each block is known statically.
 */
import fc from 'fast-check';

export type Node =
  | { readonly kind: 'add' }
  | { readonly kind: 'yield' }
  | { readonly kind: 'exit'; readonly pred: number }
  | { readonly kind: 'warpsync'; readonly full: boolean }
  | {
      readonly kind: 'if';
      readonly pred: number;
      readonly then: readonly Node[];
      readonly else: readonly Node[];
      readonly spill: boolean;
    }
  /** An if/else with no BSSY region that reconverges at a WARPSYNC (`__syncwarp()`, seed 000 Fig. 4). */
  | {
      readonly kind: 'syncif';
      readonly pred: number;
      readonly then: readonly Node[];
      readonly else: readonly Node[];
    }
  | { readonly kind: 'break'; readonly pred: number };

const PRED_MASKS = [0b1010, 0b1100, 0b0001];

const leaf: fc.Arbitrary<Node> = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'add' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'yield' as const }) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 2 }).map((pred) => ({ kind: 'exit' as const, pred })),
  },
  { weight: 1, arbitrary: fc.boolean().map((full) => ({ kind: 'warpsync' as const, full })) },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 2 }).map((pred) => ({ kind: 'break' as const, pred })),
  },
);

export interface TuringOptions {
  /** Nested regions may reuse their parent's register after a BMOV spill (seed 000 Fig. 5). */
  readonly spill: boolean;
}

const block = (depth: number, o: TuringOptions): fc.Arbitrary<readonly Node[]> =>
  fc.array(
    depth <= 0
      ? leaf
      : fc.oneof(
          { weight: 3, arbitrary: leaf },
          { weight: 2, arbitrary: ifNode(depth - 1, o) },
          { weight: 1, arbitrary: syncIf(depth - 1, o) },
        ),
    { minLength: 0, maxLength: 3 },
  );

const ifNode = (depth: number, o: TuringOptions): fc.Arbitrary<Node> =>
  fc.record({
    kind: fc.constant('if' as const),
    pred: fc.integer({ min: 0, max: 2 }),
    then: block(depth, o),
    else: block(depth, o),
    // Reusing a spilled register races under arbitrary interleaving (docs/findings.md).
    spill: o.spill ? fc.boolean() : fc.constant(false),
  });

const syncIf = (depth: number, o: TuringOptions): fc.Arbitrary<Node> =>
  fc.record({
    kind: fc.constant('syncif' as const),
    pred: fc.integer({ min: 0, max: 2 }),
    then: block(depth, o).map((ns) => ns.filter((n) => n.kind !== 'break')),
    else: block(depth, o).map((ns) => ns.filter((n) => n.kind !== 'break')),
  });

/** Compiled-style Turing programs; `spill` also generates Fig. 5's register reuse. */
export const turingProgramWith = (o: TuringOptions): fc.Arbitrary<readonly Node[]> =>
  fc.array(fc.oneof(leaf, ifNode(2, o), syncIf(2, o)), { minLength: 1, maxLength: 4 });

export const turingProgram = turingProgramWith({ spill: false });

/**
 * Renders a program. `lanes` is the set of lanes that may reach a point (a static
 * over-approximation: lanes that exited are still counted, which WARPSYNC tolerates); a partial
 * WARPSYNC names exactly those lanes. `region` is the innermost BSSY register and its join label
 * (for BREAK); outside every region a BREAK is dropped.
 */
export function renderTuring(nodes: readonly Node[]): string {
  const out: string[] = [
    '// @warpcheck warp-size=4 warps=1',
    '\tFunction : generated',
    '        S2R R0, SR_LANEID ;',
    '        LOP3.LUT R8, R0, 0x1, RZ, 0xc0, !PT ;',
    '        ISETP.NE.AND P0, PT, R8, RZ, PT ;',
    '        LOP3.LUT R9, R0, 0x2, RZ, 0xc0, !PT ;',
    '        ISETP.NE.AND P1, PT, R9, RZ, PT ;',
    '        ISETP.LT.AND P2, PT, R0, 0x1, PT ;',
  ];
  let label = 0;
  const fresh = () => `L${label++}`;
  const emit = (
    ns: readonly Node[],
    reach: number,
    depth: number,
    region: { reg: number; sync: string; outerSync: string | null } | null,
    reuse: number | null,
    pos: number,
  ): number => {
    let lanes = reach;
    /** Lanes of this body that broke out of its region: they jump to the enclosing BSYNC. */
    let escaped = 0;
    for (const n of ns) {
      switch (n.kind) {
        case 'add':
          out.push('        IADD3 R1, R1, R0, 0x1 ;');
          break;
        case 'yield':
          out.push('        YIELD ;');
          break;
        case 'exit':
          out.push(`   @P${n.pred} EXIT ;`);
          break;
        case 'warpsync':
          if (lanes === 0) break;
          out.push(
            n.full && lanes === 0b1111
              ? '        WARPSYNC 0xffffffff ;'
              : `        WARPSYNC 0x${lanes.toString(16)} ;`,
          );
          break;
        case 'break':
          // As compiled code leaves a region early (seed 000 Fig. 6): BREAK out of the inner
          // region's register and branch to the enclosing region's BSYNC, where the lanes wait
          // for the others. Outside a nested region a BREAK is dropped.
          if (region && region.outerSync !== null) {
            out.push(`   @P${n.pred} BREAK B${region.reg} ;`);
            out.push(`   @P${n.pred} BRA ${region.outerSync} ;`);
            escaped |= lanes & PRED_MASKS[n.pred]!;
            lanes &= ~PRED_MASKS[n.pred]!; // the breaking lanes skip the rest of this block
          }
          break;
        case 'syncif': {
          // Divergence without a BSSY region; the paths meet at a WARPSYNC naming every lane that
          // can get there (breaks are not generated inside, so no lane leaves).
          const t = fresh();
          const j = fresh();
          const pm = PRED_MASKS[n.pred]!;
          out.push(`   @P${n.pred} BRA ${t} ;`);
          // No region around the paths: breaks inside would skip the WARPSYNC, so none are made.
          emit(n.else, lanes & ~pm & 0xf, depth + 1, null, null, 2 * pos + 1);
          out.push(`        BRA ${j} ;`);
          out.push(`${t}:`);
          emit(n.then, lanes & pm, depth + 1, null, null, 2 * pos + 2);
          out.push(`${j}:`);
          if (lanes !== 0) out.push(`        WARPSYNC 0x${lanes.toString(16)} ;`);
          break;
        }
        case 'if': {
          // The region's register: B<depth>, or the enclosing region's when that region spills
          // it for reuse (seed 000 Fig. 5: spilled with BMOV right after its BSSY, by every lane of
          // the region, and restored right before its BSYNC, at the join every path reaches).
          // A register per region (sibling regions in the two paths of a branch must not share one:
          // under arbitrary interleaving their BSSYs would overwrite each other — docs/findings.md).
          // Heap-indexed by the region's place in the branch tree (root 0, paths 2p+1 and 2p+2), so
          // regions that may run at the same time never share one; at most 15 (B0..B14).
          const reg = reuse ?? pos;
          const spillReg = 20 + depth;
          const t = fresh();
          const s = fresh();
          out.push(`        BSSY B${reg}, ${s}_J ;`);
          if (n.spill) out.push(`        BMOV.32 R${spillReg}, B${reg} ;`);
          out.push(`   @P${n.pred} BRA ${t} ;`);
          const pm = PRED_MASKS[n.pred]!;
          const inner = { reg, sync: s, outerSync: region ? region.sync : null };
          const out1 = emit(
            n.else,
            lanes & ~pm & 0xf,
            depth + 1,
            inner,
            n.spill ? reg : null,
            2 * pos + 1,
          );
          out.push(`        BRA ${s} ;`);
          out.push(`${t}:`);
          const out2 = emit(
            n.then,
            lanes & pm,
            depth + 1,
            inner,
            n.spill ? reg : null,
            2 * pos + 2,
          );
          out.push(`${s}:`);
          if (n.spill) out.push(`        BMOV.32 B${reg}, R${spillReg} ;`);
          out.push(`        BSYNC B${reg} ;`);
          out.push(`${s}_J:`);
          // Lanes that broke out of the child region landed on this region's BSYNC: they skip
          // the rest of this body.
          lanes &= ~(out1 | out2);
          break;
        }
      }
    }
    return escaped;
  };
  emit(nodes, 0b1111, 0, null, null, 0);
  out.push('        EXIT ;');
  return out.join('\n') + '\n';
}
