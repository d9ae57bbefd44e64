/** Where the emulator UI is served. */
export const UI_PATH = '/_emulator/ui';

/**
 * The UI's sections, in the order its navigation lists them: each has its own address,
 * `UI_PATH/<section>` (D-850); `UI_PATH` itself shows the first.
 */
export const UI_SECTIONS = [
  { id: 'workspaces', label: 'Workspaces & keys' },
  { id: 'knowledge', label: 'Knowledge' },
  { id: 'agents', label: 'Agents & chat' },
  { id: 'sites', label: 'Sites' },
  { id: 'requests', label: 'Requests' },
  { id: 'queue', label: 'Queue' },
  { id: 'faults', label: 'Faults' },
  { id: 'clock', label: 'Clock' },
  { id: 'state', label: 'State' },
] as const;

export type UiSection = (typeof UI_SECTIONS)[number]['id'];

/** The section a path under `UI_PATH` names, if it names one. */
export function uiSectionOf(rest: string): UiSection | undefined {
  return UI_SECTIONS.find((s) => s.id === rest)?.id;
}

/**
 * Whether a request is for the UI's page or one of its files: `GET`/`HEAD` under
 * `UI_PATH`. They hold no data, so the admin token is not asked for them (a browser
 * cannot send it with a navigation); the page's script sends it with every data call.
 * The Host and origin checks still apply.
 */
export function isUiFile(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === UI_PATH || path.startsWith(`${UI_PATH}/`));
}
