import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatOpenApiDocument, generateOpenApiDocument } from '../../src/api/openapi-document.js';

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
    const paths = Object.keys(document.paths).filter((path) => path.startsWith('/api/v1/'));
    expect(paths).toHaveLength(22);
    for (const path of paths) {
      expect(document.paths[path]?.get?.responses).toHaveProperty('200');
      expect(document.paths[path]?.get?.responses).toHaveProperty('400');
    }
    const episodeParameters = document.paths['/api/v1/episodes']?.get?.parameters?.map((p) => p.name);
    expect(episodeParameters).toEqual(['watched', 'favorited', 'verified', 'source', 'sort', 'order']);
  });
});
