/**
 * What the file and artwork routes may send, decided at every request on a real
 * temporary library: inside the roots, a regular file, and for artwork an image; the
 * type always from the name the library knows.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, ForbiddenError, NotFoundError } from '../../src/common/errors.js';
import { PathBoundary } from '../../src/common/path-boundary.js';
import { LibraryService } from '../../src/library/library.service.js';
import { LibraryEditsService } from '../../src/management/library-edits.service.js';
import { MediaFilesService } from '../../src/management/media-files.service.js';
import { setArtwork } from '../../src/repositories/library/import-files.repository.js';
import { upsertMovie } from '../../src/repositories/library/items.repository.js';
import { MOVIES, seedLibrary } from '../support/seed-library.js';
import { type TempLibrary, buildTestApp, createTempLibrary } from '../support/temp-library.js';

const JPEG = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00]);
let temp: TempLibrary;
let root: string;
let outside: string;
let library: LibraryService;
let app: FastifyInstance;

beforeAll(async () => {
  temp = createTempLibrary();
  seedLibrary(temp.db);
  root = join(temp.dir, 'movies');
  outside = join(temp.dir, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  const boundary = new PathBoundary(() => [root]);
  library = new LibraryService(temp.db, { boundary });
  app = await buildTestApp(
    { ...temp, library },
    {
      management: {
        files: new MediaFilesService(temp.db, { recordingsDir: join(temp.dir, 'recordings'), boundary }),
        edits: new LibraryEditsService(temp.db),
        token: undefined,
        roots: () => [{ kind: 'movies', path: root }],
      },
    },
  );
});

afterAll(async () => {
  await app.close();
  temp.close();
});

function artworkAt(owner: string, name: string, write: (path: string) => void): void {
  const path = join(root, name);
  write(path);
  setArtwork(temp.db, owner, path);
}

describe('LibraryService.artworkFile', () => {
  it('gives a JPEG inside a root, with the name the library knows it by', () => {
    artworkAt('mov-1', 'poster.jpg', (path) => writeFileSync(path, JPEG));
    expect(library.artworkFile('mov-1')).toEqual({
      path: join(root, 'poster.jpg'),
      knownAs: join(root, 'poster.jpg'),
      // What the sender checks the opened file against, so a file swapped in between is not sent.
      identity: expect.stringMatching(/^\d+:\d+$/),
    });
    expect(library.artworkFile('mov-without-artwork')).toBeUndefined();
  });

  it('refuses artwork that leads outside (403), is not an image or not a regular file (409), or is gone (404)', () => {
    writeFileSync(join(outside, 'passwd'), 'root:x:0:0\n');
    artworkAt('mov-2', 'stolen.jpg', (path) => symlinkSync(join(outside, 'passwd'), path));
    expect(() => library.artworkFile('mov-2')).toThrow(ForbiddenError);
    artworkAt('mov-3', 'text.jpg', (path) => writeFileSync(path, 'not an image'));
    expect(() => library.artworkFile('mov-3')).toThrow(ConflictError);
    artworkAt('mov-4', 'pipe.jpg', (path) => execFileSync('mkfifo', [path]));
    // A named pipe must not block the server: refused at once.
    expect(() => library.artworkFile('mov-4')).toThrow(ConflictError);
    setArtwork(temp.db, 'show-a', join(root, 'gone.jpg'));
    expect(() => library.artworkFile('show-a')).toThrow(NotFoundError);
  });
});

describe('the type of what is sent', () => {
  it('comes from the library’s name for the file, never from where a link leads, with nosniff and a sandbox', async () => {
    const page = join(root, 'page.html');
    writeFileSync(page, '<script>alert(1)</script>');
    const trick = join(root, 'Trick (2010).mkv');
    symlinkSync(page, trick);
    const movie = MOVIES.find((m) => m.id === 'mov-1');
    upsertMovie(temp.db, { ...movie!, path: trick });
    const response = await app.inject({ url: '/dvr/files/mov-1/stream' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('video/x-matroska');
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['content-security-policy']).toBe('sandbox');

    artworkAt('mov-1', 'folder.jpg', (path) => {
      writeFileSync(join(root, 'image.html'), Buffer.concat([JPEG, Buffer.from('<script>alert(1)</script>')]));
      symlinkSync(join(root, 'image.html'), path);
    });
    const artwork = await app.inject({ url: '/artwork/mov-1' });
    expect(artwork.statusCode).toBe(200);
    expect(artwork.headers['content-type']).toBe('image/jpeg');
  });

  it('lets a page of an allowed origin send every method a change needs (preflight)', async () => {
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/dvr/files/mov-1/watch',
      headers: { origin: 'http://dash.local:8123', 'access-control-request-method': 'PUT' },
    });
    expect(preflight.statusCode).toBe(204);
    expect(String(preflight.headers['access-control-allow-methods'])).toMatch(/PUT.*PATCH.*DELETE/);
  });
});
