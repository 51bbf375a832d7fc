// tsc compiles only TypeScript; the SQL migrations ship beside the compiled modules.
import { cpSync } from 'node:fs';

cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
