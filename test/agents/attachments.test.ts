import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { suiteApp } from '../helpers/harness.ts';

describe('agents: turns with files', () => {
  const agents = suiteApp('agents', 'runtime');

  const file = (name: string, size: number, contentType = 'application/pdf') => ({
    name,
    contentType,
    size,
    contentUrl: `https://sintonia.example/v3/directline/conversations/c/files/${name}?t=sig`,
  });
  const invoke = (payload: Record<string, unknown>) =>
    agents.app.inject({ method: 'POST', url: '/agents/assistant/invoke', headers: agents.headers, payload });

  describe('happy', () => {
    it('the assistant acknowledges a file by name and size, in the locale’s language when no words came with it', async () => {
      const english = await invoke({ input: 'report.pdf', attachments: [file('report.pdf', 12 * 1024)] });
      assert.equal(english.statusCode, 200);
      assert.equal(english.json().output, 'I received your file report.pdf (12 KB).');

      const spanish = await invoke({
        input: 'video.mp4, nota.txt',
        locale: 'es-ES',
        attachments: [file('video.mp4', 1.5 * 1024 * 1024, 'video/mp4'), file('nota.txt', 20, 'text/plain')],
      });
      assert.equal(
        spanish.json().output,
        'He recibido tus archivos video.mp4 (1,5 MB) y nota.txt (20 bytes).',
      );
    });

    it('answers the words sent with the file too, in their language', async () => {
      const response = await invoke({
        input: 'how do I record a series?',
        locale: 'es-ES',
        attachments: [file('screen.png', 2048, 'image/png')],
      });
      assert.match(response.json().output, /^I received your file screen\.png \(2 KB\)\. To record/);
    });
  });

  describe('errors', () => {
    it('refuses a malformed attachment with 400, one entry per failing field', async () => {
      const response = await invoke({
        input: 'x',
        attachments: [{ name: 'x.pdf', contentType: 'application/pdf' }],
      });
      assert.equal(response.statusCode, 400);
      const fields = response.json().errors.map((item: { message: string }) => item.message.split(' ')[0]);
      assert.deepEqual(fields.sort(), ['body/attachments/0/contentUrl', 'body/attachments/0/size']);
    });
  });
});
