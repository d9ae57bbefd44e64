/**
 * The one registry of problem codes. Every `svc.*` code that API.md lists lives here
 * with its HTTP status, its stable English title and a default `detail` in English and
 * Spanish. Nothing else in the code base decides a status or a title.
 */
interface CodeSpec {
  status: number;
  title: string;
  en: string;
  es: string;
}

const define = <T extends Record<string, CodeSpec>>(codes: T) => codes;

export const ERROR_CODES = define({
  // Request and transport
  'svc.request.invalid': { status: 400, title: 'Malformed request', en: 'The request could not be read.', es: 'No se pudo leer la solicitud.' },
  'svc.request.validation_failed': { status: 400, title: 'Validation failed', en: 'One or more fields are invalid.', es: 'Uno o más campos no son válidos.' },
  'svc.request.payload_too_large': {
    status: 413,
    title: 'Payload too large',
    en: 'The request body exceeds the size limit of this route.',
    es: 'El cuerpo de la solicitud supera el límite de tamaño de esta ruta.',
  },
  'svc.request.unprocessable': {
    status: 422,
    title: 'Unprocessable request',
    en: 'The request is well formed but cannot be processed.',
    es: 'La solicitud es correcta pero no se puede procesar.',
  },
  'svc.rate_limit.exceeded': {
    status: 429,
    title: 'Rate limit exceeded',
    en: 'Too many requests for this key; retry after the window resets.',
    es: 'Demasiadas solicitudes para esta clave; reintente cuando se reinicie la ventana.',
  },
  'svc.idempotency.conflict': {
    status: 422,
    title: 'Idempotency conflict',
    en: 'This Idempotency-Key was already used with a different request.',
    es: 'Esta Idempotency-Key ya se usó con una solicitud distinta.',
  },
  'svc.service.unavailable': {
    status: 503,
    title: 'Service unavailable',
    en: 'A dependency is unavailable; retry later.',
    es: 'Una dependencia no está disponible; reintente más tarde.',
  },
  'svc.internal.error': { status: 500, title: 'Internal error', en: 'An unexpected error occurred.', es: 'Se produjo un error inesperado.' },

  // Authentication and session
  'svc.auth.unauthorized': { status: 401, title: 'Unauthorized', en: 'No valid session.', es: 'No hay una sesión válida.' },
  'svc.auth.forbidden': { status: 403, title: 'Forbidden', en: 'You are not allowed to do this.', es: 'No tiene permiso para hacer esto.' },
  'svc.auth.invalid_credentials': { status: 401, title: 'Invalid credentials', en: 'Wrong email or password.', es: 'Correo o contraseña incorrectos.' },
  'svc.auth.email_taken': { status: 409, title: 'Email taken', en: 'This address already has an account.', es: 'Esta dirección ya tiene una cuenta.' },
  'svc.auth.weak_password': { status: 422, title: 'Weak password', en: 'The password was rejected.', es: 'La contraseña fue rechazada.' },
  'svc.auth.email_not_verified': { status: 403, title: 'Email not verified', en: 'Verify the address first.', es: 'Verifique primero la dirección.' },
  'svc.auth.token_invalid': { status: 400, title: 'Invalid token', en: 'The link is invalid or expired.', es: 'El enlace no es válido o ha caducado.' },
  'svc.auth.account_locked': { status: 429, title: 'Account locked', en: 'Too many failed attempts.', es: 'Demasiados intentos fallidos.' },
  'svc.auth.csrf_failed': {
    status: 403,
    title: 'CSRF check failed',
    en: 'Missing or wrong x-csrf-token header.',
    es: 'Falta la cabecera x-csrf-token o su valor es incorrecto.',
  },
  'svc.auth.oauth_failed': { status: 400, title: 'Social sign-in failed', en: 'Social sign-in failed.', es: 'Falló el inicio de sesión social.' },
  'svc.auth.provider_unavailable': {
    status: 503,
    title: 'Identity provider unavailable',
    en: 'The identity provider is unreachable.',
    es: 'El proveedor de identidad no está disponible.',
  },

  // Credentials
  'svc.api_key.invalid': {
    status: 401,
    title: 'Invalid API key',
    en: 'The API key is missing, unknown, revoked or expired.',
    es: 'La clave de API falta, es desconocida, está revocada o ha caducado.',
  },
  'svc.api_key.scope_missing': {
    status: 403,
    title: 'Scope missing',
    en: 'The API key lacks the scope this call needs.',
    es: 'La clave de API no tiene el alcance que requiere esta llamada.',
  },
  'svc.api_key.limit_reached': {
    status: 409,
    title: 'API key limit reached',
    en: 'Two active keys already exist; revoke one first.',
    es: 'Ya existen dos claves activas; revoque una primero.',
  },
  'svc.site_key.invalid': { status: 401, title: 'Invalid site key', en: 'The site key does not resolve.', es: 'La clave de sitio no se resuelve.' },
  'svc.site_key.origin_not_allowed': {
    status: 403,
    title: 'Origin not allowed',
    en: 'The calling origin is not registered on this site key.',
    es: 'El origen no está registrado en esta clave de sitio.',
  },
  'svc.site_key.origin_invalid': {
    status: 422,
    title: 'Invalid origin',
    en: 'A registered origin could never work as a frame ancestor.',
    es: 'Un origen registrado nunca podría funcionar como ancestro de marco.',
  },
  'svc.oauth.unauthorized': { status: 401, title: 'OAuth unauthorized', en: 'No valid OAuth token.', es: 'No hay un token OAuth válido.' },
  'svc.oauth.insufficient_scope': {
    status: 403,
    title: 'Insufficient OAuth scope',
    en: 'The connection holds none of the scopes the tool accepts.',
    es: 'La conexión no tiene ninguno de los alcances que acepta la herramienta.',
  },

  // Workspaces and membership
  'svc.tenant.not_found': { status: 404, title: 'Workspace not found', en: 'No such workspace.', es: 'No existe ese espacio de trabajo.' },
  'svc.tenant.slug_taken': {
    status: 409,
    title: 'Workspace address taken',
    en: 'This workspace address is taken.',
    es: 'Esta dirección de espacio de trabajo está ocupada.',
  },
  'svc.tenant.not_member': { status: 404, title: 'Workspace not found', en: 'No such workspace.', es: 'No existe ese espacio de trabajo.' },
  'svc.tenant.insufficient_role': {
    status: 403,
    title: 'Insufficient role',
    en: 'An admin or owner role is required.',
    es: 'Se requiere el rol de administrador o propietario.',
  },
  'svc.tenant.last_owner': {
    status: 409,
    title: 'Last owner',
    en: 'The last owner cannot leave or be removed.',
    es: 'El último propietario no puede salir ni ser eliminado.',
  },
  'svc.tenant.member_not_found': { status: 404, title: 'Member not found', en: 'No such member.', es: 'No existe ese miembro.' },
  'svc.tenant.already_member': { status: 409, title: 'Already a member', en: 'Already a member.', es: 'Ya es miembro.' },
  'svc.invitation.invalid': {
    status: 400,
    title: 'Invalid invitation',
    en: 'The invitation is missing, used or expired.',
    es: 'La invitación falta, ya se usó o ha caducado.',
  },
  'svc.invitation.email_mismatch': {
    status: 403,
    title: 'Invitation email mismatch',
    en: 'The invitation belongs to another address.',
    es: 'La invitación pertenece a otra dirección.',
  },
  'svc.tenant.context_missing': {
    status: 500,
    title: 'Tenant context missing',
    en: 'An internal isolation guard failed; report the requestId.',
    es: 'Falló una protección interna de aislamiento; informe el requestId.',
  },
  'svc.tenant.scope_violation': {
    status: 500,
    title: 'Tenant scope violation',
    en: 'An internal isolation guard failed; report the requestId.',
    es: 'Falló una protección interna de aislamiento; informe el requestId.',
  },

  // Agents
  'svc.agent.not_found': {
    status: 404,
    title: 'Agent not found',
    en: 'No such agent in this workspace.',
    es: 'No existe ese agente en este espacio de trabajo.',
  },
  'svc.agent.invalid': { status: 400, title: 'Invalid agent', en: 'The agent payload is invalid.', es: 'Los datos del agente no son válidos.' },
  'svc.agent.in_use': { status: 409, title: 'Agent in use', en: 'A page still answers with this agent.', es: 'Una página todavía responde con este agente.' },

  // Projects and addresses
  'svc.project.not_found': {
    status: 404,
    title: 'Project not found',
    en: 'No such site in this workspace.',
    es: 'No existe ese sitio en este espacio de trabajo.',
  },
  'svc.project.invalid': { status: 400, title: 'Invalid project', en: 'The project payload is invalid.', es: 'Los datos del proyecto no son válidos.' },
  'svc.project.slug_taken': { status: 409, title: 'Slug taken', en: 'This address is held by someone else.', es: 'Esta dirección pertenece a otra persona.' },
  'svc.project.slug_reserved': {
    status: 409,
    title: 'Slug reserved',
    en: 'This address is reserved by the platform.',
    es: 'Esta dirección está reservada por la plataforma.',
  },
  'svc.host.taken': {
    status: 409,
    title: 'Host taken',
    en: 'This domain is already connected elsewhere.',
    es: 'Este dominio ya está conectado en otro lugar.',
  },
  'svc.host.invalid': { status: 400, title: 'Invalid host', en: 'This is not a connectable name.', es: 'Este no es un nombre conectable.' },
  'svc.host.site_has_no_home': {
    status: 409,
    title: 'Site has no home page',
    en: 'A site without a page at / cannot take a domain.',
    es: 'Un sitio sin página en / no puede tener un dominio.',
  },
  'svc.host.edge_unavailable': {
    status: 503,
    title: 'Edge unavailable',
    en: 'The CDN is unreachable; nothing changed; retry.',
    es: 'La CDN no está disponible; no se cambió nada; reintente.',
  },
  'svc.host.not_found': { status: 404, title: 'Host not found', en: 'Nothing is published at this address.', es: 'No hay nada publicado en esta dirección.' },

  // Pages and theme
  'svc.page.not_found': { status: 404, title: 'Page not found', en: 'No such page in this workspace.', es: 'No existe esa página en este espacio de trabajo.' },
  'svc.page.invalid': { status: 400, title: 'Invalid page', en: 'The page payload is invalid.', es: 'Los datos de la página no son válidos.' },
  'svc.page.path_taken': { status: 409, title: 'Path taken', en: 'Another page of this site has that path.', es: 'Otra página de este sitio tiene esa ruta.' },
  'svc.page.path_reserved': { status: 409, title: 'Path reserved', en: 'The platform reserves that path.', es: 'La plataforma reserva esa ruta.' },
  'svc.page.root_required': {
    status: 409,
    title: 'Root page required',
    en: 'The / page cannot be unpublished, moved or deleted while other pages of the site are live.',
    es: 'La página / no se puede despublicar, mover ni eliminar mientras otras páginas del sitio estén publicadas.',
  },
  'svc.page.og_format_unsupported': {
    status: 415,
    title: 'Social card format unsupported',
    en: 'The social card image must be PNG, JPEG or WebP of readable size.',
    es: 'La imagen de la tarjeta social debe ser PNG, JPEG o WebP de tamaño legible.',
  },
  'svc.theme.invalid': {
    status: 400,
    title: 'Invalid theme',
    en: 'A theme token is outside the closed set.',
    es: 'Un token del tema está fuera del conjunto permitido.',
  },
  'svc.theme.retired': {
    status: 410,
    title: 'Theme retired',
    en: 'Per-agent themes were removed; appearance belongs to the project brand.',
    es: 'Los temas por agente se eliminaron; la apariencia pertenece a la marca del proyecto.',
  },

  // Chat
  'svc.chat.agent_scope_conflict': {
    status: 400,
    title: 'Agent scope conflict',
    en: 'agentId is not accepted here: the locator already names who answers.',
    es: 'agentId no se acepta aquí: el localizador ya indica quién responde.',
  },

  // Plans, billing and usage
  'svc.billing.limit_reached': {
    status: 402,
    title: 'Plan limit reached',
    en: 'The plan cap for this item is reached; upgrade the plan.',
    es: 'Se alcanzó el límite del plan para este elemento; mejore el plan.',
  },
  'svc.billing.not_configured': {
    status: 503,
    title: 'Billing not configured',
    en: 'This deployment cannot sell that plan.',
    es: 'Este despliegue no puede vender ese plan.',
  },
  'svc.billing.no_subscription': {
    status: 409,
    title: 'No subscription',
    en: 'There is no subscription to cancel or change.',
    es: 'No hay ninguna suscripción que cancelar o cambiar.',
  },
  'svc.billing.provider_unavailable': {
    status: 502,
    title: 'Payment provider unavailable',
    en: 'The payment provider is unreachable.',
    es: 'El proveedor de pagos no está disponible.',
  },
  'svc.billing.plan_invalid': { status: 400, title: 'Invalid plan', en: 'The named plan does not exist.', es: 'El plan indicado no existe.' },
  'svc.billing.signature_invalid': {
    status: 400,
    title: 'Invalid signature',
    en: 'The webhook signature check failed.',
    es: 'Falló la comprobación de la firma del webhook.',
  },
  'svc.usage.quota_exhausted': {
    status: 402,
    title: 'Message quota exhausted',
    en: 'The workspace has spent its AI messages.',
    es: 'El espacio de trabajo agotó sus mensajes de IA.',
  },
  'svc.usage.budget_exceeded': {
    status: 429,
    title: 'Daily activity cap reached',
    en: 'The daily activity cap of this workspace is reached.',
    es: 'Se alcanzó el límite diario de actividad de este espacio de trabajo.',
  },
  'svc.onboarding.invalid': {
    status: 400,
    title: 'Invalid onboarding request',
    en: 'The onboarding request is invalid.',
    es: 'La solicitud de incorporación no es válida.',
  },

  // Knowledge
  'svc.knowledge.source_not_found': {
    status: 404,
    title: 'Source not found',
    en: 'No such knowledge source in this workspace.',
    es: 'No existe esa fuente de conocimiento en este espacio de trabajo.',
  },
  'svc.knowledge.source_invalid': {
    status: 400,
    title: 'Invalid source',
    en: 'The knowledge source payload is invalid.',
    es: 'Los datos de la fuente de conocimiento no son válidos.',
  },
  'svc.knowledge.format_unsupported': {
    status: 415,
    title: 'Format unsupported',
    en: 'The pipeline cannot read this document format.',
    es: 'El proceso no puede leer este formato de documento.',
  },
  'svc.knowledge.url_not_allowed': { status: 400, title: 'URL not allowed', en: 'This URL cannot be crawled.', es: 'Esta URL no se puede rastrear.' },
  'svc.knowledge.topic_not_found': { status: 404, title: 'Topic not found', en: 'No such topic in this scope.', es: 'No existe ese tema en este ámbito.' },
  'svc.knowledge.topic_invalid': {
    status: 400,
    title: 'Invalid topic operation',
    en: 'This topic operation is invalid.',
    es: 'Esta operación de temas no es válida.',
  },

  // Assets, brand and generic
  'svc.asset.not_found': {
    status: 404,
    title: 'Asset not found',
    en: 'No such asset in this workspace.',
    es: 'No existe ese recurso en este espacio de trabajo.',
  },
  'svc.asset.invalid': { status: 400, title: 'Invalid asset', en: 'The asset payload is invalid.', es: 'Los datos del recurso no son válidos.' },
  'svc.asset.format_unsupported': {
    status: 415,
    title: 'Asset format unsupported',
    en: 'The bytes are not a readable image or video.',
    es: 'Los bytes no son una imagen ni un vídeo legibles.',
  },
  'svc.asset.id_taken': {
    status: 409,
    title: 'Asset key taken',
    en: 'Another asset on that page already uses this key.',
    es: 'Otro recurso de esa página ya usa esta clave.',
  },
  'svc.asset.video_too_long': { status: 422, title: 'Video too long', en: 'The video is longer than 60 seconds.', es: 'El vídeo dura más de 60 segundos.' },
  'svc.brand.not_found': {
    status: 404,
    title: 'Brand file not found',
    en: 'There is no brand file in that slot.',
    es: 'No hay ningún archivo de marca en esa posición.',
  },
  'svc.brand.invalid': { status: 400, title: 'Invalid brand', en: 'The brand payload is invalid.', es: 'Los datos de la marca no son válidos.' },
  'svc.brand.format_unsupported': {
    status: 415,
    title: 'Brand format unsupported',
    en: 'This slot does not accept that format.',
    es: 'Esta posición no acepta ese formato.',
  },
  'svc.brand.svg_rejected': {
    status: 400,
    title: 'SVG rejected',
    en: 'The SVG carries scripts, handlers or external references.',
    es: 'El SVG contiene scripts, manejadores o referencias externas.',
  },
  'svc.resource.not_found': { status: 404, title: 'Not found', en: 'The route or resource does not exist.', es: 'La ruta o el recurso no existe.' },
  'svc.resource.conflict': {
    status: 409,
    title: 'Conflict',
    en: 'The request conflicts with the current state.',
    es: 'La solicitud entra en conflicto con el estado actual.',
  },
});

export type ErrorCode = keyof typeof ERROR_CODES;

/** Returns the registry entry of a code. */
export function getErrorSpec(code: ErrorCode): CodeSpec {
  return ERROR_CODES[code];
}

/** True when `value` is a registered problem code. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
