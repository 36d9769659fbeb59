/**
 * The copy step for one planned file, whichever process runs it: `runArchive` in-process (pulse archive, pulse
 * start, tests) or the copier function in AWS. An export file goes through `copyFile`, the product's client data
 * through `archiveClientData`. Never throws: whatever goes wrong becomes a failed outcome, so other copies go on
 * and the run's manifest reports it.
 */
import type { ReportingClient } from '../client/index.ts';
import type { ArchiveConfig } from '../config/schema.ts';
import type { ArchiveStore } from '../ports/archive-store.ts';
import type { Clock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';
import { archiveClientData } from './client-data.ts';
import { type CopyOutcome, copyFile } from './copy/copy-file.ts';
import type { PlannedFile } from './plan.ts';

export interface CopyStepPorts {
  client: ReportingClient;
  archive: ArchiveStore;
  clock: Clock;
  logger: Logger;
}

export async function copyPlannedFile(
  file: PlannedFile,
  archive: Pick<ArchiveConfig, 'clientProperties' | 'clientSource'>,
  ports: CopyStepPorts,
  onBytes?: (n: number) => void,
): Promise<CopyOutcome> {
  const deps = {
    client: ports.client,
    store: ports.archive,
    clock: ports.clock,
    logger: ports.logger,
    ...(onBytes ? { onBytes } : {}),
  };
  const { productId, fileName, fileDate, key } = file;
  try {
    if (file.kind === 'clientData') {
      return await archiveClientData(
        { productId, fileName, fileDate, key, properties: archive.clientProperties, source: archive.clientSource },
        deps,
      );
    }
    return await copyFile({ productId, kind: file.kind, fileName, fileDate, key }, deps);
  } catch (e) {
    return { outcome: 'failed', key, reason: `${(e as Error).name}: ${(e as Error).message}`, attempts: 0 };
  }
}
