/** Where local runs keep their state; its own module so that the CLI can name it without loading the peers. */
export const DEFAULT_WORK_DIR = '.pulse';
