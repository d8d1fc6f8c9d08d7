import pg from 'pg';

/**
 * The writes a pipelined connection runs in one transaction (pipeline.ts, with `alone`): `begin`, the
 * writes of one or more turns of the event loop, `commit`. Each write is answered once the transaction has
 * ended, as it would have been answered alone. `S` is how the pipeline describes a statement.
 */
export interface Turn<S> {
  statements: Settling<S>[];
  /** Its `begin` was refused by the server: each statement ran as its own transaction, its answer stands. */
  unbegun: boolean;
  /** Answers in so far, `begin`'s counted: the turn settles once every one is in and `end` is known. */
  answered: number;
  /** Its `commit`'s answer; `unsent` when its connection was given up before the commit could be sent. */
  end?: { error: Error | undefined; result: pg.QueryResult | undefined } | 'unsent';
  settled: boolean;
}

/** A statement of a turn's transaction: what it answered, kept until the transaction ends. */
export interface Settling<S> {
  statement: S;
  resolve: (result: pg.QueryResult) => void;
  reject: (error: Error) => void;
  result?: pg.QueryResult;
  error?: Error;
}

export const newTurn = <S>(): Turn<S> => ({ statements: [], unbegun: false, answered: 0, settled: false });

/**
 * Once every statement of a turn and its transaction's end have answered: each statement answers as it
 * answered, or runs again `alone`, or fails. Waiting for all of them, not only the commit, keeps this true
 * whatever order node-postgres reports them in when it refuses one without sending it.
 */
export function settle<S>(turn: Turn<S>, alone: (statement: S) => Promise<pg.QueryResult>): void {
  const { statements, end } = turn;
  if (turn.settled || end === undefined || turn.answered < statements.length + 1) return;
  turn.settled = true;
  // An error on the server aborts the transaction, and its `commit` then answers ROLLBACK: committed,
  // every statement of the turn was answered by the server as it would have been alone.
  const committed = end !== 'unsent' && !end.error && end.result?.command === 'COMMIT';
  if (committed || turn.unbegun) {
    for (const one of statements) {
      if (one.error) one.reject(one.error);
      else one.resolve(one.result as pg.QueryResult);
    }
  } else if (end !== 'unsent' && end.error && connectionLost(end.error)) {
    // The commit was sent and its answer lost: whether the turn committed is unknown.
    const lost = end.error;
    for (const one of statements) one.reject(one.error ?? lost);
  } else {
    for (const one of statements) alone(one.statement).then(one.resolve, one.reject);
  }
}

/**
 * An error that ends its connection rather than only its statement: a driver error (socket closed, reset),
 * or the server's FATAL one (the backend terminated, the server shutting down).
 */
export function connectionLost(error: Error): boolean {
  if (!(error instanceof pg.DatabaseError)) return true;
  return error.severity === 'FATAL' || error.severity === 'PANIC';
}
