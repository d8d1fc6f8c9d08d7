import { AjvCompiler, type BuildCompilerFromPool } from '@fastify/ajv-compiler';
import type { FastifySchemaCompiler } from 'fastify';

type CompilerOptions = Exclude<Parameters<BuildCompilerFromPool>[1], undefined>;
type RouteCompiler = FastifySchemaCompiler<unknown>;

/**
 * Fastify's ajv compiler, twice: path, query and header values arrive as text and are converted to
 * their declared types; a body carries its own types, so a number sent where a string is declared (or
 * a boolean for a number) is refused, never converted. The choice is made once per route and part, at
 * compile time: validating a request costs the same as with one compiler.
 */
export function strictBodyValidators() {
  const pool = AjvCompiler();
  return (externalSchemas: Record<string, unknown>, options: CompilerOptions = {}) => {
    const coercing = pool(externalSchemas as never, options) as unknown as RouteCompiler;
    const strict = pool(
      externalSchemas as never,
      {
        ...options,
        customOptions: { ...options.customOptions, coerceTypes: false },
      } as CompilerOptions,
    ) as unknown as RouteCompiler;
    const compile: RouteCompiler = (route) => (route.httpPart === 'body' ? strict : coercing)(route);
    return compile;
  };
}
