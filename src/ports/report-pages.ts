/**
 * Where a run's full report pages go when they are not (only) archived: locally, a folder beside the outbox, so the
 * email's "view in browser" link opens a file that is still there after the run (the local S3 is gone by then).
 */
export interface ReportPages {
  /** The link a reader opens for the page called `name` (written or not yet): a `file:` URL locally. */
  linkTo(name: string): string;
  /** Writes the page; returns where it is (a path locally). */
  write(name: string, html: string): Promise<string>;
}
