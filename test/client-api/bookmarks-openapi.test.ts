import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { createTestApp } from '../helpers/harness.ts';

type Operation = {
  operationId: string;
  'x-operation-code'?: string;
  responses: Record<string, { schema?: Record<string, unknown>; headers?: Record<string, unknown> }>;
  parameters?: Array<{ name: string; in: string; description?: string; required?: boolean }>;
};

/** The content operations: path, method, the contract's id and code, and every status each can answer. */
const expected: Array<[string, string, string, string, string[]]> = [
  [
    '/{deviceClass}/users/{userHash}/bookmarks/{contentId}',
    'get',
    'Bookmarks_GetBookmarkAsync',
    'GET_BOOKMARK',
    ['200', '400', '401', '403', '404', '406', '429', '503'],
  ],
  [
    '/{deviceClass}/{deviceId}/users/{userHash}/bookmarks/{contentId}/{offset}',
    'post',
    'Bookmarks_AddBookmarkAsync',
    'SAVE_BOOKMARK',
    ['200', '400', '401', '403', '404', '406', '429', '503'],
  ],
  [
    '/{deviceClass}/contents/{module}/{contentId}/ratings/{rating}',
    'put',
    'AccountManagement_SetUserRatingAsync',
    'SET_RATING',
    ['200', '400', '401', '403', '404', '406', '429', '503'],
  ],
  [
    '/{deviceClass}/contents/{module}/{contentId}/ratings/{rating}',
    'post',
    'AccountManagement_PostByDeviceClassContentsByModuleByContentIdRatingsByRating',
    'SET_RATING',
    ['200', '400', '401', '403', '404', '406', '429', '503'],
  ],
  [
    '/{deviceClass}/registration/request',
    'post',
    'AccountManagement_RequestSendEmailAsync',
    'CORREO',
    ['200', '400', '406', '413', '415', '429', '503'],
  ],
  [
    '/{deviceClass}/accounts/{accountNumber}/campaigns/{campaign}',
    'post',
    'AccountManagement_AddContactAsync',
    'ADD_CONTACT',
    ['201', '400', '401', '403', '404', '406', '429', '502', '503'],
  ],
  [
    '/{deviceClass}/users/{platformUserId}/subscriptions/{codPersona};{codOferta}/dth/enabled',
    'post',
    'AccountManagement_UpgradeUserAsync',
    'UPGRADE_USER',
    ['200', '400', '401', '403', '404', '406', '429', '502', '503'],
  ],
  [
    '/accounts/{accountNumber}/subscriptions/homezone',
    'head',
    'AccountManagement_CheckHomeZoneSubscriptionAsync',
    'CHECK_HOMEZONE_SUBSCR',
    ['204', '400', '401', '403', '404', '406', '429', '502', '503'],
  ],
  [
    '/{deviceClass}/{contents}/{contentId}/ad-info',
    'get',
    'Ad_GetContentAdInfoAsync',
    'AD_INFO',
    ['200', '204', '400', '401', '403', '406', '429', '500', '502', '503'],
  ],
];

describe('API document of bookmarks, ratings, registration, campaigns, subscriptions and ad info', () => {
  let document: { paths: Record<string, Record<string, Operation>>; produces: string[]; consumes: string[] };
  let close: () => Promise<void>;

  before(async () => {
    const test = await createTestApp('client-api');
    close = test.close;
    document = (await test.app.inject({ url: '/api/v1/swagger.json' })).json();
  });
  after(() => close());

  it('validates as Swagger 2.0 and declares the four media types', async () => {
    await SwaggerParser.validate(structuredClone(document) as never);
    for (const type of ['application/json', 'application/bson', 'application/ubjson', 'application/xml']) {
      assert.ok(document.produces.includes(type) && document.consumes.includes(type), type);
    }
  });

  for (const [path, method, id, code, statuses] of expected) {
    it(`${method.toUpperCase()} ${path}: ${id} (${code}) with every status`, () => {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method} ${path} is documented`);
      assert.equal(operation.operationId, id);
      assert.equal(operation['x-operation-code'], code);
      assert.deepEqual(Object.keys(operation.responses).sort(), statuses);
    });
  }

  it('names the XML elements and the path parameters of the contract', () => {
    const xmlName = (path: string, method: string, status: string) =>
      (document.paths[path]?.[method]?.responses[status]?.schema?.xml as { name?: string } | undefined)?.name;
    assert.equal(xmlName(expected[0][0], 'get', '200'), 'Bookmark');
    assert.equal(xmlName(expected[2][0], 'put', '200'), 'Rating');
    assert.equal(xmlName(expected[4][0], 'post', '200'), 'RegistrationAccepted');
    assert.equal(xmlName(expected[5][0], 'post', '201'), 'string');
    assert.equal(xmlName(expected[6][0], 'post', '200'), 'Subscription');
    assert.equal(xmlName(expected[8][0], 'get', '200'), 'AdInfo');
    const upgrade = document.paths[expected[6][0]]?.post;
    assert.deepEqual(
      upgrade?.parameters?.filter((parameter) => parameter.in === 'path').map((parameter) => parameter.name),
      ['deviceClass', 'platformUserId', 'codPersona', 'codOferta'],
    );
    assert.ok(document.paths[expected[4][0]]?.post?.responses['429']?.headers?.['Retry-After']);
  });
});
