/**
 * `antenna channels …`: the lineup as the user shapes it, through a running server's
 * management interface (PATCH /dvr/lineup/:id, the group routes, PATCH /dvr/guides/:id).
 * Requests are built by pure functions (tested), as the other remote commands are.
 */
import type { Command } from 'commander';
import {
  type Print,
  printLine,
  RemoteError,
  type RemoteRequest,
  remoteCommandKit,
  runRemote,
} from './remote.commands.js';

const enc = encodeURIComponent;

type Answer = Record<string, unknown> | null;

/** One line per channel: number, name, what sets it apart, its id and group. */
function describeChannel(channel: Record<string, unknown>): string {
  const marks = [
    channel.hidden ? 'hidden' : '',
    channel.favorite ? 'favorite' : '',
    channel.placeholder ? 'no guide' : '',
  ].filter(Boolean);
  const edited = (channel.edited as string[] | undefined) ?? [];
  return [
    String(channel.number),
    String(channel.name),
    marks.length > 0 ? `[${marks.join(', ')}]` : '',
    edited.length > 0 ? `(you changed: ${edited.join(', ')})` : '',
    String(channel.id),
    channel.group ? `group ${String(channel.group)}` : '',
  ]
    .filter(Boolean)
    .join('\t');
}

const describeChannels = (answer: Answer) => {
  const channels = (answer as unknown as Record<string, unknown>[] | null) ?? [];
  return channels.length === 0 ? 'No channels.' : channels.map(describeChannel).join('\n');
};

/** The options `antenna channels edit` takes, as commander gives them (only those given on the command line). */
export interface ChannelEditOptions {
  number?: string;
  name?: string;
  logo?: string;
  group?: string;
  hidden?: boolean;
  favorite?: boolean;
  guide?: string;
  guidePriority?: string;
  reset?: string;
}

const RESETTABLE: Record<string, string> = {
  number: 'number',
  name: 'name',
  logo: 'logo',
  group: 'group',
  guide: 'guide_channel',
  'guide-priority': 'guide_priority',
};

/** The PATCH body of `antenna channels edit`; throws RemoteError on what the server would refuse for sure. */
export function channelEditBody(options: ChannelEditOptions): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (options.number !== undefined) body.number = options.number;
  if (options.name !== undefined) body.name = options.name;
  if (options.logo !== undefined) body.logo = options.logo;
  if (options.group !== undefined) body.group = options.group;
  if (options.hidden !== undefined) body.hidden = options.hidden;
  if (options.favorite !== undefined) body.favorite = options.favorite;
  if (options.guide !== undefined) {
    const split = options.guide.indexOf(':');
    if (split <= 0 || split === options.guide.length - 1)
      throw new RemoteError('--guide takes GUIDE_ID:XMLTV_ID (the ids GET /dvr/guides and /dvr/guide/channels list).');
    body.guide_channel = { guide_id: options.guide.slice(0, split), xmltv_id: options.guide.slice(split + 1) };
  }
  if (options.guidePriority !== undefined)
    body.guide_priority = options.guidePriority
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean);
  for (const field of options.reset
    ?.split(',')
    .map((name) => name.trim())
    .filter(Boolean) ?? []) {
    const key = RESETTABLE[field];
    if (!key) throw new RemoteError(`--reset takes ${Object.keys(RESETTABLE).join(', ')}; '${field}' is not one.`);
    body[key] = null;
  }
  if (Object.keys(body).length === 0)
    throw new RemoteError(
      'Say what to change: --number, --name, --logo, --group, --hidden/--no-hidden, --favorite/--no-favorite, --guide, --guide-priority or --reset.',
    );
  return body;
}

