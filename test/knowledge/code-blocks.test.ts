import { describe, expect, it } from 'vitest';
import { keyTerms } from '../../src/knowledge/pipeline/summary.js';
import { sentenceReader } from '../../src/text/sentences.js';

const sentences = await sentenceReader();
import { fileEmulator, workspace } from '../support/emulator.js';
import { settled, upload } from './support.js';

const emulator = await fileEmulator({ seed: 11 });

// The Debian Administrator's Handbook's markup for a terminal session (DocBook `screen`):
// the prompt and the output are `computeroutput`, what the user types is `userinput`.
const screen = (prompt: string, command: string, output = '') =>
  `<code class="computeroutput">${prompt}</code><strong class="userinput"><code>${command}</code></strong>${output ? `\n<code class="computeroutput">${output}</code>` : ''}`;

const page = (title: string, body: string) =>
  `<!DOCTYPE html><html><head><title>${title}</title></head><body><div class="section"><h2 class="title">${title}</h2>${body}</div></body></html>`;

const FORTUNES = page(
  'Fun at the terminal',
  `<p>Some packages exist only to make the terminal friendlier. They are installed like any other package, from the command line, with the tool the previous section introduced.</p>
  <pre class="screen">${screen('$ ', 'sudo apt install cowsay fortune-mod', 'Reading package lists... Done')}\n${screen('$ ', 'fortune | cowsay')}</pre>
  <p>The second command pipes a random saying into a drawing of an animal.</p>`,
);

const UPGRADES = page(
  'Upgrading the system',
  `<p>Installed packages are upgraded from the command line as well: the package lists are refreshed first, then every package with a newer version is installed.</p>
  <pre class="screen">${screen('# ', 'apt update')}\n${screen('# ', 'apt full-upgrade')}</pre>`,
);

describe('commands in HTML code blocks (D-1010)', () => {
  it('are indexed: a question about a command typed in a DocBook screen finds its page through /query', async () => {
    const { api } = await workspace(emulator);
    const agentId = (await api.post('/v1/agents', { name: 'Ada', identity: { businessName: 'Acme' } })).body.id as string;
    const ids: string[] = [];
    for (const [name, content] of [
      ['fun.html', FORTUNES],
      ['upgrades.html', UPGRADES],
    ] as const) {
      const res = await api.post('/v1/knowledge/uploads', upload({ name, type: 'text/html', content }, { agentId }));
      expect(res.status).toBe(202);
      expect((await settled(emulator, api, res.body.id)).status).toBe('ready');
      ids.push(res.body.id);
    }
    // "cowsay" is only in what the user types: Turndown's own rule kept the prompt alone.
    const res = await api.post(`/v1/agents/${agentId}/query`, { query: 'How do I install cowsay?' });
    expect(res.status).toBe(200);
    expect(res.body.passages[0]).toMatchObject({ sourceId: ids[0], title: 'Fun at the terminal' });
    expect(res.body.passages[0].text).toContain('```\n$ sudo apt install cowsay fortune-mod\nReading package lists... Done\n$ fortune | cowsay\n```');
    const upgrade = await api.post(`/v1/agents/${agentId}/query`, { query: 'full-upgrade' });
    expect(upgrade.body.passages[0]).toMatchObject({ sourceId: ids[1] });
    expect(upgrade.body.passages[0].text).toContain('# apt update\n# apt full-upgrade');
  });
});

describe('code blocks read as code, not as Markdown (D-1012)', () => {
  const passage =
    '## Upgrades\n\nRefresh the lists first.\n\n```\n# apt update\n\n# apt full-upgrade\n$ ls *.deb apt_preferences\n```\n\n````\n```\n# not a heading either\n````\n\n# Real heading\n\nDone.';

  it('a chat turn quotes a line of code as written, and a root prompt is no heading', () => {
    expect(sentences(passage, 'en')).toEqual([
      { text: 'Refresh the lists first.', heading: 'Upgrades' },
      { text: '# apt update', heading: 'Upgrades' },
      { text: '# apt full-upgrade', heading: 'Upgrades' },
      { text: '$ ls *.deb apt_preferences', heading: 'Upgrades' },
      { text: '```', heading: 'Upgrades' },
      { text: '# not a heading either', heading: 'Upgrades' },
      { text: 'Done.', heading: 'Real heading' },
    ]);
  });

  it('inline Markdown is read as Markdown (D-1076): emphasis marks go, underscores and stars inside words and paths stay', () => {
    const prose =
      'Set **my_var_name** in _snake_case_name.txt_, then run `rm /var/log/*.gz` or rm /var/log/*.gz; 5 * 3 = 15, a \\* star, [the guide](https://x.org/a_b) and --no_color_output.';
    expect(sentences(prose, 'en').map((s) => s.text)).toEqual([
      'Set my_var_name in snake_case_name.txt, then run rm /var/log/*.gz or rm /var/log/*.gz; 5 * 3 = 15, a * star, the guide and --no_color_output.',
    ]);
  });

  it('an index card weighs a root prompt as an ordinary line, not thrice as a heading', () => {
    const text = `The mirror serves packages to clients. The mirror is fast.\n\n\`\`\`\n# reprepro export\n\`\`\``;
    expect(keyTerms(text, 'Notes', 1)).toEqual(['mirror']);
  });
});
