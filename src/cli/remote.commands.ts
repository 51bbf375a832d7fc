/**
 * `antenna` subcommands that change a running server through its management
 * interface: watch state, flags, collections, playlists, deletes and rescans.
 * Each command is a request (method, path, body) built by a pure function, sent with
 * fetch; the answer is printed for people, or as it came with --json.
 */
import { Command, Option } from 'commander';
import type { RuleCliOptions } from '../dvr/planning/rules/rule-type.js';
import { isRuleTypeName, RULE_TYPES, ruleTypeNamed } from '../dvr/planning/rules/rule-types.js';

export interface RemoteRequest {
  method: 'GET' | 'PUT' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  body?: unknown;
  /** How to say what happened, from the answer's JSON (null for 204). */
  describe: (answer: Record<string, unknown> | null) => string;
}

const enc = encodeURIComponent;
const nameOf = (answer: Record<string, unknown> | null) =>
  String(answer?.name ?? answer?.episode_title ?? answer?.video_title ?? answer?.title ?? answer?.id ?? '');

export const requests = {
  info: (id: string): RemoteRequest => ({
    method: 'GET',
    path: `/dvr/files/${enc(id)}`,
    describe: (a) => JSON.stringify(a, null, 2),
  }),
  watch: (id: string): RemoteRequest => ({
    method: 'PUT',
    path: `/dvr/files/${enc(id)}/watch`,
    describe: (a) => `Watched: ${nameOf(a)}`,
  }),
  unwatch: (id: string): RemoteRequest => ({
    method: 'PUT',
    path: `/dvr/files/${enc(id)}/unwatch`,
    describe: (a) => `Not watched: ${nameOf(a)}`,
  }),
  position: (id: string, seconds: string): RemoteRequest => ({
    method: 'PUT',
    path: `/dvr/files/${enc(id)}/playback_time/${enc(seconds)}`,
    describe: (a) => `${nameOf(a)} resumes at ${String(a?.playback_time)} s`,
  }),
  edit: (kind: 'file' | 'show' | 'video-group', id: string, fields: Record<string, unknown>): RemoteRequest => ({
    method: 'PATCH',
    path: `/dvr/${kind === 'file' ? 'files' : kind === 'show' ? 'shows' : 'video_groups'}/${enc(id)}`,
    body: fields,
    describe: (a) => `Updated: ${nameOf(a)}`,
  }),
  delete: (id: string): RemoteRequest => ({
    method: 'DELETE',
    path: `/dvr/files/${enc(id)}`,
    describe: () => `Deleted recording ${id}`,
  }),
  rescan: (root?: string): RemoteRequest => ({
    method: 'POST',
    path: '/dvr/scans',
    body: root === undefined ? {} : { root },
    describe: (a) =>
      `Rescan queued: ${((a?.roots as { path: string }[] | undefined) ?? []).map((r) => r.path).join(', ')}`,
  }),
  collectionCreate: (name: string, type: string): RemoteRequest => ({
    method: 'POST',
    path: '/dvr/collections',
    body: { name, collection_type: type },
    describe: (a) => `Created collection ${nameOf(a)} (${String(a?.id)})`,
  }),
  collectionEdit: (id: string, fields: Record<string, unknown>): RemoteRequest => ({
    method: 'PATCH',
    path: `/dvr/collections/${enc(id)}`,
    body: fields,
    describe: (a) => `Updated collection ${nameOf(a)}`,
  }),
  collectionAdd: (id: string, member: string): RemoteRequest => ({
    method: 'PUT',
    path: `/dvr/collections/${enc(id)}/members/${enc(member)}`,
    describe: (a) => `${nameOf(a)} now holds ${String(a?.content_count)}`,
  }),
  collectionRemove: (id: string, member: string): RemoteRequest => ({
    method: 'DELETE',
    path: `/dvr/collections/${enc(id)}/members/${enc(member)}`,
    describe: (a) => `${nameOf(a)} now holds ${String(a?.content_count)}`,
  }),
  collectionDelete: (id: string): RemoteRequest => ({
    method: 'DELETE',
    path: `/dvr/collections/${enc(id)}`,
    describe: () => `Deleted collection ${id}`,
  }),
  playlistCreate: (name: string, items: string[]): RemoteRequest => ({
    method: 'POST',
    path: '/dvr/playlists',
    body: { name, ...(items.length > 0 ? { item_ids: items } : {}) },
    describe: (a) => `Created playlist ${nameOf(a)} (${String(a?.id)}) with ${String(a?.content_count)} items`,
  }),
  playlistEdit: (id: string, fields: Record<string, unknown>): RemoteRequest => ({
    method: 'PATCH',
    path: `/dvr/playlists/${enc(id)}`,
    body: fields,
    describe: (a) => `Updated playlist ${nameOf(a)}`,
  }),
  playlistAdd: (id: string, items: string[], at?: number): RemoteRequest => ({
    method: 'POST',
    path: `/dvr/playlists/${enc(id)}/items`,
    body: { item_ids: items, ...(at === undefined ? {} : { position: at }) },
    describe: (a) => `${nameOf(a)} now has ${String(a?.content_count)} items`,
  }),
  playlistRemove: (id: string, position: string): RemoteRequest => ({
    method: 'DELETE',
    path: `/dvr/playlists/${enc(id)}/items/${enc(position)}`,
    describe: (a) => `${nameOf(a)} now has ${String(a?.content_count)} items`,
  }),
  playlistOrder: (id: string, items: string[]): RemoteRequest => ({
    method: 'PUT',
    path: `/dvr/playlists/${enc(id)}/items`,
    body: { item_ids: items },
    describe: (a) => `${nameOf(a)} reordered (${String(a?.content_count)} items)`,
  }),
  playlistDelete: (id: string): RemoteRequest => ({
    method: 'DELETE',
    path: `/dvr/playlists/${enc(id)}`,
    describe: () => `Deleted playlist ${id}`,
  }),
  ruleAdd: (body: Record<string, unknown>): RemoteRequest => ({
    method: 'POST',
    path: '/dvr/rules',
    body,
    describe: (a) => `Added rule ${String(a?.id)}: ${describeRule(a ?? {})}`,
  }),
  ruleList: (): RemoteRequest => ({
    method: 'GET',
    path: '/dvr/rules',
    describe: (a) => {
      const rules = (a as unknown as Record<string, unknown>[] | null) ?? [];
      return rules.length === 0
        ? 'No rules.'
        : rules.map((rule) => `${String(rule.id)}\t${describeRule(rule)}`).join('\n');
    },
  }),
  ruleRemove: (id: string): RemoteRequest => ({
    method: 'DELETE',
    path: `/dvr/rules/${enc(id)}`,
    describe: () => `Removed rule ${id}`,
  }),
  refresh: (): RemoteRequest => ({
    method: 'POST',
    path: '/dvr/refresh',
    describe: (a) => {
      const lines = [
        ...((a?.sources as Record<string, unknown>[] | undefined) ?? []),
        ...((a?.guides as Record<string, unknown>[] | undefined) ?? []),
      ].map(describeRefresh);
      return lines.length === 0 ? 'No sources or guides configured.' : lines.join('\n');
    },
  }),
  /** One source or guide; `accept`: the user confirms a refresh that is empty or removes more than half. */
  refreshOne: (what: 'source' | 'guide', id: string, accept: boolean): RemoteRequest => ({
    method: 'POST',
    path: `/dvr/${what}s/${enc(id)}/refresh${accept ? '?accept=true' : ''}`,
    describe: (a) => describeRefresh(a ?? { id }),
  }),
};

