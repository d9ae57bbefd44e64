/** Where the emulator UI is served. */
export const UI_PATH = '/_emulator/ui';

/**
 * Whether a request is for the UI's page or one of its files: `GET`/`HEAD` under
 * `UI_PATH`. They hold no data, so the admin token is not asked for them (a browser
 * cannot send it with a navigation); the page's script sends it with every data call.
 * The Host and origin checks still apply.
 */
export function isUiFile(method: string, path: string): boolean {
  return (method === 'GET' || method === 'HEAD') && (path === UI_PATH || path.startsWith(`${UI_PATH}/`));
}
