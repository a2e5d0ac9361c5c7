/**
 * Renders a structured tree (`structuredTree.ts`) as a SASS listing with a `// @warpcheck` header,
 * and computes the kernel's classes from what it emits.
 *
 * Reach analysis. Conditions on lane id, thread id and the per-thread inputs are static: their
 * value in every thread is known here. The renderer follows, per warp, `may` (lanes that may reach
 * the current point: an over-approximation, since a lane may have exited) and `must` (lanes that
 * certainly reach it), and `sync`: a WARPSYNC naming exactly `may` is well-formed here — every
 * non-exited lane it names arrives, each the same number of times (SEMANTICS §2; a mask naming an
 * exited lane is accepted by default). `sync` is lost inside loops whose trip count differs between
 * the lanes or that have a break, inside branches on dynamic conditions (loop counters, atomics,
 * races), after a dynamic break/continue, and in functions (called from several places). A
 * WARPSYNC, or a flag wait whose setter is not in `must`, is dropped where it would be ill-formed.
 *
 * Registers: R0 lane id, R1 thread id, R2 accumulator, R3 = 1, R5 stack pointer, R6/R7/R8
 * scratch used right after they are written, R9 per-thread input, R10+j recursion depth and R20+j
 * return address of function j, R30 upwards fresh per construct (pairs for 64-bit addresses).
 * Memory (word addresses): 0x100+ locks and tickets, 0x180+ flags, 0x1c0 shared counter, 0x1e0 race
 * word, 0x1f0 atomic counter, 0x400+tid inputs, 0x600+tid private outputs, 0x800+16·tid stacks.
 */
import type { KernelClass } from './kernel.ts';
import type { Cond, Count, Stmt, StructuredAst } from './structuredTree.ts';

interface Ctx {
  may: number[];
  must: number[];
  sync: boolean;
  /** Lanes that may have exited or returned in this block (per warp). */
  gone: number[];
  /** A break/continue/return on a dynamic condition happened: who reaches what is unknown. */
  dirty: boolean;
}

interface Loop {
  readonly counter: number;
  readonly exit: string;
  readonly cont: string;
}

interface FnCtx {
  readonly index: number;
  readonly recursive: boolean;
}

