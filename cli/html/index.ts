/** HTML views of runs: `replay --html`, `explore --html`; self-contained pages, no network. */
export { cfgSvg } from './cfgSvg.ts';
export { replayViewData, type ReplayViewData, type ViewStep } from './replayModel.ts';
export { htmlDocument, replayPage, replaySection, verdictClass } from './replayPage.ts';
export {
  explorePage,
  writeExploreHtml,
  type ExploreHtmlInput,
  type ExploreHtmlKernel,
  type ExploreHtmlRow,
} from './explorePage.ts';
export { writeReplayHtml } from './writeReplayHtml.ts';
