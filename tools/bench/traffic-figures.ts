/**
 * What the two halves of the traffic benchmark measure of their own process, alike: wall and CPU
 * time since they started, and peak RSS (the kernel's high-water mark, so no sampling misses it).
 */
export interface ProcessFigures {
  ms: number;
  cpuMs: number;
  maxRssMb: number;
}

export interface Started {
  at: number;
  cpu: NodeJS.CpuUsage;
}

export const startFigures = (): Started => ({ at: performance.now(), cpu: process.cpuUsage() });

export function figuresOf(started: Started): ProcessFigures {
  const { user, system } = process.cpuUsage(started.cpu);
  return {
    ms: performance.now() - started.at,
    cpuMs: (user + system) / 1000,
    // resourceUsage().maxRSS is in kilobytes.
    maxRssMb: process.resourceUsage().maxRSS / 1024,
  };
}
