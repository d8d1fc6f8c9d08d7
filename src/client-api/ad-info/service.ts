import Value from 'typebox/value';
import type { Config } from '../../core/config.ts';
import { subsystemErrors } from '../../core/errors.ts';
import { callSubsystem } from '../../core/http/subsystem-client.ts';
import type { AdBreakRepository } from './repository.ts';
import {
  type AdBreak,
  type AdInfo,
  type AdInfoQuery,
  adFreeContents,
  adInfoSchema,
  type ContentsType,
} from './schemas.ts';

export interface AdInfoRequest {
  deviceClass: string;
  contents: ContentsType;
  contentId: string;
  query: AdInfoQuery;
}

export interface AdInfoService {
  /** The content's ad info, or undefined when its contents type carries no ads (204). */
  adInfo(request: AdInfoRequest): Promise<AdInfo | undefined>;
  /** The breaks stored for a content in the local ad table (none: its contents type's defaults apply). */
  storedBreaks(contents: ContentsType, contentId: string): Promise<AdBreak[]>;
  /** Stores a break (replacing one at the same position and offset) and answers the content's breaks. */
  setBreak(contents: ContentsType, contentId: string, adBreak: AdBreak): Promise<AdBreak[]>;
  /** Removes a stored break and answers the content's breaks; undefined when there was no such break. */
  removeBreak(
    contents: ContentsType,
    contentId: string,
    adBreak: Pick<AdBreak, 'position' | 'offset'>,
  ): Promise<AdBreak[] | undefined>;
}

/** Breaks of a content with no row in the local table, by contents type. */
const defaultBreaks: Record<ContentsType, AdBreak[]> = {
  Voditems: [
    { position: 'preroll', offset: 0, maxAds: 2 },
    { position: 'postroll', offset: 0, maxAds: 1 },
  ],
  Events: [{ position: 'preroll', offset: 0, maxAds: 1 }],
  U7d: [{ position: 'preroll', offset: 0, maxAds: 2 }],
  Npvr: [{ position: 'preroll', offset: 0, maxAds: 2 }],
  Ltcu: [{ position: 'preroll', offset: 0, maxAds: 2 }],
  Channels: [],
  Commercials: [],
};

type AdConfig = Pick<Config, 'AD_DECISION_URL' | 'AD_VAST_TAG_URL' | 'SUBSYSTEM_TIMEOUT_MS'>;

/**
 * The local ad table by default; with AD_DECISION_URL the ad decision service answers (GET with the
 * same parameters as query; 200 an AdInfo, 204 none). Channels and Commercials never carry ads, whoever decides.
 */
export function createAdInfoService(repository: AdBreakRepository, config: AdConfig): AdInfoService {
  const remote = config.AD_DECISION_URL;
  return {
    async adInfo(request) {
      if (adFreeContents.includes(request.contents)) return undefined;
      if (remote) return decideRemotely(remote, request, config.SUBSYSTEM_TIMEOUT_MS);
      const personalised = request.query.isKidProfile !== true && request.query.profile !== 'anonimo';
      let adBreaks: AdBreak[] = [];
      if (request.query.isRental !== true) {
        const stored = await repository.breaksOf(request.contents, request.contentId);
        adBreaks = stored.length > 0 ? stored : defaultBreaks[request.contents];
      }
      return {
        contentId: request.contentId,
        contents: request.contents,
        deviceClass: request.deviceClass,
        profile: request.query.profile,
        personalised,
        adBreaks,
        ...(adBreaks.length > 0
          ? { vastUrl: vastUrl(config.AD_VAST_TAG_URL, request, personalised, adBreaks) }
          : {}),
      };
    },

    storedBreaks: (contents, contentId) => repository.breaksOf(contents, contentId),

    async setBreak(contents, contentId, adBreak) {
      await repository.put(contents, contentId, adBreak);
      return repository.breaksOf(contents, contentId);
    },

    async removeBreak(contents, contentId, { position, offset }) {
      if (!(await repository.remove(contents, contentId, position, offset))) return undefined;
      return repository.breaksOf(contents, contentId);
    },
  };
}

function vastUrl(base: string, request: AdInfoRequest, personalised: boolean, adBreaks: AdBreak[]): string {
  const url = new URL(base);
  const { query } = request;
  url.searchParams.set('content', request.contentId);
  url.searchParams.set('contents', request.contents);
  url.searchParams.set('device', request.deviceClass);
  if (personalised) url.searchParams.set('profile', query.profile);
  url.searchParams.set('npa', personalised ? '0' : '1');
  url.searchParams.set('kids', query.isKidProfile === true ? '1' : '0');
  if (query.campaign !== undefined) url.searchParams.set('campaign', query.campaign);
  if (query.campaignId !== undefined) url.searchParams.set('campaignId', query.campaignId);
  url.searchParams.set('tvrights', query.withTvRights === true ? '1' : '0');
  url.searchParams.set('hd', query.forceFullHd === true ? '1' : '0');
  url.searchParams.set(
    'breaks',
    adBreaks.map((adBreak) => `${adBreak.position}@${adBreak.offset}`).join(','),
  );
  return url.toString();
}

async function decideRemotely(
  base: string,
  request: AdInfoRequest,
  timeoutMs: number,
): Promise<AdInfo | undefined> {
  const url = new URL(base);
  url.searchParams.set('deviceClass', request.deviceClass);
  url.searchParams.set('contents', request.contents);
  url.searchParams.set('contentId', request.contentId);
  for (const [name, value] of Object.entries(request.query)) {
    if (value !== undefined) url.searchParams.set(name, String(value));
  }
  const answer = await callSubsystem<unknown>({
    subsystem: 'ad-decision',
    url: url.toString(),
    method: 'GET',
    timeoutMs,
  });
  if (answer.status === 204) return undefined;
  if (!Value.Check(adInfoSchema, answer.body)) {
    throw subsystemErrors.SUBSYSTEM_ERROR(
      'The ad-decision subsystem answered with something that is not an AdInfo.',
    );
  }
  return answer.body;
}
