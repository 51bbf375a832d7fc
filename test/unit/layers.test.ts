/**
 * The lint rule that keeps dependencies one way (eslint.config.js): a forbidden import
 * between folders of src/ is an error, an allowed one is not.
 */
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

const eslint = new ESLint({ cwd: new URL('../..', import.meta.url).pathname });

async function restrictions(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('folder boundaries', () => {
  it('refuses a domain importing another domain, a repository importing a service, and routes reaching the database', async () => {
    expect(
      await restrictions(
        'src/library/example.ts',
        "import { DvrService } from '../dvr/dvr.service.js';\nexport const x = DvrService;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restrictions(
        'src/dvr/example.ts',
        "import { ItemWriter } from '../importer/item-writer.js';\nexport const x = ItemWriter;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restrictions(
        'src/repositories/example.ts',
        "import { LibraryService } from '../library/library.service.js';\nexport const x = LibraryService;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restrictions(
        'src/api/example.ts',
        "import { getItemFile } from '../repositories/items.repository.js';\nexport const x = getItemFile;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restrictions(
        'src/common/example.ts',
        "import { digest } from '../model/ids.js';\nexport const x = digest;\n",
      ),
    ).toHaveLength(1);
  });

  it('judges files in folders below a domain (src/dvr/planning/rules/) by where their imports really lead', async () => {
    expect(
      await restrictions(
        'src/dvr/planning/rules/example.ts',
        "import { ItemWriter } from '../../../importer/item-writer.js';\nexport const x = ItemWriter;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restrictions(
        'src/dvr/planning/rules/example.ts',
        "import { BadRequestError } from '../../../common/errors.js';\nimport type { Airing } from '../../lineup/airing.js';\nexport const x = BadRequestError;\nexport type A = Airing;\n",
      ),
    ).toEqual([]);
    expect(
      await restrictions(
        'src/dvr/planning/rules/example.ts',
        "import x from '../../../../package.json';\nexport const y = x;\n",
      ),
    ).toHaveLength(1);
  });

  it("keeps the DVR's wings one way: lineup, then sources and recording, then planning, then live; none imports the DVR's face", async () => {
    const importing = (spec: string) => `import * as m from '${spec}';\nexport const x = m;\n`;
    expect(await restrictions('src/dvr/lineup/example.ts', importing('../planning/rules.service.js'))).toHaveLength(1);
    expect(await restrictions('src/dvr/recording/example.ts', importing('../planning/job-planner.js'))).toHaveLength(1);
    expect(await restrictions('src/dvr/sources/example.ts', importing('../recording/stream-hub.js'))).toHaveLength(1);
    expect(await restrictions('src/dvr/planning/example.ts', importing('../live/live-tv.service.js'))).toHaveLength(1);
    expect(
      await restrictions('src/dvr/planning/rules/example.ts', importing('../../live/live-tv.service.js')),
    ).toHaveLength(1);
    expect(await restrictions('src/dvr/recording/example.ts', importing('../dvr.service.js'))).toHaveLength(1);
    // Nor through src/dvr/ itself, up and down again.
    expect(
      await restrictions('src/dvr/planning/example.ts', importing('../../dvr/live/live-tv.service.js')),
    ).toHaveLength(1);
    expect(await restrictions('src/dvr/planning/example.ts', importing('../../dvr/dvr.service.js'))).toHaveLength(1);
    // The folder rule still holds inside a wing.
    expect(await restrictions('src/dvr/live/example.ts', importing('../../importer/item-writer.js'))).toHaveLength(1);
    expect(await restrictions('src/dvr/planning/example.ts', importing('../recording/stream-hub.js'))).toEqual([]);
    expect(await restrictions('src/dvr/live/example.ts', importing('../planning/job-scheduler.js'))).toEqual([]);
    expect(await restrictions('src/dvr/sources/xmltv/example.ts', importing('../../lineup/lineup-edits.js'))).toEqual(
      [],
    );
    expect(await restrictions('src/dvr/example.ts', importing('./live/live-tv.service.js'))).toEqual([]);
  });

  it('fences plain JavaScript files (the child processes) and import() calls as it fences import statements', async () => {
    const syntax = async (filePath: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath });
      return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
    };
    expect(
      await restrictions(
        'src/importer/example.child.js',
        "import { DvrService } from '../dvr/dvr.service.js';\nexport const x = DvrService;\n",
      ),
    ).toHaveLength(1);
    expect(
      await restrictions(
        'src/importer/example.child.js',
        "import { isInsideTree } from '../common/path-boundary.js';\nexport const x = isInsideTree;\n",
      ),
    ).toEqual([]);
    expect(
      await syntax('src/library/example.ts', "export const load = () => import('../dvr/dvr.service.js');\n"),
    ).toEqual([expect.stringMatching(/src\/library may import only/)]);
    expect(
      await syntax('src/dvr/lineup/example.ts', "export const load = () => import('../planning/rules.service.js');\n"),
    ).toEqual([expect.stringMatching(/src\/dvr\/lineup may import only/)]);
    expect(
      await syntax(
        'src/dvr/planning/rules/example.ts',
        "export const load = () => import('../../../importer/item-writer.js');\n",
      ),
    ).toHaveLength(1);
    expect(
      await syntax('src/cli/example.ts', "export const load = () => import('../app/player.lifecycle.js');\n"),
    ).toEqual([]);
    expect(
      await syntax('src/dvr/planning/example.ts', "export const load = () => import('../recording/stream-hub.js');\n"),
    ).toEqual([]);
    // The transaction rule still holds where the fences give the rule again.
    expect(
      await syntax(
        'src/dvr/planning/example.ts',
        'export const f = (db: { transaction(fn: () => void): () => void }) => db.transaction(() => undefined)();\n',
      ),
    ).toHaveLength(1);
  });

  it("keeps routes and metrics on the DVR's face: its parts are not theirs to call", async () => {
    const syntax = async (filePath: string, code: string) => {
      const [result] = await eslint.lintText(code, { filePath });
      return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-syntax').map((m) => m.message);
    };
    const head = "import type { DvrService } from '../dvr/dvr.service.js';\n";
    expect(
      await syntax('src/api/example.ts', `${head}export const f = (dvr: DvrService) => dvr.sources.listSources();\n`),
    ).toEqual([expect.stringMatching(/DVR's face/)]);
    expect(
      await syntax(
        'src/api/example.ts',
        `${head}export const f = (deps: { dvr: DvrService }) => deps.dvr.schedule.replan();\n`,
      ),
    ).toHaveLength(1);
    expect(
      await syntax('src/metrics/example.ts', `${head}export const f = (dvr: DvrService) => dvr.hub.usage();\n`),
    ).toHaveLength(1);
    expect(
      await syntax('src/api/example.ts', `${head}export const f = (dvr: DvrService) => dvr.listSources();\n`),
    ).toEqual([]);
    // The app wires the parts together (one recording's file is stopped through its part).
    expect(
      await syntax(
        'src/app/example.ts',
        `${head}export const f = (dvr: DvrService) => dvr.recordings.activeJobIds();\n`,
      ),
    ).toEqual([]);
  });

  it('holds code and comments to 120 columns, long strings aside', async () => {
    const lengths = async (code: string) => {
      const [result] = await eslint.lintText(code, { filePath: 'src/common/example.ts' });
      return (result?.messages ?? []).filter((m) => m.ruleId === 'max-len').length;
    };
    expect(await lengths(`export const sum = ${Array.from({ length: 40 }, (_, i) => `${i}`).join(' + ')};\n`)).toBe(1);
    expect(await lengths(`// ${'a comment that goes on '.repeat(6)}\nexport const x = 1;\n`)).toBe(1);
    expect(await lengths(`export const message = '${'a message that goes on '.repeat(8)}';\n`)).toBe(0);
  });

  it('refuses an import cycle inside a folder', async () => {
    // dvr.service.ts imports job-scheduler.ts, which imports job-planner.ts: importing the service back closes a cycle.
    const [result] = await eslint.lintText(
      "import { DvrService } from '../dvr.service.js';\nexport const x = DvrService;\n",
      { filePath: 'src/dvr/planning/job-planner.ts' },
    );
    expect(result?.messages.map((m) => m.ruleId)).toContain('import-x/no-cycle');
  });

  it('lets only src/common/external-program.ts start programs', async () => {
    const spawning = "import { spawn } from 'node:child_process';\nexport const x = spawn;\n";
    expect(await restrictions('src/dvr/example.ts', spawning)).toHaveLength(1);
    expect(await restrictions('src/player/example.ts', spawning)).toHaveLength(1);
    expect(await restrictions('src/common/external-program.ts', spawning)).toEqual([]);
  });

  it('takes imports of the layers below', async () => {
    expect(
      await restrictions(
        'src/dvr/example.ts',
        "import { getItemFile } from '../repositories/items.repository.js';\nimport { digest } from '../model/ids.js';\nexport const x = [getItemFile, digest];\n",
      ),
    ).toEqual([]);
    expect(
      await restrictions(
        'src/api/example.ts',
        "import { LibraryService } from '../library/library.service.js';\nexport const x = LibraryService;\n",
      ),
    ).toEqual([]);
    expect(
      await restrictions(
        'src/app/example.ts',
        "import { openDatabase } from '../db/database.js';\nexport const x = openDatabase;\n",
      ),
    ).toEqual([]);
    expect(
      await restrictions(
        'src/player/example.ts',
        "import { sendError } from '../http/error-reply.js';\nexport const x = sendError;\n",
      ),
    ).toEqual([]);
    expect(
      await restrictions(
        'src/http/example.ts',
        "import { buildHttpApp } from '../api/http-app.js';\nexport const x = buildHttpApp;\n",
      ),
    ).toHaveLength(1);
  });

  it('refuses a deferred transaction in src/ (it fails at once while the guide thread writes), and takes an immediate one', async () => {
    const ruleIds = async (body: string) => {
      const [result] = await eslint.lintText(
        `import type { Db } from '../db/database.js';\nexport function f(db: Db): void {\n  ${body}\n}\n`,
        { filePath: 'src/repositories/example.ts' },
      );
      return (result?.messages ?? []).map((m) => m.ruleId);
    };
    expect(await ruleIds('db.transaction(() => undefined)();')).toContain('no-restricted-syntax');
    expect(await ruleIds('db.transaction(() => undefined).deferred();')).toContain('no-restricted-syntax');
    expect(await ruleIds('db.transaction(() => undefined).immediate();')).toEqual([]);
  });
});