export const channelRequests = {
  list: (): RemoteRequest => ({ method: 'GET', path: '/dvr/lineup', describe: describeChannels }),
  edit: (id: string, body: Record<string, unknown>): RemoteRequest => ({
    method: 'PATCH',
    path: `/dvr/lineup/${enc(id)}`,
    body,
    describe: (a) => `Now: ${describeChannel(a ?? {})}`,
  }),
  groups: (): RemoteRequest => ({
    method: 'GET',
    path: '/dvr/lineup/groups',
    describe: (a) => {
      const groups = (a as unknown as { name: string; channels: number; hidden: number }[] | null) ?? [];
      return groups.length === 0
        ? 'No groups.'
        : groups
            .map((g) => `${g.name}\t${g.channels} channels${g.hidden > 0 ? `, ${g.hidden} hidden` : ''}`)
            .join('\n');
    },
  }),
  group: (group: string, action: 'hide' | 'show'): RemoteRequest => ({
    method: 'POST',
    path: `/dvr/lineup/groups/${enc(group)}/${action}`,
    describe: describeChannels,
  }),
  renumberGroup: (group: string, start: string): RemoteRequest => {
    if (!/^\d{1,6}$/.test(start))
      throw new RemoteError(`'${start}' is not a channel number to start from: give a whole number such as 100.`);
    return {
      method: 'POST',
      path: `/dvr/lineup/groups/${enc(group)}/renumber`,
      body: { start: Number(start) },
      describe: describeChannels,
    };
  },
  guidePriority: (id: string, priority: string): RemoteRequest => {
    if (!/^\d{1,4}$/.test(priority))
      throw new RemoteError(`'${priority}' is not a priority: give a whole number from 1 to 1000, lower first.`);
    return {
      method: 'PATCH',
      path: `/dvr/guides/${enc(id)}`,
      body: { priority: Number(priority) },
      describe: (a) => `Guide ${String(a?.id)} now has priority ${String(a?.priority)}`,
    };
  },
};

/** Adds `antenna channels` and its subcommands. */
export function addChannelCommands(program: Command, print: Print = printLine): void {
  const { connectionOptions, connectionOf, run } = remoteCommandKit(print);
  const channels = program
    .command('channels')
    .description('the lineup as you want it: rename, renumber, hide, group; kept across every refresh of the source');
  run(channels.command('list').description('every channel, hidden ones too, with what you changed'), () =>
    channelRequests.list(),
  );
  const edit = channels
    .command('edit <id>')
    .description('change one channel (ids: `antenna channels list`)')
    .option('--number <number>', 'renumber it (refused when a visible channel has that number)')
    .option('--name <name>', 'rename it')
    .option('--logo <url>', 'an http(s) image URL')
    .option('--group <group>', 'put it in your own group')
    .option('--hidden', 'hide it: out of every list, the guide, recordings and exports')
    .option('--no-hidden', 'show it again')
    .option('--favorite', 'make it a favorite')
    .option('--no-favorite', 'no longer a favorite')
    .option('--guide <guide:xmltv>', 'take its programmes from this guide channel')
    .option('--guide-priority <ids>', 'guide ids to try first for it (comma-separated)')
    .option('--reset <fields>', 'give fields back to the source: number, name, logo, group, guide, guide-priority');
  connectionOptions(edit).action(async (id: string, options: Record<string, unknown>, command: Command) => {
    // Only flags actually given: commander's --no-x would otherwise default x to true.
    const given = Object.fromEntries(
      Object.entries(options).filter(([name]) => command.getOptionValueSource(name) === 'cli'),
    ) as ChannelEditOptions;
    await runRemote(connectionOf(command), channelRequests.edit(id, channelEditBody(given)), print);
  });
  run(channels.command('groups').description('the groups and how many channels each has'), () =>
    channelRequests.groups(),
  );
  run(channels.command('hide-group <group>').description('hide every channel of a group'), (group) =>
    channelRequests.group(group as string, 'hide'),
  );
  run(channels.command('show-group <group>').description('show every channel of a group again'), (group) =>
    channelRequests.group(group as string, 'show'),
  );
  run(
    channels
      .command('renumber-group <group> <start>')
      .description("number a group's visible channels from <start>, in their order"),
    (group, start) => channelRequests.renumberGroup(group as string, start as string),
  );
  run(
    channels
      .command('guide-priority <guide-id> <priority>')
      .description('where guides describe one channel, the lowest priority number gives its programmes'),
    (id, priority) => channelRequests.guidePriority(id as string, priority as string),
  );
}
