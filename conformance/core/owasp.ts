/**
 * The OWASP API Security Top 10 (2023) categories the suite's rules fall under. Each rule names its
 * own; the security view of a report is derived from those names and the rules' verdicts alone.
 */
export const OWASP_CATEGORIES = {
  'API1:2023': 'Broken Object Level Authorization',
  'API2:2023': 'Broken Authentication',
  'API3:2023': 'Broken Object Property Level Authorization',
  'API4:2023': 'Unrestricted Resource Consumption',
  'API5:2023': 'Broken Function Level Authorization',
  'API8:2023': 'Security Misconfiguration',
  'API9:2023': 'Improper Inventory Management',
} as const;

export type OwaspCategory = keyof typeof OWASP_CATEGORIES;
