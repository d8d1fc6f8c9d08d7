/** A task the service runs at start and then at an interval: its plugin starts and stops it. */
export interface PeriodicTask {
  /** Runs the task once (a failure fails the start, unless it runs in the background), then every interval. */
  start(): Promise<void>;
  stop(): void;
}

/**
 * Every `intervalMs` after its first run, `run` again; a failure of a later run goes to `onError`. A run
 * still going when the next is due is not doubled: that turn is skipped. `background`: the first run
 * starts at once but `start` does not wait for it (a long first pass must not hold the service's start),
 * and its failure goes to `onError` too.
 */
export function periodic(
  run: () => Promise<void>,
  intervalMs: number,
  onError: (error: unknown) => void,
  options: { background?: boolean } = {},
): PeriodicTask {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const once = () => {
    if (running) return running;
    running = run().finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    async start() {
      if (options.background) void once().catch(onError);
      else await once();
      if (timer) return;
      timer = setInterval(() => {
        if (!running) void once().catch(onError);
      }, intervalMs);
      // Never what keeps the process alive.
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      timer = undefined;
    },
  };
}
