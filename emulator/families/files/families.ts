/**
 * The three line families behind the custom event, exception and raw event operations: their columns, file naming,
 * daily volume and payload cells. Everything else in this folder is written once against this description.
 */
import { EXCEPTION_TYPES } from '../../data/catalogue.ts';
import type { Day } from '../../data/dates.ts';
import type { ProductData } from '../../data/model.ts';
import { CLIENT_FIELDS } from './client-cells.ts';
import { customEventPayload, exceptionPayload, type Payload, rawEventIndex, rawEventPayload } from './payloads.ts';

export type FamilyId = 'customEvents' | 'exceptions' | 'rawEvents';

export interface Family {
  id: FamilyId;
  /** Between `<product_id>_` and the date in file names (docs/interface.md "File listings and names"). */
  nameTag: string;
  /** Raw exports have only finished daily files: no open-day file, no monthly files. */
  dailyOnly: boolean;
  /** `fieldNames` of the latest-lines response, keys in column order; also the CSV header. */
  fieldNames: Readonly<Record<string, string>>;
  keys: readonly string[];
  /** Mixed into the line hash so families differ on the same day. */
  salt: number;
  /** Lines per day ≈ clients / clientsPerLine, kept within [minPerDay, maxPerDay]. */
  clientsPerLine: number;
  minPerDay: number;
  maxPerDay: number;
  /** Share of days (in %) without any line, so listings have gaps. */
  quietDayPercent: number;
  /** Payload cells of a line by client i on `day`; undefined rejects the client for this line. */
  payload(pd: ProductData, i: number, day: Day, h: number): Payload | undefined;
  /** The planted spike on `day` (episodes.ts), or undefined on other days and for families without one. */
  spike?(pd: ProductData, day: Day): Spike | undefined;
}

/** A planted spike of one payload kind: day-lines.ts adds lines of that kind on the spike's days. */
export interface Spike {
  /** Lines whose hash % kinds is `kind` carry the spiking payload (the exception type EXCEPTION_TYPES[kind]). */
  kind: number;
  kinds: number;
  /** Lines of the kind on a spike day are about `factor` × its usual daily count, the median of the four weeks
   * before `startDay`. */
  factor: number;
  startDay: Day;
}

function exceptionSpike(pd: ProductData, day: Day): Spike | undefined {
  for (const ep of pd.episodes)
    if (ep.kind === 'exceptionSpike' && day >= ep.startDay && day <= ep.endDay)
      return {
        kind: EXCEPTION_TYPES.indexOf(ep.exceptionType),
        kinds: EXCEPTION_TYPES.length,
        factor: ep.factor,
        startDay: ep.startDay,
      };
  return undefined;
}

function fields(tail: readonly (readonly [string, string])[]) {
  const all = [...CLIENT_FIELDS, ...tail];
  return { fieldNames: Object.fromEntries(all), keys: all.map(([k]) => k) };
}

const EVENT_FIELDS = fields([
  ['event.category', 'Event Category'],
  ['event.name', 'Event Type'],
  ['event.data', 'Event Data'],
]);
const EXCEPTION_FIELDS = fields([
  ['exception.type', 'Exception Type'],
  ['exception.message', 'Exception Message'],
  ['exception.stackTrace', 'Stack Trace'],
]);

export const FAMILIES: Readonly<Record<FamilyId, Family>> = {
  customEvents: {
    id: 'customEvents',
    nameTag: 'cust_',
    dailyOnly: false,
    ...EVENT_FIELDS,
    salt: 0x43555354,
    clientsPerLine: 5,
    minPerDay: 20,
    maxPerDay: 300,
    quietDayPercent: 0,
    payload: (_pd, _i, _day, h) => customEventPayload(h),
  },
  exceptions: {
    id: 'exceptions',
    nameTag: 'exc_',
    dailyOnly: false,
    ...EXCEPTION_FIELDS,
    salt: 0x45584300,
    clientsPerLine: 40,
    minPerDay: 4,
    maxPerDay: 60,
    quietDayPercent: 8,
    payload: (_pd, _i, _day, h) => exceptionPayload(h),
    spike: exceptionSpike,
  },
  rawEvents: {
    id: 'rawEvents',
    nameTag: '',
    dailyOnly: true,
    ...EVENT_FIELDS,
    salt: 0x52415700,
    clientsPerLine: 3,
    minPerDay: 30,
    maxPerDay: 500,
    quietDayPercent: 0,
    payload: (pd, i, day, h) => {
      const e = rawEventIndex(pd, i, day, h);
      return e < 0 ? undefined : rawEventPayload(pd, e);
    },
  },
};

export function familyById(id: string): Family | undefined {
  return Object.hasOwn(FAMILIES, id) ? FAMILIES[id as FamilyId] : undefined;
}
