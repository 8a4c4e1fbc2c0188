/**
 * The partner files of a spec the sandbox serves with `--spec`: the Postman collection with its
 * environment and the `.http` file, made from that spec as the docs build makes the project's, so
 * every live operation of it is there; the server fills in its own address, keys and ids.
 */
import { loadSpec } from '../spec/contract.ts';
import { httpFileOf, postmanCollectionOf, postmanEnvironmentOf } from '../docs/partner-files.ts';
import type { PartnerFiles } from '../reference-server/config.ts';

export function partnerFilesOf(specPath: string): PartnerFiles {
  const doc = loadSpec(specPath);
  return {
    collection: `${JSON.stringify(postmanCollectionOf(doc), null, 2)}\n`,
    environment: `${JSON.stringify(postmanEnvironmentOf(doc), null, 2)}\n`,
    http: httpFileOf(doc),
  };
}
