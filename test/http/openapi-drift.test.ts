import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  formatOpenApiDocument,
  generateOpenApiDocument,
  generatePlayerOpenApiDocument,
} from '../../src/app/openapi-document.js';

describe('docs/openapi.json', () => {
  it('is exactly what the route schemas generate (run `npm run openapi` after changing a route)', async () => {
    const committed = readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8');
    expect(committed).toBe(formatOpenApiDocument(await generateOpenApiDocument()));
  });

  it('describes every interface-A path with its parameters and error answers', async () => {
    const document = (await generateOpenApiDocument()) as {
      openapi: string;
      paths: Record<string, { get?: { parameters?: { name: string }[]; responses: Record<string, unknown> } }>;
    };
    expect(document.openapi).toBe('3.1.0');
    // Interface A: /api/v1 but the streaming sessions (Media), which clients of HLS call there.
    const paths = Object.keys(document.paths).filter(
      (path) => path.startsWith('/api/v1/') && !path.startsWith('/api/v1/sessions'),
    );
    expect(paths).toHaveLength(22);
    for (const path of paths) {
      expect(document.paths[path]?.get?.responses).toHaveProperty('200');
      expect(document.paths[path]?.get?.responses).toHaveProperty('400');
    }
    const episodeParameters = document.paths['/api/v1/episodes']?.get?.parameters?.map((p) => p.name);
    expect(episodeParameters).toEqual(['watched', 'favorited', 'verified', 'source', 'sort', 'order']);
  });

  it('documents the fully wired server: management, DVR, media and status routes too, each in one of six groups', async () => {
    const document = (await generateOpenApiDocument()) as {
      tags: { name: string }[];
      paths: Record<string, Record<string, { tags?: string[] }>>;
    };
    const groups = ['Library', 'Management', 'DVR', 'Media', 'Players and events', 'Status'];
    expect(document.tags.map((tag) => tag.name)).toEqual(groups);
    for (const path of [
      '/dvr/files/{id}',
      '/dvr/files/{id}/stream',
      '/dvr/playlists',
      '/dvr/rules',
      '/dvr/sources',
      '/dvr/clients/info',
      '/devices/ANY/channels/{number}/stream.mpg',
      '/artwork/{id}',
      '/status',
      '/dvr/files/{id}/hls/master.m3u8',
      '/devices/{source}/channels/{number}/hls/master.m3u8',
      '/api/v1/sessions',
      '/api/v1/sessions/{id}',
    ]) {
      expect(document.paths, path).toHaveProperty([path]);
    }
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const operation of Object.values(operations)) expect(groups, path).toContain(operation.tags?.[0]);
    }
    expect(Object.keys(document.paths).length).toBeGreaterThanOrEqual(53);
  });

  it('names the answers of a write the data directory could not take (507 disk_full, 503 storage_error) on every route that writes', async () => {
    const document = (await generateOpenApiDocument()) as {
      paths: Record<string, Record<string, { responses: Record<string, { description?: string }> }>>;
    };
    const writes = Object.entries(document.paths).flatMap(([path, operations]) =>
      Object.entries(operations)
        .filter(([method]) => ['put', 'post', 'patch', 'delete'].includes(method))
        .map(([method, operation]) => ({ what: `${method} ${path}`, responses: operation.responses })),
    );
    expect(writes.length).toBeGreaterThan(40);
    // Ending an HLS session writes nothing to the data directory.
    for (const { what, responses } of writes.filter((write) => write.what !== 'delete /api/v1/sessions/{id}')) {
      expect(responses['507']?.description, what).toMatch(/disk_full/);
      expect(responses['503']?.description, what).toMatch(/storage_error/);
    }
  });

  it("docs/openapi-player.json is what interface B's route schemas generate, every endpoint with its status answer", async () => {
    const committed = readFileSync(new URL('../../docs/openapi-player.json', import.meta.url), 'utf8');
    const generated = await generatePlayerOpenApiDocument();
    expect(committed).toBe(formatOpenApiDocument(generated));
    const paths = (
      generated as { paths: Record<string, { get?: unknown; post?: { responses: Record<string, unknown> } }> }
    ).paths;
    // The specification's 22, and two of Antenna's own for live TV (start_over, jump_to_live).
    expect(Object.keys(paths).filter((path) => path.startsWith('/api/'))).toHaveLength(24);
    for (const path of [
      '/api/pause',
      '/api/seek/{seconds}',
      '/api/play/recording/{id}',
      '/api/notify',
      '/api/navigate/{section}',
    ]) {
      expect(paths[path]?.post?.responses, path).toHaveProperty('200');
      expect(paths[path]?.post?.responses, path).toHaveProperty('409');
    }
  });
});
