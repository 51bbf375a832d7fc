/**
 * The metadata-only sample library that Antenna 0.1 seeded (ids starting with
 * `sample-`, no media files). The sample is now real media (sample-media.ts); this
 * removes the old one from a library that still has it, once the user configures
 * import roots.
 */
import type { Db } from '../../db/database.js';
import { statement } from '../../db/row-codec.js';
import { trackJobWrites } from '../dvr/jobs.repository.js';

const PREFIX = 'sample-';

export function removeSampleLibrary(db: Db): void {
  db.transaction(() => {
    for (const table of ['playlists', 'collections', 'items', 'shows']) {
      statement(db, `DELETE FROM ${table} WHERE id GLOB '${PREFIX}*'`).run();
    }
    statement(db, "DELETE FROM video_groups WHERE id = 'videos-5a3c1e0d9b7f'").run();
    trackJobWrites(db, () =>
      statement(db, "DELETE FROM jobs WHERE name = 'The Lighthouse Keepers' AND item LIKE '%sample-show-1%'").run(),
    );
  }).immediate();
}
