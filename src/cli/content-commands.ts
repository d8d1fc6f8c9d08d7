import { type ContentsType, contentsTypes } from '../client-api/ad-info/contents-types.ts';
import { type Command, type CommandContext, options, UsageError } from './command.ts';

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

/** The content an ad-break command is about (`--contents`, `--content`). */
function contentOf(values: { contents?: unknown; content?: unknown }) {
  return { contents: contentsOf(values.contents), contentId: contentIdOf(values.content) };
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

/** The client API's services, over the command's core. */
const clientApi = async (context: CommandContext) => {
  const { composeClientApi } = await import('../client-api/composition.ts');
  return composeClientApi(await context.core());
};

/** Admin commands of the client API's content: the local ad-break table of ad-info and the e-mail outbox. */
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
      const { contents, contentId } = contentOf(values);
      const adBreak = {
        position: positionOf(values.position),
        offset: integerOf('offset', values.offset, 0, 2147483647),
        maxAds: integerOf('max-ads', values['max-ads'], 1, 10),
      };
      const adBreaks = await (await clientApi(context)).adInfo.setBreak(contents, contentId, adBreak);
      return { contents, contentId, adBreaks };
    },
  },
  {
    name: 'ad-break delete',
    usage: `ad-break delete --contents ${contentsTypes.join('|')} --content ID --position ${positions.join('|')} --offset SECONDS`,
    summary: 'Remove an ad break of a content from the local ad table.',
    async run(context) {
      const { values } = options(context.args, breakOptions, ['contents', 'content', 'position', 'offset']);
      const { contents, contentId } = contentOf(values);
      const adBreak = {
        position: positionOf(values.position),
        offset: integerOf('offset', values.offset, 0, 2147483647),
      };
      const adBreaks = await (await clientApi(context)).adInfo.removeBreak(contents, contentId, adBreak);
      if (!adBreaks) throw new UsageError('no such ad break');
      return { contents, contentId, adBreaks };
    },
  },
  {
    name: 'ad-break list',
    usage: `ad-break list --contents ${contentsTypes.join('|')} --content ID`,
    summary: 'List the ad breaks stored for a content (none: the defaults of its contents type apply).',
    async run(context) {
      const { values } = options(context.args, breakOptions, ['contents', 'content']);
      const { contents, contentId } = contentOf(values);
      const adBreaks = await (await clientApi(context)).adInfo.storedBreaks(contents, contentId);
      return { contents, contentId, adBreaks };
    },
  },
  {
    name: 'mail outbox',
    usage: 'mail outbox',
    summary: 'Count the e-mail outbox by status (pending, sent, failed) and show the oldest pending.',
    async run(context) {
      options(context.args, {});
      return (await clientApi(context)).mailOutbox.status();
    },
  },
];
