/** Dialect → each distinct data statement recorded in `dir` by scripts/statement-capture.mjs, sorted. */
export function readCaptured(dir: string | undefined): { postgres: string[]; sqlite: string[] };

/** A statement's shape: spaces, placeholders alike, a multi-row VALUES or an IN list of any length as one. */
export function shape(text: string): string;
