/**
 * The ports of the archive's two Lambda steps (functions/archive-plan, functions/archive-copy): the archive (S3), the
 * run records and the ledger (DynamoDB), the channels a finished run is announced to, and the service, whose client and session are the container's (src/app/warm-client.ts). The
 * plan step adds the copy queue (its runtime.ts).
 */

import type { CopyStepPorts } from '../../archive/copy-step.ts';
import { ConfigError } from '../../config/load.ts';
import type { PulseConfig } from '../../config/schema.ts';
import { channelPortsFor } from '../channels.ts';
import { containerSession } from '../warm-client.ts';
import { type BasePorts, basePorts, type Env, perContainer } from './base.ts';
import { archiveStoreFor } from './s3-archive.ts';
import { archiveRunsFor, ledgerFor } from './state-table.ts';

export type ArchiveStepPorts = CopyStepPorts & BasePorts;

export function archiveStepPorts(config: PulseConfig, env: Env): ArchiveStepPorts {
  const archive = config.archive;
  if (!archive) throw new ConfigError('archive: required by the archive functions');
  const kept = perContainer(config, env, 'archive-steps', () => ({
    ...basePorts(config, env),
    archive: archiveStoreFor(archive),
    runs: archiveRunsFor(config, env),
    channels: channelPortsFor(basePorts(config, env).secrets, env),
  }));
  // Already the container's (and the one place that swaps it when a process talks to another service: tests).
  const warm = containerSession(JSON.stringify(config.service), kept.newClient, kept.logger);
  // A new ledger per invocation: its claims (the run's events to archive.channels) are this invocation's.
  return { ...kept, ledger: ledgerFor(config, env), client: warm.client, session: (fn) => warm.use(fn) };
}
