import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import { clientApiOpenApi } from '../../src/client-api/openapi.ts';
import { type AccountsFixture, accountsFixture } from './accounts-fixtures.ts';

interface Operation {
  operationId: string;
  'x-operation-code'?: string;
  parameters?: Array<Record<string, unknown>>;
  responses: Record<string, { schema?: Record<string, unknown> }>;
  security?: unknown[];
}

/** The contract's client API operations (accounts, devices, sessions, users, authentication): id, code, statuses. */
const expected: Array<[string, string, string, string | undefined, string[]]> = [
  [
    'delete',
    '/accounts/{accountNumber}/sessions',
    'AccountManagement_TearDownSessionsAsync',
    'DELETE_SESSIONS',
    ['204', '400', '404'],
  ],
  [
    'delete',
    '/accounts/{accountNumber}/devices/{mediaPlayerId}/sessions',
    'AccountManagement_TearDownDeviceSessionsAsync',
    'DELETE_DEVICE_SESSIONS',
    ['204', '400', '404'],
  ],
  [
    'get',
    '/accounts/{accountNumber}/devices',
    'AccountManagement_GetValidDevicesAsync',
    'GET_VALID_DEVICES',
    ['200', '400', '404'],
  ],
  [
    'delete',
    '/accounts/{accountNumber}/devices',
    'AccountManagement_DeleteMediaPlayersAsync',
    'DELETE_DEVICES',
    ['204', '400'],
  ],
  [
    'get',
    '/accounts/{accountNumber}/devices/{mediaPlayerId}',
    'AccountManagement_GetDeviceAsync',
    'GET_DEVICES',
    ['200', '400', '404'],
  ],
  [
    'delete',
    '/accounts/{accountNumber}/devices/{mediaPlayerId}',
    'AccountManagement_DeleteMediaPlayerAsync',
    'DELETE_DEVICE',
    ['204', '400', '409'],
  ],
  [
    'put',
    '/accounts/{accountNumber}/devices/{mediaPlayerId}/enabled/{enabled}',
    'AccountManagement_SetMediaPlayerEnabledAsync',
    'SET_DEVICE_STATE',
    ['204'],
  ],
  [
    'get',
    '/accounts/{accountNumber}/devices/{mediaPlayerId}/name',
    'AccountManagement_GetMediaPlayerNameAsync',
    'GET_DEVICE_NAME',
    ['200'],
  ],
  [
    'put',
    '/accounts/{accountNumber}/devices/{mediaPlayerId}/name',
    'AccountManagement_UpdateMediaPlayerNameAsync',
    'SET_DEVICE_NAME',
    ['200', '400'],
  ],
  [
    'get',
    '/accounts/{accountNumber}/userHash',
    'AccountManagement_GetUserHashAsync',
    'GET_USER_HASH',
    ['200'],
  ],
  [
    'get',
    '/accounts/{accountNumber}/devices/playing',
    'AccountManagement_GetPlayingDeviceIdsAsync',
    undefined,
    ['200'],
  ],
  ['get', '/users/{email}', 'AccountManagement_GetUserByEmailAsync', 'GET_USER_BY_EMAIL', ['200']],
  ['get', '/users2/{email}', 'AccountManagement_GetUsersByEmailAsync', 'GET_USERS_BY_EMAIL', ['200']],
  [
    'get',
    '/auth/devices/{deviceClass}/{deviceId}/tokens',
    'Authentication_GetTokensAsync',
    'GET_TOKENS',
    ['200'],
  ],
  [
    'get',
    '/auth/devices/{deviceClass}/{deviceId}/userInfo',
    'Authentication_GetUserAsync',
    'GET_USER_INFO',
    ['200'],
  ],
  [
    'get',
    '/auth/{deviceClass}/users/authenticate',
    'Authentication_BasicAuthenticateUserAsync',
    'AUTHENTICATED',
    ['200', '401', '405'],
  ],
  [
    'head',
    '/auth/{deviceClass}/users/authenticate',
    'Authentication_HeadAuthByDeviceClassUsersAuthenticate',
    'AUTHENTICATED',
    ['204', '401', '405'],
  ],
  [
    'post',
    '/auth/{deviceClass}/users/authenticate',
    'Authentication_AuthenticateUserAsync',
    'AUTHENTICATE_NMP',
    ['200'],
  ],
];

