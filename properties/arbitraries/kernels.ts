/**
 * fast-check arbitraries for whole kernels written as listing text, so that they exercise the
 * parser too: lane-divergent programs without inter-lane communication, and the spinlock family of
 * seed 000 Fig. 3. They shrink towards fewer and simpler instructions.
 */
import fc from 'fast-check';

/**
 * Prefix shared by the generated kernels: P0 = lane is odd, P1 = lane & 2, P2 = lane 0, so that
 * guarded branches diverge; R0 = lane id; R1 accumulates a lane-dependent value.
 */
const PREFIX = [
  'S2R R0, SR_LANEID ;',
  'LOP3.LUT R8, R0, 0x1, RZ, 0xc0, !PT ;',
  'ISETP.NE.AND P0, PT, R8, RZ, PT ;',
  'LOP3.LUT R9, R0, 0x2, RZ, 0xc0, !PT ;',
  'ISETP.NE.AND P1, PT, R9, RZ, PT ;',
  'ISETP.LT.AND P2, PT, R0, 0x1, PT ;',
];

type Step =
  | { readonly kind: 'add'; readonly k: number }
  | {
      readonly kind: 'bra';
      readonly pred: number | null;
      readonly negated: boolean;
      readonly to: number;
    }
  | { readonly kind: 'exit'; readonly pred: number };

const stepArb = (forwardOnly: boolean): fc.Arbitrary<Step> =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.integer({ min: 1, max: 7 }).map((k) => ({ kind: 'add' as const, k })),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constant('bra' as const),
        pred: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
        negated: fc.boolean(),
        // Relative target: forward programs jump 1..n ahead; cyclic ones may jump back.
        to: forwardOnly ? fc.integer({ min: 1, max: 8 }) : fc.integer({ min: -6, max: 8 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('exit' as const),
        pred: fc.integer({ min: 0, max: 2 }),
      }),
    },
  );

/** Renders steps as a listing; branch targets are clamped into the body (the last label is the final EXIT). */
export function renderKernel(steps: readonly Step[], warpSize: number): string {
  const n = steps.length;
  const lines = [
    `// @warpcheck warp-size=${warpSize} warps=1`,
    '\tFunction : generated',
    ...PREFIX.map((l) => `        ${l}`),
  ];
  steps.forEach((s, i) => {
    lines.push(`L${i}:`);
    if (s.kind === 'add') lines.push(`        IADD3 R1, R1, R0, 0x${s.k.toString(16)} ;`);
    else if (s.kind === 'exit') lines.push(`   @P${s.pred} EXIT ;`);
    else {
      const t = Math.min(n, Math.max(0, i + s.to));
      const guard = s.pred === null ? '' : `@${s.negated ? '!' : ''}P${s.pred} `;
      lines.push(`        ${guard}BRA L${t} ;`);
    }
  });
  lines.push(`L${n}:`, '        EXIT ;');
  return lines.join('\n') + '\n';
}

/** A lane-divergent kernel with no memory access: lanes never communicate. */
export const divergentKernel = (options: { forwardOnly: boolean; maxSteps?: number }) =>
  fc
    .record({
      steps: fc.array(stepArb(options.forwardOnly), {
        minLength: 1,
        maxLength: options.maxSteps ?? 10,
      }),
      warpSize: fc.integer({ min: 1, max: 4 }),
    })
    .map(({ steps, warpSize }) => ({ text: renderKernel(steps, warpSize), warpSize }));

/**
 * The spinlock of seed 000 Fig. 3 in many spellings: lock address, critical-section length, how the
 * lock is released (atomic exchange or plain store), warp size 1..6.
 */
export const spinlockKernel = fc
  .record({
    lock: fc.integer({ min: 1, max: 255 }).map((a) => a * 4),
    critical: fc.integer({ min: 0, max: 3 }),
    release: fc.constantFrom('ATOMS.EXCH RZ, [R2], RZ ;', 'STS [R2], RZ ;'),
    warpSize: fc.integer({ min: 1, max: 6 }),
  })
  .map(({ lock, critical, release, warpSize }) => ({
    warpSize,
    text:
      [
        `// @warpcheck warp-size=${warpSize} warps=1 mem[0x${lock.toString(16)}]=0`,
        '\tFunction : spinlock',
        `        MOV R2, 0x${lock.toString(16)} ;`,
        '        MOV R3, 0x1 ;',
        'acquire:',
        '        ATOMS.CAS R0, [R2], RZ, R3 ;',
        '        ISETP.NE.AND P0, PT, R0, RZ, PT ;',
        '   @P0  BRA acquire ;',
        ...Array.from(
          { length: critical },
          (_, i) => `        IADD3 R${10 + i}, R${10 + i}, 0x1, RZ ;`,
        ),
        `        ${release}`,
        '        EXIT ;',
      ].join('\n') + '\n',
  }));
