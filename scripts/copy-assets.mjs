// tsc compiles only TypeScript; the SQL migrations ship beside the compiled modules.
import { cpSync } from 'node:fs';

cpSync('src/db/migrations', 'dist/db/migrations', { recursive: true });
// The folder walk and watch and the MediaInfo reader run as processes of their own from plain JavaScript files (see
// them).
cpSync('src/importer/folder-walk.child.js', 'dist/importer/folder-walk.child.js');
cpSync('src/importer/folder-watch.child.js', 'dist/importer/folder-watch.child.js');
cpSync('src/media-tools/media-read.child.js', 'dist/media-tools/media-read.child.js');
cpSync('src/media-tools/mpeg-ts.read.js', 'dist/media-tools/mpeg-ts.read.js');
