// The UI's sections, one address each (D-850): `/_emulator/ui/<section>`, with the
// chosen workspace as `?workspace=<id>`. Links marked `data-nav` switch sections without
// a reload; back, forward, reload and a pasted address all land on the same section.
// Every such link's `href` names the chosen workspace too (D-1183), so a link opened in
// a new tab, or copied, lands on the same workspace as a click.

const UI = '/_emulator/ui';
const sections = [...document.querySelectorAll('main > section.section')].map((s) => s.id);
const listeners = [];

/** The section and workspace the address names. */
function parse() {
  const rest = location.pathname.startsWith(`${UI}/`) ? location.pathname.slice(UI.length + 1) : '';
  const section = sections.includes(rest) ? rest : sections[0];
  let workspace = new URLSearchParams(location.search).get('workspace') || undefined;
  // The first UI's address for a workspace: /_emulator/ui#ws_...
  if (!workspace && location.hash.startsWith('#ws_')) {
    try {
      workspace = decodeURIComponent(location.hash.slice(1));
    } catch {
      workspace = undefined;
    }
  }
  return { section, workspace };
}

/** Where the UI is: `section`, and `workspace` (an id, or undefined). */
export const route = parse();

function address({ section, workspace }) {
  return `${UI}/${section}${workspace ? `?workspace=${encodeURIComponent(workspace)}` : ''}`;
}

/** Points every section link at its section with the chosen workspace (a new tab, a copied link). */
function links() {
  for (const link of document.querySelectorAll('a[data-nav]')) {
    const href = address({ section: sections.includes(link.dataset.nav) ? link.dataset.nav : sections[0], workspace: route.workspace });
    if (link.getAttribute('href') !== href) link.setAttribute('href', href);
  }
}

function show(focus) {
  for (const id of sections) document.getElementById(id).hidden = id !== route.section;
  for (const link of document.querySelectorAll('nav.side a[data-nav]')) {
    if (link.dataset.nav === route.section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  const label = document.querySelector(`nav.side a[data-nav="${route.section}"]`).textContent;
  document.title = `${label} · svc-emulator`;
  // Tell a screen reader where it landed; not on the first load or a workspace switch.
  if (focus) document.getElementById(`${route.section}-title`).focus({ preventScroll: true });
  document.getElementById('main').scrollTop = 0;
}

function changed(before, byUi = false) {
  links();
  for (const listener of listeners) listener({ section: route.section !== before.section, workspace: route.workspace !== before.workspace, byUi });
}

/**
 * Calls `listener({ section, workspace, byUi })` after every move: which of them
 * changed, and whether the UI moved by itself (`replace`) rather than the user.
 */
export function onRoute(listener) {
  listeners.push(listener);
}

/** Opens a section (a new history entry unless `replace`). */
export function navigate(section, { replace = false } = {}) {
  const before = { ...route };
  route.section = sections.includes(section) ? section : sections[0];
  history[replace ? 'replaceState' : 'pushState'](null, '', address(route));
  show(route.section !== before.section);
  changed(before, replace);
}

/** Chooses the workspace the scoped sections show (`replace` for a choice the UI made itself). */
export function chooseWorkspace(workspace, { replace = false } = {}) {
  if (workspace === route.workspace) return;
  const before = { ...route };
  route.workspace = workspace || undefined;
  history[replace ? 'replaceState' : 'pushState'](null, '', address(route));
  changed(before, replace);
}

document.addEventListener('click', (event) => {
  const link = event.target.closest('a[data-nav]');
  // A modified click opens a new tab or window as the browser would: the address works there too.
  if (!link || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  event.preventDefault();
  navigate(link.dataset.nav);
});

window.addEventListener('popstate', () => {
  const before = { ...route };
  Object.assign(route, parse());
  show(route.section !== before.section);
  changed(before);
});

// The address as it will stay: a section's own path, the workspace as a parameter.
history.replaceState(null, '', address(route));
show(false);
links();
