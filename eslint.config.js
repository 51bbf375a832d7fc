import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import { importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

/**
 * Dependencies run one way (docs/architecture.md, "Layers"): each folder of src/ may
 * import only the folders listed for it here, besides itself and src/version.ts. The
 * built-in no-restricted-imports rule keeps it so; a forbidden import fails `npm run
 * lint` and so CI. (No plugin for this: a relative import names the folder it reaches
 * as `../<folder>/`, with one more `../` per level a file sits below its folder.)
 */
const FOLDERS = [
  'common',
  'model',
  'db',
  'repositories',
  'media-tools',
  'http',
  'library',
  'importer',
  'dvr',
  'management',
  'player',
  'discovery',
  'sample',
  'streaming',
  'devices',
  'events',
  'config',
  'answer-cache',
  'metrics',
  'api',
  'app',
  'cli',
];
const LOWER = ['common', 'model', 'db', 'repositories', 'media-tools'];
const ALLOWED = {
  common: [],
  model: ['common'],
  db: ['common'],
  repositories: ['common', 'model', 'db'],
  'media-tools': ['common', 'model'],
  // HTTP plumbing both servers share: the error shape, CORS, Node's limits, origin rules.
  http: ['common'],
  // Domains: the layers below, never each other (the app wires them together).
  library: LOWER,
  importer: LOWER,
  dvr: LOWER,
  management: LOWER,
  // The player serves interface B itself, on the shared HTTP plumbing.
  player: [...LOWER, 'http'],
  discovery: LOWER,
  sample: LOWER,
  // HLS sessions: ffmpeg over files and channels the app hands it (never dvr/ or management/ directly).
  streaming: LOWER,
  // The players the server knows (registry, heartbeats, interface B calls to them).
  devices: [...LOWER, 'http'],
  // What happened, told: the event log and feed, webhooks, MQTT.
  events: LOWER,
  // Settings are checked with the domains' own pure checks (service types, mpv options).
  config: ['common', 'model', 'discovery', 'player', 'streaming'],
  // Interface A's answers kept ready (bodies, encodings, ETags) and the front that sends them before routing.
  'answer-cache': ['common', 'http'],
  // Prometheus metrics: counted at the HTTP front, read from the services at each scrape.
  metrics: ['common', 'model', 'answer-cache', 'dvr', 'importer', 'streaming'],
  // Routes call services; SQL and the database stay behind them.
  api: [
    'common',
    'model',
    'media-tools',
    'http',
    'library',
    'importer',
    'dvr',
    'management',
    'player',
    'discovery',
    'sample',
    'streaming',
    'devices',
    'events',
    'answer-cache',
    'metrics',
  ],
  app: FOLDERS.filter((folder) => folder !== 'app' && folder !== 'cli'),
  cli: FOLDERS.filter((folder) => folder !== 'cli'),
};

/**
 * The guide's worker thread writes through a connection of its own. A deferred transaction
 * that reads before it writes fails at once (SQLITE_BUSY, no busy wait) when that thread
 * holds the write lock or wrote since the read: BEGIN IMMEDIATE waits for it instead.
 */
const TRANSACTION_RULES = [
  {
    selector: "CallExpression[arguments.length=0] > CallExpression.callee[callee.property.name='transaction']",
    message:
      'Run a transaction with .immediate(): a deferred one fails at once with SQLITE_BUSY while the guide thread writes.',
  },
  {
    selector: "CallExpression[callee.property.name='deferred'][callee.object.callee.property.name='transaction']",
    message:
      'Run a transaction with .immediate(): a deferred one fails at once with SQLITE_BUSY while the guide thread writes.',
  },
];

/**
 * An esquery regex for relative specifiers `prefix` + one of `names` + '/': `import()` is
 * judged as `import` is. esquery's regex literal may hold no '/' at all, escaped or not,
 * so a slash is written \x2F.
 */
const regexText = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('/', '\\x2F');
function dynamicImportRules(fences) {
  return fences
    .filter(({ names }) => names.length > 0)
    .map(({ prefix, names, message }) => ({
      selector: `ImportExpression > Literal[value=/^${regexText(prefix)}(${names.map(regexText).join('|')})\\x2F/]`,
      message,
    }));
}

/**
 * Routes and metrics ask the DVR's face (DvrService's methods) for whole operations; its
 * parts (sources, plan, rules, the stream hub, recordings) are wired behind it, so a route
 * that adds a source cannot forget the read and the plan that follow.
 */
const DVR_PARTS = 'sources|schedule|rules|hub|recordings';
const DVR_FACE_RULES = [
  {
    selector: `MemberExpression[property.name=/^(${DVR_PARTS})$/]:matches([object.name='dvr'], [object.property.name='dvr'])`,
    message: "Call the DVR's face (a DvrService method), not its parts: add a method there when one is missing.",
  },
];
const FACE_USERS = ['api', 'metrics'];

/** Programs run through src/common/external-program.ts only (no shell, time limits, kill, stderr tail). */
const CHILD_PROCESS = ['node:child_process', 'child_process'].map((name) => ({
  name,
  message: 'Run programs through src/common/external-program.ts.',
}));

/**
 * One entry per folder and depth (a file directly in src/<folder>/, or up to four
 * folders below it, as src/dvr/planning/rules/), so each relative import is judged by where
 * it really leads.
 */
const DEPTHS = [0, 1, 2, 3, 4];
const boundaries = Object.entries(ALLOWED).flatMap(([folder, allowed]) => {
  const forbidden = FOLDERS.filter((other) => other !== folder && !allowed.includes(other));
  return DEPTHS.map((depth) => {
    const toSrc = '../'.repeat(depth + 1);
    const message = `src/${folder} may import only ${allowed.join(', ') || 'nothing outside itself'} (see docs/architecture.md, Layers).`;
    return {
      files: [`src/${folder}/${'*/'.repeat(depth)}*.{ts,js}`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: CHILD_PROCESS,
            patterns: [
              ...(forbidden.length > 0 ? [{ group: forbidden.map((other) => `${toSrc}${other}/*`), message }] : []),
              { group: [`${toSrc}../*`], message: 'Import through the folder directly under src/.' },
            ],
          },
        ],
        'no-restricted-syntax': [
          'error',
          ...TRANSACTION_RULES,
          ...(FACE_USERS.includes(folder) ? DVR_FACE_RULES : []),
          ...dynamicImportRules([{ prefix: toSrc, names: forbidden, message }]),
        ],
      },
    };
  });
});

