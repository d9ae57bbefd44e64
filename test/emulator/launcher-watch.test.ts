import { describe, expect, it } from 'vitest';
import { isOneCommand } from '../../emulator/cli/launcher-watch.js';

describe('which sh -c scripts run nothing but the emulator (the shells whose wake-ups mean a signal)', () => {
  it("npm's quoting of any argument is one command", () => {
    expect(isOneCommand("'svc-emulator' --port 0 --fixtures none")).toBe(true);
    // npm escapes each argument in single quotes, a quote inside as '\''.
    expect(isOneCommand("'svc-emulator' exec -- node -e 'process.on('\\''SIGTERM'\\'', () => { a(); b() }); x | y & z'")).toBe(true);
    expect(isOneCommand('svc-emulator --fixtures "my file.json" > emulator.log')).toBe(true);
  });

  it('lists, pipes, background jobs, subshells and substitutions are not', () => {
    for (const script of [
      'svc-emulator & vitest run',
      'svc-emulator; echo done',
      'svc-emulator && echo done',
      'svc-emulator | tee log',
      'svc-emulator\necho done',
      '(svc-emulator)',
      'svc-emulator --fixtures "$(pwd)/f.json"',
      'svc-emulator --fixtures `pwd`/f.json',
      "svc-emulator 'unterminated",
    ]) {
      expect(isOneCommand(script), script).toBe(false);
    }
  });
});
