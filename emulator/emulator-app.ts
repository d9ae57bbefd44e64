import type { Context } from 'hono';
import { createApp } from '../src/app.js';
import type { Service } from '../src/service.js';
import { registerControlPlane, type EmulatorControl } from './control-plane.routes.js';
import { controlPlaneGuard, type AllowedHosts } from './control-plane-guard.js';
import { registerErrorPages } from './docs/error-pages.js';
import { registerHomePage } from './docs/home-page.js';
import type { FaultRules } from './faults.js';
import type { LoadedKey } from './fixture-loader.js';
import type { JournalStore } from './journal.js';
import { RenderedPages } from './sites/rendered-pages.js';
import type { SiteChat } from './sites/site-chat.js';
import { createSiteHandler } from './sites/site-handler.js';
import { registerInspectRoutes } from './ui/inspect.routes.js';
import { serviceInspector } from './ui/inspector.js';
import { isUiFile } from './ui/ui-paths.js';
import { registerUi } from './ui/ui.routes.js';

/** What the emulator's HTTP app serves besides `/v1`, and where it notes each answer. */
export interface EmulatorAppParts {
  service: Service;
  /** The control plane's members (`/_emulator`): the emulator itself. */
  control: EmulatorControl;
  faults: FaultRules;
  journal: JournalStore;
  siteChat: SiteChat;
  guard: { adminToken: string | undefined; allowedHosts: AllowedHosts };
  /** Keys the fixtures created, for the console (read when asked: they are known after the load). */
  fixtureKeys: () => LoadedKey[];
  /** Called with every answer, before the journal records it (a listening server's request log). */
  noted: (c: Context) => void;
}

/**
 * The service's app with what only an emulator serves: injected faults and the hosted
 * sites ahead of the routes, the request journal after them, and the control plane, the
 * console, its inspector and the emulator's own pages, behind the guard of D-135.
 */
export function createEmulatorApp({ service, control, faults, journal, siteChat, guard, fixtureKeys, noted }: EmulatorAppParts): ReturnType<typeof createApp> {
  // One cache of rendered bodies for the sites and the console's page list (D-1202).
  const rendered = new RenderedPages(service.workers, service.settings.log);
  const sites = createSiteHandler({
    service,
    rendered,
    chat: siteChat,
    brand: async (workspaceId, projectId, origin) => {
      const brand = await service.brand.getBrand(workspaceId, projectId, origin);
      return {
        logoUrl: brand.logo?.url,
        faviconUrl: brand.favicon?.url,
        navbar: { links: brand.navbar.links, cta: brand.navbar.cta ?? undefined },
        footer: brand.footer,
      };
    },
  });
  const record = journal.recorder(service.clock, service.settings.siteDomain);
  return createApp(service, {
    intercept: (c) => faults.intercept(c) ?? sites.serve(c),
    problemPage: (c, error) => sites.problemPage(c, error),
    onResponse: (c) => {
      noted(c);
      return record(c);
    },
    extend: (app, router) => {
      const guarded = controlPlaneGuard({ ...guard, tokenFree: isUiFile });
      app.use('/_emulator/*', guarded);
      app.use('/workspaces/*', guarded);
      registerControlPlane(router, control);
      registerInspectRoutes(
        router,
        serviceInspector(service, fixtureKeys, (pageId, lang, markdown) => rendered.heading(pageId, lang, markdown)),
      );
      registerUi(router, { siteDomain: service.settings.siteDomain });
      registerHomePage(router, service);
      registerErrorPages(router);
    },
  });
}