/** One line about a source's or guide's refresh: what it read, or why it was not applied. */
function describeRefresh(entry: Record<string, unknown>): string {
  if (!entry.error)
    return `${String(entry.id)}: ${String(entry.channels ?? entry.programmes)} read, ${String(entry.skipped ?? 0)} skipped`;
  // The error says how to confirm when confirming would apply it.
  return `${String(entry.id)}: not applied: ${String(entry.error)}`;
}

/** `antenna refresh [--source ID | --guide ID] [--accept]` as its request. */
export function refreshRequest(options: { source?: string; guide?: string; accept?: boolean }): RemoteRequest {
  if (options.source !== undefined && options.guide !== undefined)
    throw new RemoteError('Give --source or --guide, not both.');
  const one =
    options.source !== undefined
      ? (['source', options.source] as const)
      : options.guide !== undefined
        ? (['guide', options.guide] as const)
        : undefined;
  if (one) return requests.refreshOne(one[0], one[1], options.accept === true);
  if (options.accept)
    throw new RemoteError(
      '--accept confirms the refresh of one source or guide: give --source ID or --guide ID (the ids are in its error and in GET /dvr/sources, /dvr/guides).',
    );
  return requests.refresh();
}

/** One line about a rule, as `antenna rule list` shows it (a type this version does not know is named as such). */
export function describeRule(rule: Record<string, unknown>): string {
  const type = String(rule.type);
  const what = isRuleTypeName(type) ? ruleTypeNamed(type).cli.describe(rule as never) : `${type} rule`;
  const options = [
    rule.new_only ? 'new only' : '',
    rule.keep ? `keep ${String(rule.keep)}` : '',
    rule.priority ? `priority ${String(rule.priority)}` : '',
    rule.paused ? 'paused' : '',
  ].filter(Boolean);
  return options.length > 0 ? `${what} (${options.join(', ')})` : what;
}

