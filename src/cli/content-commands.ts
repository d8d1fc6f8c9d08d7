import { createAdBreakRepository } from '../client-api/ad-info/repository.ts';
import { type ContentsType, contentsTypes } from '../client-api/ad-info/schemas.ts';
import { outboxStatus } from '../client-api/mail/status.ts';
import { type Command, options, UsageError } from './command.ts';

const positions = ['preroll', 'midroll', 'postroll'] as const;
type Position = (typeof positions)[number];

const breakOptions = {
  contents: { type: 'string' },
  content: { type: 'string' },
  position: { type: 'string' },
  offset: { type: 'string' },
  'max-ads': { type: 'string' },
} as const;

function contentsOf(value: unknown): ContentsType {
  const text = String(value);
  if (!(contentsTypes as readonly string[]).includes(text)) {
    throw new UsageError(`--contents must be one of ${contentsTypes.join(', ')}`);
  }
  return text as ContentsType;
}

function contentIdOf(value: unknown): string {
  const text = String(value);
  if (text.length < 1 || text.length > 24) throw new UsageError('--content must be 1 to 24 characters');
  return text;
}

function positionOf(value: unknown): Position {
  const text = String(value);
  if (!(positions as readonly string[]).includes(text))
    throw new UsageError(`--position must be one of ${positions.join(', ')}`);
  return text as Position;
}

function integerOf(name: string, value: unknown, min: number, max: number): number {
  const text = String(value);
  const number = Number(text);
  if (!/^\d+$/.test(text) || number < min || number > max)
    throw new UsageError(`--${name} must be an integer from ${min} to ${max}`);
  return number;
}

/** Admin commands of issue 5: the local ad-break table of ad-info and the e-mail outbox. */
export const contentCommands: Command[] = [
  {
    name: 'ad-break set',
    usage: `ad-break set --contents ${contentsTypes.join('|')} --content ID --position ${positions.join('|')} --offset SECONDS --max-ads N`,
    summary:
      "Set an ad break of a content in the local ad table (replaces the contents type's default breaks).",
    async run(context) {
      const { values } = options(context.args, breakOptions, [
        'contents',
        'content',
        'position',
        'offset',
        'max-ads',
      ]);
      const contents = contentsOf(values.contents);
      const contentId = contentIdOf(values.content);
      const adBreak = {
        position: positionOf(values.position),
        offset: integerOf('offset', values.offset, 0, 2147483647),
        maxAds: integerOf('max-ads', values['max-ads'], 1, 10),
      };
      const breaks = createAdBreakRepository((await context.core()).database);
      await breaks.put(contents, contentId, adBreak);
      return { contents, contentId, adBreaks: await breaks.breaksOf(contents, contentId) };
    },
  },
  {
    name: 'ad-break delete',
    usage: `ad-break delete --contents ${contentsTypes.join('|')} --content ID --position ${positions.join('|')} --offset SECONDS`,
    summary: 'Remove an ad break of a content from the local ad table.',
    async run(context) {
      const { values } = options(context.args, breakOptions, ['contents', 'content', 'position', 'offset']);
      const contents = contentsOf(values.contents);
      const contentId = contentIdOf(values.content);
      const breaks = createAdBreakRepository((await context.core()).database);
      const removed = await breaks.remove(
        contents,
        contentId,
        positionOf(values.position),
        integerOf('offset', values.offset, 0, 2147483647),
      );
      if (!removed) throw new UsageError('no such ad break');
      return { contents, contentId, adBreaks: await breaks.breaksOf(contents, contentId) };
    },
  },
  {
    name: 'ad-break list',
    usage: `ad-break list --contents ${contentsTypes.join('|')} --content ID`,
    summary: 'List the ad breaks stored for a content (none: the defaults of its contents type apply).',
    async run(context) {
      const { values } = options(context.args, breakOptions, ['contents', 'content']);
      const contents = contentsOf(values.contents);
      const contentId = contentIdOf(values.content);
      const breaks = createAdBreakRepository((await context.core()).database);
      return { contents, contentId, adBreaks: await breaks.breaksOf(contents, contentId) };
    },
  },
  {
    name: 'mail outbox',
    usage: 'mail outbox',
    summary: 'Count the e-mail outbox by status (pending, sent, failed) and show the oldest pending.',
    async run(context) {
      options(context.args, {});
      return outboxStatus((await context.core()).database.db.withTables());
    },
  },
];
