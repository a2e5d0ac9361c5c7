import { relative, resolve, sep } from 'node:path';

/**
 * Where `explore` and `check` save failing runs unless `--save DIR` says otherwise (issue 14,
 * fault 2): a folder of its own in the working directory, named after the tool so a user finds
 * it, ignored by git (`.gitignore`), and outside `scenarios/` and `counterexamples/`, the
 * committed corpus that `npm test` replays. Every saved path is printed. To add a failure to the
 * regression corpus, save it there on purpose (`--save counterexamples`) and commit it.
 */
export const DEFAULT_SAVE_DIR = 'warpcheck-out';

/**
 * How a saved scenario names the listing it came from (`found.source`): relative to the working
 * directory and normalised, so `scenarios/x.sass`, `./scenarios/x.sass` and its absolute path
 * give the same content, hence the same content-hashed file (issue 14: they saved as two files).
 */
export function savedSource(file: string): string {
  const rel = relative(process.cwd(), resolve(file));
  return rel === '' ? file : rel.split(sep).join('/');
}