export interface RuleOptions extends RuleCliOptions {
  newOnly?: boolean;
  paddingBefore?: string;
  paddingAfter?: string;
  keep?: string;
  priority?: string;
  channels?: string;
  name?: string;
  paused?: boolean;
}

/** A time as epoch seconds: digits are epoch seconds, anything else is read as a date and time ("2026-11-22 20:00"). */
export function parseTime(text: string): number {
  if (/^\d+$/.test(text)) return Number(text);
  const ms = Date.parse(text.replace(' ', 'T'));
  if (Number.isNaN(ms))
    throw new RemoteError(`'${text}' is not a time: give epoch seconds or a date and time such as 2026-11-22T20:00.`);
  return Math.floor(ms / 1000);
}

function integer(text: string | undefined, what: string): number | undefined {
  if (text === undefined) return undefined;
  if (!/^-?\d+$/.test(text)) throw new RemoteError(`${what} must be a whole number, not '${text}'.`);
  return Number(text);
}

/** 'a, b or c'. */
const orList = (names: readonly string[]) =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names.at(-1) ?? ''}`;

/** The POST /dvr/rules body for `antenna rule add <type> <value>`; the server checks the rest. */
export function ruleBody(type: string, value: string | undefined, options: RuleOptions): Record<string, unknown> {
  if (!isRuleTypeName(type))
    throw new RemoteError(`'${type}' is not a rule type: use ${orList(RULE_TYPES.map((t) => t.type))}.`);
  const parsers = {
    time: parseTime,
    integer,
    fail: (message: string): never => {
      throw new RemoteError(message);
    },
  };
  const body: Record<string, unknown> = { type, ...ruleTypeNamed(type).cli.body(value, options, parsers) };
  const numbers: [keyof RuleOptions, string][] = [
    ['paddingBefore', 'padding_before'],
    ['paddingAfter', 'padding_after'],
    ['keep', 'keep'],
    ['priority', 'priority'],
  ];
  for (const [option, field] of numbers) {
    const parsed = integer(
      options[option] as string | undefined,
      `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`,
    );
    if (parsed !== undefined) body[field] = parsed;
  }
  if (options.newOnly) body.new_only = true;
  if (options.paused) body.paused = true;
  if (options.name) body.name = options.name;
  if (options.channels)
    body.channels = options.channels
      .split(',')
      .map((c) => c.trim())
      .filter(Boolean);
  return body;
}

/** Flags of `antenna edit` as the PATCH body: only what was given. */
export function editFields(options: {
  favorite?: boolean;
  labels?: string | false;
  locked?: boolean;
  verified?: boolean;
}): Record<string, unknown> {
  return {
    ...(options.favorite === undefined ? {} : { favorited: options.favorite }),
    ...(options.labels === undefined
      ? {}
      : {
          labels:
            options.labels === false
              ? null
              : options.labels
                  .split(',')
                  .map((l) => l.trim())
                  .filter(Boolean),
        }),
    ...(options.locked === undefined ? {} : { locked: options.locked }),
    ...(options.verified === undefined ? {} : { verified: options.verified }),
  };
}

export class RemoteError extends Error {
  override readonly name = 'RemoteError';
}

interface Connection {
  server: string;
  token: string | undefined;
  json: boolean;
}

/** Sends one request and prints its answer; a refusal or an unreachable server is a RemoteError. */
export async function runRemote(
  connection: Connection,
  request: RemoteRequest,
  print: (text: string) => void,
): Promise<void> {
  const url = connection.server.replace(/\/+$/, '') + request.path;
  let response: Response;
  try {
    response = await fetch(url, {
      method: request.method,
      headers: {
        ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(connection.token ? { authorization: `Bearer ${connection.token}` } : {}),
      },
      ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    });
  } catch (error) {
    throw new RemoteError(
      `no Antenna server answers at ${connection.server} (${(error as Error & { cause?: Error }).cause?.message ?? (error as Error).message}); start one with \`antenna server\` or give --server.`,
    );
  }
  const text = await response.text();
  const answer = text === '' ? null : (JSON.parse(text) as Record<string, unknown>);
  if (!response.ok) throw new RemoteError(String(answer?.message ?? `the server answered ${response.status}`));
  print(connection.json ? (text === '' ? '{}' : text) : request.describe(answer));
}

