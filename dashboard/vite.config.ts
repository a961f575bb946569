import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';

/**
 * Writes a .gz beside every script and style sheet, which the server sends to clients that take gzip
 * (src/http/dashboard.ts): compressed once at build time, never per request.
 */
function gzipAssets(): Plugin {
  return {
    name: 'patron-gzip-assets',
    apply: 'build',
    // Once the files are written: generateBundle would see chunks before Vite's last rewrites (the preload helper).
    async writeBundle(options, bundle) {
      const outDir = options.dir ?? 'dist';
      for (const fileName of Object.keys(bundle)) {
        if (!/\.(js|css)$/.test(fileName)) continue;
        const path = join(outDir, fileName);
        await writeFile(`${path}.gz`, gzipSync(await readFile(path), { level: 9 }));
      }
    },
  };
}

// The API server to proxy /v1 to in `npm run dev -w @patron/dashboard` (start it with `npm start`).
const API = process.env.PATRON_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  // Served by the API process at /dashboard (src/http/dashboard.ts).
  base: '/dashboard/',
  plugins: [react(), gzipAssets()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // dist/.vite/manifest.json: which chunk is the entry and which are the pages (scripts/size.mjs reads it).
    manifest: true,
    target: 'es2022',
    chunkSizeWarningLimit: 800,
  },
  server: {
    proxy: {
      '/v1': {
        target: API,
        changeOrigin: true,
        // The API refuses session writes whose Origin is not its own; the dev server is another origin.
        configure: (proxy) => proxy.on('proxyReq', (request) => request.setHeader('origin', API)),
      },
    },
  },
});
