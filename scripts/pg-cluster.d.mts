export interface PostgresBin {
  bin: string;
  version: string;
}

export interface PostgresCluster {
  /** The superuser's URL (trust authentication on loopback), database `postgres`. */
  url: string;
  version: string;
  /** The postmaster's process id: its children are the cluster's backends. */
  pid: number;
  /** Restarts the server (pg_ctl restart -m fast: open sessions are terminated); resolves once it accepts again. */
  restart(): Promise<void>;
  /** Stops the cluster at once and removes its folder. */
  stop(): void;
}

export function postgresBin(): PostgresBin | undefined;

export function startPostgres(
  pgInfo: PostgresBin,
  /**
   * ssl: TLS on, with a self-signed certificate (connect with `sslmode=no-verify`). durable: commits wait
   * for their WAL flush, as in production (default: fsync off, for tests).
   */
  options?: { maxConnections?: number; ssl?: boolean; durable?: boolean },
): Promise<PostgresCluster>;
