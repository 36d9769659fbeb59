/**
 * Whether a channel URL has the form its kind's service gives out, judged from the host (and for Slack and the
 * retired Office 365 connectors, the path's first segment) without posting: `pulse doctor` cannot post to find out,
 * a post would put a message in the channel. A form Pulse can still post to is a warning (a Slack Enterprise Grid
 * host, an egress proxy, a local stand-in); only a URL that can no longer work fails. The judgement names no part of
 * the URL: its path and query are the credential, and the caller names the host alone.
 */
import { isLoopbackHost } from '../client/loopback-host.ts';
import type { ChannelKind } from '../ports/channels.ts';

export type UrlForm = { status: 'ok' } | { status: 'warn' | 'fail'; why: string };

/** Incoming webhooks (`/services/…`) and workflow triggers (`/triggers/…`), on Slack and GovSlack. */
const SLACK_HOSTS = ['hooks.slack.com', 'hooks.slack-gov.com'];
const SLACK_PATHS = ['/services/', '/triggers/'];
/** Teams Workflows webhooks: Logic Apps hosts and Power Platform's newer `*.environment.api.powerplatform.com`. */
const WORKFLOWS_HOST_SUFFIXES = ['.logic.azure.com', '.powerplatform.com'];

const SERVICE: Record<ChannelKind, string> = { slack: 'Slack', teams: 'Teams', webhook: 'a webhook receiver' };

export const RETIRED_CONNECTOR =
  'an Office 365 connector URL: Microsoft retired those connectors, they post nothing; create a Workflows webhook in ' +
  'Teams (the "Post to a channel when a webhook request is received" template) and put its URL in the secret';

export function urlForm(kind: ChannelKind, url: URL): UrlForm {
  if (isRetiredConnector(url)) return { status: 'fail', why: RETIRED_CONNECTOR };
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) {
    return { status: 'warn', why: `plain http to a loopback host: a local stand-in, not ${SERVICE[kind]}` };
  }
  const host = url.hostname.toLowerCase();
  if (kind === 'slack') {
    if (!SLACK_HOSTS.includes(host)) {
      return {
        status: 'warn',
        why: 'not hooks.slack.com: right for an Enterprise Grid host or an egress proxy, otherwise check the URL',
      };
    }
    if (!SLACK_PATHS.some((p) => url.pathname.startsWith(p))) {
      return {
        status: 'warn',
        why: 'not an incoming webhook (/services/…) or workflow trigger (/triggers/…) of hooks.slack.com',
      };
    }
  }
  if (kind === 'teams' && !WORKFLOWS_HOST_SUFFIXES.some((s) => host.endsWith(s))) {
    return {
      status: 'warn',
      why: 'not a Teams Workflows host (*.logic.azure.com, *.powerplatform.com): fine for a proxy, else check the URL',
    };
  }
  return { status: 'ok' };
}

/** `<tenant>.webhook.office.com/webhookb2/…` and the older `outlook.office.com/webhook/…`. */
function isRetiredConnector(url: URL): boolean {
  const host = url.hostname.toLowerCase();
  if (host === 'webhook.office.com' || host.endsWith('.webhook.office.com')) return true;
  return ['outlook.office.com', 'outlook.office365.com'].includes(host) && /^\/webhook/i.test(url.pathname);
}
