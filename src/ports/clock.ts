/** Time port: jobs never call Date.now() themselves, so tests and previews can pin "now". */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export const fixedClock = (at: Date | string): Clock => {
  const d = new Date(at);
  return { now: () => new Date(d) };
};
