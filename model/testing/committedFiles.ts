import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The files under `dir` (relative to `root`, subfolders included) whose names end in `ext`, as
 * absolute paths — only those git tracks when `root` is a git checkout (issue 14, fault 2: the
 * tests read the committed corpus, never a file a command run from the project root just wrote),
 * every file on disk otherwise (an unpacked tarball has no untracked files to tell apart).
 */
export function committedFiles(root: string, dir: string, ext: string): string[] {
  let listed: string[] | null = null;
  try {
    const out = execFileSync('git', ['ls-files', '-z', '--', dir], {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    listed = out.split('\0').filter((f) => f.length > 0);
  } catch {
    listed = null; // not a git checkout, or no git: fall back to the folder
  }
  if (listed !== null)
    return listed
      .filter((f) => f.endsWith(ext))
      .map((f) => join(root, f))
      .filter((f) => existsSync(f))
      .sort();
  return filesOnDisk(root, dir, ext).sort();
}

function filesOnDisk(root: string, dir: string, ext: string): string[] {
  const full = join(root, dir);
  if (!existsSync(full)) return [];
  return readdirSync(full).flatMap((f) => {
    const path = join(full, f);
    if (statSync(path).isDirectory()) return filesOnDisk(root, join(dir, f), ext);
    return f.endsWith(ext) ? [path] : [];
  });
}
