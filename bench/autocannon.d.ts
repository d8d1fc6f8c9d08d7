// autocannon ships no types; this covers the part of its API the bench uses.
declare module 'autocannon' {
  export type RawRequest = { method?: string; path?: string; headers?: Record<string, string> };
  export type Client = { setRequests(requests: RawRequest[]): void };
  export interface Options {
    url: string;
    connections?: number;
    duration?: number;
    timeout?: number;
    requests?: RawRequest[];
    setupClient?: (client: Client) => void;
  }
  export interface Result {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  export default function autocannon(options: Options): Promise<Result>;
}
