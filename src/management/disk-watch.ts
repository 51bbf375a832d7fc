/**
 * Watches the recordings disk: below the disk-low setting it tells disk.low, below
 * DISK_FULL_BYTES disk.full (a recording there fails), each once when the disk gets
 * there; it tells again only after the disk had room again (a margin above the line,
 * so a disk hovering at it does not tell every minute).
 */
import type { EventSink } from '../model/events/event.schemas.js';

/** Below this a recording of an hour (2 to 8 GB) cannot be written. */
export const DISK_FULL_BYTES = 1e9;
/** How far above a line the disk must get before crossing it is told again. */
const MARGIN = 1.1;
const CHECK_EVERY_MS = 60_000;

export type DiskLevel = 'ok' | 'low' | 'full';

/** The level after a measurement (pure): lines crossed downward at once, upward only past the margin. */
export function diskLevel(before: DiskLevel, free: number, lowBytes: number): DiskLevel {
  if (free < DISK_FULL_BYTES) return 'full';
  if (lowBytes > 0 && free < lowBytes) return before === 'full' && free < DISK_FULL_BYTES * MARGIN ? 'full' : 'low';
  if (before === 'full' && free < DISK_FULL_BYTES * MARGIN) return 'full';
  if (before !== 'ok' && lowBytes > 0 && free < lowBytes * MARGIN) return 'low';
  return 'ok';
}

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;

export class DiskWatch {
  private level: DiskLevel = 'ok';
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly options: {
      /** The recordings folder and its disk (MediaFilesService.describe). */
      measure: () => { path: string; disk?: { total: number; free: number } | undefined };
      lowBytes: number;
      emit: EventSink;
      everyMs?: number;
    },
  ) {}

  start(): void {
    this.check();
    this.timer = setInterval(() => this.check(), this.options.everyMs ?? CHECK_EVERY_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Measures once and tells a line newly crossed. */
  check(): void {
    const { path, disk } = this.options.measure();
    if (!disk) return;
    const level = diskLevel(this.level, disk.free, this.options.lowBytes);
    const worse = (level === 'low' && this.level === 'ok') || (level === 'full' && this.level !== 'full');
    this.level = level;
    if (!worse) return;
    const data = { path, free_bytes: disk.free, total_bytes: disk.total };
    if (level === 'full')
      this.options.emit({
        kind: 'disk.full',
        severity: 'error',
        message: `The recordings disk is full (${gb(disk.free)} free): recordings fail until space is freed. Delete recordings or give --recordings another disk.`,
        data,
      });
    else
      this.options.emit({
        kind: 'disk.low',
        severity: 'warning',
        message: `The recordings disk has ${gb(disk.free)} free, below the ${gb(this.options.lowBytes)} set: delete some recordings soon.`,
        data: { ...data, threshold_bytes: this.options.lowBytes },
      });
  }
}