describe('client-api OpenAPI document', () => {
  let f: AccountsFixture;
  // biome-ignore lint/suspicious/noExplicitAny: a parsed JSON document, read field by field below.
  let document: any;
  before(async () => {
    f = await accountsFixture();
    document = await f.document();
  });
  after(() => f.close());

  it('passes a standard OpenAPI 2.0 validator', async () => {
    await SwaggerParser.validate(structuredClone(document));
  });

  it('is Swagger 2.0, version V1, under the base path, with the four media types and the security definitions', () => {
    assert.equal(document.swagger, '2.0');
    assert.equal(document.info.version, 'V1');
    assert.equal(document.basePath, '/api/v1');
    const types = ['application/json', 'application/bson', 'application/ubjson', 'application/xml'];
    assert.deepEqual(document.consumes, types);
    assert.deepEqual(document.produces, types);
    assert.deepEqual(document.securityDefinitions.BearerToken, {
      type: 'apiKey',
      in: 'header',
      name: 'Authorization',
      description: document.securityDefinitions.BearerToken.description,
    });
    assert.equal(document.securityDefinitions.ApiKey.name, 'X-API-Key');
    assert.equal(document.securityDefinitions.ApiKey.in, 'header');
    for (const path of Object.keys(document.paths)) {
      assert.ok(!/healthz|readyz|metrics|well-known|swagger/.test(path), `${path} is outside the base path`);
      assert.ok(!path.startsWith('/api/v1'), `${path} is relative to basePath`);
    }
  });

  for (const [method, path, operationId, code, statuses] of expected) {
    it(`${method.toUpperCase()} ${path}: ${operationId}${code ? ` (${code})` : ''} with the contract's statuses and the Error schema`, () => {
      const operation: Operation | undefined = document.paths[path]?.[method];
      assert.ok(operation, 'documented');
      assert.equal(operation.operationId, operationId);
      assert.equal(operation['x-operation-code'], code);
      for (const status of statuses) assert.ok(operation.responses[status], `status ${status} documented`);
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) >= 400) assert.deepEqual(response.schema, { $ref: '#/definitions/Error' }, status);
      }
    });
  }

  it('parameters carry their limits, enums and defaults', () => {
    const parameter = (path: string, method: string, name: string) =>
      (document.paths[path][method] as Operation).parameters?.find((p) => p.name === name);
    const qsp = parameter('/accounts/{accountNumber}/devices', 'get', 'qspVersion');
    assert.deepEqual(qsp?.enum, ['All', 'V2', 'V3', 'Asfe', 'Ssp', 'SspV2', 'Trivial']);
    assert.equal(qsp?.default, 'V3');
    assert.equal(qsp?.required, false);
    const tokens = '/auth/devices/{deviceClass}/{deviceId}/tokens';
    assert.equal(parameter(tokens, 'get', 'deviceClass')?.maxLength, 24);
    assert.equal(parameter(tokens, 'get', 'deviceId')?.maxLength, 48);
    assert.equal(parameter(tokens, 'get', 'scope')?.maxLength, 24);
    assert.equal(parameter(tokens, 'get', 'sessionUserProfile')?.format, 'int32');
    assert.deepEqual(parameter(tokens, 'get', 'tier')?.enum, [
      'Production',
      'Staging',
      'Testing',
      'Development',
      'Certification',
      'V2',
    ]);
    const name = parameter('/accounts/{accountNumber}/devices/{mediaPlayerId}/name', 'put', 'body');
    assert.deepEqual(
      [
        name?.in,
        (name?.schema as Record<string, unknown> | undefined)?.type,
        (name?.schema as Record<string, unknown> | undefined)?.maxLength,
      ],
      ['body', 'string', 64],
    );
    assert.deepEqual(
      parameter('/accounts/{accountNumber}/devices/{mediaPlayerId}/enabled/{enabled}', 'put', 'enabled')
        ?.enum,
      ['true', 'false'],
    );
    const credential = parameter('/auth/{deviceClass}/users/authenticate', 'post', 'body');
    assert.deepEqual(
      Object.keys((credential?.schema as { properties: object } | undefined)?.properties ?? {}).sort(),
      ['deviceId', 'deviceName', 'password', 'username'],
    );
  });

  it('every body parameter is required, as the server refuses a request without one (400)', async () => {
    const bodies = Object.values(document.paths).flatMap((operations) =>
      Object.values(operations as Record<string, Operation>).flatMap((operation) =>
        (operation.parameters ?? [])
          .filter((p) => p.in === 'body')
          .map((p) => [operation.operationId, p.required]),
      ),
    );
    assert.deepEqual(bodies.sort(), [
      ['AccountManagement_RequestSendEmailAsync', true],
      ['AccountManagement_UpdateMediaPlayerNameAsync', true],
      ['Authentication_AuthenticateUserAsync', true],
      ['Commands_SendDeviceCommandAsync', true],
      ['Playback_HandoffAsync', true],
    ]);
    for (const path of ['/auth/web/users/authenticate', '/web/registration/request']) {
      assert.equal((await f.call('POST', path)).statusCode, 400, path);
    }
  });

  it('names the XML roots of the records and lists', () => {
    const schema = (path: string, method: string) => document.paths[path][method].responses['200'].schema;
    assert.deepEqual(schema('/accounts/{accountNumber}/devices', 'get').xml, {
      name: 'ArrayOfDeviceBase',
      wrapped: true,
    });
    assert.deepEqual(schema('/accounts/{accountNumber}/devices', 'get').items.xml, { name: 'DeviceBase' });
    assert.deepEqual(schema('/accounts/{accountNumber}/devices/{mediaPlayerId}', 'get').xml, {
      name: 'DeviceBase',
    });
    assert.deepEqual(schema('/users/{email}', 'get').xml, { name: 'User' });
    assert.deepEqual(schema('/users2/{email}', 'get').xml, { name: 'ArrayOfUser', wrapped: true });
    assert.deepEqual(schema('/auth/devices/{deviceClass}/{deviceId}/tokens', 'get').xml, {
      name: 'TokensResponse',
    });
    assert.deepEqual(schema('/auth/devices/{deviceClass}/{deviceId}/userInfo', 'get').xml, {
      name: 'UserResponse',
    });
  });

  it('security: account routes take a token or an operator key; lookups by e-mail an operator key only', () => {
    assert.deepEqual(document.paths['/accounts/{accountNumber}/devices'].get.security, [
      { BearerToken: [] },
      { ApiKey: [] },
    ]);
    assert.deepEqual(document.paths['/users/{email}'].get.security, [{ ApiKey: [] }]);
    assert.deepEqual(document.paths['/auth/devices/{deviceClass}/{deviceId}/tokens'].get.security, [
      { BearerToken: [] },
    ]);
    assert.deepEqual(document.paths['/auth/{deviceClass}/users/authenticate'].post.security, []);
  });

  it("lists each operation's own error types and documents Retry-After and WWW-Authenticate", () => {
    const remove = document.paths['/accounts/{accountNumber}/devices/{mediaPlayerId}'].delete;
    assert.deepEqual(remove['x-error-types'][409], ['DEVICE_DELETE_COOLDOWN']);
    assert.match(remove.responses['409'].description, /DEVICE_DELETE_COOLDOWN/);
    assert.equal(remove.responses['409'].headers['Retry-After'].type, 'integer');
    assert.ok(remove.responses['401'].headers['WWW-Authenticate']);
    const rename = document.paths['/accounts/{accountNumber}/devices/{mediaPlayerId}/name'].put;
    assert.match(rename.responses['400'].description, /DEVICE_NAME_REQUIRED, DEVICE_NAME_TOO_LONG/);
    for (const status of ['406', '413', '415']) assert.ok(rename.responses[status], status);
  });

  it('follows CLIENT_API_BASE_PATH for the document path and basePath', () => {
    const definition = clientApiOpenApi({ CLIENT_API_BASE_PATH: '/tv/v2' });
    assert.equal(definition.documentPath, '/tv/v2/swagger.json');
    assert.equal((definition.document as { basePath: string }).basePath, '/tv/v2');
  });
});
