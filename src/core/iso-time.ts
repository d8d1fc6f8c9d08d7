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
