/**
 * Where a command writes its text: the process's own streams when it runs as a process, the text a
 * test collects when it runs in one. Every command with an in-process `main` takes one.
 */
export interface Output {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/** The process's standard output and error, as each command's entry hands them to its `main`. */
export const PROCESS_OUTPUT: Output = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};
