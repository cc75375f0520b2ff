/**
 * Markets (metro areas) and US DMAs (Nielsen designated market areas).
 *
 * Market row: `[id, English name, aliases?]`; ids are `ISO numeric of the
 * country * 1000 + 500 + n`, n fixed per metro and written out literally
 * (New York 840501), so they sit apart from the region ids of the same
 * country (`* 1000 + 1..99`). Markets hang off their country, not a region:
 * many metros cross region borders, and the expanded entry of a market has no
 * region code (spec: Expanded location entry).
 *
 * DMA row: `[Nielsen DMA code, English name, region code of the principal
 * city]`; the id is `10_000_000 + the DMA code` (New York 501 -> 10000501),
 * which no country, region or market id can reach.
 */
export type MarketRow = readonly [id: number, name: string, aliases?: readonly string[]];
export type DmaRow = readonly [dmaCode: number, name: string, regionCode: string];

export const DMA_ID_BASE = 10_000_000;

export const MARKET_ROWS: Readonly<Record<'US' | 'CA' | 'GB' | 'DE', readonly MarketRow[]>> = {
  US: [
    [840501, 'New York', ['New York City', 'NYC']],
    [840502, 'Los Angeles', ['LA']],
    [840503, 'Chicago'],
    [840504, 'Dallas-Fort Worth', ['DFW']],
    [840505, 'Houston'],
    [840506, 'Washington DC', ['Washington D.C.']],
    [840507, 'Philadelphia'],
    [840508, 'Miami'],
    [840509, 'Atlanta'],
    [840510, 'Boston'],
    [840511, 'Phoenix'],
    [840512, 'San Francisco', ['Bay Area', 'San Jose', 'Oakland']],
    [840513, 'Seattle'],
    [840514, 'Detroit'],
    [840515, 'Minneapolis-Saint Paul', ['Twin Cities']],
    [840516, 'San Diego'],
    [840517, 'Denver'],
  ],
  CA: [
    [124501, 'Toronto'],
    [124502, 'Montreal', ['Montréal']],
    [124503, 'Vancouver'],
    [124504, 'Calgary'],
    [124505, 'Edmonton'],
    [124506, 'Ottawa-Gatineau', ['Ottawa']],
  ],
  GB: [
    [826501, 'London'],
    [826502, 'Manchester'],
    [826503, 'Birmingham'],
    [826504, 'Glasgow'],
    [826505, 'Edinburgh'],
    [826506, 'Leeds'],
    [826507, 'Liverpool'],
    [826508, 'Bristol'],
    [826509, 'Cardiff'],
    [826510, 'Belfast'],
  ],
  DE: [
    [276501, 'Berlin'],
    [276502, 'Hamburg'],
    [276503, 'Munich', ['München']],
    [276504, 'Cologne', ['Köln']],
    [276505, 'Frankfurt', ['Frankfurt am Main']],
    [276506, 'Stuttgart'],
    [276507, 'Düsseldorf'],
    [276508, 'Leipzig'],
    [276509, 'Ruhr', ['Ruhrgebiet', 'Dortmund', 'Essen']],
  ],
};

export const US_DMA_ROWS: readonly DmaRow[] = [
  [501, 'New York', 'NY'],
  [803, 'Los Angeles', 'CA'],
  [602, 'Chicago', 'IL'],
  [504, 'Philadelphia', 'PA'],
  [623, 'Dallas-Fort Worth', 'TX'],
  [807, 'San Francisco-Oakland-San Jose', 'CA'],
  [506, 'Boston', 'MA'],
  [511, 'Washington DC', 'DC'],
  [524, 'Atlanta', 'GA'],
  [618, 'Houston', 'TX'],
  [505, 'Detroit', 'MI'],
  [819, 'Seattle-Tacoma', 'WA'],
  [753, 'Phoenix', 'AZ'],
  [539, 'Tampa-St. Petersburg', 'FL'],
  [613, 'Minneapolis-St. Paul', 'MN'],
  [751, 'Denver', 'CO'],
  [528, 'Miami-Fort Lauderdale', 'FL'],
  [534, 'Orlando-Daytona Beach-Melbourne', 'FL'],
  [825, 'San Diego', 'CA'],
  [508, 'Pittsburgh', 'PA'],
];
