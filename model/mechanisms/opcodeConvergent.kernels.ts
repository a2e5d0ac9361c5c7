/**
 * Generated two-path code for the opcode-convergent checks and benchmark (seed 002 §5.2: "irregular
 * benchmarks with both taken and non-taken paths non empty"): straight code and if/else structures
 * (nested at most once) whose sides draw from a small RISC-like opcode alphabet, so that their
 * opcode streams share subsequences as compiled sides do (§4.3). Lanes do not communicate (each
 * lane stores to its own word), so a lane's path does not depend on the schedule. Only tests and
 * the benchmark import this module.
 */
import fc from 'fast-check';

export type GenIns =
  | {
      readonly op: 'IADD3' | 'LOP3' | 'SHF' | 'MOV' | 'ISETP';
      readonly dst: number;
      readonly src: number;
      readonly k: number;
    }
  | { readonly op: 'STS' | 'LDS'; readonly dst: number; readonly src: number; readonly k: number }
  /** `@P<pred> EXIT` inside a side: the lanes of a group may all leave the region. */
  | { readonly op: 'EXIT'; readonly dst: number; readonly src: number; readonly k: number };

export type GenNode =
  | { readonly kind: 'ins'; readonly ins: GenIns }
  | {
      readonly kind: 'if';
      readonly pred: number;
      readonly taken: readonly GenNode[];
      readonly notTaken: readonly GenNode[];
    };

/**
 * Prefix: R0 = lane id; P0 = lane odd, P1 = lane & 2, P2 = lane 0; R7 = the lane's own word
 * address. Generated code writes R1..R6 and P3 only.
 */
const PREFIX = [
  'S2R R0, SR_LANEID ;',
  'LOP3.LUT R8, R0, 0x1, RZ, 0xc0, !PT ;',
  'ISETP.NE.AND P0, PT, R8, RZ, PT ;',
  'LOP3.LUT R9, R0, 0x2, RZ, 0xc0, !PT ;',
  'ISETP.NE.AND P1, PT, R9, RZ, PT ;',
  'ISETP.LT.AND P2, PT, R0, 0x1, PT ;',
  'SHF.L.U32 R7, R0, 0x2, RZ ;',
];

const insArb = (exits: boolean): fc.Arbitrary<GenIns> =>
  fc.record({
    // A RISC-like mix, arithmetic most frequent (§4.3); EXIT rare, so most lanes reach the end.
    op: fc.constantFrom(
      ...([
        'IADD3',
        'IADD3',
        'IADD3',
        'LOP3',
        'LOP3',
        'SHF',
        'MOV',
        'ISETP',
        'STS',
        'LDS',
      ] as const),
      ...(exits ? (['EXIT'] as const) : []),
    ),
    dst: fc.integer({ min: 1, max: 6 }),
    src: fc.integer({ min: 0, max: 6 }),
    k: fc.integer({ min: 0, max: 7 }),
  });

const sideArb = (exits: boolean, depth: number): fc.Arbitrary<readonly GenNode[]> =>
  fc.array(nodeArb(exits, depth), { minLength: 2, maxLength: 7 });

function nodeArb(exits: boolean, depth: number): fc.Arbitrary<GenNode> {
  const ins = insArb(exits).map((i) => ({ kind: 'ins' as const, ins: i }));
  if (depth <= 0) return ins;
  return fc.oneof(
    { weight: 3, arbitrary: ins },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('if' as const),
        pred: fc.integer({ min: 0, max: 3 }),
        taken: sideArb(exits, depth - 1),
        notTaken: sideArb(exits, depth - 1),
      }),
    },
  );
}

/** A kernel body: a few top-level nodes, at least one if/else with both sides non-empty. */
export const twoPathKernel = (options: { exits: boolean }): fc.Arbitrary<readonly GenNode[]> =>
  fc
    .tuple(
      fc.array(
        insArb(false).map((i) => ({ kind: 'ins' as const, ins: i })),
        { maxLength: 2 },
      ),
      fc.record({
        kind: fc.constant('if' as const),
        // P0..P2 always split a 4-lane warp (P3 depends on the data).
        pred: fc.integer({ min: 0, max: 2 }),
        taken: sideArb(options.exits, 1),
        notTaken: sideArb(options.exits, 1),
      }),
      fc.array(nodeArb(options.exits, 2), { maxLength: 3 }),
    )
    .map(([pre, first, rest]) => [...pre, first, ...rest]);

function renderIns(i: GenIns): string {
  const k = `0x${i.k.toString(16)}`;
  switch (i.op) {
    case 'IADD3':
      return `IADD3 R${i.dst}, R${i.src}, ${k}, RZ ;`;
    case 'LOP3':
      return `LOP3.LUT R${i.dst}, R${i.src}, ${k}, RZ, 0xfc, !PT ;`;
    case 'SHF':
      return `SHF.L.U32 R${i.dst}, R${i.src}, 0x${(i.k % 4).toString(16)}, RZ ;`;
    case 'MOV':
      return `MOV R${i.dst}, ${k} ;`;
    case 'ISETP':
      return `ISETP.GE.AND P3, PT, R${i.src}, ${k}, PT ;`;
    case 'STS':
      return `STS [R7], R${i.src} ;`;
    case 'LDS':
      return `LDS R${i.dst}, [R7] ;`;
    case 'EXIT':
      return `@P${i.k % 3} EXIT ;`;
  }
}

/** The listing: prefix, the nodes (if/else as `@P BRA T; not-taken; BRA J; T: taken; J:`), EXIT. */
export function renderTwoPath(nodes: readonly GenNode[], warpSize = 4): string {
  const lines = [`// @warpcheck warp-size=${warpSize} warps=1`, '\tFunction : twopath', ...PREFIX];
  let labels = 0;
  const emit = (ns: readonly GenNode[]) => {
    for (const n of ns) {
      if (n.kind === 'ins') {
        lines.push(renderIns(n.ins));
        continue;
      }
      const id = labels++;
      lines.push(`@P${n.pred} BRA T${id} ;`);
      emit(n.notTaken);
      lines.push(`BRA J${id} ;`);
      lines.push(`T${id}:`);
      emit(n.taken);
      lines.push(`J${id}:`);
    }
  };
  emit(nodes);
  lines.push('EXIT ;');
  return lines.join('\n') + '\n';
}
