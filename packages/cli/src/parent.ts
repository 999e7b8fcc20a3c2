/**
 * The process whose exit stops the long-running commands (`sandbox`, `listen`): the parent as the bin saw it first
 * thing, before the slow imports, so that a parent (npx, a shell) that exits while the command starts is noticed too.
 * Without a bin (tests calling main), the parent when this module loads.
 */
let parentPid = process.ppid;

/** Set by main() from what the bin read. */
export function setParentPid(pid: number): void {
  parentPid = pid;
}

export function startParentPid(): number {
  return parentPid;
}