export type Print = (text: string) => void;
export const printLine: Print = (text) => process.stdout.write(`${text}\n`);

/**
 * How a remote subcommand is wired: `connectionOptions` adds --server, --token and
 * --json; `run` sends the request `build` makes from the positional arguments.
 */
export function remoteCommandKit(print: Print) {
  const connectionOptions = (command: Command) =>
    command
      .addOption(
        new Option('--server <url>', 'the Antenna server to talk to')
          .env('ANTENNA_SERVER')
          .default('http://localhost:8089'),
      )
      .addOption(new Option('--token <token>', "the server's token, if it has one").env('ANTENNA_TOKEN'))
      .option('--json', "print the server's answer as JSON");
  const connectionOf = (command: Command) => {
    const options = command.opts<{ server: string; token?: string; json?: boolean }>();
    return { server: options.server, token: options.token, json: options.json === true };
  };
  const run = (command: Command, build: (...args: string[]) => RemoteRequest) =>
    connectionOptions(command).action(async (...args: unknown[]) => {
      const cmd = args.at(-1) as Command;
      await runRemote(connectionOf(cmd), build(...cmd.args), print);
    });
  return { connectionOptions, connectionOf, run };
}

/** Adds the remote subcommands to the program. */
export function addRemoteCommands(program: Command, print: Print = printLine): void {
  const { connectionOptions, run } = remoteCommandKit(print);

  run(program.command('info <id>').description('show a playable item and its file'), (id) =>
    requests.info(id as string),
  );
  run(program.command('watch <id>').description('mark an episode, movie or video watched'), (id) =>
    requests.watch(id as string),
  );
  run(program.command('unwatch <id>').description('mark it not watched'), (id) => requests.unwatch(id as string));
  run(program.command('position <id> <seconds>').description('set where playback resumes'), (id, seconds) =>
    requests.position(id as string, seconds as string),
  );
  run(
    program.command('delete <id>').description('delete a recording the DVR made (imported files are never deleted)'),
    (id) => requests.delete(id as string),
  );
  run(program.command('rescan [root]').description('rescan the import roots, or one of them'), (root) =>
    requests.rescan(root),
  );

  const edit = program
    .command('edit <kind> <id>')
    .description('favorite, label, lock or verify: kind is file, show or video-group')
    .option('--favorite', 'mark as a favorite')
    .option('--no-favorite', 'no longer a favorite')
    .option('--labels <labels>', 'set the labels (comma-separated)')
    .option('--no-labels', 'clear the labels')
    .option('--locked', 'lock (a file)')
    .option('--no-locked', 'unlock')
    .option('--verified', 'mark verified (a file)')
    .option('--no-verified', 'unmark verified');
  connectionOptions(edit).action(
    async (kind: string, id: string, options: Record<string, unknown>, command: Command) => {
      if (!['file', 'show', 'video-group'].includes(kind))
        throw new RemoteError(`'${kind}' is not something to edit: use file, show or video-group.`);
      // Only flags actually given: commander's --no-x would otherwise default x to true.
      const given = Object.fromEntries(
        Object.entries(options).filter(([name]) => command.getOptionValueSource(name) === 'cli'),
      );
      const opts = command.opts<{ server: string; token?: string; json?: boolean }>();
      await runRemote(
        { server: opts.server, token: opts.token, json: opts.json === true },
        requests.edit(kind as 'file', id, editFields(given)),
        print,
      );
    },
  );

  const collection = program.command('collection').description('create and change collections');
  run(
    collection
      .command('create <name>')
      .addOption(new Option('--type <type>', 'what it holds').choices(['movies', 'shows']).makeOptionMandatory()),
    (name) =>
      requests.collectionCreate(
        name as string,
        (collection.commands.find((c) => c.name() === 'create')?.opts<{ type: string }>().type ?? '') as string,
      ),
  );
  run(collection.command('rename <id> <name>'), (id, name) => requests.collectionEdit(id as string, { name }));
  run(collection.command('image <id> <url>'), (id, url) => requests.collectionEdit(id as string, { image_url: url }));
  run(collection.command('add <id> <member>').description('add a movie or show'), (id, member) =>
    requests.collectionAdd(id as string, member as string),
  );
  run(collection.command('remove <id> <member>'), (id, member) =>
    requests.collectionRemove(id as string, member as string),
  );
  run(collection.command('delete <id>'), (id) => requests.collectionDelete(id as string));

  const playlist = program.command('playlist').description('create and change playlists');
  run(playlist.command('create <name> [items...]'), (name, ...items) =>
    requests.playlistCreate(name as string, items.flat() as string[]),
  );
  run(playlist.command('rename <id> <name>'), (id, name) => requests.playlistEdit(id as string, { name }));
  const add = playlist
    .command('add <id> <items...>')
    .option('--at <position>', 'insert at this position (0 is the start)');
  run(add, (id, ...items) => {
    const at = add.opts<{ at?: string }>().at;
    return requests.playlistAdd(id as string, items.flat() as string[], at === undefined ? undefined : Number(at));
  });
  run(playlist.command('remove <id> <position>').description('remove the entry at a position'), (id, position) =>
    requests.playlistRemove(id as string, position as string),
  );
  run(playlist.command('order <id> <items...>').description('set the content, in this order'), (id, ...items) =>
    requests.playlistOrder(id as string, items.flat() as string[]),
  );
  run(playlist.command('delete <id>'), (id) => requests.playlistDelete(id as string));

  const rule = program.command('rule').description('recording rules: add, list, remove');
  const ruleAddCommand = rule
    .command('add <type> [value]')
    .description(`one of: ${RULE_TYPES.map((t) => t.cli.usage).join('; ')}`)
    .option('--series-id <id>', "series: the guide's series id")
    .option('--start <time>', 'slot/program: start (epoch seconds or 2026-11-22T20:00)')
    .option('--duration <minutes>', 'slot: length in minutes')
    .option('--weekly', 'slot: repeat every week')
    .option('--new-only', 'record only new airings')
    .option('--padding-before <seconds>', 'start early')
    .option('--padding-after <seconds>', 'stop late')
    .option('--keep <n>', 'keep the newest n recordings')
    .option('--priority <n>', 'higher wins when tuners run out')
    .option('--channels <list>', 'only these channels (comma-separated)')
    .option('--name <name>', 'the name jobs show')
    .option('--paused', 'add it paused');
  connectionOptions(ruleAddCommand).action(
    async (
      type: string,
      value: string | undefined,
      options: RuleOptions & { server: string; token?: string; json?: boolean },
    ) => {
      await runRemote(
        { server: options.server, token: options.token, json: options.json === true },
        requests.ruleAdd(ruleBody(type, value, options)),
        print,
      );
    },
  );
  run(rule.command('list').description('list the rules'), () => requests.ruleList());
  run(rule.command('remove <id>').description('remove a rule (its recordings stay)'), (id) =>
    requests.ruleRemove(id as string),
  );
  const refresh = program
    .command('refresh')
    .description('read every channel source and guide again now, or one of them')
    .option('--source <id>', 'only this source')
    .option('--guide <id>', 'only this guide')
    .option(
      '--accept',
      'apply it even if it is empty or removes more than half of what is there (you confirm the change)',
    );
  run(refresh, () => refreshRequest(refresh.opts<{ source?: string; guide?: string; accept?: boolean }>()));
}
