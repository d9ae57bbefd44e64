import { ERROR_CODES, type ErrorCode } from './error-codes.js';

/** What the error reference says about one problem code, beside its registry entry. */
export interface ErrorDoc {
  /** When the code is answered, in a sentence or two. */
  when: string;
  /** What the caller should do about it. */
  fix: string;
  /**
   * Set when this service never answers the code on its own (it belongs to a surface the
   * service does not serve); it says which. Injected faults may still answer it.
   */
  notServed?: string;
}

const SESSIONS = 'The emulated API has no console sign-in or sessions.';
const MEMBERS = 'The emulated API has no members, invitations or workspace addresses.';
const BILLING = 'The emulated API sells no plans and takes no payments.';
const SITE_KEYS = 'The emulated API has no site keys or embeds.';
const MCP = 'The emulated API has no MCP surface.';
const DOMAINS = 'The emulated API has no custom-domain endpoints.';
const ONBOARDING = 'The emulated API has no onboarding endpoint.';

/**
 * The error reference, one entry per registered code: `Record<ErrorCode, ...>` makes a
 * new code in `error-codes.ts` without its text a compile error. Served as
 * `GET /docs/errors/<code>`, the page a problem's `type` points at.
 */
export const ERROR_DOCS: Record<ErrorCode, ErrorDoc> = {
  'svc.request.invalid': {
    when: 'The request could not be read: the body is not JSON, JSON was sent without `Content-Type: application/json`, a multipart body is broken, or JSON nests deeper than 64 levels or holds a lone surrogate.',
    fix: 'Send a well-formed body with the right `Content-Type`. Nothing was changed.',
  },
  'svc.request.validation_failed': {
    when: 'A query parameter, a chat or query body, or a control-plane body has a field that breaks a rule. `errors` names each field (a dotted path such as `topics.3`) and why.',
    fix: 'Correct the fields listed in `errors` and send the request again. Nothing was changed.',
  },
  'svc.request.payload_too_large': {
    when: 'The body is over the size limit of the route: 1 MiB of JSON (4 MiB for knowledge text), 20 MiB for uploads, 64 MiB for control-plane bodies.',
    fix: 'Send a smaller body, or split the content over several requests.',
  },
  'svc.request.unprocessable': {
    when: 'The request is well formed but cannot be acted on as it stands.',
    fix: 'Read `detail` and `errors`, change the request, and send it again.',
  },
  'svc.rate_limit.exceeded': {
    when: 'The API key spent its request budget for the current window (600 requests per 60 s by default, shared by every `/v1` route), or a visitor of a hosted site asked too many chat questions.',
    fix: 'Wait the number of seconds in `Retry-After` (or until `X-RateLimit-Reset`), then retry. Spread requests out, or raise the limit of an emulated workspace with `PATCH /_emulator/workspaces/{id}`. On an emulator started with a seed the clock is frozen and no window ends by waiting: move the clock with `POST /_emulator/clock` (`{ "advanceMs": 60000 }`), as `detail` then says.',
  },
  'svc.idempotency.conflict': {
    when: 'An `Idempotency-Key` was reused with a different request (422), or while the first request with that key is still running (409).',
    fix: 'Use a new key for a new request. For a 409, wait for the first request to finish, then retry with the same key to get its answer.',
  },
  'svc.service.unavailable': {
    when: 'A dependency is unavailable (the chat model failed, a turn was cancelled; the database is out of reach, or aborted the request to let another writer through), or a fault was injected; or a stored row cannot be read (it was written into the store by hand): `errors[0].field` names it (`pages.pg_....editorial`).',
    fix: 'Retry later, with backoff. Nothing was charged. For a stored row: reset the emulator, or import a state it exported.',
  },
  'svc.internal.error': {
    when: 'Something unexpected failed inside the service. The answer says nothing more on purpose.',
    fix: 'Retry; if it persists, report the `requestId` (it matches the `x-request-id` header and the server log).',
  },

  'svc.auth.unauthorized': {
    when: 'The caller has no valid session. The emulator answers it on the control plane and the console routes when it was started with an admin token and the request does not carry it.',
    fix: "Send `Authorization: Bearer <admin token>` to the emulator's control plane and console routes.",
  },
  'svc.auth.forbidden': {
    when: "The caller is known but may not do this: a signed file URL that is forged or expired, or a control-plane request from another site's page or an unexpected Host.",
    fix: 'Ask for a fresh file URL (they last about 15 minutes). Call the control plane from a script or the command line on an allowed host, not from a web page.',
  },
  'svc.auth.invalid_credentials': {
    when: 'The email or the password is wrong; both get the same answer.',
    fix: 'Check both and sign in again.',
    notServed: SESSIONS,
  },
  'svc.auth.email_taken': { when: 'The address already has an account.', fix: 'Sign in instead, or use another address.', notServed: SESSIONS },
  'svc.auth.weak_password': { when: 'The password was rejected as too weak.', fix: 'Choose a longer, less common password.', notServed: SESSIONS },
  'svc.auth.email_not_verified': {
    when: 'The address has not been verified yet.',
    fix: 'Follow the verification link sent to the address first.',
    notServed: SESSIONS,
  },
  'svc.auth.token_invalid': { when: 'A verification, reset or invitation link is invalid or expired.', fix: 'Ask for a new link.', notServed: SESSIONS },
  'svc.auth.account_locked': { when: 'Too many failed sign-in attempts.', fix: 'Wait, then try again.', notServed: SESSIONS },
  'svc.auth.csrf_failed': {
    when: 'A mutation came without the `x-csrf-token` header, or with a wrong value.',
    fix: 'Send the CSRF token of the session in `x-csrf-token`.',
    notServed: SESSIONS,
  },
  'svc.auth.oauth_failed': {
    when: 'Social sign-in failed; the answer is the same whatever went wrong.',
    fix: 'Start the social sign-in again.',
    notServed: SESSIONS,
  },
  'svc.auth.provider_unavailable': { when: 'The identity provider is unreachable.', fix: 'Retry later.', notServed: SESSIONS },

  'svc.api_key.invalid': {
    when: 'The API key is missing, malformed, has a bad checksum, is unknown, revoked or expired. All of these get the same answer on purpose.',
    fix: 'Send `Authorization: Bearer svc_<env>_...` with an active key. Create one with `POST /_emulator/workspaces` or `POST /workspaces/{id}/keys`.',
  },
  'svc.api_key.scope_missing': {
    when: 'The key is valid but lacks the scope the call needs; `detail` names it. A write scope never implies the read scope. The check comes before any lookup.',
    fix: 'Use a key that has the scope, or create one with it.',
  },
  'svc.api_key.limit_reached': {
    when: 'The workspace already has two active keys.',
    fix: 'Revoke one (`DELETE /workspaces/{id}/keys/{keyId}`), then create the new key.',
  },
  'svc.site_key.invalid': { when: 'The site key does not resolve.', fix: 'Check the site key of the embed.', notServed: SITE_KEYS },
  'svc.site_key.origin_not_allowed': {
    when: 'The calling origin is not registered on that site key.',
    fix: 'Register the origin on the site key.',
    notServed: SITE_KEYS,
  },
  'svc.site_key.origin_invalid': {
    when: 'A registered origin could never work as a frame ancestor; `errors` names the value.',
    fix: 'Register a full `https://host` origin.',
    notServed: SITE_KEYS,
  },
  'svc.oauth.unauthorized': {
    when: 'No valid OAuth token (401), or a consent or revocation call the session cannot make (403).',
    fix: 'Connect again to get a fresh token.',
    notServed: MCP,
  },
  'svc.oauth.insufficient_scope': {
    when: 'The connection holds none of the scopes the tool accepts.',
    fix: 'Connect again and grant the scope the tool needs.',
    notServed: MCP,
  },

  'svc.tenant.not_found': {
    when: 'No such workspace; a caller who is not a member gets the same answer.',
    fix: 'Check the workspace id (`ws_...`); `GET /v1/me` tells which workspace a key belongs to.',
  },
  'svc.tenant.slug_taken': { when: 'The workspace address is taken.', fix: 'Choose another address.', notServed: MEMBERS },
  'svc.tenant.not_member': {
    when: 'The caller is not a member of the workspace; the answer is the same as for a workspace that does not exist.',
    fix: 'Ask an owner for an invitation.',
    notServed: MEMBERS,
  },
  'svc.tenant.insufficient_role': {
    when: 'The caller is a member, but the action needs an admin or owner.',
    fix: 'Ask an admin or owner to do it.',
    notServed: MEMBERS,
  },
  'svc.tenant.last_owner': { when: 'The last owner cannot leave or be removed.', fix: 'Make another member owner first.', notServed: MEMBERS },
  'svc.tenant.member_not_found': { when: 'No such member.', fix: 'Check the member id.', notServed: MEMBERS },
  'svc.tenant.already_member': { when: 'The person is already a member.', fix: 'Nothing to do.', notServed: MEMBERS },
  'svc.invitation.invalid': { when: 'The invitation is missing, used or expired.', fix: 'Ask for a new invitation.', notServed: MEMBERS },
  'svc.invitation.email_mismatch': { when: 'The invitation belongs to another address.', fix: 'Sign in with the invited address.', notServed: MEMBERS },
  'svc.tenant.context_missing': {
    when: 'An internal isolation guard failed closed.',
    fix: 'Report the `requestId`.',
    notServed: 'The emulator has no such guard to fail.',
  },
  'svc.tenant.scope_violation': {
    when: 'An internal isolation guard failed closed.',
    fix: 'Report the `requestId`.',
    notServed: 'The emulator has no such guard to fail.',
  },

  'svc.agent.not_found': {
    when: 'No agent with that id in the workspace of the key (an agent of another workspace is not found either).',
    fix: 'Check the id (`agt_...`); `GET /v1/agents` lists the agents of the workspace.',
  },
  'svc.agent.invalid': {
    when: 'The agent body breaks a rule: `name` 1..80 characters, `identity.businessName` 1..120, `identity.description` up to 2000. `errors` names the field.',
    fix: 'Correct the fields listed in `errors`.',
  },
  'svc.agent.in_use': {
    when: 'A page still answers with this agent, so it cannot be deleted. `errors` names each page (`pages.<pageId>`).',
    fix: 'Point those pages at another agent, or delete them, then delete the agent.',
  },

  'svc.project.not_found': {
    when: 'No site (project) with that id in the workspace of the key, also for a site of another workspace.',
    fix: 'Check the id (`prj_...`); `GET /v1/projects` lists the sites.',
  },
  'svc.project.invalid': {
    when: 'The project body breaks a rule (name 1..80, slug letters a-z, digits and hyphens up to 40, one or two locales...). `errors` names the field.',
    fix: 'Correct the fields listed in `errors`.',
  },
  'svc.project.slug_taken': {
    when: 'The slug is global and another site holds it, or it was retired by another workspace. `errors[0].suggestion` carries a free neighbour.',
    fix: 'Use the suggested slug, or choose another.',
  },
  'svc.project.slug_reserved': { when: 'The slug is a name the platform owns (such as `www` or `api`); it can never be granted.', fix: 'Choose another slug.' },
  'svc.host.taken': { when: 'The domain is already connected to another site.', fix: 'Disconnect it there first.', notServed: DOMAINS },
  'svc.host.invalid': { when: 'The name cannot be connected as a custom domain.', fix: 'Use a full domain name you own.', notServed: DOMAINS },
  'svc.host.site_has_no_home': {
    when: 'A domain serves a site at its root, and this site has no page at `/`.',
    fix: 'Create and publish the `/` page first.',
    notServed: DOMAINS,
  },
  'svc.host.edge_unavailable': { when: 'The CDN is unreachable; nothing changed.', fix: 'Retry.', notServed: DOMAINS },
  'svc.host.not_found': {
    when: 'A hosted site answered for an unknown host, an unpublished page or a suspended workspace: one answer for all of them.',
    fix: 'Check the address (`http://<slug>.localhost:<port>/<path>`) and that the page is published (`POST /v1/pages/{id}/publish`).',
  },

  'svc.page.not_found': {
    when: 'No page with that id in the workspace of the key.',
    fix: 'Check the id (`pg_...`); `GET /v1/projects/{id}/pages` lists the pages of a site.',
  },
  'svc.page.invalid': {
    when: "The page body breaks a rule (a path of at most 4 segments, name 1..80, texts in the site's languages...). `errors` names the field.",
    fix: 'Correct the fields listed in `errors`.',
  },
  'svc.page.path_taken': { when: 'Another page of the same site has that path.', fix: 'Choose another path, or move the other page first.' },
  'svc.page.path_reserved': {
    when: 'The platform reserves the first segment of that path and its whole subtree (such as `/admin`, `/api` or `/docs`).',
    fix: 'Choose another path.',
  },
  'svc.page.root_required': {
    when: 'The `/` page cannot be unpublished, moved or deleted while other pages of the site are live.',
    fix: 'Unpublish the other pages first, or keep the `/` page.',
  },
  'svc.page.og_format_unsupported': {
    when: 'The social card image is not PNG, JPEG or WebP of readable size.',
    fix: 'Upload a PNG, JPEG or WebP image.',
    notServed: 'The emulated API has no social card upload.',
  },
  'svc.theme.invalid': {
    when: 'A theme token is outside the closed set; `errors` names the field.',
    fix: 'Use one of the values the OpenAPI description lists for that token.',
  },
  'svc.theme.retired': {
    when: 'Per-agent themes were removed: `GET` and `PATCH /v1/agents/{id}/theme` only answer this.',
    fix: 'Set the appearance on the project instead: `PATCH /v1/projects/{id}/theme` and the project brand.',
  },

  'svc.chat.agent_scope_conflict': {
    when: '`agentId` was sent in a chat body although the address already names who answers (`POST /v1/agents/{id}/chat`).',
    fix: 'Leave `agentId` out of the body.',
  },

  'svc.billing.limit_reached': {
    when: 'The plan cap of a countable item is reached; `errors[0].field` names it (`projects`, `agents`, `pages`, `knowledgeDocuments`, `customDomains`, `seats`). Retrying does not help.',
    fix: 'Delete something of that kind, or raise the cap: in the emulator, `PATCH /_emulator/workspaces/{id}` with `caps`.',
  },
  'svc.billing.not_configured': { when: 'The deployment cannot sell that plan.', fix: 'Choose another plan.', notServed: BILLING },
  'svc.billing.no_subscription': { when: 'There is no subscription to cancel or change.', fix: 'Subscribe first.', notServed: BILLING },
  'svc.billing.provider_unavailable': { when: 'The payment provider is unreachable.', fix: 'Retry later.', notServed: BILLING },
  'svc.billing.plan_invalid': { when: 'The named plan does not exist.', fix: 'Use one of the published plans.', notServed: BILLING },
  'svc.billing.signature_invalid': {
    when: 'A payment webhook failed its signature check; the answer never says which check.',
    fix: 'Check the webhook secret.',
    notServed: BILLING,
  },
  'svc.usage.quota_exhausted': {
    when: 'The workspace has spent its AI message credits, so a chat turn is refused before anything is spent. Hosted-site visitors get it earlier: they never spend the last 10% kept for the owner.',
    fix: 'Raise `credits` of an emulated workspace with `PATCH /_emulator/workspaces/{id}`; `GET /v1/usage` shows what is left.',
  },
  'svc.usage.budget_exceeded': {
    when: 'The daily activity cap of the workspace is reached (every authenticated `/v1` request counts, per UTC day of the emulated clock). Unlike the rate limit it carries no `Retry-After`.',
    fix: 'Wait for the next UTC day (`POST /_emulator/clock` moves the emulated one), or raise `dailyActivityCap`.',
  },
  'svc.onboarding.invalid': {
    when: 'The onboarding request is invalid; `errors` names the field.',
    fix: 'Correct the fields listed in `errors`.',
    notServed: ONBOARDING,
  },

  'svc.knowledge.source_not_found': {
    when: 'No knowledge source with that id in the workspace of the key.',
    fix: 'Check the id (`src_...`); `GET /v1/knowledge/sources` lists them.',
  },
  'svc.knowledge.source_invalid': {
    when: 'A knowledge add breaks a rule: a title over 120 characters, text over 200,000, more than 12 topics, a URL that is not absolute or longer than 2048, an upload without a file. `errors` names the field.',
    fix: 'Correct the fields listed in `errors`.',
  },
  'svc.knowledge.format_unsupported': {
    when: 'The upload is in a format the pipeline cannot read. Text, Markdown, HTML, CSV, JSON and PDF are read.',
    fix: 'Convert the document to one of those formats.',
  },
  'svc.knowledge.url_not_allowed': {
    when: 'The URL cannot be crawled: a scheme other than http or https, a port other than 80, 443, 8080 or 8443, `localhost`, or a literal address in a blocked class. Deliberately vague.',
    fix: 'Use a public http or https address.',
  },
  'svc.knowledge.topic_not_found': {
    when: 'The topic is used by no source in that scope (the pool, or the agent given).',
    fix: 'Check the topic; `GET /v1/knowledge/topics` lists them with their counts.',
  },
  'svc.knowledge.topic_invalid': { when: 'The topic operation is invalid, such as merging a topic into itself.', fix: 'Merge into a different topic.' },

  'svc.asset.not_found': { when: 'No asset with that id in the workspace of the key.', fix: 'Check the id (`ast_...`).' },
  'svc.asset.invalid': { when: 'The asset body breaks a rule; `errors` names the field.', fix: 'Correct the fields listed in `errors`.' },
  'svc.asset.format_unsupported': {
    when: 'The bytes are not a readable image or video, whatever the file name or type says.',
    fix: 'Upload a PNG, JPEG, GIF, WebP or AVIF image, or an MP4 or WebM video.',
  },
  'svc.asset.id_taken': { when: 'Another asset on that page already uses this key.', fix: 'Choose another key, or replace the other asset.' },
  'svc.asset.video_too_long': { when: 'The video is longer than 60 seconds.', fix: 'Upload a video of at most 60 seconds.' },
  'svc.brand.not_found': { when: 'There is no brand file in that slot (`logo`, `logo-dark` or `favicon`).', fix: 'Upload a file to the slot first.' },
  'svc.brand.invalid': {
    when: 'The brand body breaks a rule (navbar and footer links must stay on the site or be absolute https addresses...); `errors` names the field.',
    fix: 'Correct the fields listed in `errors`.',
  },
  'svc.brand.format_unsupported': {
    when: 'The slot does not accept that format; `errors` names the file.',
    fix: 'Upload PNG, JPEG, WebP or SVG (and ICO for the favicon).',
  },
  'svc.brand.svg_rejected': {
    when: 'The SVG carries scripts, event handlers or external references; `errors` names each reason and its line.',
    fix: 'Remove what `errors` lists, or export the image as PNG.',
  },
  'svc.resource.not_found': {
    when: 'No such route or method (under `/v1`, only for a caller with a valid key), or a resource without a code of its own, such as an unknown conversation.',
    fix: 'Check the method and the path against the OpenAPI description (`GET /v1/openapi.json`).',
  },
  'svc.resource.conflict': { when: 'The request conflicts with the current state of the resource.', fix: 'Read the resource again, then retry the change.' },
};

/** The registry entry and the reference text of a code, as the error pages show them. */
export function describeErrorCode(code: ErrorCode) {
  const { status, title } = ERROR_CODES[code];
  return { code, status, title, ...ERROR_DOCS[code] };
}
