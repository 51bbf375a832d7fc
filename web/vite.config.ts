/**
 * Builds the Antenna app into dist/web, which the server serves at its root
 * (src/api/web-app.routes.ts). Run by `npm run build`, so `npm ci` builds it too.
 */
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    // Every browser a TV or laptop runs today; no legacy bundle.
    target: 'es2022',
    reportCompressedSize: false,
    chunkSizeWarningLimit: 800,
  },
  // `vite` on its own (npm run web:dev) sends API calls to a server on 8089.
  server: {
    proxy: Object.fromEntries(
      ['/api', '/dvr', '/devices', '/status', '/artwork', '/thumbnails'].map((path) => [path, 'http://127.0.0.1:8089']),
    ),
  },
});
