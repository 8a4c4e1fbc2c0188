/**
 * The dotenv lines `--print-credentials` prints, read back, and the six names
 * `../shared/CONTRACT.md` gives them, written out here as the contract does.
 */
export const CONTRACT_NAMES = [
  'CONFORMANCE_API_KEY',
  'CONFORMANCE_NO_SCOPE_KEY',
  'CONFORMANCE_OTHER_CAMPAIGN_KEY',
  'CONFORMANCE_REVOKED_KEY',
  'CONFORMANCE_EMPTY_CAMPAIGN_KEY',
  'CONFORMANCE_WEB_BASE_URL',
];

export function parseDotenv(text: string): Map<string, string> {
  return new Map(
    text
      .trimEnd()
      .split('\n')
      .map(
        (line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)] as [string, string],
      ),
  );
}
