// Prints the README's table of configuration variables from the one configuration schema.
import { describeConfig } from '../src/core/config.ts';

const escape = (text: string) => text.replaceAll('|', '\\|');
const lines = ['| variable | default | meaning |', '|---|---|---|'];
for (const row of describeConfig()) {
  lines.push(`| \`${row.name}\` | ${row.fallback === '' ? '—' : `\`${escape(row.fallback)}\``} | ${escape(row.description)} |`);
}
process.stdout.write(`${lines.join('\n')}\n`);