/**
 * The DVR's wings (docs/architecture.md, "The DVR"), lowest first: each may import only
 * the wings listed for it, never the DVR's face (src/dvr/*.ts, which wires them).
 * Their files get the rule of src/dvr above, with these patterns added (a rule given
 * again replaces the earlier one for the same files, so both are in one list).
 */
const DVR_WINGS = {
  lineup: [],
  sources: ['lineup'],
  recording: ['lineup'],
  planning: ['lineup', 'recording'],
  live: ['lineup', 'recording', 'planning'],
};
const dvrFolderPatterns = (toSrc) => {
  const forbidden = FOLDERS.filter((other) => other !== 'dvr' && !ALLOWED.dvr.includes(other));
  return [
    {
      group: forbidden.map((other) => `${toSrc}${other}/*`),
      message: `src/dvr may import only ${ALLOWED.dvr.join(', ')} (see docs/architecture.md, Layers).`,
    },
    { group: [`${toSrc}../*`], message: 'Import through the folder directly under src/.' },
  ];
};
const wingFences = Object.entries(DVR_WINGS).flatMap(([wing, allowed]) => {
  const forbidden = Object.keys(DVR_WINGS).filter((other) => other !== wing && !allowed.includes(other));
  return DEPTHS.slice(0, 4).map((depth) => {
    const toDvr = '../'.repeat(depth + 1);
    const folderForbidden = FOLDERS.filter((other) => other !== 'dvr' && !ALLOWED.dvr.includes(other));
    const wingMessage = `src/dvr/${wing} may import only ${allowed.map((w) => `dvr/${w}`).join(', ') || 'no other wing'} (see docs/architecture.md, The DVR).`;
    return {
      files: [`src/dvr/${wing}/${'*/'.repeat(depth)}*.{ts,js}`],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            paths: CHILD_PROCESS,
            patterns: [
              ...dvrFolderPatterns(`${toDvr}../`),
              ...(forbidden.length > 0
                ? [{ group: forbidden.map((other) => `${toDvr}${other}/*`), message: wingMessage }]
                : []),
              {
                group: [`${toDvr}*.js`, `${toDvr}../dvr/*`],
                message:
                  "A wing does not import the DVR's face (src/dvr/*.ts), nor others through src/dvr/: the face wires the wings.",
              },
            ],
          },
        ],
        'no-restricted-syntax': [
          'error',
          ...TRANSACTION_RULES,
          ...dynamicImportRules([
            {
              prefix: `${toDvr}../`,
              names: folderForbidden,
              message: `src/dvr may import only ${ALLOWED.dvr.join(', ')} (see docs/architecture.md, Layers).`,
            },
            { prefix: toDvr, names: forbidden, message: wingMessage },
          ]),
        ],
      },
    };
  });
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'coverage/', '.bench/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      'no-eval': 'error',
      // Biome formats to 120 columns (biome.json) but leaves comments and long strings as written: comments are held
      // to the same width here; strings, template literals, regular expressions and URLs may run longer.
      'max-len': [
        'error',
        { code: 120, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
      'no-implied-eval': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // No module may import itself through others: a cycle within a folder fails lint as a forbidden import between
    // folders does.
    files: ['src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver': undefined,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'tsconfig.json' })],
    },
    rules: {
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // The guide's worker thread writes through a connection of its own. A deferred transaction
      // that reads before it writes fails at once (SQLITE_BUSY, no busy wait) when that thread
      // holds the write lock or wrote since the read: BEGIN IMMEDIATE waits for it instead.
      'no-restricted-syntax': ['error', ...TRANSACTION_RULES],
    },
  },
  // After the block above: each fence gives no-restricted-syntax again, with the transaction rules and its import()
  // fences.
  ...boundaries,
  ...wingFences,
  {
    // The web app runs in a browser: from the server it takes only schemas' types (src/model) and the pure playback
    // rules it shares with the mpv player.
    files: ['web/**/*.ts', 'web/**/*.tsx'],
    // The app's tests are never bundled: they may take the server's own tables as fixtures (the rule types).
    ignores: ['web/test/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex:
                '^(\\.\\./){2,}src/(?!model/([^/]+/)?[^/]+$|player/(player-state|tv-page-protocol|commercial-skip)(\\.js)?$)',
              message:
                'The web app may import from the server only src/model (types), src/player/player-state and commercial-skip (pure rules) and src/player/tv-page-protocol (the player bridge).',
            },
          ],
        },
      ],
    },
  },
  {
    // The one module that may spawn.
    files: ['src/common/external-program.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*'], message: 'src/common may import only itself.' }] },
      ],
    },
  },
);
