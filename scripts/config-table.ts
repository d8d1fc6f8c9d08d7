// Prints the table of configuration variables (docs/configuration.md) from the one configuration schema.
import { describeConfig } from '../src/core/config.ts';

const escapeCell = (text: string) => text.replaceAll('|', '\\|');
const lines = ['| variable | default | meaning |', '|---|---|---|'];
for (const row of describeConfig()) {
  lines.push(
    `| \`${row.name}\` | ${row.fallback === '' ? '—' : `\`${escapeCell(row.fallback)}\``} | ${escapeCell(row.description)} |`,
  );
}
process.stdout.write(`${lines.join('\n')}\n`);
