import type { Emulator } from '../emulator.js';
import type { Fixture } from '../fixtures.js';
import { printable } from './stops.js';

/** A key whose secret the CLI may print (and hand to `exec`'s command). */
export interface ShownKey {
  workspaceId: string;
  workspace: string;
  name: string;
  scopes: string[];
  secret: string;
}

/**
 * The keys the banner shows. Fixtures loaded just now: every key they made. Otherwise
 * (a restart over a `--db` file, an `--import`) the store has only SHA-256 hashes, so
 * only keys whose secret is written in the fixture file are shown, and only while they
 * still work here: the user already has those secrets, nothing new is revealed.
 */
export async function keysToShow(emulator: Emulator, fixture: Fixture | undefined): Promise<ShownKey[]> {
  if (emulator.fixtureKeys.length) return emulator.fixtureKeys;
  const shown: ShownKey[] = [];
  for (const w of fixture?.workspaces ?? []) {
    for (const k of w.keys) {
      if (k.secret === undefined) continue;
      try {
        const { auth } = await emulator.service.auth.authenticate(`Bearer ${k.secret}`);
        const ws = await emulator.service.workspaces.getWorkspaceOrThrow(auth.workspaceId);
        shown.push({ workspaceId: ws.id, workspace: ws.name, name: k.name, scopes: [...auth.scopes], secret: k.secret });
      } catch {
        // Revoked, expired, or not in this state: nothing to show.
      }
    }
  }
  return shown;
}

/** What the banner says about where the state came from when the fixtures were not loaded. */
export function stateNotes(emulator: Emulator, fixture: Fixture | undefined, origin: { imported?: string; restarted?: string }): string[] {
  // Loading the demo instead of starting from the prebuilt state is slower: say why.
  if (typeof emulator.demoState === 'object') return [`  demo loaded from its fixtures (slower start): ${emulator.demoState.loaded}`];
  if (origin.imported)
    return [`  state imported from ${origin.imported}; it holds key hashes, not secrets, so only keys written in the fixture file are shown`];
  if (!origin.restarted || emulator.fixtureKeys.length) return [];
  const generated = (fixture?.workspaces ?? []).some((w) => w.keys.some((k) => k.secret === undefined));
  return [
    `  state kept in ${origin.restarted}; the fixtures were not loaded again`,
    ...(generated
      ? ['  keys the fixtures generated were printed when that file was created; the store keeps only their SHA-256 (make another: POST /workspaces/<id>/keys)']
      : []),
  ];
}

/** The banner: the ready line first (CONTRACT: nothing before it), then keys and links. */
export function bannerLines(url: string, keys: ShownKey[], notes: string[]): string[] {
  const lines = [`svc-emulator ready at ${url}`, `  UI: ${url}/_emulator/ui`];
  for (const key of keys) {
    lines.push(`  key ${key.name} (${key.workspace}, ${key.workspaceId}): ${key.secret}`, `      scopes: ${key.scopes.join(' ')}`);
  }
  lines.push(...notes, `  start here: ${url}/  OpenAPI: ${url}/v1/openapi.json  health: ${url}/_emulator/health`);
  // Names come from fixtures and state files someone may hand over (D-1114).
  return lines.map(printable);
}
