import type { Writable } from 'node:stream';
import pg from 'pg';
import { connectionLost, newTurn, type Settling, settle, type Turn } from './write-turns.ts';

/** One statement: named (parsed once per connection) or not, with its values. */
export interface Statement {
  name?: string;
  text: string;
  values?: unknown[];
}

/** Runs one statement and answers its result: what the Kysely driver (pipelined-driver.ts) needs of it. */
export interface StatementRunner {
  query<Row extends pg.QueryResultRow>(statement: Statement): Promise<pg.QueryResult<Row>>;
}

export interface StatementPipeline extends StatementRunner {
  /** Connections open now (for tests and logs); each is opened on first use. */
  readonly connections: number;
  /** Statements sent and not yet answered, over every connection (for /metrics). */
  readonly inFlight: number;
  /** Refuses new statements, lets those on the wire finish, then closes the connections. */
  close(): Promise<void>;
}

export interface PipelineOptions {
  connectionString: string;
  /** At most this many pipelined connections share the statements (at least 1). */
  connections: number;
  types: pg.CustomTypesConfig;
  connectionTimeoutMillis: number;
  /** How its connections show in pg_stat_activity; PIPELINE_APPLICATION_NAME unless said. */
  applicationName?: string;
  /**
   * Set for writes: each turn's statements on a connection run in one transaction (`begin` before them,
   * `commit` after, in the same write), each answered once that commits, so a turn's writes share one
   * commit and one WAL flush; while the connection's previous commit is unanswered, the transaction is
   * held open, takes the writes of the turns until then, and commits when it answers. Should the
   * transaction roll back (a statement failed: a constraint, a deadlock), or its connection be given up
   * before its `commit` was sent, nothing of it was kept and each of its statements runs again alone
   * through this function, so each answers as it would have alone.
   * Should the connection be lost after the commit was sent, whether it committed is unknown: its
   * statements fail, none is run again.
   */
  alone?: (statement: Statement) => Promise<pg.QueryResult>;
}

export const PIPELINE_APPLICATION_NAME = 'sintonia-statements';

/** What a statement sent after `close` is refused with (unavailable.ts answers it 503). */
export const PIPELINE_CLOSED = 'The statement pipeline is closed.';

/**
 * A connection whose oldest unanswered statement was sent longer ago than this is stalled (waiting on a lock,
 * say): new turns go elsewhere while another connection can take them. A hot statement takes well under a
 * millisecond, and a turn's batch a few.
 */
export const STALLED_AFTER_MS = 200;

/** One pipelined connection and when each of its unanswered statements was sent, oldest first. */
interface Lane {
  client: pg.Client;
  /** Send times (epoch ms) of the statements on the wire: answers come back in the order sent. */
  sentAt: number[];
  retired: boolean;
  /** With `alone`: the transaction taking this turn's writes (and, held open, those of the turns since). */
  turn?: Turn<Statement>;
  /** With `alone`: the transaction whose `commit` was sent and is not answered yet. */
  committing?: Turn<Statement>;
}

/**
 * Single statements (each its own implicit transaction, each with its own Sync, so one's error fails only
 * that one) over a few long-lived connections in node-postgres' pipeline mode. The statements one turn of
 * the event loop sends all go to one connection, corked until the turn's check phase, so they leave in one
 * write and its backend answers them one after the other without waiting for the network; the next turn's
 * go to the connection with the fewest unanswered (opening another while all are busy, up to the limit),
 * passing over one stalled behind a slow statement (STALLED_AFTER_MS) while another can take them.
 *
 * Why: through a pool each statement leaves in a write of its own to a backend of its own, and on loopback
 * each such write costs this process the wake-up of that backend, as much system time as the rest of a
 * hot request. Pipelined, a turn's statements share one write and one wake-up (the figures:
 * docs/decisions-performance.md, "Pipelined statements").
 *
 * Never for transactions or anything that holds a connection: a statement here shares its connection with
 * other requests' statements. A lost connection fails the statements it had on the wire (node-postgres
 * rejects each) and takes no statement after the first that failed with it; another is opened on the next use.
 */
