/**
 * The property catalogue of `productProperties` (docs/interface.md "Product properties") and the value pools the
 * generator draws from. One table drives productProperties, filter/segment validation and the data generator, so they
 * cannot disagree.
 */
export type DataType = 'string' | 'number' | 'date' | 'boolean' | 'special';
export type FilterType = 'standard' | 'current' | 'special';

export interface PropertyDef {
  name: string;
  category: string;
  dataType: DataType;
  filterType: FilterType;
  friendlyName: string;
}

const def = (
  category: string,
  dataType: DataType,
  filterType: FilterType,
  entries: [string, string][],
): PropertyDef[] => entries.map(([name, friendlyName]) => ({ name, category, dataType, filterType, friendlyName }));

/** Built-in properties in catalogue order; custom properties C01–C20 are appended per product. */
export const BUILT_IN_PROPERTIES: readonly PropertyDef[] = [
  ...def('Product', 'string', 'standard', [
    ['prodVersion', 'Version'],
    ['prodEdition', 'Edition'],
    ['prodBuild', 'Build'],
    ['prodLanguage', 'Product Language'],
  ]),
  ...def('License', 'string', 'standard', [['licenseType', 'License Type']]),
  ...def('License', 'string', 'current', [['licenseKey', 'License Key']]),
  ...def('License', 'special', 'special', [['licenseStatus', 'License Status']]),
  ...def('License', 'boolean', 'current', [
    ['licenseStatus.activated', 'Key Activated'],
    ['licenseStatus.allowed', 'Key Allowed'],
    ['licenseStatus.blocked', 'Key Blocked'],
    ['licenseStatus.expired', 'Key Expired'],
  ]),
  ...def('Client', 'string', 'current', [
    ['clientId', 'Client ID'],
    ['machineId', 'Machine ID'],
  ]),
  ...def('Client', 'date', 'current', [
    ['dateInstalled', 'Date Installed'],
    ['dateLastSeen', 'Date Last Seen'],
  ]),
  ...def('Client', 'number', 'current', [
    ['lifetimeRuntimeMinutes', 'Lifetime Runtime (minutes)'],
    ['lifetimeSessionCount', 'Lifetime Sessions'],
  ]),
  ...def('System', 'string', 'standard', [['osLanguage', 'OS Language']]),
  ...def('System', 'string', 'current', [
    ['osWordLength', 'OS Architecture'],
    ['cpuType', 'CPU Type'],
    ['formFactor', 'Computer Type'],
    ['dotNetVersion', '.NET Versions'],
    ['windowsFullBuild', 'Windows Build'],
    ['vm', 'Virtual Machine'],
    ['javaVersion', 'Java Version'],
    ['javaVendor', 'Java Vendor'],
    ['javaRuntime', 'Java Runtime Version'],
    ['javaGraphics', 'Java AWT Graphics Environment'],
    ['javaVmVersion', 'Java VM Version'],
    ['javaVmName', 'Java VM Name'],
  ]),
  ...def('System', 'number', 'standard', [
    ['cpuCores', 'CPU Cores'],
    ['ram', 'RAM (MB)'],
    ['displayCount', 'Number of Monitors'],
    ['resolutionWidth', 'Screen Width'],
    ['resolutionHeight', 'Screen Height'],
    ['screenPpi', 'Screen PPI'],
    ['javaVmRam', 'Java VM RAM (MB)'],
  ]),
  ...def('System', 'special', 'special', [
    ['os', 'Operating System'],
    ['gpu', 'GPU'],
  ]),
  ...def('Geography', 'special', 'special', [['geography', 'Geography']]),
  ...def('Privacy', 'special', 'special', [
    ['optOut', 'Opt-Out'],
    ['backOff', 'Back-Off'],
  ]),
  ...def('Usage', 'special', 'special', [
    ['lifetimeEventUsage', 'Lifetime Event Usage'],
    ['reachOutDeliveries', 'In-App Message Deliveries'],
  ]),
];

/**
 * Levels of the hierarchical special properties (docs/interface.md "Segments and levels"), stored as string columns
 * named `os.platform` etc.
 */
export const HIERARCHY_LEVELS: Readonly<Record<'os' | 'geography' | 'gpu', readonly string[]>> = {
  os: ['platform', 'version', 'edition'],
  geography: ['continent', 'country', 'usState'],
  gpu: ['vendor', 'model'],
};

export const LEVEL_PROPERTIES: readonly string[] = Object.entries(HIERARCHY_LEVELS).flatMap(([p, levels]) =>
  levels.map((l) => `${p}.${l}`),
);

export const CUSTOM_PROPERTY_IDS: readonly string[] = Array.from(
  { length: 20 },
  (_, i) => `C${String(i + 1).padStart(2, '0')}`,
);

/** Flags of `productProperties` (docs/interface.md "Product properties"). */
export function propertyFlags(p: PropertyDef): {
  supportsRegex: boolean;
  supportsMeta: boolean;
  supportsNull: boolean;
} {
  return {
    supportsRegex: p.dataType === 'string',
    supportsMeta: p.dataType === 'string' || p.name === 'os' || p.name === 'geography' || p.name === 'gpu',
    supportsNull: !['clientId', 'dateInstalled', 'dateLastSeen'].includes(p.name),
  };
}

