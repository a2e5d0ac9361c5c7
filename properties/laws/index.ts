/** The law registry (issue 4 §3): laws P1–P9 as data with one check each, applied to every mechanism. */
import { noLaneLost } from './noLaneLost.ts';
import { reconvergence } from './reconvergence.ts';
import { termination } from './termination.ts';
import { warpsync } from './warpsync.ts';
import { breakBmov } from './breakBmov.ts';
import { traceEquivalence } from './traceEquivalence.ts';
import { priorityIndependence } from './priorityIndependence.ts';
import { compilePreserves } from './compilePreserves.ts';
import { maximalReconvergence } from './maximalReconvergence.ts';
import type { Law } from './types.ts';

export const LAWS: readonly Law[] = [
  termination,
  noLaneLost,
  reconvergence,
  warpsync,
  breakBmov,
  traceEquivalence,
  priorityIndependence,
  compilePreserves,
  maximalReconvergence,
];

export function findLaw(id: string): Law | undefined {
  return LAWS.find((l) => l.id === id || l.tag.toLowerCase() === id.toLowerCase());
}

export { runCampaign, lawOptions, LAW_OPTIONS, DEFAULT_BUDGET } from './campaign.ts';
export type { CampaignResult, CampaignOptions, Counterexample } from './campaign.ts';
export { saveCounterexample, counterexampleScenario } from './counterexample.ts';
export { EXPECTATIONS, declaredFailures, expectedFailures } from './expectations.ts';
export type { Expectation } from './expectations.ts';
export { SOURCES, findSource, kernelOfText, classesOf, expectationClasses } from './kernels.ts';
export type * from './types.ts';
