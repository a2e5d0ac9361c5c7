export * from './core.ts';
export * from './latency.ts';
export * from './scheduler.ts';
export * from './scoreboard.ts';
export * from './simulate.ts';
export * from './dualScoreboard.ts';
export * from './operandCollector.ts';
export * from './exploreCore.ts';