const hex = (n: number): string => (n < 0 ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`);
const popcount = (m: number): number => {
  let c = 0;
  for (let x = m >>> 0; x !== 0; x &= x - 1) c++;
  return c;
};

const INPUT = 0x400;
const OUTPUT = 0x600;
const STACK = 0x800;

export function renderStructured(ast: StructuredAst): {
  text: string;
  classes: Set<KernelClass>;
} {
  const W = ast.warpSize;
  const K = ast.warps;
  const full = W === 32 ? 0xffffffff : (1 << W) - 1;
  const classes = new Set<KernelClass>();
  if (K > 1) classes.add('multi-warp');
  const used = { lane: false, tid: false, one: false, reg: false, mem: false, sp: false };
  let label = 0;
  let nextReg = 30;
  let locks = 0;
  let flags = 0;
  const fresh = () => `.L_x_${label++}`;
  const reg = (pair = false) => {
    if (pair && nextReg % 2) nextReg++;
    const r = nextReg;
    nextReg += pair ? 2 : 1;
    return r;
  };

  // ---- static values per thread ----
  const laneOf = (tid: number) => tid % W;
  const countValue = (c: Count, tid: number): number => {
    switch (c.src) {
      case 'const':
        return c.k;
      case 'lane':
        return laneOf(tid) & c.mask;
      case 'reg':
        return ast.regInit[tid] ?? 0;
      case 'mem':
        return ast.memInit[tid] ?? 0;
    }
  };
  /** The value of a static condition in thread `tid`, or null for a dynamic one. */
  const condValue = (c: Cond, tid: number): boolean | null => {
    switch (c.src) {
      case 'lane':
        return c.test === 'lt'
          ? laneOf(tid) < c.k
          : c.test === 'eq'
            ? laneOf(tid) === c.k
            : ((laneOf(tid) >> c.k) & 1) === 1;
      case 'tid':
        return tid < c.k;
      case 'reg':
        return (ast.regInit[tid] ?? 0) >= c.k;
      case 'mem':
        return (ast.memInit[tid] ?? 0) >= c.k;
      case 'counter':
        return null;
    }
  };
  /** Per warp, the lanes for which `f(tid)` holds. */
  const masks = (f: (tid: number) => boolean): number[] =>
    Array.from({ length: K }, (_, k) => {
      let m = 0;
      for (let l = 0; l < W; l++) if (f(k * W + l)) m |= 1 << l;
      return m >>> 0;
    });
  const and = (a: readonly number[], b: readonly number[]) => a.map((x, k) => (x & b[k]!) >>> 0);
  const or = (a: readonly number[], b: readonly number[]) => a.map((x, k) => (x | b[k]!) >>> 0);
  const minus = (a: readonly number[], b: readonly number[]) => a.map((x, k) => (x & ~b[k]!) >>> 0);
  const zero = () => Array.from({ length: K }, () => 0);
  const child = (c: Ctx, may: number[], must: number[], sync: boolean): Ctx => ({
    may,
    must,
    sync,
    gone: zero(),
    dirty: false,
  });

  // ---- code ----
  const emitCond = (out: string[], c: Cond, loop: Loop | null): void => {
    switch (c.src) {
      case 'lane':
        used.lane = true;
        if (c.test === 'bit') {
          out.push(`        LOP3.LUT R7, R0, ${hex(1 << c.k)}, RZ, 0xc0, !PT ;`);
          out.push('        ISETP.NE.AND P0, PT, R7, RZ, PT ;');
        } else
          out.push(
            `        ISETP.${c.test === 'lt' ? 'LT' : 'EQ'}.AND P0, PT, R0, ${hex(c.k)}, PT ;`,
          );
        return;
      case 'tid':
        used.tid = true;
        out.push(`        ISETP.LT.AND P0, PT, R1, ${hex(c.k)}, PT ;`);
        return;
      case 'reg':
        used.reg = true;
        out.push(`        ISETP.GE.AND P0, PT, R9, ${hex(c.k)}, PT ;`);
        return;
      case 'mem':
        used.tid = used.mem = true;
        out.push(`        LDS R7, [R1+${hex(INPUT)}] ;`);
        out.push(`        ISETP.GE.AND P0, PT, R7, ${hex(c.k)}, PT ;`);
        return;
      case 'counter':
        // Generated only inside loops; the innermost loop's counter.
        out.push(
          `        ISETP.${c.test === 'lt' ? 'LT' : 'EQ'}.AND P0, PT, R${loop!.counter}, ${hex(c.k)}, PT ;`,
        );
        return;
    }
  };
  const emitCount = (out: string[], c: Count, dst: number): void => {
    switch (c.src) {
      case 'const':
        out.push(`        MOV R${dst}, ${hex(c.k)} ;`);
        return;
      case 'lane':
        used.lane = true;
        out.push(`        LOP3.LUT R${dst}, R0, ${hex(c.mask)}, RZ, 0xc0, !PT ;`);
        return;
      case 'reg':
        used.reg = true;
        out.push(`        MOV R${dst}, R9 ;`);
        return;
      case 'mem':
        used.tid = used.mem = true;
        out.push(`        LDS R${dst}, [R1+${hex(INPUT)}] ;`);
        return;
    }
  };
  const condMasks = (c: Cond): number[] | null =>
    c.src === 'counter' ? null : masks((t) => condValue(c, t) === true);

  /** Does `body` hold a break of *this* loop (not of a nested one)? */
  const hasBreak = (body: readonly Stmt[]): boolean =>
    body.some((s) =>
      s.kind === 'break'
        ? true
        : s.kind === 'if' || s.kind === 'atomic' || s.kind === 'race'
          ? hasBreak(s.then) || hasBreak(s.else)
          : s.kind === 'switch'
            ? s.cases.some(hasBreak)
            : false,
    );

  const fnBodies: [number, string[]][] = [];
  /** Per function: the lanes that may call it (undefined: never called, so not emitted). */
  const callMay: (number[] | undefined)[] = ast.fns.map(() => undefined);

  /** A critical section or flag setter's work: straight code that never waits or leaves. */
  const emitCrit = (out: string[], ss: readonly Stmt[], ctx: Ctx) =>
    emitBlock(out, ss, { ...ctx, sync: false }, null, null);

  const spinClass = (may: readonly number[]) => {
    if (W >= 2 && may.some((m) => popcount(m) >= 2)) classes.add('spin');
  };

  function emitBlock(
    out: string[],
    ss: readonly Stmt[],
    ctx: Ctx,
    loop: Loop | null,
    fn: FnCtx | null,
  ): void {
    for (const s of ss) emitStmt(out, s, ctx, loop, fn);
  }

  /** Lanes `c` leave the rest of this block (exit, break, continue, return). */
  const leave = (ctx: Ctx, c: Cond, gone: boolean) => {
    const m = condMasks(c);
    if (m === null) {
      ctx.must = zero();
      if (gone) ctx.gone = or(ctx.gone, ctx.may);
      else {
        ctx.dirty = true;
        ctx.sync = false;
      }
      return;
    }
    const hit = and(ctx.may, m);
    ctx.may = minus(ctx.may, m);
    ctx.must = minus(ctx.must, m);
    if (gone) ctx.gone = or(ctx.gone, hit);
  };

  function emitStmt(out: string[], s: Stmt, ctx: Ctx, loop: Loop | null, fn: FnCtx | null): void {
    switch (s.kind) {
      case 'work':
        out.push(`        IADD3 R2, R2, ${hex(s.k + 1)}, RZ ;`);
        return;
      case 'store':
        used.tid = true;
        out.push(`        STS [R1+${hex(OUTPUT)}], R2 ;`);
        return;
      case 'shared-inc': {
        const a = reg();
        out.push(`        MOV R${a}, 0x1c0 ;`, `        LDS R7, [R${a}] ;`);
        out.push('        IADD3 R7, R7, 0x1, RZ ;', `        STS [R${a}], R7 ;`);
        return;
      }
      case 'exit':
      case 'return': {
        if (s.kind === 'return' && fn === null) return;
        emitCond(out, s.cond, loop);
        if (s.kind === 'exit') out.push('   @P0  EXIT ;');
        else {
          // A recursive function pops its saved return address first, under the same guard.
          const r = 20 + fn!.index;
          if (fn!.recursive)
            out.push('   @P0  IADD3 R5, R5, -0x1, RZ ;', `   @P0  LDS R${r}, [R5+${hex(STACK)}] ;`);
          out.push(`   @P0  RET.REL.NODEC R${r} 0x0 ;`);
        }
        classes.add('early-exit');
        leave(ctx, s.cond, true);
        return;
      }
      case 'break':
      case 'continue': {
        if (loop === null) return;
        emitCond(out, s.cond, loop);
        out.push(`   @P0  BRA \`(${s.kind === 'break' ? loop.exit : loop.cont}) ;`);
        classes.add(s.kind);
        leave(ctx, s.cond, false);
        return;
      }
      case 'if':
      case 'atomic':
      case 'race': {
        let m: number[] | null;
        if (s.kind === 'if') {
          emitCond(out, s.cond, loop);
          m = condMasks(s.cond);
        } else if (s.kind === 'atomic') {
          classes.add('atomics');
          used.one = true;
          const a = reg();
          out.push(`        MOV R${a}, 0x1f0 ;`);
          if (!s.branch) {
            out.push(`        ATOMS.ADD RZ, [R${a}], R3 ;`);
            return;
          }
          out.push(`        ATOMS.ADD R7, [R${a}], R3 ;`);
          out.push('        ISETP.EQ.AND P0, PT, R7, RZ, PT ;');
          m = null;
        } else {
          if (W * K >= 2) classes.add('memory-race');
          used.tid = true;
          const a = reg();
          out.push(
            `        MOV R${a}, 0x1e0 ;`,
            `        STS [R${a}], R1 ;`,
            `        LDS R7, [R${a}] ;`,
          );
          out.push('        ISETP.EQ.AND P0, PT, R7, R1, PT ;');
          m = null;
        }
        const dyn = m === null;
        const tm = m ?? ctx.may;
        const sync = ctx.sync && !dyn;
        const t = child(ctx, and(ctx.may, tm), dyn ? zero() : and(ctx.must, tm), sync);
        const e = child(
          ctx,
          dyn ? ctx.may.slice() : minus(ctx.may, tm),
          dyn ? zero() : minus(ctx.must, tm),
          sync,
        );
        const tOut: string[] = [];
        const eOut: string[] = [];
        emitBlock(tOut, s.then, t, loop, fn);
        emitBlock(eOut, s.else, e, loop, fn);
        // Both sides end in a WARPSYNC naming every lane that gets to either end (CUDA's
        // `if (c) { …; __syncwarp(); } else { …; __syncwarp(); }`), only where that is well-formed.
        const join = uniformMay(or(t.may, e.may));
        const syncBoth =
          s.kind === 'if' && s.syncBoth && sync && !t.dirty && !e.dirty && join !== null;
        if (syncBoth) {
          // Lanes of both sides wait with one mask at two WARPSYNC instructions and are released
          // together, each after its own (SEMANTICS §2) — where Hanoi departs
          // (scenarios/hanoi-departs-warpsync.sass).
          const a = emitSync(tOut, join, t);
          const b = emitSync(eOut, join, e);
          if (a && b) classes.add('split-syncwarp');
        }
        const elseL = fresh();
        const end = fresh();
        const hasElse = eOut.length > 0;
        out.push(`   @!P0 BRA \`(${hasElse ? elseL : end}) ;`, ...tOut);
        if (hasElse) out.push(`        BRA \`(${end}) ;`, `${elseL}:`, ...eOut);
        out.push(`${end}:`);
        ctx.gone = or(ctx.gone, or(t.gone, e.gone));
        ctx.may = or(t.may, e.may);
        ctx.must = dyn ? minus(ctx.must, or(t.gone, e.gone)) : or(t.must, e.must);
        if (t.dirty || e.dirty) {
          ctx.dirty = true;
          ctx.sync = false;
          ctx.must = zero();
        }
        return;
      }
      case 'loop': {
        classes.add('loop');
        const i = reg();
        const n = reg();
        const head = fresh();
        const cont = fresh();
        const exit = fresh();
        out.push(`        MOV R${i}, 0x0 ;`);
        emitCount(out, s.trip, n);
        const trips = Array.from({ length: W * K }, (_, t) => countValue(s.trip, t));
        const enter = masks((t) => trips[t]! > 0);
        const reaching = trips.filter((_, t) => (ctx.may[Math.floor(t / W)]! >>> (t % W)) & 1);
        const same = reaching.every((x) => x === reaching[0]);
        const body = child(
          ctx,
          and(ctx.may, enter),
          and(ctx.must, enter),
          ctx.sync && same && !hasBreak(s.body),
        );
        const inner: Loop = { counter: i, exit, cont };
        if (s.rotated) {
          out.push(`        ISETP.GE.AND P0, PT, R${i}, R${n}, PT ;`, `   @P0  BRA \`(${exit}) ;`);
          out.push(`${head}:`);
          emitBlock(out, s.body, body, inner, fn);
          out.push(`${cont}:`, `        IADD3 R${i}, R${i}, 0x1, RZ ;`);
          out.push(`        ISETP.LT.AND P0, PT, R${i}, R${n}, PT ;`, `   @P0  BRA \`(${head}) ;`);
        } else {
          out.push(`${head}:`);
          out.push(`        ISETP.GE.AND P0, PT, R${i}, R${n}, PT ;`, `   @P0  BRA \`(${exit}) ;`);
          emitBlock(out, s.body, body, inner, fn);
          out.push(
            `${cont}:`,
            `        IADD3 R${i}, R${i}, 0x1, RZ ;`,
            `        BRA \`(${head}) ;`,
          );
        }
        out.push(`${exit}:`);
        // Every lane that entered leaves the loop, except those that exited or returned.
        ctx.gone = or(ctx.gone, body.gone);
        ctx.must = minus(ctx.must, body.gone);
        return;
      }
      case 'switch': {
        if (s.cases.length === 0) return;
        classes.add('switch');
        const n = s.cases.length;
        const labels = s.cases.map(() => fresh());
        const end = fresh();
        emitCount(out, s.sel, 8);
        out.push(`        MOV R6, ${labels[0]} ;`);
        for (let c = 1; c < n; c++)
          out.push(
            `        ISETP.EQ.AND P0, PT, R8, ${hex(c)}, PT ;`,
            `   @P0  MOV R6, ${labels[c]} ;`,
          );
        out.push(`        BRX R6 (*"BRANCH_TARGETS ${labels.join(',')}"*) ;`);
        // Thread t runs case v(t) when v(t) < n, else case 0.
        const caseOf = (t: number) => {
          const v = countValue(s.sel, t);
          return v < n ? v : 0;
        };
        const results = s.cases.map((body, c) => {
          out.push(`${labels[c]}:`);
          const cm = masks((t) => caseOf(t) === c);
          const cx = child(ctx, and(ctx.may, cm), and(ctx.must, cm), ctx.sync);
          emitBlock(out, body, cx, loop, fn);
          if (c < n - 1) out.push(`        BRA \`(${end}) ;`);
          return cx;
        });
        out.push(`${end}:`);
        ctx.may = results.reduce((a, r) => or(a, r.may), zero());
        ctx.must = results.reduce((a, r) => or(a, r.must), zero());
        ctx.gone = results.reduce((a, r) => or(a, r.gone), ctx.gone);
        if (results.some((r) => r.dirty)) {
          ctx.dirty = true;
          ctx.sync = false;
          ctx.must = zero();
        }
        return;
      }
      case 'warpsync': {
        const m = ctx.sync ? uniformMay(ctx.may) : null;
        if (m === null) return;
        emitSync(out, m, ctx, s.full);
        return;
      }
      case 'bad-warpsync': {
        const m = ctx.sync ? uniformMay(ctx.may) : null;
        if (m === null) return;
        // The lowest lane that may arrive is left out of the mask it waits with: UB (SEMANTICS §2).
        const bad = (m & ~(m & -m)) >>> 0;
        out.push(`        WARPSYNC ${hex(bad)} ;`);
        classes.add('ill-formed-syncwarp');
        return;
      }
      case 'call': {
        const from = fn === null ? -1 : fn.index;
        const callable = ast.fns.map((_, j) => j).filter((j) => j > from);
        if (callable.length === 0) return;
        const j = callable[s.fn % callable.length]!;
        classes.add('call');
        callMay[j] = or(callMay[j] ?? zero(), ctx.may);
        if (ast.fns[j]!.recursive) emitCount(out, s.depth, 10 + j);
        const back = fresh();
        out.push(
          `        MOV R${20 + j}, ${back} ;`,
          `        CALL.REL.NOINC \`(f${j}) ;`,
          `${back}:`,
        );
        return;
      }
      case 'spinlock': {
        // Seed 000 Fig. 3: while (atomicCAS(lock, 0, 1) != 0); critical; atomicExch(lock, 0).
        classes.add('loop');
        classes.add('atomics');
        spinClass(ctx.may);
        used.one = true;
        const a = reg(true);
        const old = reg();
        const acquire = fresh();
        out.push(`        MOV R${a}, ${hex(0x100 + locks++)} ;`, `${acquire}:`);
        out.push(
          s.global
            ? `        ATOMG.E.CAS.STRONG.GPU PT, R${old}, [R${a}.64], RZ, R3 ;`
            : `        ATOMS.CAS R${old}, [R${a}], RZ, R3 ;`,
        );
        out.push(`        ISETP.NE.AND P0, PT, R${old}, RZ, PT ;`, `   @P0  BRA \`(${acquire}) ;`);
        emitCrit(out, s.crit, ctx);
        if (s.release === 'exch')
          out.push(
            s.global
              ? `        ATOMG.E.EXCH.STRONG.GPU PT, RZ, [R${a}.64], RZ ;`
              : `        ATOMS.EXCH RZ, [R${a}], RZ ;`,
          );
        else
          out.push(
            s.global ? `        STG.E.STRONG.GPU [R${a}.64], RZ ;` : `        STS [R${a}], RZ ;`,
          );
        return;
      }
      case 'ticket': {
        // my = atomicAdd(next, 1); while (serving != my); critical; serving = my + 1.
        classes.add('loop');
        classes.add('atomics');
        spinClass(ctx.may);
        used.one = true;
        const a = reg();
        const t = reg();
        const wait = fresh();
        const base = 0x140 + 2 * locks++;
        out.push(`        MOV R${a}, ${hex(base)} ;`, `        ATOMS.ADD R${t}, [R${a}], R3 ;`);
        out.push(`${wait}:`, `        LDS R7, [R${a}+0x1] ;`);
        out.push(`        ISETP.NE.AND P0, PT, R7, R${t}, PT ;`, `   @P0  BRA \`(${wait}) ;`);
        emitCrit(out, s.crit, ctx);
        out.push(`        IADD3 R${t}, R${t}, 0x1, RZ ;`, `        STS [R${a}+0x1], R${t} ;`);
        return;
      }
      case 'flag': {
        // The setter (the lowest thread certain to get here) sets the flag after its work; every
        // other thread that gets here spins until it is set. Without a certain setter: nothing.
        const k = ctx.must.findIndex((m) => m !== 0);
        if (k < 0) return;
        const setter = k * W + Math.log2(ctx.must[k]! & -ctx.must[k]!);
        classes.add('loop');
        used.tid = used.one = true;
        const spinners = ctx.may.map((m, w) =>
          w === k ? (m & ~(1 << (setter - k * W))) >>> 0 : m,
        );
        if (W >= 2 && spinners[k] !== 0) classes.add('spin');
        const f = reg();
        const addr = hex(0x180 + flags++);
        const spin = fresh();
        const done = fresh();
        /** The spin loop, entered at `entry`. */
        const wait = (entry: string) => {
          const l = fresh();
          return [
            `${entry}:`,
            `        MOV R${f}, ${addr} ;`,
            `${l}:`,
            `        LDS R7, [R${f}] ;`,
            '        ISETP.EQ.AND P0, PT, R7, RZ, PT ;',
            `   @P0  BRA \`(${l}) ;`,
          ];
        };
        const setterCtx = child(
          ctx,
          masks((t) => t === setter),
          masks((t) => t === setter),
          false,
        );
        const set = (): void => {
          emitCrit(out, s.work, setterCtx);
          out.push(`        MOV R${f}, ${addr} ;`, `        STS [R${f}], R3 ;`);
        };
        if (s.shape === 'setter-first') {
          out.push(
            `        ISETP.NE.AND P0, PT, R1, ${hex(setter)}, PT ;`,
            `   @P0  BRA \`(${spin}) ;`,
          );
          set();
          out.push(`        BRA \`(${done}) ;`);
          out.push(...wait(spin));
        } else if (s.shape === 'spin-first') {
          out.push(
            `        ISETP.EQ.AND P0, PT, R1, ${hex(setter)}, PT ;`,
            `   @P0  BRA \`(${spin}) ;`,
          );
          out.push(...wait(fresh()));
          out.push(`        BRA \`(${done}) ;`, `${spin}:`);
          set();
        } else {
          const skip = fresh();
          out.push(
            `        ISETP.EQ.AND P0, PT, R1, ${hex(setter)}, PT ;`,
            `   @P0  BRA \`(${skip}) ;`,
          );
          out.push(...wait(fresh()));
          out.push(`${skip}:`);
          out.push(
            `        ISETP.NE.AND P0, PT, R1, ${hex(setter)}, PT ;`,
            `   @P0  BRA \`(${done}) ;`,
          );
          set();
        }
        out.push(`${done}:`);
        return;
      }
      case 'lock-in-if': {
        // Barnes-Hut (../shared/sass/linuohai-accel-sim__ls_bh_v2_TreeBuildingKernel_excerpt):
        // done = 0; do { if (atomicCAS(lock, 0, 1) == 0) { critical; release; done = 1; } } while (!done).
        classes.add('loop');
        classes.add('atomics');
        classes.add('lock-in-if');
        used.one = true;
        const a = reg();
        const done = reg();
        const old = reg();
        const top = fresh();
        const skip = fresh();
        out.push(
          `        MOV R${a}, ${hex(0x100 + locks++)} ;`,
          `        MOV R${done}, 0x0 ;`,
          `${top}:`,
        );
        out.push(`        ATOMS.CAS R${old}, [R${a}], RZ, R3 ;`);
        out.push(`        ISETP.NE.AND P0, PT, R${old}, RZ, PT ;`, `   @P0  BRA \`(${skip}) ;`);
        emitCrit(out, s.crit, ctx);
        out.push(`        ATOMS.EXCH RZ, [R${a}], RZ ;`, `        MOV R${done}, 0x1 ;`, `${skip}:`);
        out.push(`        ISETP.EQ.AND P0, PT, R${done}, RZ, PT ;`, `   @P0  BRA \`(${top}) ;`);
        return;
      }
    }
  }

  /** The mask every warp that may get here reaches with, if they agree (else null). */
  function uniformMay(may: readonly number[]): number | null {
    const live = may.filter((m) => m !== 0);
    if (live.length === 0 || live.some((m) => m !== live[0])) return null;
    return live[0]!;
  }

  /** Emits a WARPSYNC naming `m` unless no lane gets here; says whether it did. */
  function emitSync(out: string[], m: number, ctx: Ctx, preferAll = false): boolean {
    if (ctx.may.every((x) => x === 0)) return false;
    classes.add('syncwarp');
    if (m === full) out.push(`        WARPSYNC ${preferAll ? '0xffffffff' : hex(full)} ;`);
    else {
      classes.add('partial-syncwarp');
      out.push(`        WARPSYNC ${hex(m)} ;`);
    }
    return true;
  }

  // ---- the kernel ----
  const all = masks(() => true);
  const mainOut: string[] = [];
  emitBlock(
    mainOut,
    ast.main,
    { may: all, must: all.slice(), sync: true, gone: zero(), dirty: false },
    null,
    null,
  );
  mainOut.push('        EXIT ;');
  ast.fns.forEach((f, j) => {
    // Functions only call later ones, so every caller of f has been rendered by now.
    const may = callMay[j];
    if (may === undefined) return;
    const out: string[] = [];
    if (f.recursive) {
      // Save the return address on the thread's stack, recurse while the depth is positive, run
      // the body, restore and return (seed 000 §V-D: the return address lives in a register).
      classes.add('recursion');
      used.sp = true;
      const base = fresh();
      const back = fresh();
      out.push(`        STS [R5+${hex(STACK)}], R${20 + j} ;`, '        IADD3 R5, R5, 0x1, RZ ;');
      out.push(`        ISETP.LT.AND P0, PT, R${10 + j}, 0x1, PT ;`, `   @P0  BRA \`(${base}) ;`);
      out.push(`        IADD3 R${10 + j}, R${10 + j}, -0x1, RZ ;`);
      out.push(
        `        MOV R${20 + j}, ${back} ;`,
        `        CALL.REL.NOINC \`(f${j}) ;`,
        `${back}:`,
      );
      out.push(`        IADD3 R${10 + j}, R${10 + j}, 0x1, RZ ;`, `${base}:`);
    }
    const none = zero();
    emitBlock(
      out,
      f.body,
      { may: may.slice(), must: none, sync: false, gone: zero(), dirty: false },
      null,
      { index: j, recursive: f.recursive },
    );
    if (f.recursive)
      out.push('        IADD3 R5, R5, -0x1, RZ ;', `        LDS R${20 + j}, [R5+${hex(STACK)}] ;`);
    out.push(`        RET.REL.NODEC R${20 + j} 0x0 ;`);
    fnBodies.push([j, out]);
  });

  // ---- prologue and header, now that we know what the code uses ----
  const prologue: string[] = [];
  if (used.lane) prologue.push('        S2R R0, SR_LANEID ;');
  if (used.tid || used.sp) prologue.push('        S2R R1, SR_TID.X ;');
  if (used.one) prologue.push('        MOV R3, 0x1 ;');
  if (used.sp) prologue.push(`        IMAD R5, R1, 0x10, RZ ;`);
  const threads = W * K;
  const header = [`// @warpcheck warp-size=${W} warps=${K}`];
  if (used.reg) {
    const byValue = new Map<number, number[]>();
    for (let t = 0; t < threads; t++) {
      const v = ast.regInit[t] ?? 0;
      if (v !== 0) byValue.set(v, [...(byValue.get(v) ?? []), t]);
    }
    const items = [...byValue].map(([v, ts]) => `R9@${ts.join(',')}=${v}`);
    if (items.length) header.push(`// @warpcheck ${items.join(' ')}`);
  }
  if (used.mem) {
    const items: string[] = [];
    for (let t = 0; t < threads; t++) {
      const v = ast.memInit[t] ?? 0;
      if (v !== 0) items.push(`mem[${hex(INPUT + t)}]=${v}`);
    }
    if (items.length) header.push(`// @warpcheck ${items.join(' ')}`);
  }
  const sections = [
    ...header,
    '\tFunction : generated',
    ...prologue,
    ...mainOut,
    ...fnBodies.flatMap(([j, b]) => [`\tFunction : f${j}`, ...b]),
  ];
  return { text: sections.join('\n') + '\n', classes };
}
