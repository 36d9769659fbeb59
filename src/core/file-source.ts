/** A spooled file handed to the archive store (the client data export, the license registry snapshot). */
import type { FileHandle } from 'node:fs/promises';
import type { ByteSource } from '../ports/archive-store.ts';

/** A file read from its current position straight into the store's buffers: nothing is allocated per read. */
export const fileSource = (file: FileHandle): ByteSource => ({
  readInto: async (into) => (await file.read(into, 0, into.byteLength, null)).bytesRead,
});
