import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addRatios, medianRounds, type PathResult } from '../../bench/report.ts';

function result(
  target: 'bare' | 'sintonia',
  name: string,
  format: 'json' | 'bson',
  rps: number,
  failures = 0,
) {
  return {
    target,
    name,
    operation: 'read',
    format,
    contentType: `application/${format}`,
    serverCpuUsPerRequest: 50,
    requestsPerSecond: rps,
    p50: 1,
    p99: rps / 100,
    average: 1,
    total: rps * 10,
    warmupTotal: 0,
    errors: failures,
    timeouts: 0,
    non2xx: failures,
    statusCodes: { 200: rps * 10 },
  } as PathResult;
}

describe('bench rounds', () => {
  it("reports each path's median round, with ratios taken within rounds and failures of every round", () => {
    const rounds = [
      [
        result('bare', 'read', 'json', 1000),
        result('sintonia', 'JSON', 'json', 900),
        result('sintonia', 'BSON', 'bson', 450),
      ],
      [
        result('bare', 'read', 'json', 2000),
        result('sintonia', 'JSON', 'json', 1000),
        result('sintonia', 'BSON', 'bson', 900, 2),
      ],
      [
        result('bare', 'read', 'json', 1500),
        result('sintonia', 'JSON', 'json', 1200),
        result('sintonia', 'BSON', 'bson', 1200),
      ],
    ];
    for (const round of rounds) addRatios(round);
    const [bare, json, bson] = medianRounds(rounds);
    assert.equal(bare?.requestsPerSecond, 1500);
    assert.deepEqual(bare?.roundsRequestsPerSecond, [1000, 2000, 1500]);
    assert.equal(bare?.ratioToBare, undefined);
    assert.equal(json?.requestsPerSecond, 1000);
    assert.equal(json?.p99, 10, 'the other figures are those of the median round');
    // 0.9, 0.5 and 0.8 in the rounds: the median of the ratios, not the ratio of the medians (1000/1500).
    assert.deepEqual(json?.roundsRatioToBare, [0.9, 0.5, 0.8]);
    assert.equal(json?.ratioToBare, 0.8);
    assert.deepEqual(bson?.roundsRatioToJson, [0.5, 0.9, 1]);
    assert.equal(bson?.ratioToJson, 0.9);
    assert.equal(bson?.non2xx, 2, 'a failure in a round that is not the median still shows');
    assert.equal(bson?.errors, 2);
  });

  it('with one round, gives that round', () => {
    const round = [result('bare', 'read', 'json', 1000), result('sintonia', 'JSON', 'json', 700)];
    addRatios(round);
    const [, json] = medianRounds([round]);
    assert.equal(json?.requestsPerSecond, 700);
    assert.equal(json?.ratioToBare, 0.7);
  });
});
