import { clearInterval, setInterval } from 'node:timers';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { performance } from 'node:perf_hooks';

/** How often the launcher is looked at; a stop then takes well under 2 s. */
const INTERVAL_MS = 250;
const SHELLS = new Set(['sh', 'dash', 'bash', 'zsh', 'ash', 'ksh', 'mksh', 'busybox']);

function read(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/** A process's parent, process group and session, from `/proc/<pid>/stat` (after the command name, which may hold spaces). */
function statOf(pid: number | 'self'): { ppid: number; pgid: number; sid: number } | undefined {
  const stat = read(`/proc/${pid}/stat`);
  if (!stat) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { ppid: Number(fields[1]), pgid: Number(fields[2]), sid: Number(fields[3]) };
}

const parentOf = (pid: number) => statOf(pid)?.ppid;

/**
 * Whether the process that started us was gone before our first line ran (decisions,
 * D-742), as in `sh -c 'svc-emulator & echo $!'`: that shell exits while node is still
 * starting, so `startedBy` (the parent at the first line) is already whoever adopted us,
 * init or a subreaper. Adoption changes the parent but not the process group and session
 * the launcher gave us, so the launcher is known to be gone when our parent has no part in
 * them: it neither leads our group nor belongs to it, nor (unless it is pid 1, which
 * every process of a container shares a session with) leads our session or started our
 * group's leader (a job-control shell runs a pipeline in the group of its first
 * command), and nobody made us a group or session leader (a job-control shell, `setsid`,
 * systemd, tini, supervisord, a detached spawn do). A supervisor or init that started us
 * itself is therefore never taken for a launcher that left, and when we are pid 1 there
 * is nothing to watch. Without `/proc` this cannot be told; only later changes are seen.
 */
export function launcherGoneAtStart(startedBy: number): boolean {
  if (process.pid === 1) return false;
  const self = statOf('self');
  if (!self) return false;
  const { pgid, sid } = self;
  if (pgid === process.pid || sid === process.pid || startedBy === pgid) return false;
  if (statOf(startedBy)?.pgid === pgid) return false;
  if (startedBy !== 1 && (startedBy === sid || parentOf(pgid) === startedBy)) return false;
  return true;
}

/** How many times a process went to sleep and woke up since it started. */
function wakeUps(pid: number): number | undefined {
  const status = read(`/proc/${pid}/status`);
  const line = status?.split('\n').find((l) => l.startsWith('voluntary_ctxt_switches:'));
  return line === undefined ? undefined : Number(line.split(':')[1]);
}

function childrenOf(pid: number): string | undefined {
  return read(`/proc/${pid}/task/${pid}/children`)?.trim();
}

/**
 * Whether a `sh -c` script is one simple command: outside quotes no `;`, `&`, `|`, `(`,
 * `)` or newline, and nowhere a substitution (`$(`, a backtick). Arguments npm quotes
 * (`'a;b'`) are fine. Anything else may run other commands, and makes us say no.
 */
export function isOneCommand(script: string): boolean {
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < script.length; i++) {
    const ch = script[i]!;
    if (quote === "'") {
      if (ch === "'") quote = undefined;
    } else if (ch === '\\') {
      i++;
    } else if (ch === '`' || (ch === '$' && script[i + 1] === '(')) {
      return false;
    } else if (quote === '"') {
      if (ch === '"') quote = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (';&|()\n'.includes(ch)) {
      return false;
    }
  }
  return quote === undefined;
}

/**
 * A shell that exists only to run us: `sh -c '<one simple command>'`, as `npm exec` /
 * `npx` and `npm run` start a package's bin. A script that runs other commands too
 * would wake its shell for them, and its wake-ups would mean nothing.
 */
function wrapperShell(pid: number): { runner: number } | undefined {
  const argv = read(`/proc/${pid}/cmdline`)?.split('\0');
  if (!argv || !SHELLS.has(basename(argv[0] ?? '')) || argv[1] !== '-c' || argv[2] === undefined) return undefined;
  if (!isOneCommand(argv[2])) return undefined;
  const runner = parentOf(pid);
  return runner === undefined || runner <= 1 ? undefined : { runner };
}

/**
 * Calls `onGone` once the process that started us is gone, so that a server started by
 * `npx svc-emulator &` stops when that `npx` is killed. `startedBy` is our parent as
 * the process's first line saw it (`emulator/cli.ts`, before any module is loaded): a
 * launcher that exits while we load is seen as gone at once (one that was gone before
 * that line is `launcherGoneAtStart`'s to tell). What npm 11 does: `npm exec`
 * runs the bin through `sh -c`, and forwards SIGINT and SIGTERM to that shell only. With
 * dash (Debian's and Ubuntu's sh), the shell does not exec the bin, so we are its child:
 *
 * - SIGTERM kills the shell (and then npm): our parent changes; we notice.
 * - SIGINT is kept by the waiting shell until its child ends, so nothing would ever
 *   reach us. A shell that runs nothing but us and is blocked waiting for us only wakes
 *   up for a signal, which Linux counts (`voluntary_ctxt_switches`): one while it has no
 *   other child means it was interrupted.
 * - npm killed outright (SIGKILL) leaves the shell to init: the shell's parent changes.
 *
 * Elsewhere (no `/proc`, or a shell that execs, as bash does) only the parent is watched,
 * and npm's forwarded signals reach us directly. The timer never keeps the process alive.
 */
export function watchLauncher(startedBy: number, onGone: (why: string) => void): { stop(): void } {
  const parent = startedBy;
  const shell = read('/proc/self/stat') === undefined ? undefined : wrapperShell(parent);
  let wakes = shell ? wakeUps(parent) : undefined;
  // Wake-ups count only when the shell had no other child at this look and the last one.
  let alone = shell ? childrenOf(parent) === String(process.pid) : false;
  let last = performance.now();
  let timer: NodeJS.Timeout | undefined;
  const gone = (why: string) => {
    clearInterval(timer);
    onGone(why);
  };
  const look = () => {
    if (process.ppid !== parent) return gone('the process that started it exited');
    if (!shell) return;
    if (parentOf(parent) !== shell.runner) return gone('the process that started its shell exited');
    const now = performance.now();
    // A late look means we were stopped (SIGSTOP, ^Z): the shell woke to hear of it.
    const punctual = now - last < INTERVAL_MS * 4;
    last = now;
    const count = wakeUps(parent);
    const only = childrenOf(parent) === String(process.pid);
    if (count !== undefined && wakes !== undefined && count > wakes && alone && only && punctual) {
      return gone('the process that started it was interrupted (SIGINT), which its shell does not pass on');
    }
    wakes = count;
    alone = only;
  };
  // Gone between our first line and now: say so at once.
  if (process.ppid !== parent) {
    gone('the process that started it exited');
    return { stop() {} };
  }
  timer = setInterval(look, INTERVAL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
