/** Whether `value` names a PostgreSQL server (`postgres://...` or `postgresql://...`). */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value);
}

/**
 * Where a database URL points, for messages: `host:port/dbname`, never the user's
 * password. A socket directory given as `?host=/run/postgresql` is shown as that path.
 */
export function describePostgresUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'an unreadable PostgreSQL URL';
  }
  const socket = parsed.searchParams.get('host');
  const host = parsed.hostname || socket || 'localhost';
  const port = parsed.port || '5432';
  const name = decodeURIComponent(parsed.pathname.replace(/^\//, '')) || '(default database)';
  return `${host}:${port}/${name}`;
}

/** The password of a URL, to be scrubbed from any message that might echo it. */
export function passwordOf(url: string): string | undefined {
  try {
    const password = decodeURIComponent(new URL(url).password);
    return password === '' ? undefined : password;
  } catch {
    return undefined;
  }
}
