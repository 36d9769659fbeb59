/**
 * `pulse doctor --send-test CHANNEL --local`: the test message goes to the local channel sink (the one `pulse start`
 * runs; src/adapters/local/channel-sink.ts) writing into `<work dir>/outbox/channels/`, and only the sink is
 * started: a test message needs no emulator, table or bucket. The sink is loaded only here, as every `--local`
 * peer is (it needs the dev dependencies: load-local-runtime.ts). Its faults (`$PULSE_LOCAL_CHANNEL_FAULTS`) apply,
 * as in a local run. A work directory whose local peers are running is refused: two sinks numbering files in one
 * outbox would overwrite each other's.
 */
import { join } from 'node:path';
import { HttpChannelPoster } from '../adapters/http/channel-poster.ts';
import { WorkDirBusyError } from '../adapters/local/local-state-error.ts';
import { liveLockHolder } from '../adapters/local/work-dir.ts';
import { loadLocalRuntime } from '../app/load-local-runtime.ts';
import { localChannelFaults } from '../app/local-options.ts';
import type { Logger } from '../ports/logger.ts';
import type { SendTestTarget } from './send-test.ts';

type ChannelSinkModule = typeof import('../adapters/local/channel-sink.ts');

export async function startLocalSendTarget(
  workDir: string,
  env: Record<string, string | undefined>,
  logger: Logger,
): Promise<SendTestTarget & { close(): Promise<void> }> {
  const faults = localChannelFaults(env);
  await refuseBusyWorkDir(workDir);
  const { startChannelSink } = await loadLocalRuntime<ChannelSinkModule>(
    () => import('../adapters/local/channel-sink.ts'),
  );
  const sink = await startChannelSink({
    outboxDir: join(workDir, 'outbox'),
    logger,
    ...(faults ? { faults } : {}),
  });
  return {
    ports: { secrets: sink.secrets, poster: new HttpChannelPoster() },
    localSink: { host: new URL(sink.url).host, received: sink.received, idle: () => sink.idle() },
    close: () => sink.close(),
  };
}

/** The lock the local peers hold while they run (local-peers.ts): read only, the doctor takes none. */
async function refuseBusyWorkDir(workDir: string): Promise<void> {
  const pid = await liveLockHolder(workDir);
  if (pid !== undefined) {
    throw new WorkDirBusyError(
      `${workDir} is in use by local peers of process ${pid}; send the test once they stopped, ` +
        'or use another --work-dir',
    );
  }
}