export interface OsEntry {
  platform: string;
  version: string;
  shortName: string;
  editions: readonly string[];
  weight: number;
}

export const OS_CATALOGUE: readonly OsEntry[] = [
  {
    platform: 'Windows',
    version: 'Windows 11',
    shortName: 'Win11',
    editions: ['Home', 'Pro', 'Enterprise'],
    weight: 40,
  },
  {
    platform: 'Windows',
    version: 'Windows 10',
    shortName: 'Win10',
    editions: ['Home', 'Pro', 'Enterprise'],
    weight: 30,
  },
  {
    platform: 'Windows',
    version: 'Windows Server 2022',
    shortName: 'WS2022',
    editions: ['Standard', 'Datacenter'],
    weight: 3,
  },
  { platform: 'macOS', version: 'macOS 15', shortName: 'mac15', editions: [''], weight: 9 },
  { platform: 'macOS', version: 'macOS 14', shortName: 'mac14', editions: [''], weight: 6 },
  { platform: 'Linux', version: 'Ubuntu 24.04', shortName: 'U2404', editions: ['Desktop', 'Server'], weight: 7 },
  { platform: 'Linux', version: 'Fedora 41', shortName: 'F41', editions: ['Workstation'], weight: 3 },
  { platform: 'Windows', version: 'Windows 8.1', shortName: 'Win81', editions: ['Core', 'Pro'], weight: 2 },
];

/** Countries with their continent; `usStates` only for US. Weights skew to a realistic customer base. */
export const GEOGRAPHY: readonly { continent: string; country: string; weight: number }[] = [
  { continent: 'NA', country: 'US', weight: 30 },
  { continent: 'NA', country: 'CA', weight: 5 },
  { continent: 'NA', country: 'MX', weight: 2 },
  { continent: 'EU', country: 'DE', weight: 10 },
  { continent: 'EU', country: 'GB', weight: 8 },
  { continent: 'EU', country: 'FR', weight: 6 },
  { continent: 'EU', country: 'NL', weight: 3 },
  { continent: 'EU', country: 'PL', weight: 3 },
  { continent: 'AS', country: 'JP', weight: 5 },
  { continent: 'AS', country: 'IN', weight: 6 },
  { continent: 'AS', country: 'CN', weight: 4 },
  { continent: 'OC', country: 'AU', weight: 3 },
  { continent: 'SA', country: 'BR', weight: 4 },
  { continent: 'SA', country: 'AR', weight: 1 },
  { continent: 'AF', country: 'ZA', weight: 1 },
  { continent: 'AF', country: 'NG', weight: 1 },
];

export const US_STATES: readonly string[] = ['US-CA', 'US-NY', 'US-TX', 'US-WA', 'US-FL', 'US-IL', 'US-MA', 'US-CO'];

/** Every known value for `getFullList` in `propertyValues`. */
export const FULL_LISTS: Readonly<Record<string, readonly string[]>> = {
  'os.platform': ['Linux', 'Windows', 'macOS'],
  'os.version': OS_CATALOGUE.map((o) => o.version),
  'os.edition': [...new Set(OS_CATALOGUE.flatMap((o) => o.editions).filter((e) => e !== ''))],
  osLanguage: ['de-DE', 'en-GB', 'en-US', 'es-ES', 'fr-FR', 'ja-JP', 'nl-NL', 'pl-PL', 'pt-BR', 'zh-CN'],
  'geography.continent': ['AF', 'AN', 'AS', 'EU', 'NA', 'OC', 'SA'],
  'geography.country': [
    ...new Set([...GEOGRAPHY.map((g) => g.country), 'AT', 'BE', 'CH', 'DK', 'ES', 'FI', 'IE', 'IT', 'KR', 'NZ']),
  ],
  'geography.usState': US_STATES,
};

export const GPUS: readonly { vendor: string; model: string; weight: number }[] = [
  { vendor: 'NVIDIA', model: 'GeForce RTX 4070', weight: 10 },
  { vendor: 'NVIDIA', model: 'GeForce RTX 3060', weight: 12 },
  { vendor: 'NVIDIA', model: 'Quadro P2000', weight: 4 },
  { vendor: 'AMD', model: 'Radeon RX 7800 XT', weight: 6 },
  { vendor: 'AMD', model: 'Radeon Pro W6600', weight: 3 },
  { vendor: 'Intel', model: 'UHD Graphics 770', weight: 18 },
  { vendor: 'Intel', model: 'Iris Xe Graphics', weight: 15 },
  { vendor: 'Apple', model: 'Apple M3', weight: 8 },
];

/**
 * Exception types the exception files report, in the order a line's hash picks them (payloads.ts); here so the
 * planted exception spike (episodes.ts) can name one without the data model importing the file families.
 */
export const EXCEPTION_TYPES: readonly string[] = [
  'java.lang.NullPointerException',
  'java.lang.ArrayIndexOutOfBoundsException',
  'System.IO.IOException',
  'System.InvalidOperationException',
  'TimeoutError',
];
