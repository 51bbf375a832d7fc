/**
 * Interface A's job answers are cached until the jobs table is written through
 * trackJobWrites (jobs.repository.ts, LibraryService.jobsGeneration): a write of that
 * table anywhere else would leave them stale. This keeps every such write in the places
 * that track it.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(process.cwd(), 'src');
const TRACKED = new Set(['repositories/dvr/jobs.repository.ts', 'repositories/library/sample-library.repository.ts']);
const WRITES_JOBS =
  /\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM|REPLACE\s+INTO)\s+jobs\b|upsertRow\(\s*db,\s*'jobs'/i;
/** A write to a table named at run time: it could be the jobs table. */
const WRITES_NAMED_TABLE = /\b(?:INSERT\s+(?:OR\s+\w+\s+)?INTO|UPDATE|DELETE\s+FROM)\s+\$\{/i;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? sources(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

describe('writes of the jobs table', () => {
  it('are made only where they are tracked', () => {
    const writers = sources(SRC)
      .filter((file) => WRITES_JOBS.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file));
    expect(writers.length).toBeGreaterThan(0);
    expect(writers.filter((file) => !TRACKED.has(file))).toEqual([]);
  });

  it('never name their table at run time (where it could be jobs) outside the tracked files, save the row codec that is called with a table name', () => {
    const named = sources(SRC)
      .filter((file) => WRITES_NAMED_TABLE.test(readFileSync(file, 'utf8')))
      .map((file) => relative(SRC, file))
      .filter((file) => !TRACKED.has(file));
    // The tables these name are fixed lists in the files (items, shows, ...), none of them jobs.
    for (const file of named) expect(readFileSync(join(SRC, file), 'utf8'), file).not.toMatch(/['"]jobs['"]/);
  });

  it('in those files, each goes through trackJobWrites', () => {
    for (const file of TRACKED) {
      const text = readFileSync(join(SRC, file), 'utf8');
      // Every exported function with a write of the table in its body wraps it.
      for (const body of text.split(/\nexport function /).slice(1)) {
        if (WRITES_JOBS.test(body.split('\n}\n')[0] ?? ''))
          expect(body, body.slice(0, 80)).toContain('trackJobWrites(db');
      }
    }
  });
});
