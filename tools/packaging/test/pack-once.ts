/**
 * One `npm pack` per workspace per test run, instead of one per test file (each pack builds the
 * workspace's bundles). As vitest's `globalSetup`, this makes a folder for the run and provides it
 * to the test files, which share the tarballs packed into it (`packedForRun`); the folder goes when
 * the run ends. Test files run in several worker processes, so they share through the file system.
 * The same goes for installing them as a QA pipeline would (`installedForRun`): the conformance
 * package builds SQLite's native binding, which is paid once. Run without this setup (another
 * config), each file packs and installs its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import type { TestProject } from 'vitest/node';
import { installedOnce, installTarballs, packedOnce, packWorkspace, scratchDir } from '../packed.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder this run's tarballs are packed into. */
    canvassingPackRun?: string;
  }
}

export default function setup(project: TestProject): () => void {
  const runFolder = mkdtempSync(join(tmpdir(), 'canvassing-pack-run-'));
  project.provide('canvassingPackRun', runFolder);
  return () => rmSync(runFolder, { recursive: true, force: true });
}

/** The tarball of `workspace` from this run's sources, packed once for the run. */
export function packedForRun(workspace: 'conformance' | 'sandbox'): Promise<string> {
  const runFolder = inject('canvassingPackRun');
  return runFolder ? packedOnce(workspace, runFolder) : packWorkspace(workspace, scratchDir('pack'));
}

/** A QA pipeline's project with `tarballs` installed, installed once for the run; a copy for each file. */
export function installedForRun(tarballs: string[]): Promise<string> {
  const runFolder = inject('canvassingPackRun');
  return runFolder ? installedOnce(tarballs, runFolder) : installTarballs(tarballs);
}
