/**
 * Which other processes hold a file open (used by compaction: a process holding progress.txt open
 * keeps writing to the file it opened, whatever happens to the path).
 *
 * - Linux: every `/proc/<pid>/fd/<n>` whose target is the same inode (device and inode number),
 *   opened for writing (`/proc/<pid>/fdinfo/<n>`): a reader such as `tail -f` is not a holder.
 *   Processes of other users cannot be inspected and are not seen.
 * - macOS and other Unix systems: `lsof -t -- <file>` when lsof is installed.
 * - Windows, or when neither is available: undefined ("cannot tell"). On Windows a process that
 *   holds the file open without delete sharing makes the final rename fail, which compaction
 *   reports the same way.
 */
import { execFile } from 'node:child_process';
import { readdir, readFile, readlink, stat } from 'node:fs/promises';
import path from 'node:path';

export interface FileHolder {
  readonly pid: number;
  /** The process's command name, when known. */
  readonly command?: string;
}

/** The identity of an open file or a path: device and inode number. */
export interface FileIdentity {
  readonly dev: number;
  readonly ino: number;
}

/**
 * Processes other than this one that hold `target` open for writing: a path (its current inode) or an
 * identity (for example the inode a path named before it was replaced). Undefined when this
 * system offers no way to tell.
 */
export async function fileHolders(target: string | FileIdentity, file?: string): Promise<FileHolder[] | undefined> {
  const id = typeof target === 'string' ? await identityOf(target) : target;
  if (!id) {
    return [];
  }
  if (process.platform === 'linux') {
    return procHolders(id);
  }
  if (process.platform === 'win32') {
    return undefined;
  }
  const name = typeof target === 'string' ? target : file;
  return name ? lsofHolders(name) : undefined;
}

async function identityOf(file: string): Promise<FileIdentity | undefined> {
  try {
    const st = await stat(file);
    return { dev: st.dev, ino: st.ino };
  } catch {
    return undefined;
  }
}

async function procHolders(id: FileIdentity): Promise<FileHolder[] | undefined> {
  let pids: string[];
  try {
    pids = (await readdir('/proc')).filter((d) => /^\d+$/.test(d) && Number(d) !== process.pid);
  } catch {
    return undefined;
  }
  const out: FileHolder[] = [];
  await Promise.all(
    pids.map(async (pid) => {
      const dir = path.join('/proc', pid, 'fd');
      let fds: string[];
      try {
        fds = await readdir(dir);
      } catch {
        return; // gone, or another user's process
      }
      for (const fd of fds) {
        try {
          // readlink first: cheap, and most descriptors are sockets, pipes or other files.
          const link = await readlink(path.join(dir, fd));
          if (!link.startsWith('/')) {
            continue;
          }
          const st = await stat(path.join(dir, fd));
          if (st.ino === id.ino && st.dev === id.dev && (await opensForWriting(pid, fd))) {
            let command: string | undefined;
            try {
              command = (await readFile(path.join('/proc', pid, 'comm'), 'utf8')).trim();
            } catch {
              command = undefined;
            }
            out.push({ pid: Number(pid), command });
            return;
          }
        } catch {
          // closed meanwhile
        }
      }
    }),
  );
  return out.sort((a, b) => a.pid - b.pid);
}

/** Whether a descriptor was opened for writing (a reader such as `tail -f` loses nothing). Unknown counts as writing. */
async function opensForWriting(pid: string, fd: string): Promise<boolean> {
  try {
    const info = await readFile(path.join('/proc', pid, 'fdinfo', fd), 'utf8');
    const flags = /^flags:\s*([0-7]+)/m.exec(info);
    // O_WRONLY = 1, O_RDWR = 2.
    return flags ? (parseInt(flags[1], 8) & 3) !== 0 : true;
  } catch {
    return true;
  }
}

function lsofHolders(file: string): Promise<FileHolder[] | undefined> {
  return new Promise((resolve) => {
    execFile('lsof', ['-t', '--', file], { timeout: 10_000 }, (error, stdout) => {
      // lsof exits 1 when nobody holds the file.
      const code: unknown = (error as { code?: unknown } | null)?.code;
      if (error && code !== 1) {
        resolve(undefined);
        return;
      }
      const pids = String(stdout)
        .split(/\s+/)
        .filter((s) => /^\d+$/.test(s))
        .map(Number)
        .filter((p) => p !== process.pid);
      resolve(pids.map((pid) => ({ pid })));
    });
  });
}

export function describeHolders(holders: readonly FileHolder[]): string {
  return holders.map((h) => (h.command ? `${h.command} (pid ${h.pid})` : `pid ${h.pid}`)).join(', ');
}
