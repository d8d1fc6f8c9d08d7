/**
 * `new Date(ms).toISOString()` for the times the services answer, about three times as fast (~160 ns
 * against ~490 ns on the development machine): the bookmark answers carry two, a device list forty. The
 * civil date comes from the day count by Howard Hinnant's `civil_from_days`; times outside years
 * 0000–9999 (which toISOString writes with a sign and six digits) and non-integers go to Date itself.
 */
const MAX_FOUR_DIGIT_YEAR_MS = 253402300800000; // 10000-01-01T00:00:00.000Z
const MIN_FOUR_DIGIT_YEAR_MS = -62167219200000; // 0000-01-01T00:00:00.000Z
const DAY_MS = 86_400_000;

const two = (value: number) => (value < 10 ? `0${value}` : `${value}`);
const three = (value: number) => (value < 10 ? `00${value}` : value < 100 ? `0${value}` : `${value}`);
const four = (value: number) => (value < 1000 ? `000${value}`.slice(-4) : `${value}`);

export function isoTime(ms: number): string {
  if (!Number.isInteger(ms) || ms < MIN_FOUR_DIGIT_YEAR_MS || ms >= MAX_FOUR_DIGIT_YEAR_MS) {
    return new Date(ms).toISOString();
  }
  const days = Math.floor(ms / DAY_MS);
  let rest = ms - days * DAY_MS;
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra -
      Math.floor(dayOfEra / 1460) +
      Math.floor(dayOfEra / 36_524) -
      Math.floor(dayOfEra / 146_096)) /
      365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthIndex = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthIndex + 2) / 5) + 1;
  const month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = Math.floor(rest / 1000);
  return `${four(year)}-${two(month)}-${two(day)}T${two(hours)}:${two(minutes)}:${two(seconds)}.${three(rest - seconds * 1000)}Z`;
}

/** RFC 3339 `date-time`, as ajv-formats reads it: `T` or a space, any fraction, `Z` or an offset. */
const RFC_3339 = /^(\d{4})-(\d\d)-(\d\d)[Tt ](\d\d):(\d\d):(\d\d)(?:\.\d+)?(?:[Zz]|[+-](\d\d):?(\d\d))$/;
const MONTH_DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

const isLeapYear = (year: number) => year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);

/**
 * The instant of an RFC 3339 date-time that JavaScript holds exactly, in ms (a fraction beyond the
 * millisecond is cut, as Date does); undefined for anything else: a leap second (Date has none), a day
 * the month lacks, hour 24, an offset without its minutes, a year Date cannot reach.
 */
export function exactTime(text: string): number | undefined {
  const fields = RFC_3339.exec(text);
  if (fields === null) return undefined;
  // Every field but the offset's is there when the pattern matches; an absent offset (Z) is 0.
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, offsetHours = 0, offsetMinutes = 0] =
    fields.slice(1).map((field) => Number(field ?? 0));
  const monthDays = month === 2 && isLeapYear(year) ? 29 : MONTH_DAYS[month - 1];
  if (monthDays === undefined || day < 1 || day > monthDays) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : undefined;
}
