import { closeSync, openSync, writeSync } from 'node:fs';
import { execFileSync } from 'node:child_process';

/**
 * Mounts a tmpfs of `size` (e.g. `16m`) at the folder `dir` (root only): a small real disk a test can fill. False, with
 * the reason printed, where this machine does not let the test mount one (the test then skips, saying why).
 */
export function mountTmpfs(dir: string, size: string, what: string): boolean {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return true;
  } catch (error) {
    console.warn(`${what} not tested: cannot mount a tmpfs here (${String(error).split('\n')[0]})`);
    return false;
  }
}

/** Unmounts a folder `mountTmpfs` mounted (lazily: a file still open in it does not keep the test waiting). */
export function unmountTmpfs(dir: string): void {
  execFileSync('umount', ['-l', dir]);
}

/** Writes into `file` until its filesystem refuses (ENOSPC): the disk is full, to the last byte. */
export function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 ** 2, 4096, 1]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (error) {
          if ((error as { code?: string }).code === 'ENOSPC') break;
          throw error;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}
