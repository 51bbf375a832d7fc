// Regenerates docs/openapi.json from the route schemas (run `npm run build` first; `npm run openapi` does).
import { writeFileSync } from 'node:fs';
import { formatOpenApiDocument, generateOpenApiDocument } from '../dist/api/openapi-document.js';

writeFileSync('docs/openapi.json', formatOpenApiDocument(await generateOpenApiDocument()));
console.log('wrote docs/openapi.json');
