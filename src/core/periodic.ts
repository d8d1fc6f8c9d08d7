/** A task the service runs at start and then at an interval: its plugin starts and stops it. */
export interface PeriodicTask {
  /** Runs the task once (a failure fails the start), then every interval. */
  start(): Promise<void>;
  stop(): void;
}

/** Every `intervalMs` after its first run, `run` again; a failure of a later run goes to `onError`. */
export function periodic(
  run: () => Promise<void>,
  intervalMs: number,
  onError: (error: unknown) => void,
): PeriodicTask {
  let timer: NodeJS.Timeout | undefined;
  return {
    async start() {
      await run();
      if (timer) return;
      timer = setInterval(() => void run().catch(onError), intervalMs);
      // Never what keeps the process alive.
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
