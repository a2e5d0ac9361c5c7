import type { CoreConfig } from './core.ts';

/**
 * Shared pieces of the core's tests: a configuration with explicit latencies (the hand-derived
 * cycle counts depend on them) and the two-lane spinlock of seed 000 Fig. 3.
 */
export const coreConfig = (o: Partial<CoreConfig> = {}): CoreConfig => ({
  scheduler: 'lrr',
  scoreboard: 'warp',
  latencies: { alu: 4, sfu: 20, shared: 30, global: 200 },
  issueWidth: 1,
  ...o,
});

/** Seed 000 Fig. 3's spinlock on two lanes: CAS loop, release by exchange. */
export const SPINLOCK_W2 = `// @warpcheck warp-size=2 warps=1 mem[0x100]=0
	Function : spin
        MOV R2, 0x100 ;
        MOV R3, 0x1 ;
.L_acquire:
        ATOMS.CAS R0, [R2], RZ, R3 ;
        ISETP.NE.AND P0, PT, R0, RZ, PT ;
   @P0  BRA \`(.L_acquire) ;
        ATOMS.EXCH RZ, [R2], RZ ;
        EXIT ;
`;
