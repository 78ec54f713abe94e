import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLOCK_TICKS = Number(spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout.trim() || 100);

/**
 * CPU a set of processes and everything they start used, to the microsecond: a cgroup (v2, `cpu.stat`
 * `usage_usec`) the benchmark puts them in. Process-tree sums from /proc miss what bubblewrap starts, because
 * the sandbox's processes are reparented out of the tree before anyone reaps them; a cgroup keeps them.
 * Needs root and a cgroup2 mount (plain v2, or the `unified` one of a hybrid layout); otherwise `open`
 * answers undefined and the benchmark prints no CPU figures.
 */
export class CpuGroup {
  private constructor(
    private readonly dir: string,
    private readonly home: string,
  ) {}

  static open(name: string): CpuGroup | undefined {
    if (process.getuid?.() !== 0) return undefined;
    const mount = readFileSync('/proc/mounts', 'utf8')
      .split('\n')
      .map((line) => line.split(' '))
      .find((fields) => fields[2] === 'cgroup2')?.[1];
    if (!mount) return undefined;
    const own = /^0::(.*)$/m.exec(readFileSync('/proc/self/cgroup', 'utf8'))?.[1] ?? '/';
    const dir = join(mount, `talkide-bench-${process.pid}-${name}`);
    try {
      mkdirSync(dir);
      if (!existsSync(join(dir, 'cpu.stat'))) throw new Error('no cpu.stat');
    } catch {
      return undefined;
    }
    return new CpuGroup(dir, join(mount, own));
  }

  /** Moves a process in; what it starts from now on is counted too. */
  add(pid: number): void {
    writeFileSync(join(this.dir, 'cgroup.procs'), String(pid));
  }

  /** CPU of the group's live processes named `comm` themselves (clock ticks of /proc, so averaged over many turns). */
  ownCpuMs(comm: string): number {
    let ticks = 0;
    for (const pid of readFileSync(join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
        if (stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) !== comm) continue;
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        ticks += Number(fields[11]) + Number(fields[12]);
      } catch {
        // exited meanwhile
      }
    }
    return (ticks * 1000) / CLOCK_TICKS;
  }

  usageMs(): number {
    const usec = /^usage_usec (\d+)$/m.exec(readFileSync(join(this.dir, 'cpu.stat'), 'utf8'))?.[1];
    return Number(usec) / 1000;
  }

  /** Moves anything left back to where this process came from and removes the group. */
  close(): void {
    for (const pid of readFileSync(join(this.dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean)) {
      try {
        writeFileSync(join(this.home, 'cgroup.procs'), pid);
      } catch {
        // exited meanwhile
      }
    }
    try {
      rmdirSync(this.dir);
    } catch {
      // a process still exiting keeps it a moment; an empty group left behind costs nothing
    }
  }
}
