/* The spinlock of scenarios/spinlock.sass (seed 000 Fig. 3) as N threads, one statement per SASS
 * instruction that reads or writes anything live (the two MOVs of constants are left out, as
 * warpcheck's dead-value reduction leaves them out of its keys): warpcheck's per-thread semantics
 * (`its`, `grouping=single`) in Promela, for `npm run bench:por`. */
#ifndef N
#define N 8
#endif
byte mutex = 0;
byte count = 0;
byte done = 0;
active [N] proctype thread() {
  byte r0; bool p0;
acquire:
  atomic { r0 = mutex; if :: mutex == 0 -> mutex = 1 :: else -> skip fi }  /* ATOMS.CAS */
  p0 = (r0 != 0);                                  /* ISETP.NE.AND P0 */
  if :: p0 -> r0 = 0; p0 = false; goto acquire :: else -> r0 = 0; p0 = false fi;  /* @P0 BRA (R0, P0 dead after) */
  count = count + 1;                               /* ATOMS.ADD */
  mutex = 0;                                       /* ATOMS.EXCH */
  done = done + 1                                  /* EXIT */
}
ltl terminates { <> (done == N) }
