/**
 * What anonymous visitors of the hosted pages' chat may do (decisions, D-111 to D-115): how
 * many turns one visitor may open per window on one workspace's sites, and the share of
 * a workspace's credits kept for its owner, which visitors' turns never spend.
 */
export interface SiteChatLimits {
  /** Turns one visitor may open per window on one workspace's sites. Default 10. */
  visitorTurns: number;
  /** Default 60 seconds. */
  visitorWindowSeconds: number;
  /** Of the workspace's credits (0 to 1), rounded up. Default 0.1. */
  ownerReserveShare: number;
  /** At least this many credits are kept (never more than the workspace has). Default 1. */
  ownerReserveMin: number;
  /**
   * Behind a reverse proxy you trust: the visitor is the last address of
   * `X-Forwarded-For` (the one that proxy added). Off by default: anyone can send it.
   */
  trustForwardedFor: boolean;
}

export const DEFAULT_SITE_CHAT: SiteChatLimits = {
  visitorTurns: 10,
  visitorWindowSeconds: 60,
  ownerReserveShare: 0.1,
  ownerReserveMin: 1,
  trustForwardedFor: false,
};

/** The site chat limits in force: the defaults with `given` over them, checked. */
export function siteChatLimits(given: Partial<SiteChatLimits> = {}): SiteChatLimits {
  const limits = { ...DEFAULT_SITE_CHAT, ...given };
  const whole = (n: number, min: number) => Number.isInteger(n) && n >= min;
  if (!whole(limits.visitorTurns, 1) || !whole(limits.visitorWindowSeconds, 1) || !whole(limits.ownerReserveMin, 0)) {
    throw new TypeError('siteChat: visitorTurns and visitorWindowSeconds must be whole numbers from 1, ownerReserveMin from 0');
  }
  if (!(limits.ownerReserveShare >= 0 && limits.ownerReserveShare <= 1)) throw new TypeError('siteChat: ownerReserveShare must be from 0 to 1');
  return limits;
}
