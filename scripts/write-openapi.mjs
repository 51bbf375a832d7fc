// Regenerates docs/openapi.json and docs/openapi-player.json from the route schemas (run `npm run build` first; `npm
// run openapi` does).
import { writeFileSync } from 'node:fs';
import {
  formatOpenApiDocument,
  generateOpenApiDocument,
  generatePlayerOpenApiDocument,
} from '../dist/app/openapi-document.js';

writeFileSync('docs/openapi.json', formatOpenApiDocument(await generateOpenApiDocument()));
writeFileSync('docs/openapi-player.json', formatOpenApiDocument(await generatePlayerOpenApiDocument()));
console.log('wrote docs/openapi.json and docs/openapi-player.json');