export function statementPipeline(options: PipelineOptions): StatementPipeline {
  const limit = Math.max(1, options.connections);
  const lanes: Lane[] = [];
  /** Runs a write of a rolled-back transaction again alone: there are transactions only with `alone`. */
  const alone = (statement: Statement) => (options.alone as NonNullable<PipelineOptions['alone']>)(statement);
  /** The connection this turn's statements go to; corked until `endTurn`. */
  let current: Lane | undefined;
  let closed = false;

  const retire = (lane: Lane) => {
    if (lane.retired) return;
    lane.retired = true;
    const index = lanes.indexOf(lane);
    if (index !== -1) lanes.splice(index, 1);
    if (current === lane) current = undefined;
  };

  const open = (): Lane => {
    const client = new pg.Client({
      connectionString: options.connectionString,
      types: options.types,
      connectionTimeoutMillis: options.connectionTimeoutMillis,
      // Tells them apart in pg_stat_activity from the pool's and the event bus's connections.
      application_name: options.applicationName ?? PIPELINE_APPLICATION_NAME,
      pipeline: true,
    });
    const lane: Lane = { client, sentAt: [], retired: false };
    client.on('error', () => retire(lane));
    client.on('end', () => retire(lane));
    // A failed connect fails the statements queued on it (node-postgres rejects each) and retires it.
    client.connect().catch(() => retire(lane));
    lanes.push(lane);
    return lane;
  };

  // The stream corked is the one uncorked: with TLS, node-postgres swaps the connection's stream for the
  // TLS one while connecting.
  const endTurn = (lane: Lane, stream: Writable) => {
    if (current === lane) current = undefined;
    // While the connection's previous commit waits for its WAL flush, this turn's transaction stays open and
    // takes the next turns' writes too: it commits once that answers, all of them in one flush.
    if (lane.turn !== undefined && (lane.committing === undefined || lane.retired)) commit(lane, lane.turn);
    stream.uncork();
  };

  const commit = (lane: Lane, turn: Turn<Statement>) => {
    lane.turn = undefined;
    // A connection given up during the turn (lost, or ended by `send`) takes no commit: node-postgres
    // would refuse it at once, before the turn's statements are answered. Nothing of the turn committed.
    if (lane.retired) {
      turn.end = 'unsent';
      settle(turn, alone);
      return;
    }
    lane.committing = turn;
    send(lane, COMMIT, (error, result) => {
      lane.committing = undefined;
      turn.end = { error, result };
      settle(turn, alone);
      // The transaction held open behind this one commits now, unless this turn is still adding to it.
      if (lane.turn !== undefined && current !== lane) commit(lane, lane.turn);
    });
  };

  /** Sends one statement on `lane`, its send time kept until its answer; a lost connection retires the lane. */
  function send<Row extends pg.QueryResultRow>(
    lane: Lane,
    statement: Statement,
    callback: (error: Error | undefined, result: pg.QueryResult<Row>) => void,
  ): void {
    lane.sentAt.push(Date.now());
    // The callback form: node-postgres makes no promise of its own.
    lane.client.query(
      queryOf(statement, (error: Error | undefined, result: pg.QueryResult<Row>) => {
        lane.sentAt.shift();
        // No error is null at run time, whatever the types say. The connection is going: no later
        // statement may be sent to it before its 'end' says so.
        if (error && connectionLost(error)) {
          retire(lane);
          lane.client.end().catch(() => {});
        }
        callback(error ?? undefined, result);
      }),
    );
  }

  const stalled = (lane: Lane, now: number) => {
    const oldest = lane.sentAt[0];
    return oldest !== undefined && now - oldest > STALLED_AFTER_MS;
  };
  const lessLoaded = (a: Lane | undefined, b: Lane) =>
    a === undefined || b.sentAt.length < a.sentAt.length ? b : a;

  /**
   * A connection whose transaction is held open, unless stalled; else the one with the fewest unanswered
   * that is not stalled, or a new one while that one is busy.
   */
  const laneForThisTurn = (now: number): Lane => {
    if (current !== undefined) return current;
    let lane = lanes.find((candidate) => candidate.turn !== undefined && !stalled(candidate, now));
    if (lane === undefined)
      for (const candidate of lanes) if (!stalled(candidate, now)) lane = lessLoaded(lane, candidate);
    if (lanes.length < limit && (lane === undefined || lane.sentAt.length > 0)) lane = open();
    // Every connection stalled and no room for another (so there is one): the least loaded all the same.
    lane ??= lanes.reduce(lessLoaded);
    current = lane;
    const stream = lane.client.connection.stream;
    stream.cork();
    if (options.alone !== undefined && lane.turn === undefined) {
      const turn = newTurn<Statement>();
      lane.turn = turn;
      send(lane, BEGIN, (error) => {
        // Refused by the server, each statement ran as its own transaction; lost with its connection, none ran.
        if (error && !connectionLost(error)) turn.unbegun = true;
        turn.answered += 1;
        settle(turn, alone);
      });
    }
    setImmediate(endTurn, lane, stream);
    return lane;
  };

  return {
    get connections() {
      return lanes.length;
    },
    get inFlight() {
      let sent = 0;
      for (const lane of lanes) sent += lane.sentAt.length;
      return sent;
    },
    query<Row extends pg.QueryResultRow>(statement: Statement) {
      if (closed) return Promise.reject(new Error(PIPELINE_CLOSED));
      const lane = laneForThisTurn(Date.now());
      return new Promise<pg.QueryResult<Row>>((resolve, reject) => {
        const turn = lane.turn;
        if (turn === undefined) {
          return send<Row>(lane, statement, (error, result) => (error ? reject(error) : resolve(result)));
        }
        const one: Settling<Statement> = {
          statement,
          resolve: resolve as Settling<Statement>['resolve'],
          reject,
        };
        turn.statements.push(one);
        send<Row>(lane, statement, (error, result) => {
          if (error) one.error = error;
          else one.result = result;
          turn.answered += 1;
          settle(turn, alone);
        });
      });
    },
    async close() {
      closed = true;
      const open = lanes.splice(0);
      current = undefined;
      // A transaction held open takes no more writes: its commit goes on the wire, behind the one it waits for.
      for (const lane of open) if (lane.turn !== undefined) commit(lane, lane.turn);
      await Promise.all(open.map((lane) => lane.client.end().catch(() => {})));
    },
  };
}

const BEGIN: Statement = { text: 'begin' };
const COMMIT: Statement = { text: 'commit' };

/**
 * node-postgres' Query for a statement, made from its text and values: given a config object instead, the
 * driver copies it descriptor by descriptor before reading it, the largest single cost of a hot read in
 * the profile (docs/decisions-performance.md). A statement's name is the one field left to set.
 */
function queryOf<Row extends pg.QueryResultRow>(
  statement: Statement,
  callback: (error: Error | undefined, result: pg.QueryResult<Row>) => void,
): pg.Query {
  const query = new pg.Query(statement.text, statement.values, callback);
  if (statement.name !== undefined) (query as pg.Query & { name?: string }).name = statement.name;
  return query;
}
